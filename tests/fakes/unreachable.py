"""Hosts that cannot be reached, on 127.0.0.1: a refused port, a host that never answers, one that drops SYNs.

Each is real: a client sees exactly what it would see from a dead service (ECONNREFUSED, a read timeout,
a connect timeout), with no monkeypatching.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@contextmanager
def refused_url() -> Iterator[str]:
    """A URL whose port is reserved but not listening: every connection is refused (and no one can take it)."""
    with socket.socket() as reserved:
        reserved.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{reserved.getsockname()[1]}"


@dataclass
class SilentHost:
    """Accepts every connection and never answers; `connections` counts them (one per try)."""

    url: str
    connections: int = 0
    held: list[socket.socket] = field(default_factory=list)


@contextmanager
def silent_host() -> Iterator[SilentHost]:
    """A listening socket that takes connections and reads nothing: a client's read timeout runs out."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.05)
    host = SilentHost(url=f"http://127.0.0.1:{listener.getsockname()[1]}")
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            host.connections += 1
            host.held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield host
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in host.held:
            connection.close()
        listener.close()


@contextmanager
def blackhole_url() -> Iterator[str]:
    """A port whose accept queue is full: the kernel drops new SYNs, so a connection attempt times out.

    That is what a firewalled host or a dead route looks like to a client (no answer at all), on loopback.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    address = listener.getsockname()
    fillers: list[socket.socket] = []
    try:
        for _ in range(4):  # the first fills the queue of `listen(0)`; the next ones prove it is full
            filler = socket.socket()
            filler.settimeout(0.2)
            fillers.append(filler)
            try:
                filler.connect(address)
            except TimeoutError:
                break
        else:
            raise RuntimeError("the accept queue never filled: this kernel does not drop SYNs on loopback")
        yield f"http://127.0.0.1:{address[1]}"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
