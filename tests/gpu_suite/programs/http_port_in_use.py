"""A second HTTP server on the port the first one holds."""

import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port = int(os.environ["SERVER_PORT"])
first = ThreadingHTTPServer(("127.0.0.1", port), BaseHTTPRequestHandler)
print(f"metrics server on {port}", flush=True)
second = ThreadingHTTPServer(("127.0.0.1", port), BaseHTTPRequestHandler)
