"""Benchmark: where the parent process of `analyze` spends its CPU, phase by phase, on one artifact.

Runs `ci-forensics analyze ZIP --format json --output /dev/null --jobs N` in this process with each phase of the
parent wrapped (nothing else changed) and prints, per phase, the parent's wall and CPU seconds and the CPU of its
workers: before the pool (imports and the rule pack, reading the results, what is compiled before forking), the
pool (the parent's own CPU there is deciding, finishing and redacting verdicts as results arrive, and the
executor's traffic), and after the last result (grouping, the report's redaction, the JSON). With more workers
than cores (`--jobs 16` on 2 cores) the parent's serial parts show as its own CPU time: what a 16-core machine
cannot hide. Medians of --repeat runs, each in a fresh interpreter. Prints figures; asserts nothing.

Usage: python benchmarks/bench_timeline.py ZIP [--jobs 16] [--repeat 3] [--tree DIR]
(`--tree`: another checkout's folder holding `forensics/` and `rules/`, e.g. `git archive REV forensics rules`
extracted, to compare with; the interpreter's own start is not counted.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter: wraps the phases, runs the CLI, prints one JSON line of marks
CHILD = r"""
import json, os, resource, sys, time

def usage(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime

marks = []
def mark(name):
    marks.append((name, time.perf_counter(), usage(resource.RUSAGE_SELF), usage(resource.RUSAGE_CHILDREN)))

mark("start")
import forensics.cli.followups as followups
import forensics.report.build as build
import forensics.report.session as session

def wrap(owner, name, before, after, static=False):
    original = getattr(owner, name)
    def wrapped(*args, **kwargs):
        if before:
            mark(before)
        result = original(*args, **kwargs)
        if after:
            mark(after)
        return result
    setattr(owner, name, staticmethod(wrapped) if static else wrapped)

wrap(session.InputSession, "tests", "results", "results read")
wrap(session.InputSession, "_pool", "pool", None, static=True)
wrap(session.InputSession, "verdicts", None, "verdicts")
wrap(build, "redact_report", "redaction", "redacted")
wrap(followups, "finish_report", "output", "written")

# each worker's answer reaches the parent through WorkerPool.answers (Future.result() in a checkout from before it):
# the first marks the first result, the last the last
answers = []
def answered():
    answers.append((time.perf_counter(), usage(resource.RUSAGE_SELF), usage(resource.RUSAGE_CHILDREN)))
try:
    from forensics.report import worker_pool
except ImportError:
    import concurrent.futures._base as futures_base
    original_result = futures_base.Future.result
    def result(self, timeout=None):
        answered()
        return original_result(self, timeout)
    futures_base.Future.result = result
else:
    original_answers = worker_pool.WorkerPool.answers
    def each_answer(self):
        for answer in original_answers(self):
            answered()
            yield answer
    worker_pool.WorkerPool.answers = each_answer
    wrap(worker_pool.WorkerPool, "start", None, "forked")
from forensics.cli.start import main
sys.argv = ["ci-forensics", *sys.argv[1:]]
try:
    main()  # the program's entry point: a plain analyze goes through forensics/cli/quick.py
except SystemExit:
    pass
mark("end")
if answers:
    marks.append(("first result", *answers[0]))
    marks.append(("last result", *answers[-1]))
print(json.dumps(marks))
"""

PHASES = (
    ("imports, rule pack", "start", "results"),
    ("reading the results", "results", "results read"),
    ("until the pool (compiling for the workers)", "results read", "pool"),
    ("during the pool", "pool", "verdicts"),
    ("after it, until the report's redaction", "verdicts", "redaction"),
    ("the report's redaction", "redaction", "redacted"),
    ("output (JSON) and exit", "redacted", "end"),
)


def run_once(artifact: Path, jobs: int, tree: Path) -> dict[str, tuple[float, float, float]]:
    """One run's marks: name -> (wall, parent CPU, workers' CPU) since the interpreter started the script."""
    argv = [sys.executable, "-c", CHILD, "analyze", str(artifact), "--format", "json"]
    argv += ["--output", os.devnull, "--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"analyze failed ({done.returncode}): {done.stderr[-2000:]}")
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: (wall, cpu, children) for name, wall, cpu, children in marks}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("artifact", type=Path)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run (default: this one)")
    options = parser.parse_args()
    artifact = options.artifact.resolve()
    runs = [run_once(artifact, options.jobs, options.tree.resolve()) for _ in range(options.repeat)]
    print(
        f"{options.artifact.name}, --jobs {options.jobs}, medians of {options.repeat}: parent wall / parent CPU"
    )
    for label, first, last in PHASES:
        walls = [run[last][0] - run[first][0] for run in runs]
        cpus = [run[last][1] - run[first][1] for run in runs]
        print(f"  {label:<46} {statistics.median(walls):7.3f} s  {statistics.median(cpus):6.3f} CPU s")
    serial = [(run["pool"][1] - run["start"][1]) + (run["end"][1] - run["verdicts"][1]) for run in runs]
    workers = [run["end"][2] for run in runs]
    print(f"  parent's serial CPU (before + after the pool)    {statistics.median(serial):6.3f} CPU s")
    if all("forked" in run for run in runs):  # a checkout with report/worker_pool.py
        forks = [run["forked"][0] - run["pool"][0] for run in runs]
        fork_cpu = [run["forked"][1] - run["pool"][1] for run in runs]
        print(
            f"  of the pool: forking the workers                {statistics.median(forks):7.3f} s  "
            f"{statistics.median(fork_cpu):6.3f} CPU s"
        )
    if all("first result" in run for run in runs):
        # wall before the first worker's answer and after the last: what no number of cores shortens
        before = [run["first result"][0] - run["start"][0] for run in runs]
        after = [run["end"][0] - run["last result"][0] for run in runs]
        serial_walls = [b + a for b, a in zip(before, after, strict=True)]
        print(f"  wall until the first worker result               {statistics.median(before):7.3f} s")
        print(f"  wall after the last worker result                {statistics.median(after):7.3f} s")
        print(f"  the parent's serial wall (the two above)         {statistics.median(serial_walls):7.3f} s")
    print(f"  workers' CPU                                      {statistics.median(workers):6.3f} CPU s")


if __name__ == "__main__":
    main()
