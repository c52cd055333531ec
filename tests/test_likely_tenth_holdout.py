"""The tenth holdout's likely-cause misses (fourteenth round), on the real logs retired into
tests/corpus/train/holdout-r10/, on renderings of the same formats modelled on public threads, and the near misses
that keep each principle from reaching too far (docs/likely-cause.md, docs/accuracy.md's fourteenth round)."""

from __future__ import annotations

import pytest

from forensics.engine.likely import LikelyLine, tier_candidates
from forensics.model import ExcerptLine, LikelyReason
from forensics.report.build import analyze
from forensics.rules.model import RuleSet
from tests.support.likely import TRAIN, picked_from, picked_in
from tests.tier_coverage import tier_alone


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # the C++ runtime's own abort, not torch elastic's `failed (exitcode: -6)` two lines below (the last line that
        # names a signal is the wrong answer)
        (
            "holdout-r10/unexplained/u-megatron-profiling-pure-virtual-at-exit.log",
            9,
            LikelyReason.CPP_EXCEPTION,
        ),
        # logging's `[ERROR 2023-03-29 08:44:58,216] glue.py: 420  …` header carries its level (behind Buildkite's `  | `)
        (
            "holdout-r10/killed-by-signal/s-ray-release-serve-failure-status-137.log",
            10,
            LikelyReason.ERROR_LINE,
        ),
        # SD.Next's `16:26:52-725979 ERROR    Triton: InductorError`, above rich's cut traceback box
        (
            "holdout-r10/compile-failed/u-sdnext-startup-triton-test-inductorerror.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        # a recap cut inside the values its message lists still says what failed: the first test's recap stays
        (
            "holdout-r10/unexplained/t-paddlenlp-t5-beam-search-generate-ci.log",
            1,
            LikelyReason.EXCEPTION_LINE,
        ),
        # Go's `panic: unable to load model` gives up on the run of llama.cpp failure lines right above it: its first
        ("holdout-r10/host-oom/s-ollama-runner-cpu-buffer-alloc-failed.log", 4, LikelyReason.FAILURE_LINE),
        ("holdout-r2/gpu-oom/ollama-llama-runner-cudamalloc-oom-panic.log", 3, LikelyReason.FAILURE_LINE),
        # `Job deleted at request of root@mskcc-fe1.local` ends on an address, a whole line: not a sentence that the
        # next one, `job preempted (node failure)`, goes on with
        (
            "holdout-r10/runner-infrastructure/t-pbs-gpu-node-failure-job-deleted.log",
            6,
            LikelyReason.FAILURE_LINE,
        ),
        # Ginkgo's timeline only locates the failure (`[FAILED] in [It] - e2e_test.go:161 @ …`); its report's message goes
        # on with the error it wraps, `Error: kubectl get featurestore command returned empty output`
        (
            "holdout-r10/unexplained/u-feast-operator-e2e-empty-featurestore-output.log",
            11,
            LikelyReason.ERROR_LINE,
        ),
        # the last line printed is the detail of the statement right above it that introduces it
        ("holdout-r10/unexplained/t-rayx-gtest-plane-grating-gpu-position.log", 3, LikelyReason.LAST_LINE),
        # relabelled by the convention (docs/accuracy.md): googletest's `Failure` line, a silent death's last line, a
        # terminal-wrapped record's first line
        ("holdout-r10/unexplained/u-opencv-onnx-vit-b32-openvino-norminf.log", 2, LikelyReason.ERROR_LINE),
        ("holdout-r10/unexplained/u-ovms-exits-silently-after-python-init.log", 10, LikelyReason.LAST_LINE),
        (
            "holdout-r10/collective-timeout/t-vlm-r1-nccl-heartbeat-watchdog-stuck.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
    ],
)
def test_the_tenth_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_the_cpp_runtimes_own_abort_is_a_fatal_event() -> None:
    # osquery#559 and sdl_core#2433 as their threads show them: the abort is the answer, not the shell's notice after it
    assert picked_from(
        [
            "osquery> .quit",
            "pure virtual method called",
            "terminate called without an active exception",
            "Aborted (core dumped)",
        ]
    ) == (2, LikelyReason.CPP_EXCEPTION)
    assert picked_from(
        [
            "INFO [09:40:23,967][SDLMain] Application has been stopped successfully",
            "pure virtual method called",
            "terminate called without an active exception",
            "[1] 21105 abort (core dumped) ./smartDeviceLinkCore",
        ]
    ) == (2, LikelyReason.CPP_EXCEPTION)
    # an exception thrown before it stays the answer; the words quoted in a sentence are no abort
    assert picked_from(
        [
            "terminate called after throwing an instance of 'c10::Error'",
            "  what():  CUDA error: an illegal memory access",
        ]
    ) == (2, LikelyReason.CPP_EXCEPTION)
    assert picked_from(["I see pure virtual method called at exit", "done"]) == (2, LikelyReason.LAST_LINE)


