"""Forked worker processes fed through one pipe each by the parent's own thread (report/session.py's pool).

`concurrent.futures.ProcessPoolExecutor` moves tasks and answers through a manager thread in the parent: every
submitted task woke it with a write to a pipe, and every answer was unpickled there, so the parent's main thread,
deciding and finishing verdicts while the workers scan, waited for the GIL behind that thread (~1 ms a task at
1 GiB, 400 tasks) and the workers for the parent. Here the parent sends each worker at most `AHEAD` tasks at a
time and reads the answers itself (`multiprocessing.connection.wait`), with no thread at all; each worker gets its
first tasks as soon as it is forked, so the first ones read while the rest are forked; and an urgent task (a
likely-cause re-read, which a verdict waits for) goes before the queued ones.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

AHEAD = 2  # tasks sent to a worker before its answers: the next one is there when it finishes one
_Task = tuple[Callable[[Any], Any], Any, Hashable]


class WorkerDiedError(Exception):
    """A worker process ended without answering (killed for memory, crashed) or could not be forked."""


class WorkerPool:
    """`workers` forked processes, each running `initializer` first, then each task's `function(argument)`.

    `submit` queues a task under a key; `start` forks the workers, each fed its first tasks at once; `answers`
    yields (key, answer) as the workers send them, until no task is left (a task submitted meanwhile is
    included). A task's exception is raised from `answers`, as `Future.result()` would; a worker that dies
    raises `WorkerDiedError`. Leaving the `with` block ends every worker (killed when an error leaves it)."""

    def __init__(self, workers: int, *, initializer: Callable[[], None] | None = None) -> None:
        self.workers = workers
        self.initializer = initializer
        self.queued: deque[_Task] = deque()
        self.processes: list[BaseProcess] = []
        self.connections: list[Connection] = []
        self.sent: dict[Connection, deque[Hashable]] = {}  # by worker: the keys of its tasks not answered yet

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_exc: object) -> None:
        self.close(kill=kind is not None)

    def submit(
        self, function: Callable[[Any], Any], argument: Any, key: Hashable, *, urgent: bool = False
    ) -> None:
        """Queue `function(argument)` (both picklable; `function` by name) to run in a worker; `urgent` goes first."""
        task = (function, argument, key)
        if urgent:
            self.queued.appendleft(task)
        else:
            self.queued.append(task)
        self._feed()

    def start(self) -> None:
        """Fork the workers, sending each its first tasks as soon as it exists."""
        context = multiprocessing.get_context("fork")
        for _ in range(self.workers):
            parent_end, child_end = context.Pipe()
            # the child closes the parent's ends it inherits (its own and the earlier workers'): a worker sees the
            # end of its pipe when the parent closes it, not when every later worker has exited too
            inherited = (*self.connections, parent_end)
            process = context.Process(
                target=_serve, args=(child_end, inherited, self.initializer), daemon=True
            )
            try:
                process.start()
            except OSError as err:  # fork refused (no memory, too many processes)
                parent_end.close()
                raise WorkerDiedError(f"cannot fork a worker: {err}") from err
            finally:
                child_end.close()
            self.processes.append(process)
            self.connections.append(parent_end)
            self.sent[parent_end] = deque()
            self._feed()

    def answers(self) -> Iterator[tuple[Any, Any]]:
        """Each task's key and answer as it arrives, until every task queued or sent is answered."""
        if not self.processes:
            raise RuntimeError("the workers are not started: call start() first")
        while any(self.sent.values()) or self.queued:
            ready = wait([connection for connection, keys in self.sent.items() if keys])
            for connection in ready:
                assert isinstance(connection, Connection)
                try:
                    done, answer = connection.recv()
                except (EOFError, OSError) as err:
                    raise WorkerDiedError("a worker process ended without answering") from err
                key = self.sent[connection].popleft()
                if not done:
                    raise answer
                self._feed()
                yield key, answer

    def close(self, *, kill: bool = False) -> None:
        """End the workers: each leaves when its pipe closes (killed at once with `kill`), then is waited for."""
        for connection in self.connections:
            connection.close()
        for process in self.processes:
            if kill:
                process.kill()
            process.join()
        self.connections.clear()
        self.processes.clear()
        self.sent.clear()

    def _feed(self) -> None:
        """Send queued tasks to the workers with the fewest unanswered ones, up to `AHEAD` each."""
        while self.queued and self.sent:
            connection, keys = min(self.sent.items(), key=lambda item: len(item[1]))
            if len(keys) >= AHEAD:
                return
            function, argument, key = self.queued.popleft()
            connection.send((function, argument))
            keys.append(key)


def _serve(
    connection: Connection, inherited: tuple[Connection, ...], initializer: Callable[[], None] | None
) -> None:
    """A worker's life: each task received is run and answered, until the parent closes the pipe."""
    for other in inherited:
        other.close()
    if initializer is not None:
        initializer()
    while True:
        try:
            function, argument = connection.recv()
        except EOFError:
            return
        try:
            answer: tuple[bool, Any] = (True, function(argument))
        except Exception as err:  # the parent raises it, as an executor's future does
            answer = (False, err)
        try:
            connection.send(answer)
        except Exception as err:  # an answer or exception that cannot be pickled: said, not lost
            connection.send((False, RuntimeError(f"a worker's answer could not be sent back: {err!r}")))
