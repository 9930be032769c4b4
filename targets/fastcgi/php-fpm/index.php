<?php
// Answers /plaintext behind the nginx front; nginx sends every request here.
if ($_SERVER['REQUEST_URI'] === '/plaintext') {
    header('Content-Type: text/plain; charset=utf-8');
    echo 'Hello, World!';
} else {
    http_response_code(404);
}