def test_a_panic_yields_only_to_a_run_of_its_programs_failure_lines_right_above_it() -> None:
    run = ["llama_model_load: error loading model: unable to allocate CPU buffer", "failed to load model"]
    assert picked_from(["load_tensors: failed to allocate buffer", *run, "panic: unable to load model"]) == (
        1,
        LikelyReason.FAILURE_LINE,
    )
    # ollama#12675's rendering: llama.cpp's error line first, then its failure line: the run begins at the error
    assert picked_from(
        [
            "llama_model_load: error loading model: missing tensor 'blk.92.nextn.embed_tokens.weight'",
            "llama_model_load_from_file_impl: failed to load model",
            "panic: unable to load model: /data/ollama/blobs/sha256-5791",
        ]
    ) == (1, LikelyReason.ERROR_LINE)
    # a line between them that reports nothing: the panic is the program's own
    assert picked_from(
        ["load_tensors: failed to allocate buffer", "loading next", "panic: unable to load model"]
    ) == (
        3,
        LikelyReason.PANIC,
    )
    # a Rust panic's message holds the error itself (`called `Result::unwrap()` on an `Err` value: …`): it stays the
    # answer below TGI's `Could not connect …` ERROR line, and below sbt's run of `[error]` lines
    assert picked_in("rust/panic-old-format-router-tokenizer-tgi-238.log") == (3, LikelyReason.PANIC)
    assert picked_in("holdout-r6/rust-panic/j-scala-transformers-rust-tokenizer-panic-sbt.log") == (
        7,
        LikelyReason.PANIC,
    )
    # another program's lines (a journal's) are another process's run
    assert picked_from(
        [
            "Jun 13 23:04:43 host other[12]: failed to allocate buffer",
            "Jun 13 23:04:43 host ollama[13]: panic: unable to load model",
        ]
    ) == (2, LikelyReason.PANIC)


def test_cut_recaps_wrapped_sentences_and_introduced_last_lines_near_misses() -> None:
    # cut inside its first word, or inside words after its values: the message is lost, a whole recap says more
    cut = "FAILED t.py::test_a - RuntimeError: [enfor..."
    whole = "FAILED t.py::test_b - MemoryError"
    assert picked_from([cut, whole]) == (2, LikelyReason.EXCEPTION_LINE)
    listed = "FAILED t.py::test_a - AssertionError: Lists differ: [[12, 67], [12, ..."
    assert picked_from([listed, whole]) == (1, LikelyReason.EXCEPTION_LINE)
    # mpirun's sentence, wrapped after a plain word, is still answered at its first line
    assert picked_from(
        [
            "Primary job  terminated normally, but 1 process returned",
            "a non-zero exit code. Per user-direction, the job has been aborted.",
        ]
    ) == (1, LikelyReason.FAILURE_LINE)
    # a cut traceback's header introduces no detail: the last frame stays the last line printed
    assert picked_from(["Traceback (most recent call last):", '  File "x.py", line 3, in <module>']) == (
        2,
        LikelyReason.LAST_LINE,
    )
    assert picked_from(["positions differ:", "-389.69|-389.70 2814.12|2814.13"]) == (
        1,
        LikelyReason.LAST_LINE,
    )


def test_megatrons_abort_at_exit_without_the_signal_rule(rule_pack: RuleSet) -> None:
    # with the ordinary causes off (rules-v drops `process.signal-exit-status` from this C++ abort), the likely cause is
    # the labelled `pure virtual method called`, and the fatal-line tier names nothing on it nor on the warnings above
    [verdict] = analyze(
        [str(TRAIN / "holdout-r10/unexplained/u-megatron-profiling-pure-virtual-at-exit.log")],
        rules=tier_alone(rule_pack),
    ).verdicts
    assert verdict.root_cause is None
    assert verdict.likely_cause is not None
    assert (verdict.likely_cause.evidence.line, verdict.likely_cause.reason) == (
        9,
        LikelyReason.CPP_EXCEPTION,
    )


