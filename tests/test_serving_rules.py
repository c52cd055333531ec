"""Serving-stack rules: a family's general rule never beats a specific cause that the same log also shows.

The general rules (`harness.server-not-ready`, `ray.actor-died`, `rust.panic`, `model.config-error`) have low
priorities on purpose. These logs are real ones from tests/corpus/train (cited in SOURCES*.md), or real lines from
different threads put together where no single public log shows both (the OOM line is cut after its first sentence).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.rulebook import root_cause_of, write_log

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"

# A Rust panic whose message is the port clash is the port clash, on whichever line the reason is printed.
REAL_LOGS = [
    ("rust/panic-bind-address-in-use-hyper-owshen-28.log", "network.address-in-use", 3),
    ("rust/panic-addrinuse-next-line-tuwunel-374.log", "network.address-in-use", 6),
    ("rust/panic-new-format-chat-template-tgi-1574.log", "rust.panic", 3),
    # vLLM's "architecture not supported" after a failed inspection: the undefined symbol is the cause
    ("model/arch-not-supported-after-undefined-symbol-vllm-9377.log", "python.undefined-symbol", 1),
    # the exit-detail line comes first, the driver's exception line is the one that says it
    ("ray/ray-actor-error-job-submit-simplerl-98.log", "ray.actor-died", 10),
    # V1's "Worker failed with error '…'" wrapper (a symptom) quotes the LoRA check on the same line
    ("dev-engines/model-config/lora-rank-worker-failed-llamafactory-9512.log", "vllm.lora-config", 2),
    # the raise statement's own source line in the traceback is not the evidence; the ValueError is
    ("dev-engines/model-config/lora-unsupported-weight-vllm-9280.log", "vllm.lora-config", 10),
    # no specific rule knows Model Runner V2's refusal: the general model.config-error answers on pydantic's line
    ("dev-engines/model-config/spec-decode-runner-v2-pydantic-xpu-7166.log", "model.config-error", 1),
]

# real lines from the train corpus's logs (the file each comes from is named)
GATED = (  # huggingface/gated-repo-ci-make-semantic-router-817.log
    "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: "
    "Root=1-693b313c-3a360d925a720ea722d0d659;d80b0023-f1de-421c-828f-7f393a1763c2)"
)
SERVER_NOT_READY = (
    "E   RuntimeError: Server failed to start in time."  # harness/server-not-ready-vllm-tests-utils-46591.log
)
ACTOR_DIED = (  # ray/actor-died-new-wording-verl-4921.log
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."
)
CUDA_OOM = (  # pytorch-cuda/torch-oom-engine-core-12529.log
    "ERROR 03-13 09:00:43 [core.py:330] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. "
    "GPU 0 has a total capacity of 7.75 GiB of which 1.17 GiB is free."
)
TGI_WARMUP = (  # dev-engines/serving-gpu-memory/tgi-prefill-runtimeerror-2301.log
    "RuntimeError: Not enough memory to handle 131122 prefill tokens. You need to decrease `--max-batch-prefill-tokens`"
)
ILLEGAL_ACCESS = (  # dev3/cuda/illegal-access-vllmworker-tp1-minicpm-24815.log
    "(VllmWorker TP1 pid=409) ERROR 09-14 03:15:31 [multiproc_executor.py:596] RuntimeError: CUDA error: "
    "an illegal memory access was encountered"
)
MPI_RANK_KILLED = (  # dev-engines/signal/mpirun-signal9-aware-history-2.log
    "mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 (Killed)."
)
COMBINED = [
    pytest.param(
        [GATED, SERVER_NOT_READY], "hf.gated-repo", 1, id="the-server-log-says-why-it-never-came-up"
    ),
    pytest.param([SERVER_NOT_READY, GATED], "hf.gated-repo", 2, id="even-when-the-reason-is-printed-later"),
    pytest.param([CUDA_OOM, ACTOR_DIED], "torch.cuda-oom", 1, id="the-actor-died-of-a-cuda-oom"),
    pytest.param(
        [SERVER_NOT_READY], "harness.server-not-ready", 1, id="nothing-deeper-the-general-rule-answers"
    ),
    pytest.param(
        [CUDA_OOM, TGI_WARMUP], "tgi.not-enough-memory", 2, id="tgi-warmup-reports-the-oom-as-its-budget"
    ),
    pytest.param(
        [ILLEGAL_ACCESS, MPI_RANK_KILLED], "cuda.illegal-memory-access", 1, id="the-rank-died-of-its-error"
    ),
    pytest.param(
        [MPI_RANK_KILLED], "mpi.rank-killed-by-signal", 1, id="a-bare-mpirun-kill-notice-is-the-signal"
    ),
]


@pytest.mark.parametrize(("name", "rule_id", "line"), REAL_LOGS, ids=[name for name, _, _ in REAL_LOGS])
def test_a_specific_cause_wins_over_the_general_rule_in_real_logs(
    name: str, rule_id: str, line: int, rule_pack: RuleSet
) -> None:
    assert root_cause_of(TRAIN / name, rule_pack) == (rule_id, line)


@pytest.mark.parametrize(("lines", "rule_id", "line"), COMBINED)
def test_a_general_rule_answers_only_when_nothing_more_specific_matched(
    lines: list[str], rule_id: str, line: int, rule_pack: RuleSet, tmp_path: Path
) -> None:
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == (rule_id, line)


def test_wrappers_alone_stay_unexplained(rule_pack: RuleSet) -> None:
    for name in (
        "unexplained/serving-engine-core-wrapper-gpustack-2723.log",
        "unexplained/serving-arch-inspection-subprocess-failed-9713.log",
        "unexplained/serving-diffusers-safetensors-fallback-noise-foleycrafter-9.log",
        "dev-engines/unexplained/mpi-abort-no-message-hemelb-4.log",
        "dev-engines/unexplained/trtllm-executor-worker-returned-error-7706.log",
    ):
        assert root_cause_of(TRAIN / name, rule_pack) == (None, None), name
