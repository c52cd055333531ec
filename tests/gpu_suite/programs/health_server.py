"""A tiny HTTP server that answers /health and a completion, like an OpenAI-compatible server."""

import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def do_POST(self) -> None:
        body = json.dumps({"id": "cmpl-1", "object": "text_completion", "error": None}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        print(format % args, flush=True)


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["SERVER_PORT"])), Handler)
print("INFO: Application startup complete.", flush=True)
server.serve_forever()
