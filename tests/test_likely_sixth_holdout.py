"""The likely cause on the sixth retired holdout's misses (tenth round), each a real log under tests/corpus/train,
with renderings of the same formats modelled on public threads (each cites its source) and the near misses that keep
each change from reaching further than its principle."""

from __future__ import annotations

import pytest

from forensics.engine.likely import pick_likely_cause
from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # the child's traceback, relayed line by line at INFO by its parent (olmocr), not the parent's ERROR wrapper
        # `Ended up starting the sglang server more than 5 times` below it: the last error line is the wrong answer
        ("holdout-r6/unexplained/i-olmocr-sglang-json-decode.log", 5, LikelyReason.EXCEPTION),
        # CTest's summary list (`25 - test-arg-parser (Failed)`), not the backend-load noise above it
        ("holdout-r6/unexplained/i-llamacpp-ctest-arg-parser.log", 17, LikelyReason.ERROR_LINE),
        # pytest's totals `… 1 error in 4366.92s …`, not Buildkite's `The command exited with status 1` below them
        (
            "holdout-r6/unexplained/i-vllm-omni-wan22-cfg-parallel-wrapper-only.log",
            1,
            LikelyReason.FAILURE_LINE,
        ),
        # c10d's `… timed out after 1800000ms`, not the line above that only guesses `likely a timeout`
        (
            "holdout-r6/rendezvous-failure/i-sglang-multihost-ipv6-store-timeout.log",
            2,
            LikelyReason.FAILURE_LINE,
        ),
        # a log quoted as a Markdown blockquote: prisma's `> Error: P1001: …`, not the WARNING retry nor the last line
        (
            "holdout-r6/connection-refused/i-litellm-prisma-p1001-cant-reach-db.log",
            13,
            LikelyReason.ERROR_LINE,
        ),
        ("holdout-r5/ray-died/g-serverlessllm-raylet-worker-died.log", 2, LikelyReason.FAILURE_LINE),
        ("holdout-r5/killed-by-signal/h-yolov3-dataloader-bus-error-shm.log", 10, LikelyReason.EXCEPTION),
        # huggingface_hub's `There was a problem when trying to write …` above a traceback cut before its exception:
        # not the traceback's last source line (the last line printed)
        (
            "holdout-r6/filesystem/i-kserve-hf-server-openshift-cache-not-writable.log",
            1,
            LikelyReason.FAILURE_LINE,
        ),
        # a traceback flattened into one field of a response: its `KeyError: 'api'` is on that line, not the last one
        ("holdout-r6/unexplained/i-runpod-worker-vllm-keyerror-api.log", 13, LikelyReason.EXCEPTION),
        # CUDA's device-side assertion, its `failed.` wrapped onto the next line: the assertion's line
        ("holdout-r6/cuda-device-assert/j-genhpf-indexselect-assert-hydra.log", 8, LikelyReason.ERROR_LINE),
        # ... and when a traceback follows, its `RuntimeError: CUDA error: device-side assert triggered` names it: the
        # assertion lines before it are an error line that the exception beats (the label's convention)
        (
            "holdout-r4/cuda-device-assert/f-reid-baseline-classnll-target-out-of-range.log",
            14,
            LikelyReason.EXCEPTION,
        ),
        # `terminated with exit code (137)`, a signal, not Flyte's `Last Error: USER::Pod failed.` above it
        ("holdout-r6/killed-by-signal/j-flyte-demo-task-exit-137-reason-error.log", 2, LikelyReason.SIGNAL),
        # ONNX Runtime's bracketed status behind a `[SKIP] …` tag, not its `Please fix …` advice (the last line)
        ("holdout-r6/unexplained/j-dpdfnet-onnx-state-in-dims-skip.log", 1, LikelyReason.EXCEPTION_LINE),
        # ... and when a traceback ending in the same status opens below its message, that exception line
        ("holdout-r3/unexplained/d-shark-testsuite-ort-invalid-dimensions.log", 13, LikelyReason.EXCEPTION),
        # the same principles on train's other logs that the last resorts answered (each the labelled line):
        # vLLM's `Exception in worker … init_device: NCCL error: …, Traceback (most recent call last):`, cut below
        (
            "holdout-r2/nccl-error/vllm-mp-worker-init-device-nccl-unhandled-system-error.log",
            1,
            LikelyReason.EXCEPTION_LINE,
        ),
        # pytest's `_ ERROR collecting … _` header and its `Interrupted: 2 errors during collection`
        (
            "holdout-r2/test-setup/dynamo-ci-collect-vllm-test-module-importerror.log",
            2,
            LikelyReason.FAILURE_LINE,
        ),
        ("harness/collection-errors-interrupted-pytorch-cluster-1.log", 10, LikelyReason.FAILURE_LINE),
        # `CUDA Error: no kernel image …` as cuda-python prints it
        ("holdout-r5/cuda-setup/h-cpm-kernels-no-kernel-image.log", 6, LikelyReason.EXCEPTION_LINE),
        # NCCL's WARN, the failure it returns (its `NCCL INFO … -> 6` lines climb the stack below it)
        ("holdout-r4/nccl-error/f-nccl-ib-completion-status12-k8s-worker.log", 1, LikelyReason.ERROR_LINE),
        ("distributed/nccl-no-socket-interface-warn-first-pytorch-29482.log", 1, LikelyReason.ERROR_LINE),
        # FastChat relays a worker's stdout at INFO: `| INFO | stdout | Caught Unknown Error CUDA error: …`
        (
            "holdout-r5/cuda-device-assert/g-llava-model-worker-device-side-assert.log",
            2,
            LikelyReason.EXCEPTION_LINE,
        ),
        # GitHub's `The self-hosted runner: … lost communication with the server.`, not the run's URL below it
        (
            "holdout-r5/runner-infrastructure/h-torchserve-gpu-regression-runner-lost.log",
            4,
            LikelyReason.FAILURE_LINE,
        ),
    ],
)
def test_the_sixth_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_a_blockquote_is_a_prefix_and_pytests_marker_is_not() -> None:
    # a log quoted in an issue (litellm#…-like): the line inside the quote is read as itself
    quoted = [
        "> Prisma schema loaded from schema.prisma",
        "> Error: P1001: Can't reach database server at `db`:`5432`",
        "> ",
        "> 10:01:02 - LiteLLM Proxy:WARNING: prisma_client.py:172 - The process failed to execute. Retrying...",
    ]
    assert picked_from(quoted) == (2, LikelyReason.ERROR_LINE)
    # a quoted traceback: its header opens it, its indented frames stay frames, its exception is the answer
    traceback = [
        "> Traceback (most recent call last):",
        '>   File "train.py", line 3, in <module>',
        ">     raise RuntimeError('worker died')",
        "> RuntimeError: worker died",
    ]
    assert picked_from(traceback) == (4, LikelyReason.EXCEPTION)
    # pytest's `>` marker is followed by the source's indent: quoted source, never the cause
    pytest_source = [">       assert response.status == 200", "E       AssertionError: assert 500 == 200"]
    assert picked_from(pytest_source) == (2, LikelyReason.EXCEPTION_LINE)


