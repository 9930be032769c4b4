"""A test-only target as third parties write them with Python's standard
library, left as they leave it: socketserver's listen backlog of 5, and an
answer to an HTTP/1.0 keep-alive request that keeps the connection open
without a Keep-Alive header (ab -k then waits for a close that never
comes). The harness must measure it under every generator, or say why not,
and never hang on it or blame it for a generator's hang."""

import os
import platform
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HELLO = b"Hello, World!"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(HELLO)))
        self.end_headers()
        self.wfile.write(HELLO)

    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("", int(os.environ.get("PORT", "8080"))), Handler)
    server.daemon_threads = True
    print(f"runtime: python {platform.python_version()}", flush=True)
    server.serve_forever()
