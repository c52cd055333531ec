"""A gRPC server binds a port another process already listens on."""

import os
import socket
from concurrent import futures

import grpc

port = int(os.environ["SERVER_PORT"])
holder = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
holder.bind(("::", port))
holder.listen()
server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
server.add_insecure_port(f"[::]:{port}")
server.start()
print(f"gRPC server listening on {port}", flush=True)