def test_a_traceback_flattened_onto_one_line_ends_in_its_exception() -> None:
    # a serverless worker's JSON answer (runpod-workers' `error_traceback`), one JSON string nested in another
    nested = [
        '{"delayTime": 812, "error": "{\\"error_type\\": \\"<class \'KeyError\'>\\", \\"error_traceback\\":'
        ' \\"Traceback (most recent call last):\\\\n  File \\\\\\"/src/rp_job.py\\\\\\", line 134, in run_job\\\\n'
        '    output = handler(job)\\\\nKeyError: \'prompt\'\\\\n\\"}", "status": "FAILED"}',
        '{"status": "FAILED"}',
    ]
    assert picked_from(nested) == (1, LikelyReason.EXCEPTION)
    # a traceback pasted into an issue's title loses its line breaks; cut before its exception, it names none
    # (ZiqiaoPeng/SyncTalk#245's title ends inside a frame): it opens a traceback like any header
    cut = [
        'Traceback (most recent call last): File "tools/main.py", line 86, in <module> run(args.path) File'
        ' "tools/main.py", line 27, in run base_opt',
        "done",
    ]
    assert picked_from(cut) == (2, LikelyReason.LAST_LINE)
    # a traceback logged at WARNING on one line stays a handled one
    handled = [
        'WARNING: retrying: Traceback (most recent call last): File "x.py", line 1, in f ValueError: transient',
        "ready",
    ]
    assert picked_from(handled) == (2, LikelyReason.LAST_LINE)


