"""The likely cause on the eighth retired holdout's misses (twelfth round) and on the older train logs the same
principles reach, each a real log under tests/corpus/train, with renderings of the same formats modelled on public
threads and the near misses that keep each principle from reaching further (docs/likely-cause.md, docs/accuracy.md's
twelfth round)."""

from __future__ import annotations

import pytest

from forensics.engine.likely import pick_likely_cause
from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # glibc's abort message (`*** stack smashing detected ***: /usr/bin/python2.7 terminated`) is the fatal event
        # the process dies of, not CTest's `***Exception: Other` verdict printed first nor glog's `*** Aborted at`
        (
            "holdout-r8/killed-by-signal/o-paddle-teamcity-stack-smashing-sigabrt.log",
            14,
            LikelyReason.SIGNAL,
        ),
        # Kubernetes' eviction (`Warning  Evicted … The node was low on resource: memory.`) names a failure without
        # the failure words: it beats the last line printed
        (
            "holdout-r6/host-oom/j-kubeflow-gke-keras-node-low-memory-evicted.log",
            1,
            LikelyReason.QUIET_FAILURE,
        ),
        # a bare `AssertionError` says less than the line before it that words the failure (TensorRT's `Error Code 1:
        # Serialization (… Version tag does not match …)`): two rounds' logs of one engine
        ("tensorrt-llm/engine-load-serialization-version-chatrtx-14.log", 1, LikelyReason.FAILURE_LINE),
        ("dev-engines/engine/trt-version-tag-chatrtx-14.log", 1, LikelyReason.FAILURE_LINE),
        # the misses pass. gRPC's status with an empty description (`rpc error: code = Canceled desc =`): the first
        # backend's failure, not the second backend's `desc = failed loading model` three lines below
        ("holdout-r8/unexplained/m-localai-orca-all-backends-rpc-canceled.log", 4, LikelyReason.ERROR_LINE),
        # IPython's header names the class (`AssertionError      Traceback (most recent call last)`) of a traceback
        # cut before its exception line: the header, not the numbered source line printed last
        ("holdout-r8/unexplained/n-thunder-liger-notebook-assert-close.log", 23, LikelyReason.EXCEPTION_LINE),
        # ... unless a line before it words the failure, even as a warning: Ray's `A worker died or was killed`
        ("ray/worker-died-warning-vllm-l4-tp-1111.log", 1, LikelyReason.FAILURE_LINE),
        # TorchServe relays its worker's stderr at WARN (`[WARN ] W-9000-m_1.0-stderr MODEL_LOG - `): argparse's
        # `error: unrecognized arguments` is the worker's error line, not the frontend's `worker process died` below
        ("holdout-r8/unexplained/o-torchserve-worker-unrecognized-arguments.log", 1, LikelyReason.ERROR_LINE),
        # transformers' `Failed to import … because of the following error (look up to see its traceback):`, nested:
        # the innermost message, not the outer exception line nor the second wrapper
        (
            "holdout-r8/python-environment/n-mapreader-ci-transformers-pytree-kwarg.log",
            3,
            LikelyReason.EXCEPTION_LINE,
        ),
        # ... and one level only: the loader's error right below the wrapper
        (
            "dev-lower/python-env/glibc-232-bare-rank0-transformers-cosmos-transfer-42.log",
            2,
            LikelyReason.EXCEPTION_LINE,
        ),
        # a runner's epilogue (`Error: Process completed with exit code 1.`) with nothing else: the command's last
        # line above it (docker compose's `toomanyrequests: …`)
        (
            "holdout-r8/container-image/n-terrifi-actions-compose-pull-toomanyrequests.log",
            5,
            LikelyReason.LAST_LINE,
        ),
        # relabelled to the convention: C++'s `what():`, Go's `panic:` line, mpirun's first notice
        (
            "holdout-r8/model-config/m-llamacpp-opencl-powervr-unexpected-eof-abort.log",
            9,
            LikelyReason.CPP_EXCEPTION,
        ),
        ("holdout-r8/segfault/o-llm-d-epp-go-nil-pointer-sigsegv.log", 8, LikelyReason.PANIC),
        ("holdout-r8/unexplained/n-horovod-mpirun-nonzero-exit-rank0.log", 1, LikelyReason.FAILURE_LINE),
        # with the rules off, the two r8 cases an ordinary rule named falsely: their labelled lines
        (
            "holdout-r8/unexplained/m-sglang-llava-prepare-for-extend-typeerror.log",
            3,
            LikelyReason.EXCEPTION,
        ),
        # (a fatal signal since the sixteenth round: xdist's `worker 'gw4' crashed while running` is the worker's death)
        ("holdout-r8/unexplained/o-torch-xpu-ops-xdist-worker-crashed.log", 3, LikelyReason.SIGNAL),
    ],
)
def test_the_eighth_holdouts_principles_on_real_logs(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_glibcs_abort_messages_are_fatal_events() -> None:
    # renderings of glibc's messages as public threads quote them (Buzztrax#149, superSTR#21, pylibmc#152,
    # psycopg2#91, marker#824): each is the line the process aborts on, before `Aborted (core dumped)`
    assert picked_from(
        [
            "start process alignment file",
            "*** stack smashing detected ***: terminated",
            "Aborted (core dumped)",
        ]
    ) == (2, LikelyReason.SIGNAL)
    assert picked_from(
        [
            "*** stack smashing detected ***: <unknown> terminated",
            "srun: error: node157: task 0: Aborted (core dumped)",
        ]
    ) == (1, LikelyReason.SIGNAL)
    assert picked_from(
        [
            "*** Error in `/usr/bin/python2.6': double free or corruption (!prev): 0x00000000052af6c0 ***",
            "======= Backtrace: =========",
        ]
    ) == (1, LikelyReason.SIGNAL)
    assert picked_from(
        ["loading", "malloc(): unsorted double linked list corrupted", "Aborted (core dumped)"]
    ) == (
        2,
        LikelyReason.SIGNAL,
    )
    assert picked_from(["    double free or corruption (out)", "Aborted (core dumped)"]) == (
        1,
        LikelyReason.SIGNAL,
    )
    # near miss: the words in a sentence are no abort message
    assert picked_from(["I think this is a double free or corruption in our code", "ERROR: test failed"]) == (
        2,
        LikelyReason.ERROR_LINE,
    )


def test_missing_devices_and_evictions_word_a_failure() -> None:
    # Kubernetes' pod status and `kubectl get pods` columns (kubernetes#94073, operate-first/apps#1352)
    assert picked_from(["Status:         Failed", "Reason:         Evicted", "IP:"]) == (
        1,
        LikelyReason.FAILURE_LINE,
    )
    assert picked_from(
        ["x-qtr59   ns   Evicted   node-3   Pod The node had condition: [DiskPressure].", "done"]
    ) == (
        1,
        LikelyReason.QUIET_FAILURE,
    )
    # no device where one was expected, before the bare exception it leads to
    no_xpu = [
        "Found 0 XPU devices",
        "Traceback (most recent call last):",
        '  File "t.py", line 3',
        "AssertionError",
    ]
    assert picked_from(no_xpu) == (1, LikelyReason.FAILURE_LINE)
    assert picked_from(["No CUDA devices found", "done"]) == (1, LikelyReason.FAILURE_LINE)
    # near misses: a count that is not zero, an exception with a message, a bare one with its message below (`X:`)
    assert picked_from(["Found 8 GPUs", "done"]) == (2, LikelyReason.LAST_LINE)
    with_message = [*no_xpu[:3], "AssertionError: expected an XPU"]
    assert picked_from(with_message) == (4, LikelyReason.EXCEPTION)
    assert picked_from(
        ["Tests run: 1, Failures: 1 <<< FAILURE!", "java.lang.AssertionError:", "Expected: 1"]
    ) == (
        2,
        LikelyReason.EXCEPTION_LINE,
    )


def test_ipython_headers_relayed_streams_and_nested_messages() -> None:
    # IPython's header with its traceback whole: the exception line at its end (a rendering of the format in
    # transformers' and colab issues), not the header
    notebook = [
        "ValueError                                Traceback (most recent call last)",
        "Cell In[3], line 1",
        "----> 1 model = load()",
        "ValueError: Unknown quantization type",
    ]
    assert picked_from(notebook) == (4, LikelyReason.EXCEPTION)
    # near miss: a header that names no exception class is no exception line
    assert picked_from(
        ["Something                  Traceback (most recent call last)", "Cell In[1], line 2"]
    ) != (
        1,
        LikelyReason.EXCEPTION_LINE,
    )
    # TorchServe's worker output relayed at INFO (pytorch/serve#515): its traceback is the worker's, fatal
    relayed = [
        "2020-07-10 15:29:40,178 [WARN ] W-9000-seg_1.0 org.pytorch.serve.wlm.BatchAggregator - Load model failed: seg, error: Worker died.",
        "2020-07-10 15:29:40,178 [INFO ] W-9000-seg_1.0-stdout MODEL_LOG - Traceback (most recent call last):",
        '2020-07-10 15:29:40,179 [INFO ] W-9000-seg_1.0-stdout MODEL_LOG -   File "/ts/model_service_worker.py", line 147, in run_server',
        "2020-07-10 15:29:40,179 [INFO ] W-9000-seg_1.0-stdout MODEL_LOG - ModuleNotFoundError: No module named 'cv2'",
    ]
    assert picked_from(relayed) == (4, LikelyReason.EXCEPTION)
    # the stream has no level of its own; the frontend's own INFO (its thread names no stream) keeps its level
    relayed_failure = (
        "2020-07-10 15:29:40,178 [INFO ] W-9000-seg_1.0-stdout MODEL_LOG - backend failed to start"
    )
    assert picked_from([relayed_failure, "ok"]) == (1, LikelyReason.FAILURE_LINE)
    frontend = relayed_failure.replace("-stdout MODEL_LOG", " org.pytorch.serve.wlm.WorkerThread")
    assert picked_from([frontend, "ok"]) == (1, LikelyReason.QUIET_FAILURE)
    # `… raised:` then a message that ends in `:` on its own: the message, not a line further
    assert picked_from(
        ["BackendCompilerFailed: backend='inductor' raised:", "RuntimeError: failed:", "detail"]
    ) == (
        3,
        LikelyReason.EXCEPTION_LINE,
    )


def test_epilogues_and_recaps_of_other_tests() -> None:
    # the epilogue yields to the command's last line (actions/runner-images-like step logs) ...
    step = ["Run ./deploy.sh", "Fetching remote refs...", "Error: Process completed with exit code 1."]
    assert picked_from(step) == (2, LikelyReason.LAST_LINE)
    # ... not to the runner's echo of the command, nor to a line that says what went well
    assert picked_from(["Run docker compose pull", "Error: Process completed with exit code 1."]) == (
        2,
        LikelyReason.WRAPPER,
    )
    assert picked_from(["Successfully installed x-1.0", "Error: Process completed with exit code 1."]) == (
        2,
        LikelyReason.WRAPPER,
    )
    # a wrapper recap (`- RuntimeError: Server exited unexpectedly.`, a symptom rule's line) stays the answer over a
    # later recap of another test; it yields to the same test's failure shown in full
    wrapper = "FAILED t.py::test_a - RuntimeError: Server exited unexpectedly."
    other = "FAILED t.py::test_c - AssertionError: results are not the same"

    def is_wrapper(text: str) -> bool:
        return "Server exited unexpectedly" in text

    picked = pick_likely_cause([wrapper, other], is_wrapper=is_wrapper)
    assert picked is not None and picked.line == 1
    picked = pick_likely_cause([wrapper, "E   ValueError: bad config"], is_wrapper=is_wrapper)
    assert picked is not None and picked.line == 2
