"""An OpenAI-compatible front end (a plain ASGI app under uvicorn) on a port another process holds."""

import os
import socket

import uvicorn

port = int(os.environ["SERVER_PORT"])
holder = socket.socket()
holder.bind(("127.0.0.1", port))
holder.listen()


async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


uvicorn.run(app, host="127.0.0.1", port=port)
