"""Start a program the way serving tests start servers, log its output, attach the log to Allure.

Each provoking test runs one small program as a subprocess (directly, through a traced shell script, or
through torchrun), captures its stdout and stderr into one log file, attaches that file to the Allure
result as `bash.log.txt` (as the nightly jobs of serving projects do) and then fails with a generic
wrapper error, so the root cause is only in the log.
"""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import allure

PROGRAMS = Path(__file__).resolve().parent / "programs"
PYTHON = sys.executable
DEFAULT_TIMEOUT = 180.0


@dataclass(frozen=True, slots=True)
class Finished:
    """A program that ran to its end (or was stopped), with its log."""

    returncode: int
    log: Path


def program(name: str) -> str:
    """The path of one of the provoking programs."""
    return str(PROGRAMS / name)


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(extra: Mapping[str, str] | None, remove: Sequence[str]) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if key not in remove}
    environment["PYTHONUNBUFFERED"] = "1"
    environment.update(extra or {})
    return environment


def run_logged(
    command: Sequence[str],
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    remove_env: Sequence[str] = (),
    shell_script: bool = False,
    prelude: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    cwd: Path | None = None,
) -> Finished:
    """Run `command` with stdout and stderr in `log`, attach the log, return its exit code.

    With `shell_script`, the command is written into a traced bash script (`set -euxo pipefail`) and run
    by bash, so bash itself reports a child killed by a signal ("Killed", "Segmentation fault"); `prelude`
    lines (`ulimit -v …`) come before it in the script.
    """
    argv = list(command)
    if shell_script:
        script = log.with_name("serve.sh")
        lines = ["set -euxo pipefail", *prelude, shlex.join(argv), "echo 'server stopped'"]
        script.write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = ["bash", str(script)]
    with log.open("wb") as output:
        process = subprocess.Popen(
            argv,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=_environment(env, remove_env),
            cwd=cwd,
            start_new_session=True,
        )
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            returncode = process.wait()
    allure.attach.file(str(log), name="bash.log.txt", attachment_type=allure.attachment_type.TEXT)
    return Finished(returncode, log)


def launch_server(command: Sequence[str], log: Path, **options: Any) -> Finished:
    """Run a server program to its end; fail like a serving test's harness when it exits non-zero."""
    finished = run_logged(command, log, **options)
    if finished.returncode != 0:
        raise RuntimeError(f"server process exited with code {finished.returncode}. See root cause above.")
    return finished


@contextmanager
def serve(command: Sequence[str], log: Path, *, port: int, timeout: float) -> Iterator[None]:
    """Start a server, poll its /health until it answers, run the block, stop it and attach its log.

    Fails like a serving harness when the server exits early or is not ready within `timeout` seconds.
    """
    with log.open("wb") as output:
        process = subprocess.Popen(
            list(command),
            stdout=output,
            stderr=subprocess.STDOUT,
            env=_environment({"SERVER_PORT": str(port)}, ()),
            start_new_session=True,
        )
        try:
            _wait_for_health(process, port, timeout)
            yield
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait()
            allure.attach.file(str(log), name="bash.log.txt", attachment_type=allure.attachment_type.TEXT)


def _wait_for_health(process: subprocess.Popen[bytes], port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Server exited unexpectedly with code {process.returncode}.")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:  # URLError is an OSError: not listening yet
            time.sleep(0.5)
    raise TimeoutError(f"Server at http://127.0.0.1:{port} did not become ready within {timeout:.0f} s")