def test_a_traceback_whose_frames_carry_an_info_header_is_relayed_output() -> None:
    # a parent relays its child's stderr line by line at INFO: the child's exception is fatal
    relayed = [
        "2025-03-08 02:04:48,697 - __main__ - INFO - Traceback (most recent call last):",
        '2025-03-08 02:04:48,697 - __main__ - INFO -   File "/srv/server.py", line 9, in <module>',
        "2025-03-08 02:04:48,697 - __main__ - INFO -     main()",
        "2025-03-08 02:04:48,697 - __main__ - INFO - ValueError: config.json is empty",
        "2025-03-08 02:04:48,880 - __main__ - ERROR - server exited, giving up",
    ]
    assert picked_from(relayed) == (4, LikelyReason.EXCEPTION)
    # the same traceback logged line by line at WARNING is a handled one (tests/test_likely_cause.py has its kin)
    handled = [line.replace(" - INFO - ", " - WARNING - ") for line in relayed]
    assert picked_from(handled) == (5, LikelyReason.ERROR_LINE)
    # an INFO header on the traceback's header alone (a message, then the traceback unprefixed) changes nothing
    logged = [
        "2025-03-08 02:04:48,697 - __main__ - INFO - Traceback (most recent call last):",
        '  File "/srv/probe.py", line 2, in <module>',
        "ImportError: optional kernels not found",
        "2025-03-08 02:04:49,000 - __main__ - ERROR - request failed: timeout",
    ]
    assert picked_from(logged) == (4, LikelyReason.ERROR_LINE)


def test_onnx_runtimes_bracketed_status_is_an_exception_line() -> None:
    # alone at a line's start, where the normaliser reads the bracket as a tag (stephansturges/WALDO#9)
    alone = [
        "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: images for the following"
        " indices",
        " index: 2 Got: 960 Expected: 640",
        " Please fix either the inputs or the model.",
    ]
    assert picked_from(alone) == (1, LikelyReason.EXCEPTION_LINE)
    # behind its Python class outside a traceback (OleehyO/TexTeller#91 pasted the message above the frames)
    behind = [
        "InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: image",
        'File "/app/inference.py", line 183, in predict',
        "    outputs = predictor.run(output_names=None, input_feed=inputs)[0]",
    ]
    assert picked_from(behind) == (1, LikelyReason.EXCEPTION_LINE)
    # ComfyUI's `!!! Exception during processing !!! <message>` sums up the traceback below its message's lines
    # (kijai/ComfyUI-WanVideoWrapper#1706): the traceback's exception, in the same status, is the answer
    summary = [
        "!!! Exception during processing !!! [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions",
        " index: 2 Got: 640 Expected: 256",
        " index: 3 Got: 640 Expected: 192",
        " Please fix either the inputs/outputs or the model.",
        "Traceback (most recent call last):",
        '  File "C:\\ComfyUI\\execution.py", line 515, in execute',
        "    output = run(node)",
        "onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got",
    ]
    assert picked_from(summary) == (8, LikelyReason.EXCEPTION)
    # a bracketed word that is no exception class, or a status without its ` : ` fields, is not one
    assert picked_from(["[ONNXRuntime] : loaded model.onnx", "done"]) == (2, LikelyReason.LAST_LINE)
    assert picked_from(["see [ValueError] in the FAQ", "done"]) == (2, LikelyReason.LAST_LINE)


def test_ctests_summary_list_is_a_runners_report() -> None:
    # all a log kept of the run (kit-cel/gr-radar#11, openairymax/agentrt#208 with a test that did not run)
    summary = [
        "96% tests passed, 1 tests failed out of 26",
        "",
        "The following tests FAILED:",
        "\t 16 - qa_tracking_target (Failed)",
        "Errors while running CTest",
    ]
    assert picked_from(summary) == (4, LikelyReason.ERROR_LINE)
    not_run = [
        "The following tests FAILED:",
        "\t 32 - test_store_trace (Not Run)",
        "Errors while running CTest",
    ]
    assert picked_from(not_run) == (2, LikelyReason.ERROR_LINE)
    # the first `***Failed` test of the run, when the log has it, comes first (tests/test_likely_formats.py)
    # a numbered list in prose is no CTest summary
    prose = ["Steps:", "1 - Download the model (optional)", "done"]
    assert picked_from(prose) == (3, LikelyReason.LAST_LINE)


