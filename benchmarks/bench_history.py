"""Benchmark: a year of nightlies in the history store — record time, `history` and `dashboard_data` time, size.

Builds deterministic Allure results folders of N tests (default 500): about 5% fail, each failing test's log
holds the first example of one of a dozen shipped cause rules (or one of two unexplained errors), every log
starts with nvidia-smi's GPU line. Eight variants (four per GPU: a 22 GiB A10G and a 44 GiB L40S; the seed
case fails only on the A10G) are analysed once with the real `analyze()`; then every night of the year gets
one of them with its own CI context (run, commit, runner) and is recorded with `record_report` — which
writes the evidence windows and GPU facts the report carries (cut by `analyze`), as `--record` does. Then
it times `history`
(30 and 365 days), `cause_stats`, `dashboard_data` and the whole `ci-forensics history` command (a fresh
process: interpreter start, imports, query, text rendering), and reports the store's size.

PostgreSQL is measured after ANALYZE (autovacuum's job, a minute after a bulk load); SQLite without statistics.
Runs on SQLite, and on PostgreSQL too when CI_FORENSICS_TEST_POSTGRES (or --postgres URL) is set (a schema of
its own, dropped afterwards). Prints a Markdown table; asserts nothing.

Usage: python benchmarks/bench_history.py [--nights 365] [--tests 500] [--repeat 5] [--postgres URL]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from forensics.model import JobContext, Report, RunContext
from forensics.report.build import analyze
from forensics.report.redact import Redactor, redact_report
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from forensics.store import Store, open_store
from forensics.store.answers import cause_stats, history
from forensics.store.dashboard import dashboard_data
from forensics.store.writer import record_report
from forensics.version import __version__

SEED_RULE = "vllm.startup-free-memory"
CAUSES = 12
FAILING_SHARE = 0.05
VARIANTS_PER_GPU = 4
GPUS = {"A10G": ("NVIDIA A10G, 23028 MiB, driver 580.95.05, CUDA 13.0", "gpu-a10g-01"),
        "L40S": ("NVIDIA L40S, 46068 MiB, driver 580.95.05, CUDA 13.0", "gpu-l40s-01")}  # fmt: skip
UNEXPLAINED = (
    "RuntimeError: request 4411 to worker 3 got an empty response after 12 retries",
    "AssertionError: expected 128 tokens in the stream, got 0",
)
START = datetime(2025, 12, 1, 8, 0, tzinfo=UTC)


def cause_examples(rules: RuleSet, count: int) -> list[tuple[str, str]]:
    """(rule id, example text) of `count` shipped cause rules whose first example alone names that rule."""
    picked = [(SEED_RULE, rules.get(SEED_RULE).examples[0].text)]  # type: ignore[union-attr]
    for rule in sorted(rules, key=lambda rule: rule.id):
        if len(picked) == count:
            break
        if rule.kind.value == "cause" and rule.id != SEED_RULE and rule.examples:
            picked.append((rule.id, rule.examples[0].text))
    return picked


def write_results(
    folder: Path, *, tests: int, gpu: str, variant: int, examples: list[tuple[str, str]]
) -> None:
    """An Allure results folder: `tests` results, ~5% failing with a cause's example (or an unknown error)."""
    rng = random.Random(f"{gpu}-{variant}")
    folder.mkdir(parents=True)
    failing = set(rng.sample(range(tests), round(tests * FAILING_SHARE)))
    banner, _ = GPUS[gpu]
    for index in range(tests):
        test_uuid = str(uuid.UUID(int=rng.getrandbits(128)))
        noise = [
            f"INFO 12-01 08:{index % 60:02d}:{line % 60:02d} [worker.py:{line}] step {line} done"
            for line in range(60)
        ]
        status, message = "passed", ""
        if index in failing:
            status, message = (
                "broken",
                "RuntimeError: Engine core initialization failed. See root cause above.",
            )
            pick = rng.random()
            if pick < 0.08:
                noise.append(UNEXPLAINED[index % 2])
            else:
                _, text = (
                    examples[0] if gpu == "A10G" and pick < 0.4 else examples[1 + index % (len(examples) - 1)]
                )
                noise.extend(text.strip().splitlines())
            noise.append(message)
        attachment = f"{test_uuid}-attachment.txt"
        (folder / attachment).write_text("\n".join([banner, *noise]) + "\n")
        result = {
            "uuid": test_uuid,
            "historyId": f"{index:032x}",
            "name": f"test_case_{index:03d}",
            "fullName": f"tests.nightly.test_suite_{index // 50}#test_case_{index:03d}",
            "status": status,
            "statusDetails": {"message": message} if message else {},
            "attachments": [{"name": "bash.log.txt", "source": attachment, "type": "text/plain"}],
            "start": 1764576000000 + index * 1000,
            "stop": 1764576000000 + index * 1000 + 500,
            "labels": [{"name": "tag", "value": "nightly"}],
        }
        (folder / f"{test_uuid}-result.json").write_text(json.dumps(result))


def night(report: Report, day: int, gpu: str) -> Report:
    """The report as the nightly of `day`, on the `gpu` runner."""
    run_id = 7_000_000 + day
    _, runner = GPUS[gpu]
    context = RunContext(
        provider="github",
        repository="acme/inference",
        run_id=run_id,
        workflow="Nightly CI Pipeline",
        run_url=f"https://github.com/acme/inference/actions/runs/{run_id}",
        head_sha=f"{run_id:040x}",
        branch="main",
        event="schedule",
        created_at=(START + timedelta(days=day)).isoformat(),
        jobs=(
            JobContext(
                job_id=run_id * 10,
                name="vllm (Test)",
                runner_name=runner,
                runner_labels=("self-hosted", "gpu"),
            ),
        ),
    )
    inputs = tuple(dataclasses.replace(item, job_id=run_id * 10) for item in report.inputs)
    return dataclasses.replace(report, context=context, inputs=inputs)


