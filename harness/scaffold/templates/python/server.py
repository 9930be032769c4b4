"""The {{.Name}} target: answers the harness's plaintext and json scenarios
with Python's standard library, a thread per connection, keep-alive on."""

import json
import os
import platform
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HELLO = b"Hello, World!"


class Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: connections opened at once
    # beyond it are dropped and retried, and the load generator waits on them.
    request_queue_size = 1024
    daemon_threads = True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the load generator expects
    disable_nagle_algorithm = True  # TCP_NODELAY: an answer is not held back for an ACK
    server_version = "{{.Name}}"
    sys_version = ""

    def do_GET(self):
        if self.path == "/plaintext":
            self.answer(200, "text/plain; charset=utf-8", HELLO)
        elif self.path == "/json":
            self.answer(200, "application/json", json.dumps({"message": "Hello, World!"}).encode())
        else:
            self.answer(404, "text/plain", b"not found")

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # no line per request: logging is a variant to measure, not a default


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "8080"))  # set by the harness
    server = Server(("", port), Handler)
    # The harness records the runtime from this line.
    print(f"runtime: python {platform.python_version()}", flush=True)
    server.serve_forever()