def test_pytests_totals_that_count_errors_word_a_failure() -> None:
    totals = [
        "==== 33 passed, 2 deselected, 18 warnings, 1 error in 4366.92s (1:12:46) ====",
        "🚨 Error: The command exited with status 1",
    ]
    assert picked_from(totals) == (1, LikelyReason.FAILURE_LINE)
    assert picked_from(["=== 2 errors in 0.19s ==="]) == (1, LikelyReason.FAILURE_LINE)
    # totals without an error are no failure (the epilogue stays the answer); an error line above them wins
    passed = ["==== 33 passed, 18 warnings in 12.00s ====", "🚨 Error: The command exited with status 1"]
    assert picked_from(passed) == (2, LikelyReason.WRAPPER)
    earlier = ["E   ValueError: bad shape", "==== 1 error in 0.10s ===="]
    assert picked_from(earlier) == (1, LikelyReason.EXCEPTION_LINE)


def test_cudas_device_assertion_is_an_error_line() -> None:
    # AkariAsai/self-rag#91: many threads assert; the first is the answer
    asserts = [
        "../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: block: [654,0,0], thread: [120,0,0]"
        " Assertion `srcIndex < srcSelectDimSize` failed.",
        "../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: block: [654,0,0], thread: [121,0,0]"
        " Assertion `srcIndex < srcSelectDimSize` failed.",
    ]
    assert picked_from(asserts) == (1, LikelyReason.ERROR_LINE)
    # glibc's assertion (a backquote, then a quote) stays a fatal native assertion
    glibc = ["main: src/main.c:12: main: Assertion `found' failed.", "Aborted (core dumped)"]
    assert picked_from(glibc) == (1, LikelyReason.ASSERTION)
    # an assertion's text quoted in prose, neither failed nor cut at the line's end, is none
    assert picked_from(["the Assertion `x > 0` is checked first", "done"]) == (2, LikelyReason.LAST_LINE)


def test_an_exit_code_in_parentheses_is_a_signal_when_it_is_one() -> None:
    flyte = [
        "[1/1] currentAttempt done. Last Error: USER::Pod failed.",
        "[n0-0] terminated with exit code (137).",
    ]
    assert picked_from(flyte) == (2, LikelyReason.SIGNAL)
    # exit code (1) is no signal: the first line that words a failure stays the answer
    plain = [
        "[1/1] currentAttempt done. Last Error: USER::Pod failed.",
        "[n0-0] terminated with exit code (1).",
    ]
    picked = pick_likely_cause(plain)
    assert picked is not None and picked.line == 1


def test_a_guessed_failure_is_no_failure() -> None:
    guessed = [
        "[rank1]:[W623 15:37:01.823 socket.cpp:460] [c10d] waitForInput: poll for socket returned 0, likely a timeout",
        "[rank1]:[W623 15:37:01.824 socket.cpp:485] [c10d] waitForInput: socket timed out after 1800000ms",
    ]
    assert picked_from(guessed) == (2, LikelyReason.FAILURE_LINE)
    # a guess alone is nothing to point at; a line that guesses and states (`may be stale: connection refused`) is
    assert picked_from(["the cache may be out of memory soon", "done"]) == (2, LikelyReason.LAST_LINE)
    assert picked_from(["probe: likely a timeout; connection refused", "done"]) == (
        1,
        LikelyReason.FAILURE_LINE,
    )


def test_there_was_a_problem_words_a_failure() -> None:
    # huggingface_hub's warning printed above the traceback that follows from it
    lines = [
        "There was a problem when trying to write in your cache folder (/.cache/huggingface/hub).",
        "Loading model …",
    ]
    assert picked_from(lines) == (1, LikelyReason.FAILURE_LINE)
    # a sentence that only mentions problems is no failure
    assert picked_from(["To troubleshoot the problem, check the logs.", "done"]) == (
        2,
        LikelyReason.LAST_LINE,
    )


