"""The likely cause on the fifth retired holdout's misses (ninth round), each a real log under tests/corpus/train,
with real renderings of the same formats from public threads and the near misses that keep each change from reaching
further than its principle."""

from __future__ import annotations

import pytest

from forensics.engine.likely import pick_likely_cause
from forensics.engine.likely_reader import pick_likely_cause_in_blocks
from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # a chain's first exception is its deepest: `RuntimeError: StageEngineCoreProc died …`, then "The above
        # exception was the direct cause of …" and the orchestrator's wrapper; the last exception is the wrong answer
        (
            "holdout-r5/unexplained/g-vllm-omni-stage-engine-died-during-ready.log",
            1,
            LikelyReason.EXCEPTION_LINE,
        ),
        # TVM's `paged_kv_cache.cc:2650: Check failed: (…) is false: …` before logcat's FATAL EXCEPTION restates it
        ("holdout-r5/unexplained/g-mlc-chat-android-kv-cache-ctor-args.log", 1, LikelyReason.ASSERTION),
        ("holdout-r4/nccl-error/f-byteps-nccl-manager-check-failed.log", 1, LikelyReason.ASSERTION),
        # TensorFlow 1's `ResourceExhaustedError (see above for traceback): OOM …`, not the cut traceback's `raise`
        ("holdout-r5/gpu-oom/h-tf-slim-inception-oom-allocating.log", 1, LikelyReason.EXCEPTION_LINE),
        # the Ascend runtime's `Memory_Allocation_Failure(EL0004): …`, not its `Note: ASCEND_LAUNCH_BLOCKING=1 …`
        # advice at ERROR level nor the generic `ERR00100 PTA call acl api failed`
        ("holdout-r5/gpu-oom/g-vllm-omni-npu-rtmalloc-failure.log", 3, LikelyReason.EXCEPTION_LINE),
        # journald's and Go's log prefixes, then Go's wrapped `error starting llama runner: …`: not the last line
        ("holdout-r5/unexplained/g-ollama-runner-terminated-journal.log", 1, LikelyReason.ERROR_LINE),
        # pip's `× pip subprocess … did not run successfully.` behind BuildKit's `#9 7.312 `, not docker's epilogue
        (
            "holdout-r5/unexplained/h-dvga-docker-build-pip-build-deps-subprocess.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        ("dev-lower/python-env/uv-no-solution-nvidia-cudnn-uv-10604.log", 1, LikelyReason.ERROR_LINE),
        ("dev-lower/python-env/uv-no-solution-local-version-uv-1497.log", 2, LikelyReason.ERROR_LINE),
        # Node's `Error: Command failed: launchTest.sh …` says only that the command exited 1: what it printed says why
        (
            "holdout-r5/unexplained/h-cerberus-gha-campaign-ciscore-threshold.log",
            5,
            LikelyReason.FAILURE_LINE,
        ),
        # a failure line ending in `:` introduces the failure right below it (blank lines between)
        ("holdout-r5/hub-access/g-tt-inference-sdxl-entry-not-found.log", 4, LikelyReason.FAILURE_LINE),
        ("holdout-r5/host-oom/g-comfyui-oom-killer-dmesg.log", 3, LikelyReason.FAILURE_LINE),
        ("dev-lower/python-env/libcudart-bare-dlerror-llava-next-308.log", 5, LikelyReason.FAILURE_LINE),
        # ... but not across an elision: Ray's report ends `Top 10 memory users:`, the table was cut (`...`)
        ("ray/memory-threshold-rayworkervllm-2669.log", 1, LikelyReason.FAILURE_LINE),
        # a warning that reports an error (`HTTP Error 429 thrown while requesting …`) beats the last line printed
        ("holdout-r5/hub-download/h-guidellm-ci-hf-429-retry.log", 3, LikelyReason.QUIET_FAILURE),
        # a bare `| FAILED` verdict: the first check above it whose value misses its threshold
        ("holdout-r5/unexplained/g-vllm-omni-qwen-image-ssim-nightly.log", 3, LikelyReason.FAILURE_LINE),
        # the runner's `Run command: [timeout …]` echo and its `command failed …, exit code: 1` epilogues yield to
        # the command's own failure (labelled at line 3, its wrapped continuation; see docs/accuracy.md)
        (
            "holdout-r5/network-unreachable/h-praktika-image-pull-dns-misbehaving.log",
            2,
            LikelyReason.FAILURE_LINE,
        ),
    ],
)
def test_the_fifth_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_a_chains_first_exception_stays_unless_it_is_a_generic_transport_error() -> None:
    chained = [
        "RuntimeError: worker died during READY (exit code 1)",
        "",
        "The above exception was the direct cause of the following exception:",
        "RuntimeError: Orchestrator initialization failed",
    ]
    assert picked_from(chained) == (1, LikelyReason.EXCEPTION_LINE)
    # a generic transport error still yields to the specific exception raised from it
    generic = [
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/x",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo",
    ]
    assert picked_from(generic) == (5, LikelyReason.EXCEPTION_LINE)


