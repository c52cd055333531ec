"""`history` and `reanalyze` output: exact text (rich, width 100) and the JSON contract, from real recordings."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from forensics.model import Report
from forensics.render.history import render_history_json, render_history_text
from forensics.render.reanalysis import render_reanalysis_json, render_reanalysis_text
from forensics.report.build import analyze
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from forensics.store import Store
from forensics.store.answers import History, history
from forensics.store.writer import record_report
from forensics.usecases.reanalyze import reanalyze
from tests.store.conftest import SAMPLE
from tests.store.nightly import START, nightly
from tests.store.test_reanalyze import HANDLER_RULE

NOW = START + timedelta(days=9, hours=4)
COMMIT = "a" * 40
HISTORY_TEXT = """\
History: last 14 days (2026-01-28 … 2026-02-10)
11 runs, 11 jobs, 8 failing tests: 7 explained (88%)

vllm.startup-free-memory · infrastructure — 4 hits, 3 tests  (24 h 3 · 7 d 3 · 30 d 4 · total 4)
  GPU already in use: vLLM's startup free-memory check failed
  first seen 2026-02-01 (run 9000000, aaaaaaa) · last seen 2026-02-10 (run 9000009, 0000000)
  ▲ 100% of hits on 22 GiB NVIDIA A10G runners (runner 'gpu-a10g-01'), which ran 18% of jobs

c9103a15f5a3 · unexplained — 1 hit, 1 test  (24 h 1 · 7 d 1 · 30 d 1 · total 1)
  KeyError: 'token_ids'
  first seen 2026-02-10 (run 9000009, 0000000) · last seen 2026-02-10 (run 9000009, 0000000)

hf.gated-repo · external-service — 1 hit, 1 test  (24 h 1 · 7 d 1 · 30 d 1 · total 1)
  Hugging Face gated model: no (valid) token or licence not accepted
  first seen 2026-02-10 (run 9000009, 0000000) · last seen 2026-02-10 (run 9000009, 0000000)

nccl.system-error · infrastructure — 1 hit, 1 test  (24 h 1 · 7 d 1 · 30 d 1 · total 1)
  NCCL system error (shared memory, sockets, IPC/P2P setup)
  first seen 2026-02-10 (run 9000009, 0000000) · last seen 2026-02-10 (run 9000009, 0000000)

network.address-in-use · infrastructure — 1 hit, 1 test  (24 h 1 · 7 d 1 · 30 d 1 · total 1)
  Port already in use (straggler process or port clash between tests)
  first seen 2026-02-10 (run 9000009, 0000000) · last seen 2026-02-10 (run 9000009, 0000000)

Since the last run of acme/inference · Nightly CI Pipeline · main: run 9000009 on 2026-02-10
  new       c9103a15f5a3  (1 test)
  new       hf.gated-repo  (1 test)
  new       nccl.system-error  (1 test)
  new       network.address-in-use  (1 test)
  returning vllm.startup-free-memory  (3 tests, after 9 quiet days)

Flaky: passed and failed on the same commit
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
┃ test                           ┃ commit  ┃ passed ┃ failed ┃ runs ┃ causes                       ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
│ test_kv_router_decisions[nats] │ 0000000 │      1 │      1 │    1 │ failed, then passed on retry │
│ test_serve_deployment[mm_epd_q │ aaaaaaa │      1 │      1 │    2 │ vllm.startup-free-memory     │
│ wen3-vl-2b]                    │         │        │        │      │                              │
└────────────────────────────────┴─────────┴────────┴────────┴──────┴──────────────────────────────┘