def test_a_traceback_header_behind_its_error_names_it_when_the_traceback_is_cut() -> None:
    header = (
        "(VllmWorkerProcess pid=232) ERROR 08-23 08:25:25 multiproc_worker_utils.py:226] Exception in worker"
        " VllmWorkerProcess while processing method init_device: NCCL error: unhandled system error, Traceback (most"
        " recent call last):"
    )
    frame = '(VllmWorkerProcess pid=232) ERROR 08-23 08:25:25 multiproc_worker_utils.py:226]   File "w.py", line 1'
    assert picked_from(
        [header, frame, "(VllmWorkerProcess pid=232) ERROR 08-23 08:25:25 x.py:1]     raise x"]
    ) == (
        1,
        LikelyReason.EXCEPTION_LINE,
    )
    # when the traceback's own exception line is there, it is the answer
    ended = [header, frame, "(VllmWorkerProcess pid=232) RuntimeError: NCCL error: unhandled system error"]
    assert picked_from(ended) == (3, LikelyReason.EXCEPTION)
    # a header behind words that name no error keeps the cut traceback's `raise` line
    vague = [
        "Scheduler hit an exception: Traceback (most recent call last):",
        '  File "s.py", line 9',
        "    raise RuntimeError(msg)",
    ]
    assert picked_from(vague) == (3, LikelyReason.EXCEPTION)
    # an announcement with nothing after it stays an announcement
    assert picked_from(["Exception in thread Thread-1:", "done"]) == (2, LikelyReason.LAST_LINE)


def test_nccls_warn_is_an_error_line_and_its_info_is_not() -> None:
    lines = [
        "gpu6:22841:22841 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.6<0>",
        "gpu6:22841:22841 [0] bootstrap.cc:37 NCCL WARN Bootstrap : no socket interface found",
        "gpu6:22841:22841 [0] NCCL INFO init.cc:128 -> 3",
    ]
    assert picked_from(lines) == (2, LikelyReason.ERROR_LINE)
    assert picked_from([lines[0], lines[2]]) == (2, LikelyReason.LAST_LINE)


def test_a_relayed_stream_has_no_level_of_its_own() -> None:
    # FastChat's worker relays stdout at INFO and stderr at ERROR: a progress bar on stderr is no error line
    lines = [
        "2023-12-01 08:54:00 | ERROR | stderr | Loading checkpoint shards: 100%|##########| 2/2 [00:05<00:00]",
        "2023-12-01 08:55:00 | INFO | stdout | Caught Unknown Error CUDA error: device-side assert triggered",
    ]
    assert picked_from(lines) == (2, LikelyReason.EXCEPTION_LINE)
    # a logger's own INFO line keeps its level: a failure said at INFO is a quiet one
    own = ["2023-12-01 08:55:00 | INFO | model_worker | retry failed: connection refused", "done"]
    assert picked_from(own) == (1, LikelyReason.QUIET_FAILURE)


def test_a_line_a_console_cut_short_yields_to_a_whole_one() -> None:
    # rich's progress rows (`Failed: <path>… …`) lost the words after the ellipsis: `Some downloads failed:` introduces
    # the first failure below it, whose message the console wrapped (the label names its continuation, line 9, where
    # the certificate error is; see docs/accuracy.md, tenth round)
    file = "holdout-r6/network-unreachable/i-llama-stack-download-cert-expired.log"
    assert picked_in(file) == (7, LikelyReason.FAILURE_LINE)
    # every failure line cut: the first stays; a whole line first stays before a cut one
    cut = ["Failed: /models/a/consolid… … ", "Failed: /models/b/consolid… … "]
    assert picked_from(cut) == (1, LikelyReason.FAILURE_LINE)
    whole = ["Download failed: connection reset", "Failed: /models/b/consolid… … "]
    assert picked_from(whole) == (1, LikelyReason.FAILURE_LINE)


def test_uvs_ascii_diagnostic_mark_is_an_error_line_and_its_help_is_advice() -> None:
    # a terminal without UTF-8 gets miette's ASCII theme: `  x …` for `  × …` (both real logs are labelled there)
    assert picked_in("dev-lower/python-env/uv-no-solution-ascii-terminal-uv-2538.log") == (
        9,
        LikelyReason.ERROR_LINE,
    )
    framepack = "holdout-r3/python-environment/d-framepack-uv-add-torch-cu126-unsatisfiable.log"
    assert picked_in(framepack) == (3, LikelyReason.ERROR_LINE)
    # uv's `help:` below it tells what to do: never the cause, even with a failure word in it
    advice = [
        "  help: If you want to add the package regardless of the failed resolution, provide `--frozen`",
        "done",
    ]
    assert picked_from(advice) == (2, LikelyReason.LAST_LINE)
    # an `x` that starts no sentence is no mark
    assert picked_from(["x 3 y 4", "x = compute(y)", "done"]) == (3, LikelyReason.LAST_LINE)
