"""Where the fatal-line tier looks (thirteenth round): the likely cause's line, else the lines of its excerpt that
report a failure, ranked (engine/likely.py `tier_candidates`), on real logs under tests/corpus/train with the pack's
ordinary causes switched off, so that only the tier can name a cause; and the near misses that keep it from naming
a false cause: what follows a fatal event is its aftermath (docs/likely-cause.md, docs/accuracy.md's thirteenth
round)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.engine.likely import LikelyLine, tier_candidates
from forensics.model import ExcerptLine, LikelyReason
from forensics.rules.model import RuleSet
from tests.support.rulebook import root_cause_of
from tests.tier_coverage import tier_alone

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"


@pytest.fixture(scope="module")
def alone(rule_pack: RuleSet) -> RuleSet:
    """The pack with its ordinary causes off: the symptom rules (the picker's wrapper test) and the tier."""
    return tier_alone(rule_pack)


@pytest.mark.parametrize(
    ("file", "rule_id", "line"),
    [
        # below a line that only reports a failure, what it reports: taskcluster's `nvidia-smi failed with return code
        # 18`, then nvidia-smi's own stdout `Failed to initialize NVML: Driver/library version mismatch`
        (
            "dev-lower/cuda-setup/nvml-mismatch-taskcluster-mozilla-translations-1167.log",
            "fatal-line.cuda-setup",
            2,
        ),
        # CMake's `file INSTALL cannot copy file "…" to`, its sentence going on below with `No space left on device.`
        ("dev/disk/cmake-install-no-space-ipdk-44.log", "fatal-line.disk-full", 4),
        # GitHub's `Job failed with below error`, then the hosted runner's `lost communication with the server`
        (
            "holdout-r3/runner-infrastructure/d-runner-images-hosted-runner-lost-communication.log",
            "fatal-line.runner-infrastructure",
            5,
        ),
        # tar's `Cannot mkdir: No such file or directory` for a path under the one whose mkdir ran out of space
        ("holdout-r8/disk-full/n-returnn-actions-cache-restore-tar-no-space.log", "fatal-line.disk-full", 8),
        # a googletest `Failure` line, then the C++ exception's `CUDA runtime error … no kernel image`
        ("holdout-r8/cuda-setup/o-trtllm-gtest-sampling-no-kernel-image.log", "fatal-line.cuda-setup", 7),
        # above a fatal event, what it beat, root first: llama.cpp's `cudaMalloc failed: out of memory`, not the
        # loader's `unable to allocate CUDA0 buffer` right below it, nor Go's `panic: unable to load model` after both
        ("holdout-r2/gpu-oom/ollama-llama-runner-cudamalloc-oom-panic.log", "fatal-line.gpu-oom", 3),
        # pydantic's `ValidationError: 1 validation error for VllmConfig` above its `Value error, …` detail
        (
            "dev-engines/model-config/spec-decode-runner-v2-pydantic-xpu-7166.log",
            "fatal-line.model-config",
            1,
        ),
    ],
)
def test_the_tier_names_a_failure_line_of_the_excerpt(
    alone: RuleSet, file: str, rule_id: str, line: int
) -> None:
    assert root_cause_of(TRAIN / file, alone) == (rule_id, line)


@pytest.mark.parametrize(
    "file",
    [
        # SGLang's own `TypeError` in tp_worker, then the launcher's kill of the process tree: `Killed` two lines below
        "holdout-r8/unexplained/m-sglang-llava-prepare-for-extend-typeerror.log",
        # a 502 the warm-up saw, then `Killed`
        "holdout-r3/unexplained/c-sglang-warmup-502-then-killed.log",
        # ggml's `GGML_ASSERT` aborts the process: Go's `SIGSEGV: segmentation violation` report below is the abort's
        "holdout-r5/unexplained/g-ollama-ggml-cpu-get-rows-assert-sigsegv.log",
        # Go's nil-pointer panic (a program's own bug) and its `[signal SIGSEGV: segmentation violation …]` detail
        "holdout-r8/segfault/o-llm-d-epp-go-nil-pointer-sigsegv.log",
    ],
)
def test_the_aftermath_of_a_fatal_event_names_no_cause(alone: RuleSet, file: str) -> None:
    assert root_cause_of(TRAIN / file, alone) == (None, None)


def test_a_signal_below_an_error_of_another_family_is_not_its_cause(alone: RuleSet) -> None:
    # llama.cpp's OpenCL loader fails on an unexpected EOF (the model file) and aborts: `Aborted (core dumped)`
    rule_id, _line = root_cause_of(
        TRAIN / "holdout-r8/model-config/m-llamacpp-opencl-powervr-unexpected-eof-abort.log", alone
    )
    assert rule_id != "fatal-line.killed-by-signal"


def _picked(reason: LikelyReason, lines: list[str], chosen: int) -> LikelyLine:
    excerpt = tuple(ExcerptLine(number, text) for number, text in enumerate(lines, 1))
    return LikelyLine(chosen, lines[chosen - 1], reason, excerpt)


def test_the_candidates_are_ranked_by_what_the_chosen_line_is() -> None:
    lines = [
        "error: could not write /data/a.bin: No space left on device",
        "RuntimeError: loading failed",
        "Job failed with below error",
        "OSError: [Errno 28] No space left on device",
        "Killed",
    ]
    # a line that only reports a failure: what it reports below first, then what came above, root first
    assert [line.number for line in tier_candidates(_picked(LikelyReason.ERROR_LINE, lines, 3))] == [
        4,
        5,
        1,
        2,
    ]
    # a fatal event: only what it beat above, root first; below it is its aftermath
    assert [line.number for line in tier_candidates(_picked(LikelyReason.EXCEPTION, lines, 3))] == [1, 2]


@pytest.mark.parametrize(
    "text",
    [
        "WARNING 05-01 10:00:00 utils.py:12] Failed to allocate 2 GiB, out of memory",  # a warning
        "attempt 1 failed: connection reset; retrying in 2s",  # a failure it says it recovered from
        "Couldn't find '/root/.ollama/id_ed25519'. Generating new private key.",
        "    raise OSError(errno.ENOSPC, 'No space left on device')",  # quoted source
        'File "/usr/lib/python3.10/shutil.py", line 254, in copyfile',  # a traceback's frame
        "Failed to import transformers.generation.utils because of the following error (look up to see its traceback):",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be",
        "Downloading shards: 100%|##########| 4/4",  # no failure at all
    ],
)
def test_lines_that_report_no_failure_of_their_own_are_no_candidates(text: str) -> None:
    lines = [text, "Job failed with below error"]
    assert tier_candidates(_picked(LikelyReason.ERROR_LINE, lines, 2)) == ()


def test_a_symptom_rules_line_is_no_candidate() -> None:
    lines = [
        "Job failed with below error",
        "RuntimeError: Engine core initialization failed. See root cause above.",
    ]
    assert tier_candidates(_picked(LikelyReason.ERROR_LINE, lines, 1)) == ()
    wrapper_free = ["Job failed with below error", "RuntimeError: Engine core initialization failed."]
    assert [line.number for line in tier_candidates(_picked(LikelyReason.ERROR_LINE, wrapper_free, 1))] == [2]
    assert (
        tier_candidates(
            _picked(LikelyReason.ERROR_LINE, wrapper_free, 1), is_wrapper=lambda text: "Engine core" in text
        )
        == ()
    )