def test_ginkgos_location_yields_to_its_reports_message() -> None:
    # as cri-tools' and kueue's e2e logs show Ginkgo v2: the timeline's location, then the report's message
    location = (
        "    [FAILED] in [It] - sigs.k8s.io/cri-tools/pkg/validate/networking.go:288 @ 12/07/25 12:10:43.531"
    )
    report = [
        location,
        "    STEP: stop PodSandbox @ 12/07/25 12:10:43.531",
        "    << Timeline",
        "",
        "    [FAILED] Timed out after 61.060s.",
        "    Expected success, but got an error:",
    ]
    assert picked_from(report) == (5, LikelyReason.ERROR_LINE)
    kueue = [
        "  [FAILED] in [It] - /src/test/e2e/singlecluster/visibility_test.go:140 @ 11/26/25 08:07:39.619",
        "• [FAILED] [9.052 seconds]",
        "Kueue visibility server when there are pending workloads [It] Should allow fetching information",
        "  [FAILED] Unexpected error:",
        "      <*errors.StatusError | 0xc000834f00>: ",
    ]
    assert picked_from(kueue) == (4, LikelyReason.ERROR_LINE)
    # the location alone stays the answer; the Go test that ran the suite says no more than it
    assert picked_from([location, "Ran 1 of 106 Specs", "--- FAIL: TestE2E (300.02s)"]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    # a message followed by anything but the error it wraps stays the answer
    assert picked_from(
        ["  [FAILED] Timed out after 45.001s.", "  Error matcher expects an error.  Got:"]
    ) == (
        1,
        LikelyReason.ERROR_LINE,
    )


def _tried_by_the_tier(file: str, number: int) -> bool:
    """Whether the fatal-line tier tries this real line of a train log when it is in a chosen line's excerpt above."""
    text = (TRAIN / file).read_text(encoding="utf-8").split("\n")[number - 1]
    excerpt = (ExcerptLine(number, text), ExcerptLine(number + 1, "done"))
    picked = LikelyLine(number + 1, "done", LikelyReason.LAST_LINE, excerpt)
    return [line.number for line in tier_candidates(picked)] == [number]


@pytest.mark.parametrize(
    ("file", "number", "tried"),
    [
        # what the picker reads as a failure, the tier tries: the C++ terminate line, pytest's crash location and its
        # collection totals (the second copy of the picker's reading that the tier kept had none of them)
        ("holdout-r8/collective-timeout/o-instructlab-ci-watchdog-1ms-allreduce.log", 1, True),
        ("holdout-r9/unexplained/r-pylama-travis-ppc64le-eradicate-nonetype.log", 13, True),
        ("holdout-r6/test-setup/j-cirq-travis-160-collection-errors.log", 5, True),
        # what the picker reads as no failure, the tier does not: a report's fields (`Reason: Error`, `Started: …`,
        # `JAVA_HOME: …`, which the copy took for exceptions), pip's notice, a runner's echo of its command
        ("holdout-r5/killed-by-signal/h-k8s-pod-terminated-exit-137-error.log", 5, False),
        ("holdout-r5/killed-by-signal/h-k8s-pod-terminated-exit-137-error.log", 3, False),
        ("dev/disk/docker-daemon-tar-no-space-actions-dirigible-769.log", 10, False),
        ("machine/no-space-left-pip-nox-google-cloud-python-12271.log", 6, False),
        ("holdout-r5/network-unreachable/h-praktika-image-pull-dns-misbehaving.log", 1, False),
    ],
)
def test_the_tier_reads_a_line_as_the_picker_does(file: str, number: int, *, tried: bool) -> None:
    assert _tried_by_the_tier(file, number) is tried


def test_logging_headers_that_carry_their_level() -> None:
    # Ray's release tooling, as ray#23575 shows it behind Buildkite's `  | `: the INFO record says nothing failed, the
    # ERROR one is the answer when the traceback below it is cut
    assert picked_from(
        [
            "[INFO 2022-03-27 15:16:50,202] job_manager.py: 42  Executing pip install -q awscli with {} via ray job submit",
            "  | [ERROR 2022-03-27 15:16:54,628] glue.py: 237  Could not fetch results for test command",
            "  | Traceback (most recent call last):",
            '  | File "/tmp/release/ray_release/command_runner/sdk_runner.py", line 164, in fetch_results',
        ]
    ) == (2, LikelyReason.ERROR_LINE)
    # the same header at INFO, or a bracketed error number that is no header (`WindowsError: [Error 206] …`), is not
    assert picked_from(["[INFO 2023-03-29 08:44:58,216] glue.py: 420  retrying after failure", "done"]) == (
        1,
        LikelyReason.QUIET_FAILURE,
    )
    assert picked_from(["WindowsError: [Error 206] The filename or extension is too long"]) == (
        1,
        LikelyReason.EXCEPTION_LINE,
    )
    # SD.Next's time of day with its level: a warning stays a warning
    assert picked_from(
        ["16:26:52-725979 WARNING  Triton: test skipped", "16:26:53-000001 INFO     ready"]
    ) == (
        2,
        LikelyReason.LAST_LINE,
    )
