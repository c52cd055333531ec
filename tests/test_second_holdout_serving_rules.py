"""The sixth round's serving-engine rules (the retired second holdout's misses): which rule and line win on real logs.

Each log is a real one from tests/corpus/train/holdout-r2 (cited in SOURCES-holdout-r2a.md / -r2b.md); the combined
cases put real lines of the train corpus together to check the ranking around the new patterns. See docs/accuracy.md,
"Sixth round: the second holdout's misses", "serving engines".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.report.build import analyze
from forensics.rules.model import RuleSet
from tests.support.rulebook import root_cause_of, write_log

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"

REAL_LOGS = [
    # an actor killed with ray.kill (by Serve's controller) still fails the call waiting on it
    ("holdout-r2/ray-died/ray-serve-replica-actor-died-ray-kill.log", "ray.actor-died", 5),
    # ggml's cudaMalloc line comes before the loader's "unable to allocate CUDA0 buffer" and the Go panic
    ("holdout-r2/gpu-oom/ollama-llama-runner-cudamalloc-oom-panic.log", "cuda.out-of-memory", 3),
    ("holdout-r2/segfault/xgrammar-accept-token-segfault-dp-rank.log", "machine.segfault", 1),
    ("holdout-r2/segfault/b-pygame-parachute-segfault-importing-triton.log", "machine.segfault", 2),
    (
        "holdout-r2/serving-engine-internal/tritonserver-model-status-unable-to-create-trt-engine.log",
        "trtllm.engine-load-failed",
        6,
    ),
    # CANN's "Expected value: [0, 0)" under torch_npu's generic "NPU function error"
    ("holdout-r2/no-gpu/vllm-ascend-ut-setdevice-no-npu-visible.log", "cuda.no-gpus", 9),
    # the raylet's report hard-wrapped by the paste: the sentence's tail starts line 2
    (
        "holdout-r2/host-oom/vllm-ray-raylet-workers-killed-memory-pressure-ansi.log",
        "ray.memory-monitor-killed",
        2,
    ),
    # TGI's shard ValueError outranks the launcher's "Shard 0 failed to start" / ShardCannotStart wrappers
    (
        "holdout-r2/model-config/tgi-falcon-num-heads-not-divisible-by-shards.log",
        "vllm.engine-config-unsupported",
        13,
    ),
    (
        "holdout-r2/wrong-response/litellm-proxy-openai-endpoints-400-not-200.log",
        "harness.response-mismatch",
        5,
    ),
    # the exception line that repeats the c10d E line's text is the evidence (docs/rules.md)
    (
        "holdout-r2/rendezvous-failure/vllm-ray-torchrun-check-tcpstore-client-socket-timeout.log",
        "distributed.store-unreachable",
        10,
    ),
    # torch 2.0's host:port form, above torchelastic's "See inner exception" wrapper
    (
        "holdout-r2/rendezvous-failure/b-torchrun-c10d-rdzv-client-socket-60s.log",
        "distributed.store-unreachable",
        3,
    ),
    ("holdout-r2/compile-failed/vllm-triton-ptxas-evict-last-modifier-error.log", "triton.compile-failed", 1),
    ("holdout-r2/compile-failed/vllm-lora-triton-cache-tmp-file-race.log", "triton.cache-file-missing", 9),
    (
        "holdout-r2/server-not-ready/vllm-omni-perf-orchestrator-startup-timeouterror.log",
        "vllm.omni-orchestrator-startup-timeout",
        8,
    ),
    (
        "holdout-r2/server-not-ready/b-testcontainers-service-port-never-opened.log",
        "harness.server-not-ready",
        5,
    ),
    # the wrapper alone (no inner socket line in the excerpt) is still the general rule's
    (
        "holdout-r2/rendezvous-failure/b-torch-distributed-run-error-handler-json-connect-timeout.log",
        "distributed.store-failure",
        3,
    ),
]

# real lines of the train corpus
RAY_KILLED = [  # holdout-r2/ray-died/ray-serve-replica-actor-died-ray-kill.log
    "(Handler pid=97598) ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
    "(Handler pid=97598) The actor is dead because it was killed by `ray.kill`.",
]
CUDA_OOM = (  # a vLLM EngineCore's OOM from the train corpus
    "ERROR 03-13 09:00:43 [core.py:330] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB."
    " GPU 0 has a total capacity of 7.75 GiB of which 1.17 GiB is free."
)
OMNI_TIMEOUT = [  # holdout-r2/server-not-ready/vllm-omni-perf-orchestrator-startup-timeouterror.log
    "(APIServer pid=92764)     startup_future.result(timeout=startup_timeout)",
    '(APIServer pid=92764)   File "/usr/lib/python3.12/concurrent/futures/_base.py", line 458, in result',
    "(APIServer pid=92764)     raise TimeoutError()",
    "(APIServer pid=92764) TimeoutError",
]
SOCKET_LINE = (  # holdout-r2/rendezvous-failure/b-torchrun-c10d-rdzv-client-socket-60s.log
    "[E socket.cpp:860] [c10d] The client socket has timed out after 60s while trying to connect to 192.0.0.1:1234"
)
RDZV_WRAPPER = (
    "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed."
    " See inner exception for details."
)
COMBINED = [
    pytest.param(
        [CUDA_OOM, *RAY_KILLED], "torch.cuda-oom", 1, id="a-workers-own-error-beats-the-killed-actor"
    ),
    pytest.param(
        [*OMNI_TIMEOUT, CUDA_OOM], "torch.cuda-oom", 5, id="a-stages-error-beats-the-startup-timeout"
    ),
    pytest.param(OMNI_TIMEOUT[3:], None, None, id="a-bare-timeouterror-alone-is-not-a-startup-timeout"),
    pytest.param(
        [RDZV_WRAPPER, SOCKET_LINE], "distributed.store-unreachable", 2, id="the-address-beats-the-wrapper"
    ),
]


@pytest.mark.parametrize(("name", "rule_id", "line"), REAL_LOGS, ids=[name for name, _, _ in REAL_LOGS])
def test_the_rule_and_its_line_win_in_real_logs(
    name: str, rule_id: str, line: int, rule_pack: RuleSet
) -> None:
    assert root_cause_of(TRAIN / name, rule_pack) == (rule_id, line)


@pytest.mark.parametrize(("lines", "rule_id", "line"), COMBINED)
def test_the_ranking_around_the_new_patterns(
    lines: list[str], rule_id: str | None, line: int | None, rule_pack: RuleSet, tmp_path: Path
) -> None:
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == (rule_id, line)


def test_the_killed_actor_names_ray_kill(rule_pack: RuleSet) -> None:
    log = TRAIN / "holdout-r2/ray-died/ray-serve-replica-actor-died-ray-kill.log"
    [verdict] = analyze([str(log)], rules=rule_pack).verdicts
    assert verdict.root_cause is not None
    assert "killed by `ray.kill`" in verdict.root_cause.summary