def timed(action: Callable[[], object], repeat: int) -> float:
    """Median wall seconds of `repeat` calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def size_of(store: Store, location: str) -> int:
    """Bytes the store takes (SQLite: the file after a checkpoint; PostgreSQL: its tables and indexes)."""
    if store.dialect == "sqlite":
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return sum(
            os.path.getsize(location + suffix) for suffix in ("", "-wal") if os.path.exists(location + suffix)
        )
    tables = ("runs", "jobs", "job_facts", "tests", "findings", "evidence_logs", "schema_version")
    return int(sum(store.scalar("SELECT pg_total_relation_size(?::regclass)", (table,)) for table in tables))


REDACTOR = Redactor(
    secrets=("ghp_BenchmarkTokenNeverInTheLogs0123456",)
)  # the CLI's: the environment's tokens


def measure(location: str, reports: dict[str, list[Report]], *, nights: int, repeat: int) -> dict[str, float]:
    """Record every night, then time the questions."""
    figures: dict[str, float] = {}
    with open_store(location, default_dir=Path(tempfile.gettempdir())) as store:
        started = time.perf_counter()
        for day in range(nights):
            gpu = "A10G" if day % 5 in (0, 2) else "L40S"
            # as `--record` does: the follow-up redacts with the run's secrets, then the store writes
            record_report(
                store, redact_report(night(reports[gpu][day % VARIANTS_PER_GPU], day, gpu), REDACTOR)
            )
        figures["record total s"] = time.perf_counter() - started
        figures["record per run ms"] = 1000 * figures["record total s"] / nights
        if store.dialect == "postgresql":
            # What autovacuum does a minute after a bulk load; nightly recordings keep the statistics fresh.
            # (SQLite keeps none unless asked: its figures are without statistics.)
            store.execute("ANALYZE")
        now = START + timedelta(days=nights - 1, hours=6)
        figures["history 30 d ms"] = 1000 * timed(lambda: history(store, now=now, days=30), repeat)
        figures["history 365 d ms"] = 1000 * timed(lambda: history(store, now=now, days=365), repeat)
        figures["cause_stats ms"] = 1000 * timed(
            lambda: cause_stats(store, key=SEED_RULE, repository="acme/inference", now=now), repeat
        )
        figures["dashboard_data 30 d ms"] = 1000 * timed(
            lambda: dashboard_data(store, now=now, days=30), repeat
        )
        command = [sys.executable, "-m", "forensics", "history", "--store", location, "--days", "3660"]
        figures["`ci-forensics history` process ms"] = 1000 * timed(
            lambda: subprocess.run(command, check=True, capture_output=True), repeat
        )
        figures["tests stored"] = store.scalar("SELECT COUNT(*) FROM tests")
        figures["failing stored"] = store.scalar("SELECT COUNT(*) FROM tests WHERE failing = 1")
        figures["size MiB"] = size_of(store, location) / (1 << 20)
        found = history(store, now=now, days=365)
        seed = next(cause for cause in found.causes if cause.key == SEED_RULE)
        print(f"  check: {len(found.causes)} causes in 365 d; {SEED_RULE}: {seed.pattern}", file=sys.stderr)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nights", type=int, default=365)
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--postgres", default=os.environ.get("CI_FORENSICS_TEST_POSTGRES", ""))
    options = parser.parse_args()
    rules = load_rules()
    examples = cause_examples(rules, CAUSES)
    with tempfile.TemporaryDirectory(prefix="bench-history-") as scratch:
        root = Path(scratch)
        reports: dict[str, list[Report]] = {}
        for gpu in GPUS:
            for variant in range(VARIANTS_PER_GPU):
                folder = root / f"{gpu}-{variant}"
                write_results(folder, tests=options.tests, gpu=gpu, variant=variant, examples=examples)
                reports.setdefault(gpu, []).append(analyze([str(folder)], rules=rules))
        backends = {"SQLite": str(root / "history.sqlite3")}
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        if options.postgres:
            from forensics.store.postgres import PostgresStore

            with PostgresStore(options.postgres) as admin:
                admin.execute(f"CREATE SCHEMA {schema}")
            joiner = "&" if "?" in options.postgres else "?"
            backends["PostgreSQL"] = f"{options.postgres}{joiner}options=-csearch_path%3D{schema}"
        results: dict[str, dict[str, float]] = {}
        try:
            for name, location in backends.items():
                print(f"{name}: recording {options.nights} nights × {options.tests} tests …", file=sys.stderr)
                results[name] = measure(location, reports, nights=options.nights, repeat=options.repeat)
        finally:
            if options.postgres:
                with PostgresStore(options.postgres) as admin:
                    admin.execute(f"DROP SCHEMA {schema} CASCADE")
    print(f"# History store benchmark: {options.nights} nightly runs × {options.tests} tests\n")
    print(
        f"ci-forensics {__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} cores; {datetime.now(UTC):%Y-%m-%d}. Query times: median of {options.repeat}.\n"
    )
    print("| | " + " | ".join(results) + " |")
    print("| --- |" + " --- |" * len(results))
    for figure in next(iter(results.values())):
        cells = [_format(figure, values[figure]) for values in results.values()]
        print(f"| {figure} | " + " | ".join(cells) + " |")


def _format(figure: str, value: float) -> str:
    if figure.endswith("stored"):
        return f"{int(value):,}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


if __name__ == "__main__":
    main()