def test_a_failed_check_is_a_failed_native_assertion() -> None:
    # glog's fatal CHECK behind its header, TVM's CHECK at a file's line
    glog = [
        "I0101 00:00:00.000 1 main.cc:10] starting",
        "F0101 00:00:01.000 1 main.cc:12] Check failed: x == y (1 vs. 2)",
    ]
    assert picked_from(glog) == (2, LikelyReason.ASSERTION)
    tvm = ["/src/runtime/vm.cc:778: Check failed: (idx < size) is false: no such function", "Aborted"]
    assert picked_from(tvm) == (1, LikelyReason.ASSERTION)
    # a health check that failed is no assertion of the program's own (mlc-ai/mlc-llm#1651 shows TVM's in a traceback)
    assert picked_from(["Health check failed: connection refused"]) == (1, LikelyReason.FAILURE_LINE)
    traceback = [
        '  File "/home/u/tvm-unity/src/runtime/relax_vm/paged_kv_cache.cc", line 725',
        "TVMError: Check failed: total_seq_length == qkv_data->shape[0] (68 vs. 38) :",
    ]
    assert picked_from(traceback) == (2, LikelyReason.EXCEPTION)


def test_tensorflows_session_summary_and_canns_coded_errors_are_exception_lines() -> None:
    # davidsandberg/facenet#610-like report (tensorflow/tensorflow#136): the summary, its op and TF's OOM hint
    lines = [
        "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[128,3,8,128] and"
        " type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
        "         [[node GPU0/D_loss/G/Upscale2D_2/Tile (defined at training/networks_stylegan.py:66) ]]",
        "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom",
    ]
    assert picked_from(lines) == (1, LikelyReason.EXCEPTION_LINE)
    cann = [
        "[ERROR] 2026-01-16-10:20:16 (PID:5393, Device:0, RankID:0) ERR00100 PTA call acl api failed.",
        "[PID: 5393] 2026-01-16-10:20:15.729.456 Memory_Allocation_Failure(EL0004): Failed to allocate memory.",
    ]
    assert picked_from(cann) == (2, LikelyReason.EXCEPTION_LINE)
    # a name with underscores and no error code is no coded error
    assert picked_from(["Stage_One_Done(ok): all shards loaded", "done"]) == (2, LikelyReason.LAST_LINE)


def test_advice_printed_at_an_errors_level_is_never_the_cause() -> None:
    lines = [
        "ERROR 01-16 10:20:16 [gpu_worker.py:226] Note: ASCEND_LAUNCH_BLOCKING=1 will force ops to run in sync mode.",
        "ERROR 01-16 10:20:16 [gpu_worker.py:226] ERR00100 PTA call acl api failed.",
    ]
    assert picked_from(lines) == (2, LikelyReason.ERROR_LINE)
    # pip's note below its error (openchat#152, where the `×` mark was lost): the failure line is the answer
    pip = [
        "Getting requirements to build wheel did not run successfully.",
        "│ exit code: 1",
        "╰─> See above for output.",
        "",
        "note: This error originates from a subprocess, and is likely not a problem with pip.",
    ]
    assert picked_from(pip) == (1, LikelyReason.FAILURE_LINE)


