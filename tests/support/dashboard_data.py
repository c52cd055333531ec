"""A realistic dashboard document (the shape `forensics.dashboard.document.dashboard_data` returns) for the tests.

Thirty nightly runs, each with one job on a 22 GiB A10G runner (40% of the runs) or a 48 GiB L40S runner:
the seed case (vLLM's startup free-memory check, only on the A10G), a CUDA OOM, a burst of Hugging Face rate
limits, a port clash, a cause last seen before the window, and two unexplained fingerprint clusters — one of
them a log line that prints HTML, to prove the pages show it as text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

NOW = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
SEED_KEY = "vllm.startup-free-memory"
SEED_TITLE = "GPU already in use: vLLM's startup free-memory check failed"
SEED_ADVICE = (
    "Another process already holds memory on this GPU (a second engine of the same test, a co-located "
    "encoder/prefill worker, or a leftover process from an earlier test), and this engine asked for the default "
    "share. Cap gpu_memory_utilization for secondary or encoder-only engines, or free the GPU before the engine "
    "starts."
)
SEED_LINE = (
    "[BASH] (EngineCore_DP0 pid=6940) ERROR 11-28 08:14:17 [core.py:708] ValueError: Free memory on device cuda:0 "
    "(19.5/22.03 GiB) on startup is less than desired GPU memory utilization (0.9, 19.83 GiB). Decrease GPU memory "
    "utilization or reduce GPU memory used by other processes."
)
TIMEOUT_KEY = "422ce2be4167"
XSS_KEY = "9f1c0de2a7b3"
XSS_LINE = "ValueError: unexpected response body: '<script>alert(1)</script>'"
XSS_TEST = "test_render_page[<img src=x onerror=alert(2)>]"
XSS_TICKET_URL = "javascript:alert(3)"
STALE_KEY = "cuda.no-gpus"
RUNNER_A10G = "gpu-a10g-22gb"
RUNNER_L40S = "gpu-l40s-48gb"
SEED_TESTS = (
    "test_serve_deployment[mm_e_pd_qwen3-vl-2b]",
    "test_serve_deployment[mm_epd_qwen3-vl-2b]",
    "test_serve_deployment[mm_epd_qwen3-vl-2b-video]",
)


def _on_a10g(day: int) -> bool:
    return day % 5 in (0, 2)  # 12 of the 30 runs: 40%


# cause key → failing tests on window day i (0 = the oldest day)
_PER_DAY: dict[str, Callable[[int], int]] = {
    SEED_KEY: lambda day: 3 if _on_a10g(day) else 0,
    "torch.cuda-oom": lambda day: 1 if day % 7 == 3 else 0,
    "hf.rate-limited": lambda day: 2 if 20 <= day <= 23 else 0,
    "network.address-in-use": lambda day: 1 if day % 10 == 6 else 0,
    TIMEOUT_KEY: lambda day: 1 if day % 6 == 1 else 0,
    XSS_KEY: lambda day: 1 if day in (27, 28) else 0,
}
_UNEXPLAINED = {TIMEOUT_KEY, XSS_KEY}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _run(run_id: int, moment: datetime) -> dict[str, Any]:
    return {
        "at": _iso(moment),
        "run_id": run_id,
        "run_url": f"https://github.com/acme/inference/actions/runs/{run_id}",
        "head_sha": hashlib.sha1(str(run_id).encode(), usedforsecurity=False).hexdigest(),
    }


def _excerpt(first: int, lines: list[str]) -> list[dict[str, Any]]:
    return [{"line": first + index, "text": text} for index, text in enumerate(lines)]


def _causes(start: datetime, days: int) -> list[dict[str, Any]]:
    def run_on(day: int) -> tuple[int, datetime]:
        return 9_100_000_000 + day, start + timedelta(days=day, hours=2, minutes=14)

    def counts(key: str, before_window: int) -> dict[str, int]:
        per_day = [_PER_DAY[key](day) for day in range(days)]
        return {
            "24h": per_day[-1],
            "7d": sum(per_day[-7:]),
            "30d": sum(per_day),
            "total": sum(per_day) + before_window,
        }

    def seen(key: str) -> tuple[dict[str, Any], dict[str, Any]]:
        hit_days = [day for day in range(days) if _PER_DAY[key](day)]
        return _run(*run_on(hit_days[0])), _run(*run_on(hit_days[-1]))

    def example(day: int, test: str, summary: str, line: int, text: str, around: list[str]) -> dict[str, Any]:
        run_id, moment = run_on(day)
        return {
            "test": test,
            "run_id": run_id,
            "run_url": f"https://github.com/acme/inference/actions/runs/{run_id}",
            "at": _iso(moment),
            "summary": summary,
            "evidence": {
                "attachment": "bash.log.txt",
                "line": line,
                "text": text,
                "excerpt": _excerpt(line - len(around) + 1, around),
            },
        }

    seed_excerpt = [
        "[BASH] (EngineCore_DP0 pid=6940) ERROR 11-28 08:14:16 [core.py:708]     self.requested_memory = "
        "request_memory(init_snapshot, self.cache_config)",
        '[BASH] (EngineCore_DP0 pid=6940) ERROR 11-28 08:14:16 [core.py:708]   File "/opt/dynamo/venv/lib/'
        'python3.12/site-packages/vllm/v1/worker/utils.py", line 413, in request_memory',
        "[BASH] (EngineCore_DP0 pid=6940) ERROR 11-28 08:14:17 [core.py:708]     raise ValueError(",
        SEED_LINE,
    ]
    seed_summary = (
        "vLLM wanted 0.9 × 22.03 GiB = 19.83 GiB on cuda:0 but only 19.5 GiB was free: 0.33 GiB short. "
        "The largest gpu_memory_utilization that would have fit is 0.88."
    )
    oom_line = (
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 44.53 GiB of which 1.20 GiB is free."
    )
    timeout_line = "RuntimeError: TIMEOUT: Check URL: http://localhost:8000/health failed after 600s"
    first_seed, last_seed = seen(SEED_KEY)
    first_oom, last_oom = seen("torch.cuda-oom")
    first_hf, last_hf = seen("hf.rate-limited")
    first_port, last_port = seen("network.address-in-use")
    first_timeout, last_timeout = seen(TIMEOUT_KEY)
    first_xss, last_xss = seen(XSS_KEY)
    long_ago = _run(9_099_999_950, start - timedelta(days=17, hours=-3))
    a10g_hits = counts(SEED_KEY, 9)["total"]
    return [
        {
            "key": SEED_KEY,
            "kind": "cause",
            "title": SEED_TITLE,
            "category": "infrastructure",
            "advice": SEED_ADVICE,
            "first_seen": first_seed,
            "last_seen": last_seed,
            "counts": counts(SEED_KEY, 9),
            "tests": list(SEED_TESTS),
            "tickets": [
                {"key": "OPS-4445", "url": "https://linear.app/acme/issue/OPS-4445"},
                {"key": "ai-dynamo/dynamo#8443", "url": "https://github.com/ai-dynamo/dynamo/issues/8443"},
            ],
            "environment": [
                {
                    "dimension": "runner_label",
                    "value": RUNNER_A10G,
                    "hits": a10g_hits,
                    "hit_share": 1.0,
                    "run_share": 0.4,
                },
                {
                    "dimension": "gpu_model",
                    "value": "NVIDIA A10G",
                    "hits": a10g_hits,
                    "hit_share": 1.0,
                    "run_share": 0.4,
                },
                {
                    "dimension": "gpu_memory",
                    "value": "22 GiB",
                    "hits": a10g_hits,
                    "hit_share": 1.0,
                    "run_share": 0.4,
                },
            ],
            "examples": [
                example(27, SEED_TESTS[1], seed_summary, 146, SEED_LINE, seed_excerpt),
                example(25, SEED_TESTS[0], seed_summary, 152, SEED_LINE, seed_excerpt),
            ],
        },
        {
            "key": "torch.cuda-oom",
            "kind": "cause",
            "title": "PyTorch ran out of GPU memory (CUDA out of memory)",
            "category": "infrastructure",
            "advice": "Lower the batch size or max_model_len, or run the test on a GPU with more memory.",
            "first_seen": first_oom,
            "last_seen": last_oom,
            "counts": counts("torch.cuda-oom", 2),
            "tests": ["test_llama_long_context[8k]", "test_llama_long_context[32k]"],
            "tickets": [{"key": "OPS-4502", "url": "https://linear.app/acme/issue/OPS-4502"}],
            "environment": [
                {
                    "dimension": "gpu_model",
                    "value": "NVIDIA L40S",
                    "hits": 3,
                    "hit_share": 0.75,
                    "run_share": 0.6,
                },
                {
                    "dimension": "gpu_model",
                    "value": "NVIDIA A10G",
                    "hits": 1,
                    "hit_share": 0.25,
                    "run_share": 0.4,
                },
            ],
            "examples": [
                example(
                    24,
                    "test_llama_long_context[32k]",
                    "Tried to allocate 2 GiB with 1.2 GiB free of 44.53 GiB.",
                    2210,
                    oom_line,
                    ["[rank0]: Traceback (most recent call last):", oom_line],
                )
            ],
        },
        {
            "key": "hf.rate-limited",
            "kind": "cause",
            "title": "Hugging Face Hub rate-limited the runner (HTTP 429)",
            "category": "external-service",
            "advice": "Use a read token for the Hub and cache models on the runner.",
            "first_seen": first_hf,
            "last_seen": last_hf,
            "counts": counts("hf.rate-limited", 0),
            "tests": ["test_download_model[qwen3-0.6b]"],
            "tickets": [],
            "environment": [],
            "examples": [],
        },
        {
            "key": "network.address-in-use",
            "kind": "cause",
            "title": "Port already in use (straggler process or port clash between tests)",
            "category": "test",
            "advice": "Give each test its own port, or wait for the previous server to exit.",
            "first_seen": first_port,
            "last_seen": last_port,
            "counts": counts("network.address-in-use", 1),
            "tests": ["test_router_failover"],
            "tickets": [{"key": "#812", "url": "https://github.com/acme/inference/issues/812"}],
            "environment": [
                {"dimension": "runner", "value": "runner-07", "hits": 4, "hit_share": 0.5, "run_share": 0.5},
            ],
            "examples": [],
        },
        {
            "key": STALE_KEY,
            "kind": "cause",
            "title": "CUDA saw no GPU (driver not loaded or device not passed through)",
            "category": "infrastructure",
            "advice": "Check the runner's GPU passthrough.",
            "first_seen": long_ago,
            "last_seen": long_ago,
            "counts": {"24h": 0, "7d": 0, "30d": 0, "total": 2},
            "tests": ["test_smoke"],
            "tickets": [],
            "environment": [],
            "examples": [],
        },
        {
            "key": TIMEOUT_KEY,
            "kind": "unexplained",
            "title": "RuntimeError: TIMEOUT: Check URL: <url> failed after <duration>",
            "category": None,
            "advice": "",
            "first_seen": first_timeout,
            "last_seen": last_timeout,
            "counts": counts(TIMEOUT_KEY, 0),
            "tests": ["test_serve_deployment[agg_router]"],
            "tickets": [],
            "environment": [],
            "examples": [
                example(25, "test_serve_deployment[agg_router]", "", 880, timeout_line, [timeout_line])
            ],
        },
        {
            "key": XSS_KEY,
            "kind": "unexplained",
            "title": "ValueError: unexpected response body: '<script>alert(<num>)</script>'",
            "category": None,
            "advice": "",
            "first_seen": first_xss,
            "last_seen": last_xss,
            "counts": counts(XSS_KEY, 0),
            "tests": [XSS_TEST],
            "tickets": [{"key": "OPS-9999", "url": XSS_TICKET_URL}],
            "environment": [],
            "examples": [
                example(28, XSS_TEST, "", 41, XSS_LINE, ["<b>server said</b>", XSS_LINE]),
            ],
        },
    ]


def dashboard_document(*, now: datetime = NOW, days: int = 30) -> dict[str, Any]:
    """The document for `days` days ending on `now`'s date."""
    start = (now - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
    day_rows: list[dict[str, Any]] = []
    for day in range(days):
        by_cause = {key: per_day(day) for key, per_day in _PER_DAY.items() if per_day(day)}
        failures = sum(by_cause.values())
        explained = sum(count for key, count in by_cause.items() if key not in _UNEXPLAINED)
        date = (start + timedelta(days=day)).date().isoformat()
        day_rows.append({"date": date, "failures": failures, "explained": explained, "by_cause": by_cause})
    failing = sum(row["failures"] for row in day_rows)
    explained = sum(row["explained"] for row in day_rows)
    causes = _causes(start, days)
    a10g_runs = sum(1 for day in range(days) if _on_a10g(day))

    def on_gpu(key: str, a10g: bool) -> int:
        if key == SEED_KEY:
            return sum(_PER_DAY[key](day) for day in range(days)) if a10g else 0
        return sum(_PER_DAY[key](day) for day in range(days) if _on_a10g(day) == a10g)

    rows = [
        {
            "key": cause["key"],
            "title": cause["title"],
            "cells": {
                column: count
                for column, count in (
                    ("NVIDIA A10G", on_gpu(cause["key"], True)),
                    ("NVIDIA L40S", on_gpu(cause["key"], False)),
                )
                if count
            },
        }
        for cause in causes
        if cause["key"] in _PER_DAY
    ]
    return {
        "schema_version": "1.0",
        "generated_at": _iso(now),
        "window_days": days,
        "totals": {
            "runs": days,
            "jobs": days + a10g_runs,
            "failing_tests": failing,
            "explained": explained,
            "explained_share": round(explained / failing, 4) if failing else None,
        },
        "days": day_rows,
        "causes": causes,
        "matrix": {"dimension": "gpu_model", "columns": ["NVIDIA A10G", "NVIDIA L40S"], "rows": rows},
    }


def empty_document(*, now: datetime = NOW, days: int = 30) -> dict[str, Any]:
    """What an empty store gives: every day with zeros, no causes."""
    start = now - timedelta(days=days - 1)
    return {
        "schema_version": "1.0",
        "generated_at": _iso(now),
        "window_days": days,
        "totals": {"runs": 0, "jobs": 0, "failing_tests": 0, "explained": 0, "explained_share": None},
        "days": [
            {
                "date": (start + timedelta(days=day)).date().isoformat(),
                "failures": 0,
                "explained": 0,
                "by_cause": {},
            }
            for day in range(days)
        ],
        "causes": [],
        "matrix": {"dimension": "gpu_model", "columns": [], "rows": []},
    }


def chart_bar_count(document: dict[str, Any]) -> int:
    """The bars the front page's chart should draw: each cause its own, a day's unexplained clusters as one.

    True while the document has no more causes than the chart has colours (this one has five in the window).
    """
    unexplained = {cause["key"] for cause in document["causes"] if cause["kind"] == "unexplained"}
    return sum(
        len([key for key, count in day["by_cause"].items() if count and key not in unexplained])
        + (1 if any(count for key, count in day["by_cause"].items() if key in unexplained) else 0)
        for day in document["days"]
    )