Share of failing tests explained, by week
┏━━━━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━┓
┃ week of    ┃ failing ┃ explained ┃ share ┃
┡━━━━━━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━┩
│ 2026-01-26 │       1 │         1 │  100% │
│ 2026-02-02 │       0 │         0 │     - │
│ 2026-02-09 │       7 │         6 │   86% │
└────────────┴─────────┴───────────┴───────┘
"""
REANALYSIS_TEXT = """\
Re-ran {rules} rules over 8 stored failing tests (1 from their artifacts, 7 from stored evidence): 1
moved.
What moved
┏━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┓
┃ change    ┃ before       ┃ after                ┃ tests ┃
┡━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━┩
│ explained │ c9103a15f5a3 │ dynamo.handler-error │     1 │
└───────────┴──────────────┴──────────────────────┴───────┘
Tests
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━┓
┃ test                               ┃ run                                  ┃ change    ┃ from     ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━┩
│ test_request_migration[qwen3-0.6b] │ 2026-02-10                           │ explained │ evidence │
│                                    │ https://github.com/acme/inference/ac │           │          │
│                                    │ tions/runs/9000009                   │           │          │
└────────────────────────────────────┴──────────────────────────────────────┴───────────┴──────────┘
Run again with --apply to write these verdicts into the store.
"""


def _text(renderable: RenderableType) -> str:
    stream = StringIO()
    Console(file=stream, width=100, no_color=True).print(renderable)
    return "\n".join(line.rstrip() for line in stream.getvalue().splitlines()) + "\n"


@pytest.fixture
def recorded(
    store: Store, gpu_report: Callable[[str], Report], rule_pack: RuleSet, tmp_path: Path
) -> tuple[Store, Path]:
    """The seed case on an A10G and passing on an L40S on one commit, eight quiet nights, then the sample."""
    record_report(store, nightly(gpu_report("A10G"), day=0, sha=COMMIT))
    record_report(store, nightly(gpu_report("L40S"), day=0, run_id=555, sha=COMMIT, gpu="L40S", hour=3))
    for day in range(1, 9):
        record_report(store, nightly(gpu_report("L40S"), day=day, gpu="L40S"))
    cached = tmp_path / "allure-results.zip"
    shutil.copy(SAMPLE, cached)
    record_report(store, nightly(analyze([str(cached)], rules=rule_pack), day=9))
    return store, cached


def _history(store: Store) -> History:
    return history(store, now=NOW, days=14)


def test_history_text(recorded: tuple[Store, Path]) -> None:
    store, _ = recorded
    assert _text(render_history_text(_history(store))) == HISTORY_TEXT


def test_history_json(recorded: tuple[Store, Path]) -> None:
    store, _ = recorded
    document = json.loads(render_history_json(_history(store)))
    assert set(document) == {
        "schema_version", "generated_at", "window_days", "filters", "totals", "causes", "days", "changes", "flaky",
    }  # fmt: skip
    assert (document["schema_version"], document["generated_at"], document["window_days"]) == (
        "1.0",
        "2026-02-10T12:00:00Z",
        14,
    )
    assert document["filters"] == {"repository": None, "workflow": None, "branch": None, "cause": None}
    assert document["totals"] == {
        "runs": 11,
        "jobs": 11,
        "failing_tests": 8,
        "explained": 7,
        "explained_share": 0.875,
    }
    seed = document["causes"][0]
    assert seed["key"] == "vllm.startup-free-memory" and seed["window_hits"] == 4
    assert seed["counts"] == {"24h": 3, "7d": 3, "30d": 4, "total": 4}
    assert seed["first_seen"] == {
        "at": "2026-02-01T08:00:00Z",
        "run_id": 9_000_000,
        "run_url": "https://github.com/acme/inference/actions/runs/9000000",
        "head_sha": COMMIT,
    }
    assert seed["pattern"].startswith("100% of hits on 22 GiB NVIDIA A10G runners")
    assert {
        "dimension": "gpu_memory",
        "value": "22 GiB",
        "hits": 4,
        "hit_share": 1.0,
        "run_share": 0.1818,
    } in seed["environment"]
    assert len(document["days"]) == 14 and document["days"][-1]["by_cause"]["vllm.startup-free-memory"] == 3
    [series] = document["changes"]
    assert series["latest"]["run_id"] == 9_000_009 and series["previous"]["run_id"] == 9_000_008
    assert {"key": "vllm.startup-free-memory", "status": "returning", "hits": 3, "quiet_days": 9} in series[
        "changes"
    ]
    assert document["flaky"][1] == {
        "test": "test_serve_deployment[mm_epd_qwen3-vl-2b]",
        "repository": "acme/inference",
        "head_sha": COMMIT,
        "passed": 1,
        "failed": 1,
        "runs": 2,
        "causes": ["vllm.startup-free-memory"],
        "retried": False,
    }


def test_reanalysis_text_and_json(recorded: tuple[Store, Path], tmp_path: Path) -> None:
    store, cached = recorded
    cached.unlink()  # the sample's artifact expired; the GPU runs' results folders are still there
    rule = tmp_path / "handler.toml"
    rule.write_text(HANDLER_RULE)
    shipped = len(load_rules())  # the pack grows; the sentence counts the shipped rules plus this one
    found = reanalyze(store, rules=load_rules([rule]))
    assert _text(render_reanalysis_text(found)) == REANALYSIS_TEXT.replace("{rules}", str(shipped + 1))
    document = json.loads(render_reanalysis_json(found))
    assert {key: document[key] for key in ("examined", "from_artifacts", "from_evidence", "applied")} == {
        "examined": 8,
        "from_artifacts": 1,
        "from_evidence": 7,
        "applied": 0,
    }
    assert document["moves"] == [
        {
            "test": "test_request_migration[qwen3-0.6b]",
            "run_url": "https://github.com/acme/inference/actions/runs/9000009",
            "run_at": "2026-02-10T08:00:00Z",
            "change": "explained",
            "before": {"kind": "unexplained", "key": "c9103a15f5a3"},
            "after": {
                "kind": "cause",
                "key": "dynamo.handler-error",
                "title": "A Dynamo worker handler raised KeyError",
            },
            "source": "evidence",
            "applied": False,
        }
    ]
    shipped = load_rules()
    nothing = reanalyze(store, rules=shipped)
    assert _text(render_reanalysis_text(nothing)) == (
        f"Re-ran {len(shipped)} rules over 8 stored failing tests (1 from their artifacts, 7 from stored evidence):\n"
        "nothing moved.\n"
    )
