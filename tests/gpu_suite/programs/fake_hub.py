"""A local stand-in for the Hugging Face Hub that answers every file or API request with one error.

HUB_MODE picks the answer the real Hub gives in that case: `repo-not-found` (401, X-Error-Code
RepoNotFound), `gated` (401, X-Error-Code GatedRepo) or `rate-limited` (429). /health answers 200.
"""

import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = os.environ["HUB_MODE"]
ANSWERS = {
    "repo-not-found": (401, {"X-Error-Code": "RepoNotFound", "X-Error-Message": "Repository not found"}),
    "gated": (
        401,
        {
            "X-Error-Code": "GatedRepo",
            "X-Error-Message": "Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have "
            "access to it and be authenticated to access it. Please log in.",
        },
    ),
    "rate-limited": (
        429,
        {"RateLimit": '"resolvers";r=0;t=2', "RateLimit-Policy": '"fixed window";"resolvers";q=3000;w=300'},
    ),
}


class Handler(BaseHTTPRequestHandler):
    def answer(self, with_body: bool) -> None:
        if self.path == "/health":
            self.send_response(200)
            self.end_headers()
            return
        status, headers = ANSWERS[MODE]
        body = b'{"error":"' + headers.get("X-Error-Message", "Too Many Requests").encode() + b'"}'
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("X-Request-Id", "Root=1-6750a1b2-3c4d5e6f7a8b9c0d1e2f3a4b")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.answer(with_body=False)

    def do_GET(self) -> None:
        self.answer(with_body=True)

    def log_message(self, format: str, *args: object) -> None:
        pass


ThreadingHTTPServer(("127.0.0.1", int(os.environ["SERVER_PORT"])), Handler).serve_forever()
