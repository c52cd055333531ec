"""The dashboard document from a store of real recorded runs: exactly the agreed data.json shape, and a typed
`Dashboard` that `to_json` and `parse` carry through unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from forensics.dashboard.document import build, dashboard_data, parse, to_json
from forensics.model import Evidence, Report, Ticket
from forensics.store import Store
from forensics.store.writer import record_report
from tests.store.nightly import START, nightly, run_url

SEED_KEY = "vllm.startup-free-memory"
A10G_NIGHTS = (0, 2, 5, 7)
NOW = START + timedelta(days=9, hours=4)
SIGHTING = {"at", "run_id", "run_url", "head_sha"}


def _record(store: Store, sample_report: Report, gpu_report: Callable[[str], Report]) -> None:
    for day in range(10):
        gpu = "A10G" if day in A10G_NIGHTS else "L40S"
        record_report(store, nightly(gpu_report(gpu), day=day, gpu=gpu))
    record_report(
        store, nightly(sample_report, day=8, run_id=4242, hour=6)
    )  # a second workflow run that night


def test_the_document_has_exactly_the_agreed_shape(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    _record(store, sample_report, gpu_report)
    data = dashboard_data(store, now=NOW, days=30)
    assert set(data) == {
        "schema_version",
        "generated_at",
        "window_days",
        "totals",
        "days",
        "causes",
        "matrix",
        "scope",
        "since_last_run",
        "flaky",
        "test_history",
    }
    assert (data["schema_version"], data["generated_at"], data["window_days"]) == (
        "1.1",
        "2026-02-10T12:00:00Z",
        30,
    )
    assert data["totals"] == {
        "runs": 11,
        "jobs": 11,
        "failing_tests": 11,
        "explained": 10,
        "explained_share": 0.9091,
        # 10 GPU nightlies of 2 tests (4 failed on the A10G), and the sample's 17 executed tests (7 failing)
        "tests_run": 37,
        "passed": 26,
        "pass_rate": 0.7027,
        "days_without_run": 20,
    }
    dates = [day["date"] for day in data["days"]]
    assert len(dates) == 30 and dates[0] == "2026-01-12" and dates[-1] == "2026-02-10"
    day_fields = {
        "date",
        "failures",
        "explained",
        "by_cause",
        "runs",
        "tests_run",
        "passed",
        "skipped",
        "pass_rate",
    }
    assert all(set(day) == day_fields for day in data["days"])
    night_eight = data["days"][dates.index("2026-02-09")]
    assert night_eight == {
        "date": "2026-02-09",
        "failures": 7,
        "explained": 6,
        "runs": 2,
        "tests_run": 19,
        "passed": 12,
        "skipped": 2,
        "pass_rate": 0.6316,
        "by_cause": {
            SEED_KEY: 3,
            "c9103a15f5a3": 1,  # an unexplained failure counts under its fingerprint
            "hf.gated-repo": 1,
            "nccl.system-error": 1,
            "network.address-in-use": 1,
        },
    }
    assert data["days"][dates.index("2026-02-01")]["by_cause"] == {SEED_KEY: 1}
    assert data["days"][0] == {
        "date": "2026-01-12",
        "failures": 0,
        "explained": 0,
        "by_cause": {},
        "runs": 0,  # no run that day, which is not a clean day
        "tests_run": 0,
        "passed": 0,
        "skipped": 0,
        "pass_rate": None,
    }
    for cause in data["causes"]:
        assert set(cause) == {
            "key", "kind", "title", "category", "advice", "first_seen", "last_seen", "counts", "tests",
            "tickets", "environment", "examples", "executed_share",
        }  # fmt: skip
        assert set(cause["first_seen"]) == set(cause["last_seen"]) == SIGHTING
        assert set(cause["counts"]) == {"24h", "7d", "30d", "total"}
        assert len(cause["examples"]) <= 3
        for example in cause["examples"]:
            assert set(example) == {"test", "run_id", "run_url", "at", "summary", "evidence"}
            assert set(example["evidence"]) == {"attachment", "line", "text", "excerpt"}
        for share in cause["environment"]:
            assert set(share) == {"dimension", "value", "hits", "hit_share", "run_share"}
    parse(data, source="dashboard_data()")  # the dashboard reads it


def test_build_to_json_parse_is_a_round_trip(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    _record(store, sample_report, gpu_report)
    built = build(store, now=NOW, days=30)
    assert parse(json.loads(json.dumps(to_json(built))), source="data.json") == built
    assert to_json(built) == dashboard_data(store, now=NOW, days=30)
    # The model's own types, not copies of them.
    seed = built.causes[0]
    assert isinstance(seed.examples[0].evidence, Evidence)
    assert [(ticket.system, ticket.key) for ticket in seed.tickets] == [
        ("linear", "OPS-4445"),
        ("github", "ai-dynamo/dynamo#8443"),
    ]
    assert all(isinstance(ticket, Ticket) for ticket in seed.tickets)
    empty = build(store, now=START - timedelta(days=60), days=7)
    assert not empty.causes and parse(to_json(empty)) == empty


def test_each_cause_with_its_sightings_environment_and_examples(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    _record(store, sample_report, gpu_report)
    data = dashboard_data(store, now=NOW, days=30)
    assert [cause["key"] for cause in data["causes"]] == [
        SEED_KEY,
        "c9103a15f5a3",
        "hf.gated-repo",
        "nccl.system-error",
        "network.address-in-use",
    ]
    seed = data["causes"][0]
    assert (seed["kind"], seed["category"]) == ("cause", "infrastructure")
    assert seed["title"] == "GPU already in use: vLLM's startup free-memory check failed"
    assert seed["advice"].startswith("Another process already holds memory on this GPU")
    assert seed["first_seen"] == {
        "at": "2026-02-01T08:00:00Z",
        "run_id": 9_000_000,
        "run_url": run_url(9_000_000),
        "head_sha": f"{9_000_000:040x}",
    }
    assert seed["last_seen"]["run_id"] == 4242 and seed["last_seen"]["at"] == "2026-02-09T14:00:00Z"
    assert seed["counts"] == {"24h": 3, "7d": 5, "30d": 7, "total": 7}  # night 8 at 14:00 is 22 h before NOW
    assert seed["tests"] == [
        "test_serve_deployment[mm_e_pd_qwen3-vl-2b]",
        "test_serve_deployment[mm_epd_qwen3-vl-2b-video]",
        "test_serve_deployment[mm_epd_qwen3-vl-2b]",
    ]
    assert seed["tickets"] == [
        {"key": "OPS-4445", "url": "https://linear.app/nvidia/issue/OPS-4445", "system": "linear"},
        {
            "key": "ai-dynamo/dynamo#8443",
            "url": "https://github.com/ai-dynamo/dynamo/pull/8443",
            "system": "github",
        },
    ]
    assert seed["executed_share"] == 0.1892  # 7 of the 37 tests executed in the window
    environment = {(row["dimension"], row["value"]): row for row in seed["environment"]}
    assert environment[("gpu_memory", "22 GiB")] == {
        "dimension": "gpu_memory",
        "value": "22 GiB",
        "hits": 7,
        "hit_share": 1.0,
        "run_share": 0.4545,  # 5 of the 11 jobs
    }
    assert ("gpu_memory", "44 GiB") not in environment  # never hit there
    assert [(e["run_id"], e["at"]) for e in seed["examples"]] == [
        (4242, "2026-02-09T14:00:00Z"),
        (4242, "2026-02-09T14:00:00Z"),
        (4242, "2026-02-09T14:00:00Z"),
    ]
    example = seed["examples"][0]
    assert example["summary"].startswith("vLLM wanted 0.9 × 22.03 GiB = 19.83 GiB")
    evidence = example["evidence"]
    assert evidence["attachment"] == "bash.log.txt" and "Free memory on device cuda:0" in evidence["text"]
    assert any(
        line["line"] == evidence["line"] and line["text"] == evidence["text"] for line in evidence["excerpt"]
    )
    unexplained = data["causes"][1]
    assert (unexplained["kind"], unexplained["category"], unexplained["advice"]) == ("unexplained", None, "")
    assert unexplained["title"] == "KeyError: 'token_ids'"
    # The example shows the likely cause and why it was chosen (here the same line the cluster is keyed by).
    assert unexplained["examples"][0]["summary"].startswith("Unexplained — likely cause (no rule), ")
    assert unexplained["examples"][0]["evidence"]["text"].endswith("KeyError: 'token_ids'")


def test_the_matrix_counts_hits_per_gpu(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    _record(store, sample_report, gpu_report)
    matrix = dashboard_data(store, now=NOW, days=30)["matrix"]
    assert (matrix["dimension"], matrix["columns"]) == ("gpu_model", ["NVIDIA A10G", "NVIDIA L40S"])
    assert matrix["rows"][0] == {
        "key": SEED_KEY,
        "title": "GPU already in use: vLLM's startup free-memory check failed",
        "cells": {"NVIDIA A10G": 7},
    }
    assert [row["key"] for row in matrix["rows"]] == [
        cause["key"] for cause in dashboard_data(store, now=NOW)["causes"]
    ]


def test_an_empty_store_gives_every_day_with_zeros(store: Store) -> None:
    data = dashboard_data(store, now=datetime(2026, 3, 1, 6, tzinfo=UTC), days=7)
    assert data["totals"] == {
        "runs": 0,
        "jobs": 0,
        "failing_tests": 0,
        "explained": 0,
        "explained_share": None,
        "tests_run": 0,
        "passed": 0,
        "pass_rate": None,
        "days_without_run": 7,
    }
    assert [day["date"] for day in data["days"]] == [f"2026-02-{day}" for day in range(23, 29)] + [
        "2026-03-01"
    ]
    assert data["causes"] == []
    assert data["matrix"] == {"dimension": "gpu_model", "columns": [], "rows": []}
    assert data["since_last_run"] == {"returning_after_runs": 3, "series": []}
    assert data["flaky"] == {"min_flips": 3, "tests": []}
    parse(data, source="dashboard_data()")
