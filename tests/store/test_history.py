"""The questions: counts and sightings per cause, the GPU-size pattern found by itself, what is new or back
since the last run of a workflow and branch, flaky tests — on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from forensics.model import Report
from forensics.store import Store
from forensics.store.answers import CauseStats, cause_stats, history
from forensics.store.queries import Filters
from forensics.store.writer import record_report
from tests.store.nightly import START, nightly, run_url

SEED_KEY = "vllm.startup-free-memory"
SEED_TEST = "test_serve_deployment[mm_epd_qwen3-vl-2b]"
A10G_NIGHTS = (0, 2, 5, 7)  # 4 of 10 nights ran on the 22 GiB A10G runner
NOW = START + timedelta(days=9, hours=4)


@pytest.fixture
def ten_nights(store: Store, gpu_report: Callable[[str], Report]) -> Store:
    """Ten nightlies of the GPU scenario: the seed case fails on every A10G night and never on the L40S."""
    for day in range(10):
        gpu = "A10G" if day in A10G_NIGHTS else "L40S"
        record_report(store, nightly(gpu_report(gpu), day=day, gpu=gpu))
    return store


def test_a_gpu_size_gated_cause_shows_its_pattern(ten_nights: Store) -> None:
    found = history(ten_nights, now=NOW)
    assert (found.runs, found.jobs, found.failing, found.explained) == (10, 10, 4, 4)
    [seed] = found.causes
    assert (seed.key, seed.kind, seed.category, seed.window_hits, seed.tests) == (
        SEED_KEY,
        "cause",
        "infrastructure",
        4,
        (SEED_TEST,),
    )
    assert (
        seed.pattern
        == "100% of hits on 22 GiB NVIDIA A10G runners (runner 'gpu-a10g-01'), which ran 40% of jobs"
    )
    shares = {
        (share.dimension, share.value): (share.hits, share.hit_share, share.run_share)
        for share in seed.environment
    }
    assert shares == {
        ("gpu_memory", "22 GiB"): (4, 1.0, 0.4),
        ("gpu_model", "NVIDIA A10G"): (4, 1.0, 0.4),
        ("runner", "gpu-a10g-01"): (4, 1.0, 0.4),
        ("runner_label", "self-hosted"): (4, 1.0, 1.0),
        ("runner_label", "linux"): (4, 1.0, 1.0),
        ("runner_label", "gpu"): (4, 1.0, 1.0),
    }


def test_first_and_last_seen_and_counts(ten_nights: Store) -> None:
    stats = cause_stats(ten_nights, key=SEED_KEY, repository="acme/inference", now=NOW)
    assert stats == CauseStats(
        first_seen_at=START,
        first_seen_run_url=run_url(9_000_000),
        first_seen_sha=f"{9_000_000:040x}",
        last_seen_at=START + timedelta(days=7),
        last_seen_run_url=run_url(9_000_007),
        count_24h=0,
        count_7d=2,  # nights 5 and 7
        count_30d=4,
        total=4,
    )
    assert cause_stats(ten_nights, key=SEED_KEY, repository="other/repo", now=NOW) is None
    assert cause_stats(ten_nights, key="no.such-rule", repository=None, now=NOW) is None
    assert cause_stats(ten_nights, key=SEED_KEY, repository=None, now=START - timedelta(hours=1)) is None
    as_of_night_two = cause_stats(
        ten_nights, key=SEED_KEY, repository=None, now=START + timedelta(days=2, hours=1)
    )
    assert as_of_night_two is not None and (as_of_night_two.total, as_of_night_two.count_24h) == (2, 1)


def test_the_window_and_the_filters(ten_nights: Store) -> None:
    found = history(ten_nights, now=NOW, days=3)  # nights 7, 8 and 9
    assert (found.runs, found.failing, [cause.window_hits for cause in found.causes]) == (3, 1, [1])
    assert found.causes[0].stats.total == 4  # counts stay all-time
    assert [(day.day.isoformat(), day.failures, day.explained) for day in found.days] == [
        ("2026-02-08", 1, 1),
        ("2026-02-09", 0, 0),
        ("2026-02-10", 0, 0),
    ]
    assert history(ten_nights, now=NOW, days=2).causes == ()
    assert history(ten_nights, now=NOW, filters=Filters(workflow="Release")).runs == 0
    assert (
        history(ten_nights, now=NOW, filters=Filters(branch="main", repository="acme/inference")).runs == 10
    )
    assert history(ten_nights, now=NOW, cause="hf.gated-repo").causes == ()


def test_new_recurring_gone_and_returning_since_the_last_run(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    nights = {0: "A10G", 1: "L40S", 2: "L40S", 3: "sample", 4: "A10G", **dict.fromkeys(range(5, 12), "L40S")}
    nights[12] = "sample"
    for day, kind in nights.items():
        report = sample_report if kind == "sample" else gpu_report(kind)
        record_report(store, nightly(report, day=day, gpu="L40S" if kind == "L40S" else "A10G"))
    record_report(store, nightly(gpu_report("A10G"), day=3, run_id=77, branch="release", hour=3))

    def changes(day: int, branch: str = "main") -> list[tuple[str, str, int, int | None]]:
        found = history(store, now=START + timedelta(days=day, hours=6), quiet_days=7)
        [series] = [series for series in found.changes if series.branch == branch]
        return [(change.status, change.key, change.hits, change.quiet_days) for change in series.changes]

    assert changes(3) == [
        ("new", "c9103a15f5a3", 1, None),
        ("new", "hf.gated-repo", 1, None),
        ("new", "nccl.system-error", 1, None),
        ("new", "network.address-in-use", 1, None),
        ("recurring", SEED_KEY, 3, None),  # seen on night 0, not in night 2, within the 7 quiet days
    ]
    assert changes(4) == [
        ("gone", "c9103a15f5a3", 1, None),
        ("gone", "hf.gated-repo", 1, None),
        ("gone", "nccl.system-error", 1, None),
        ("gone", "network.address-in-use", 1, None),
    ]
    assert changes(12) == [
        ("returning", "vllm.startup-free-memory", 3, 8),
        ("returning", "c9103a15f5a3", 1, 9),
        ("returning", "hf.gated-repo", 1, 9),
        ("returning", "nccl.system-error", 1, 9),
        ("returning", "network.address-in-use", 1, 9),
    ]
    assert changes(12, branch="release") == [("new", SEED_KEY, 1, None)]  # a series of its own
    found = history(store, now=START + timedelta(days=4, hours=6))
    main = next(series for series in found.changes if series.branch == "main")
    assert main.latest.run_id == 9_000_004 and main.previous is not None and main.previous.run_id == 9_000_003


def test_a_cause_back_within_the_quiet_days_is_recurring(
    store: Store, gpu_report: Callable[[str], Report]
) -> None:
    for day, gpu in ((0, "A10G"), (1, "L40S"), (2, "A10G")):
        record_report(store, nightly(gpu_report(gpu), day=day, gpu=gpu))
    [series] = history(store, now=START + timedelta(days=2, hours=1), quiet_days=7).changes
    assert [(c.status, c.key, c.quiet_days) for c in series.changes] == [("recurring", SEED_KEY, None)]
    [series] = history(store, now=START + timedelta(days=2, hours=1), quiet_days=2).changes
    assert [(c.status, c.key, c.quiet_days) for c in series.changes] == [("returning", SEED_KEY, 2)]


def test_flaky_tests_pass_and_fail_on_one_commit(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    commit = "c0ffee" * 6 + "beef"
    record_report(store, nightly(gpu_report("A10G"), day=0, sha=commit))
    record_report(store, nightly(gpu_report("L40S"), day=0, run_id=555, sha=commit, gpu="L40S", hour=5))
    record_report(store, nightly(gpu_report("A10G"), day=1))  # another commit: no pass to pair with
    record_report(store, nightly(sample_report, day=2))  # holds a test that failed, then passed on retry
    flaky = history(store, now=START + timedelta(days=3)).flaky
    assert [(t.name, t.head_sha, t.passed, t.failed, t.runs, t.causes, t.retried) for t in flaky] == [
        ("test_kv_router_decisions[nats]", f"{9_000_002:040x}", 1, 1, 1, (), True),
        (SEED_TEST, commit, 1, 1, 2, (SEED_KEY,), False),
    ]


def test_unexplained_failures_are_tracked_by_fingerprint(store: Store, sample_report: Report) -> None:
    for day in (0, 1):
        record_report(store, nightly(sample_report, day=day))
    found = history(store, now=START + timedelta(days=1, hours=1))
    by_key = {cause.key: cause for cause in found.causes}
    fingerprint = by_key["c9103a15f5a3"]
    assert (fingerprint.kind, fingerprint.category, fingerprint.title) == (
        "unexplained",
        "",
        "KeyError: 'token_ids'",
    )
    assert fingerprint.stats.total == 2 and fingerprint.tests == ("test_request_migration[qwen3-0.6b]",)
    assert found.causes[0].key == SEED_KEY  # most hits first
    assert (found.failing, found.explained) == (14, 12)
    assert found.generated_at == START + timedelta(days=1, hours=1)
    assert found.days[-1].by_cause[0] == (SEED_KEY, 3)


def test_an_empty_store_answers_with_zeros(store: Store) -> None:
    found = history(store, now=datetime(2026, 3, 1, tzinfo=UTC), days=7)
    assert (found.runs, found.jobs, found.failing, found.causes, found.changes, found.flaky) == (
        0,
        0,
        0,
        (),
        (),
        (),
    )
    assert len(found.days) == 7 and all(day.failures == 0 for day in found.days)