def test_journald_go_log_and_buildkit_prefixes_and_gos_wrapped_errors() -> None:
    lines = [
        "Dec 15 15:33:10 host.example.com ollama[25174]: 2023/12/15 15:33:10 images.go:737: total blobs: 0",
        "Dec 15 15:34:12 host.example.com ollama[25174]: 2023/12/15 15:34:12 llama.go:436: error starting the"
        " external llama runner: fork/exec /tmp/ollama/llama: permission denied",
        "Dec 15 15:34:12 host.example.com ollama[25174]: [GIN] 2023/12/15 - 15:34:12 | 500 | 1.2s | 127.0.0.1 | POST",
    ]
    assert picked_from(lines) == (2, LikelyReason.ERROR_LINE)
    # the word error opening a sentence without a colon after a few words is not an error line
    assert picked_from(["error rates are reported every 10 minutes", "done"]) == (2, LikelyReason.LAST_LINE)
    # pip's diagnostic in a pip run (AutoGPT#4595): its error header first, the subprocess's traceback beats both
    pip = [
        " Getting requirements to build wheel ... error",
        "  error: subprocess-exited-with-error",
        "",
        "  × Getting requirements to build wheel did not run successfully.",
        "  │ exit code: 1",
        "  ╰─> [33 lines of output]",
        "      Traceback (most recent call last):",
        '        File "/app/env/lib/python3.12/site-packages/pip/_in_process.py", line 353, in <module>',
        "          main()",
        "      ModuleNotFoundError: No module named 'setuptools'",
    ]
    assert picked_from(pip) == (10, LikelyReason.EXCEPTION)
    assert picked_from(pip[:5]) == (2, LikelyReason.ERROR_LINE)


def test_a_commands_exit_status_is_an_epilogue() -> None:
    # nodejs/node#32674: the child's stderr is printed before Node's `Error: Command failed:` and again in it
    node = [
        "zsh:1: command not found: asdf",
        "child_process.js:650",
        "    throw err;",
        "    ^",
        "",
        "Error: Command failed: ls; asdf",
        "zsh:1: command not found: asdf",
        "",
        "    at checkExecSyncError (child_process.js:607:13)",
    ]
    assert picked_from(node) == (1, LikelyReason.FAILURE_LINE)
    # nodejs/help#4440: nothing else printed, the wrapper is what the log has
    alone = [
        "Error: Command failed: yarn tsc",
        "    at checkExecSyncError (node:child_process:890:11)",
        "  status: 129,",
    ]
    assert picked_from(alone) == (1, LikelyReason.WRAPPER)
    # canonical/dotrun#86: docker's legacy builder alone; dribnet/pixray#39: exit code 137 is a signal, not a status
    docker = [
        "executor failed running [/bin/sh -c pip3 install --user --requirement /tmp/requirements.txt]: exit code: 1"
    ]
    assert picked_from(docker) == (1, LikelyReason.WRAPPER)
    killed = [
        "error: failed to solve: executor failed running [/bin/sh -c pip install -r /tmp/requirements.txt]: exit code: 137",
        "ⅹ Failed to build Docker image: exit status 1",
    ]
    assert picked_from(killed) == (1, LikelyReason.SIGNAL)


def test_a_command_echo_is_not_a_failure() -> None:
    lines = ["Run command: [timeout --verbose 300 docker pull image:tag]", "Pulling from library/image"]
    assert picked_from(lines) == (2, LikelyReason.LAST_LINE)
    # `set -x` echoing a message is a message (the OPEA harness's `+ echo '… does not match …'`)
    assert picked_from(["+ echo 'Content does not match the expected result'", "+ exit 1"]) == (
        1,
        LikelyReason.FAILURE_LINE,
    )


