"""Benchmark: how fast the CLI starts, and how fast it fails when a service is down. Asserts nothing.

Measures, each in a fresh `python -m forensics` process (median and best of --repeat runs):
  * `--help` and `--version`, beside a bare `python -c pass` (the interpreter's own start);
  * `fetch --job 1` without GITHUB_TOKEN/GH_TOKEN (must stop before any request);
  * `annotate` of the sample report with 20 extra Linear tickets (22 in all) while LINEAR_API_URL points at
    a host that refuses connections, one that drops every SYN (connect timeouts), and one that accepts
    connections and never answers (read timeouts), with the tool's own timeouts; and how many hint lines
    the outcome prints (one per service is the goal).

Usage: python benchmarks/bench_failfast.py [--repeat 10] [--skip-silent]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.fakes: the same unreachable hosts the tests use

from tests.fakes.unreachable import blackhole_url, refused_url, silent_host  # noqa: E402

TICKETS = [argument for number in range(1, 21) for argument in ("--ticket", f"OPS-{number}")]
_SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "API_KEY")


def _environment(**extra: str) -> dict[str, str]:
    """This environment without tokens or service settings, plus `extra`."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not any(word in name for word in _SECRET_WORDS)
        and not name.startswith(("GITHUB_", "GH_", "LINEAR_", "JIRA_", "CI_FORENSICS_"))
    }
    kept["PYTHONPATH"] = str(ROOT)
    return {**kept, **extra}


def _timed(command: list[str], environment: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=ROOT, check=False)
    return time.perf_counter() - started, done


def _series(command: list[str], environment: dict[str, str], repeat: int) -> tuple[float, float, int]:
    times, code = [], 0
    for _ in range(repeat):
        elapsed, done = _timed(command, environment)
        times.append(elapsed)
        code = done.returncode
    return statistics.median(times), min(times), code


def _silent() -> Iterator[str]:
    with silent_host() as host:
        yield host.url


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--skip-silent", action="store_true", help="skip the never-answering host (~8 s)")
    arguments = parser.parse_args()
    python = [sys.executable]
    tool = [*python, "-m", "forensics"]
    plain = _environment()
    rows: list[tuple[str, str, str]] = []
    for label, command in (
        ("python -c pass", [*python, "-c", "pass"]),
        ("ci-forensics --help", [*tool, "--help"]),
        ("ci-forensics --version", [*tool, "--version"]),
    ):
        median, best, code = _series(command, plain, arguments.repeat)
        rows.append((label, f"{median:.3f} s (best {best:.3f} s, {arguments.repeat} runs)", f"exit {code}"))

    median, best, code = _series([*tool, "fetch", "--job", "1", "--repo", "o/r"], plain, arguments.repeat)
    _, done = _timed([*tool, "fetch", "--job", "1", "--repo", "o/r"], plain)
    first_line = done.stderr.splitlines()[0] if done.stderr else ""
    rows.append(
        ("fetch without a token", f"{median:.3f} s (best {best:.3f} s)", f"exit {code}: {first_line}")
    )

    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        _timed([*tool, "analyze", "--demo", "--format", "json", "-o", str(report)], plain)
        hosts: list[tuple[str, Callable[[], AbstractContextManager[str]]]] = [
            ("refused port", refused_url),
            ("SYN-dropping host", blackhole_url),
        ]
        if not arguments.skip_silent:
            hosts.append(("host that never answers", _contextmanager(_silent)))
        for label, host in hosts:
            with host() as url:
                environment = _environment(LINEAR_API_KEY="lin_api_bench", LINEAR_API_URL=f"{url}/graphql")
                elapsed, done = _timed([*tool, "annotate", str(report), *TICKETS], environment)
            hints = sum(1 for line in done.stdout.splitlines() if line.startswith("  hint: "))
            tally = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-200:]
            rows.append(
                (
                    f"annotate 20+2 tickets, {label}",
                    f"{elapsed:.2f} s",
                    f"exit {done.returncode}: {tally}; {hints} hint lines",
                )
            )
    width = max(len(label) for label, _, _ in rows)
    print(f"{'what':<{width}}  {'time':<34}  outcome")
    for label, figure, outcome in rows:
        print(f"{label:<{width}}  {figure:<34}  {outcome}")


def _contextmanager(generator: Callable[[], Iterator[str]]) -> Callable[[], AbstractContextManager[str]]:
    from contextlib import contextmanager

    return contextmanager(generator)


if __name__ == "__main__":
    main()
