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
from tests.support.likely import picked_from, picked_in
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


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # llama.cpp's tests print a program's error with the colon spaced (`main : error: token 3 detokenizes to …`):
        # the first of three error lines, not the last line printed
        (
            "holdout-r9/unexplained/p-llama-cpp-test-tokenizer-1-detokenize-mismatch.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        # loguru's header (`2025-03-17 17:21:07.953 | ERROR    | app.llm:ask_tool:426 - …`) shows the record's level
        (
            "holdout-r9/unexplained/p-openmanus-vllm-base-url-typo-connection-error.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        # a bare `AssertionError: ` whose message holds the first failing repeat's traceback (CuPy's `condition.py`),
        # which ends in the same class: that traceback's `AssertionError: Rejected null hypothesis:` is the deeper one
        ("holdout-r9/unexplained/q-cupy-jenkins-random-sample-ks-stochastic.log", 16, LikelyReason.EXCEPTION),
        # docker compose's status row (`✘ Container ties-db-1  Error dependency db failed to start  1.0s`) yields to
        # the command's own error below the display, which says why
        ("holdout-r9/unexplained/q-ties-compose-up-db-no-healthcheck.log", 8, LikelyReason.FAILURE_LINE),
        # huggingface_hub's `Error while downloading from …: The read operation timed out` (a progress bar overprinted
        # its end): the first failure, not the same one again after `Trying to resume download...`
        (
            "holdout-r9/hub-download/q-hfhub-snapshot-download-read-timeout-resume.log",
            4,
            LikelyReason.FAILURE_LINE,
        ),
        # hf-xet's JSON record printed over several lines: `"level": "ERROR",`, then its `"message": "error fetching …"`
        ("holdout-r9/hub-download/q-xet-llama4-consolidated-term-403-json.log", 5, LikelyReason.ERROR_LINE),
        # TensorFlow's executor at glog's W level (`Compute status: Resource exhausted: OOM when allocating tensor …`)
        # above a traceback cut before its exception line: the allocator's failure, not the last frame printed
        ("holdout-r9/gpu-oom/q-tf-keras-loop-models-resource-exhausted.log", 1, LikelyReason.FAILURE_LINE),
        # torch elastic's agent on the signal it got (`Received 15 death signal, shutting down workers`), not its
        # `Sending process … closing signal SIGTERM` to the workers after it
        ("holdout-r9/killed-by-signal/r-prime-rl-trainer-death-signal-15.log", 6, LikelyReason.FAILURE_LINE),
        # `(timeout=900s)` is a setting, not a failure: the harness's `❌ Crashed container in pod: …` is
        (
            "holdout-r9/unexplained/r-llm-d-benchmark-gke-nightly-crashed-container.log",
            7,
            LikelyReason.FAILURE_LINE,
        ),
        # pytest's rewritten assertion comparing lists it cut with `...` (`E  assert [1, 3, 22177,... 2662, 4, ...] ==
        # […]`) is the failure's explanation, before the crash location `test_mistral.py:1146: AssertionError`
        (
            "holdout-r9/unexplained/r-vllm-ascend-ci-mistral-tokenizer-assert-extra-eos.log",
            2,
            LikelyReason.EXCEPTION_LINE,
        ),
        # a silent hang: the last line printed, not the first of eleven identical heartbeats (label moved, see its note)
        ("holdout-r7/unexplained/k-tt-shield-ci-qwen3-32b-mqllmengine-hang.log", 10, LikelyReason.LAST_LINE),
    ],
)
def test_the_ninth_holdouts_likely_cause(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_a_timeout_setting_is_no_failure_but_a_timeout_is() -> None:
    assert picked_from(["Waiting for pods to be Ready (timeout=900s)", "all pods ready"]) == (
        2,
        LikelyReason.LAST_LINE,
    )
    assert picked_from(
        ["Waiting for pods to be Ready (timeout=900s)", "Pods not Ready: timeout after 900s"]
    ) == (
        2,
        LikelyReason.FAILURE_LINE,
    )


def test_an_assertion_on_names_stays_quoted_source() -> None:
    lines = [
        ">       assert actual_output == [1, 2, ...]",
        "E       AssertionError",
        "t.py:3: AssertionError",
    ]
    assert picked_from(lines) == (2, LikelyReason.ERROR_LINE)  # pytest's `E` line, never the quoted source


def test_a_compose_status_row_stands_when_nothing_below_says_why() -> None:
    lines = [
        " ✔ Network app_default  Created    0.1s",
        " ✘ Container app-db-1  Error dependency db failed to start    1.0s",
        " ✔ Container app-web-1  Created    0.0s",
    ]
    assert picked_from(lines) == (2, LikelyReason.FAILURE_LINE)


def test_a_json_records_message_is_an_error_only_at_its_records_error_level() -> None:
    record = [
        "{",
        '  "level": "{level}",',
        '  "fields": {',
        '    "message": "error fetching 1 term",',
        "  }",
        "}",
    ]
    at_error = [line.replace("{level}", "ERROR") for line in record]
    at_info = [line.replace("{level}", "INFO") for line in record]
    assert picked_from(at_error) == (4, LikelyReason.ERROR_LINE)
    assert picked_from(at_info) != (4, LikelyReason.ERROR_LINE)


def test_a_bare_exception_keeps_its_line_when_its_message_holds_another_class() -> None:
    lines = [
        "E   AssertionError: ",
        "E   The first error message:",
        "E   Traceback (most recent call last):",
        'E     File "/x.py", line 3, in f',
        "E       g()",
        "E   ValueError: bad value",
    ]
    assert picked_from(lines) == (1, LikelyReason.EXCEPTION_LINE)