def test_a_failure_line_ending_in_a_colon_introduces_the_one_below() -> None:
    lines = [
        "Failure Summary:",
        "Failed to start, getting 404:",
        "",
        "[SERVER] Entry Not Found for url: https://x/y",
    ]
    assert picked_from(lines) == (4, LikelyReason.FAILURE_LINE)
    # the line below says nothing failed: the introducing line stays
    assert picked_from(["Failed to start:", "see the server's log"]) == (1, LikelyReason.FAILURE_LINE)
    # an error line ending in a colon is not replaced by a later failure line (error lines beat failure lines)
    assert picked_from(["ERROR: the build failed:", "cannot find -lcuda"]) == (1, LikelyReason.ERROR_LINE)


def test_a_warning_that_reports_an_error_is_a_quiet_failure() -> None:
    lines = [
        "WARNING  huggingface_hub.utils._http:_http.py:446 HTTP Error 429 thrown while requesting HEAD https://x/y",
        "WARNING  huggingface_hub.utils._http:_http.py:486 Retrying in 1s [Retry 1/5].",
        "the run goes on",
    ]
    assert picked_from(lines) == (1, LikelyReason.QUIET_FAILURE)
    # a real error line later beats it
    assert picked_from([*lines, "ERROR: tests timed out"]) == (4, LikelyReason.ERROR_LINE)


def test_a_bare_verdict_points_at_the_check_that_missed_its_limit() -> None:
    # vllm-project/vllm-omni#4143, the PR's own block: SSIM meets its threshold (0.970610 >= 0.97), PSNR does not
    pull_request = [
        "Qwen/Qwen-Image similarity metrics:",
        "--",
        "  | SSIM: value=0.970610, threshold>=0.970000, range=[-1, 1], higher_is_better=True",
        "  | PSNR: value=29.691799 dB, threshold>=30.000000 dB, range=[0, +inf), higher_is_better=True",
        "  | FAILED",
    ]
    assert picked_from(pull_request) == (4, LikelyReason.FAILURE_LINE)
    # vllm-project/vllm-omni#4166: LTX's video check, several values before the limit
    video = [
        "dg845/LTX-2.3-Diffusers (full-pipeline) video similarity (25 frames):",
        "  SSIM: avg=0.929366, min=0.914918, threshold>=0.940000",
        "  PSNR: avg=28.752410 dB, min=28.051943 dB, threshold>=28.000000 dB",
        "FAILED",
    ]
    assert picked_from(video) == (2, LikelyReason.FAILURE_LINE)
    # every check meets its limit: the verdict is all there is
    passing = [
        "  | SSIM: value=0.98, threshold>=0.97",
        "  | PSNR: value=31.5 dB, threshold>=30 dB",
        "  | FAILED",
    ]
    assert picked_from(passing) == (3, LikelyReason.FAILURE_LINE)
    # a verdict with words is no bare verdict
    assert picked_from(["  | SSIM: value=0.5, threshold>=0.97", "FAILED: 1 check"]) == (
        2,
        LikelyReason.FAILURE_LINE,
    )


def test_the_fast_readers_utf8_keywords_match() -> None:
    # Jest's `●` marker and pip's `×` hold no other keyword: the block reader must still feed them
    for lines in (
        ["  ● suite › adds", "", "    expect(received).toBe(expected)"],
        ["  × No solution found:"],
    ):
        plain = pick_likely_cause(lines)
        fast = pick_likely_cause_in_blocks(["\n".join(lines).encode()])
        assert plain is not None
        assert fast is not None
        assert (fast.line, fast.reason) == (plain.line, plain.reason)
        assert plain.reason is LikelyReason.ERROR_LINE
