"""Every reproducer of issue 11 (tests/hostile/cases.py) run as the CLI in a child process, checked alike.

For each step: no traceback, done within its budget (wall time against hangs, CPU time against work that
reads more than it should), peak memory under 400 MiB (the child's own rusage from wait4, grandchildren
included), the exit code the case allows, and never exit 0 from `analyze` without a test read.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hostile.cases import CASES, Case, Step

REPOSITORY = Path(__file__).resolve().parents[1]
MAX_RSS_BYTES = 400 * 1024 * 1024
WALL_SECONDS = 60.0  # a hang, not a slow machine


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one child run ended."""

    code: int
    stdout: str
    stderr: str
    max_rss_bytes: int
    cpu_seconds: float
    timed_out: bool


def run_cli(
    args: tuple[str, ...], *, cwd: Path, stdout_file: str = "", unprivileged: bool = False
) -> Outcome:
    """`python -m forensics ARGS` in a child process; its peak memory and CPU time from wait4.

    A small launcher process forks the CLI and reports the wait4 figures: a child forked from this test
    process would start with this process's pages counted in its peak memory (Linux keeps the largest
    resident size across exec), so a large test session would look like a large CLI run.

    `unprivileged`: as root, the child runs without the capabilities that let root read any file
    (setpriv drops them), so a file made unreadable with chmod 0 really is unreadable to it.
    """
    prefix: list[str] = []
    if unprivileged and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv (util-linux): cannot make a file unreadable")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY), "COLUMNS": "100", "PYTHONUTF8": "0"}
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as work,
    ):
        measured = Path(work, "usage")
        target = open(stdout_file, "wb") if stdout_file else out  # noqa: SIM115 - closed below
        try:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _LAUNCHER,
                    str(measured),
                    *prefix,
                    sys.executable,
                    "-m",
                    "forensics",
                    *args,
                ],
                cwd=cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=target,
                stderr=err,
                start_new_session=True,  # the timer kills the launcher and the CLI together
            )
        finally:
            if stdout_file:
                target.close()
        timer = threading.Timer(WALL_SECONDS, os.killpg, (process.pid, signal.SIGKILL))
        timer.start()
        try:
            process.wait()
        finally:
            timed_out = not timer.is_alive()
            timer.cancel()
        max_rss_kib, cpu_seconds = measured.read_text().split() if measured.exists() else ("0", "0")
        out.seek(0)
        err.seek(0)
        return Outcome(
            code=process.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            max_rss_bytes=int(max_rss_kib) * 1024,  # kilobytes on Linux
            cpu_seconds=float(cpu_seconds),
            timed_out=timed_out,
        )


# argv: the file to write "peak-RSS-KiB CPU-seconds" to, then the command. Forks the command, waits for it with
# wait4, writes its figures, and ends as it ended (its exit code, or killed by the same signal).
_LAUNCHER = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as measured:
    measured.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
code = os.waitstatus_to_exitcode(status)
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


def _tests_read(outcome: Outcome, step: Step) -> int | None:
    """How many tests a JSON report on stdout holds (None when the step wrote no JSON report)."""
    if "--format" not in step.args or "json" not in step.args or step.args[0] != "analyze" or step.stdout:
        return None
    return len(json.loads(outcome.stdout)["tests"])


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_hostile_input_ends_cleanly_within_its_budgets(case: Case, tmp_path: Path) -> None:
    steps = case.build(tmp_path)
    try:
        for step in steps:
            _check(
                step,
                run_cli(step.args, cwd=tmp_path, stdout_file=step.stdout, unprivileged=case.unprivileged),
            )
    finally:  # pytest removes tmp_path; give back what a case made unreadable
        for path in tmp_path.rglob("*"):
            if not path.is_symlink() and not path.stat().st_mode & 0o777:
                path.chmod(0o755)


def _check(step: Step, outcome: Outcome) -> None:
    shown = (
        f"{' '.join(step.args)}\n--- stdout\n{outcome.stdout[-3000:]}\n--- stderr\n{outcome.stderr[-3000:]}"
    )
    assert not outcome.timed_out, f"still running after {WALL_SECONDS} s: {shown}"
    assert "Traceback" not in outcome.stderr, shown
    assert outcome.code in step.exit_codes, f"exit {outcome.code}: {shown}"
    assert outcome.max_rss_bytes < MAX_RSS_BYTES, f"{outcome.max_rss_bytes >> 20} MiB: {shown}"
    assert outcome.cpu_seconds < step.cpu_seconds, f"{outcome.cpu_seconds:.1f} s of CPU: {shown}"
    if step.says:
        assert step.says in outcome.stdout + outcome.stderr, shown
    read = _tests_read(outcome, step)
    if read is not None:
        assert outcome.code != 0 or read > 0, f"exit 0 without a test read: {shown}"
