"""The likely cause on the seventh retired holdout's misses (eleventh round) and on the older train logs the same
principles reach, each a real log under tests/corpus/train, with the near misses that keep each principle from
reaching further (docs/likely-cause.md, docs/accuracy.md's eleventh round)."""

from __future__ import annotations

import pytest

from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # the first of llama.cpp's cascade (`gguf_init_from_file: failed to open GGUF file …`), not the
        # `llama_model_load: error loading model: …` error line right below it, nor the last `failed to load model`
        ("holdout-r7/unexplained/k-llama-server-failed-to-open-gguf.log", 4, LikelyReason.FAILURE_LINE),
        # c10d's `[W socket.cpp] … failed to bind … Address already in use` above its `[E socket.cpp] … failed to
        # listen on any local network address`: the first error line is the wrong answer (three rounds' logs)
        ("holdout-r7/port-in-use/l-deepseek-coder-finetune-29500-in-use.log", 2, LikelyReason.FAILURE_LINE),
        (
            "holdout-r2/port-in-use/b-torchrun-standalone-master-port-errno98.log",
            6,
            LikelyReason.FAILURE_LINE,
        ),
        ("holdout-r4/port-in-use/f-mmpretrain-dist-train-port-22.log", 2, LikelyReason.FAILURE_LINE),
        # UCX's `ERROR … mlx5dv_devx_obj_create(CQ) failed …` run, above NIXL's glog `E0717 … endpoint create failed`
        (
            "holdout-r7/serving-engine-internal/k-sglang-ci-nixl-ucx-gdaki-cq-create-failed.log",
            1,
            LikelyReason.FAILURE_LINE,
        ),
        # mpirun's notice wrapped over two lines: the sentence's first line, not its `a non-zero exit code.` half
        ("holdout-r7/unexplained/l-horovod-rank0-sys-exit-mpirun-abort.log", 10, LikelyReason.FAILURE_LINE),
        # hamcrest's `Expected: …` / ` but was: …`, not Maven's `[ERROR] Tests run: 82, Failures: 25` below it
        (
            "holdout-r7/unexplained/l-cactoos-matchers-maven-surefire-text-mismatch.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        # systemd's `Main process exited, code=exited, status=2/INVALIDARGUMENT`, not `Failed with result` after it
        ("holdout-r7/unexplained/k-ollama-systemd-exit-status-2-restart.log", 1, LikelyReason.FAILURE_LINE),
        # llama.cpp's older `GGML_ASSERT: file.cpp:1524: false`, not zsh's `(core dumped)` below it
        ("holdout-r7/unexplained/k-llamacpp-opencl-benchmark-ggml-assert.log", 15, LikelyReason.ASSERTION),
        # Ray's C++ log at spdlog's critical level `C`: `This node has beem marked as dead.`, not the stack's last line
        ("holdout-r7/ray-died/l-ray-raylet-heartbeat-lag-marked-dead.log", 3, LikelyReason.ERROR_LINE),
        # `Triton is installed but 0 active driver(s) found (expected 1)`, not the consequence logged below it
        ("holdout-r7/no-gpu/k-vllm-ci-dp-ray-actor-no-triton-driver.log", 2, LikelyReason.FAILURE_LINE),
        # a failure named without the failure words beats the last line printed: sglang's router
        # `… health check is pending with error: error sending request …` at INFO, kubectl's `ErrImagePull` column, zsh's `segmentation fault` in a sentence
        (
            "holdout-r7/server-not-ready/k-sglang-router-worker-health-pending-compile.log",
            6,
            LikelyReason.QUIET_FAILURE,
        ),
        ("holdout-r2/container-image/kuberay-rayjob-head-errimagepull.log", 1, LikelyReason.QUIET_FAILURE),
        (
            "holdout-r4/segfault/e-llamacpp-server-segfault-curl-empty-reply.log",
            1,
            LikelyReason.QUIET_FAILURE,
        ),
        # Julia's `ERROR: LoadError: TaskFailedException` only names the exception its `nested task error: ArgumentError:
        # …` below says: the nested one, not the first exception line
        (
            "holdout-r7/unexplained/l-ray-jl-benchmark-nested-task-argumenterror.log",
            3,
            LikelyReason.EXCEPTION_LINE,
        ),
        # pytest's short summary cut to the terminal's width (`- BrokenPipeError...`, `- Runt...`): the first recap shown
        # whole (`test_from_pretrained - MemoryError`), not the first recap
        (
            "holdout-r7/host-oom/l-lightning-bolts-windows-gha-short-summary.log",
            6,
            LikelyReason.EXCEPTION_LINE,
        ),
        # Kaldi's `ERROR (nnet3-chain-train2[5.5]:AddMatMat():cu-matrix.cc:1329) …`: an error line, not nvidia-smi's
        # table row printed last
        ("holdout-r6/cuda-error/j-kaldi-cu-test-cublas-execution-failed.log", 1, LikelyReason.ERROR_LINE),
        # dynamo's `ERROR dynamo_runtime::worker: Application shutdown with error: …`, not the `Error:` restating it
        ("dev-engines/engine/dynamo-etcd-connect-refused-1188.log", 1, LikelyReason.ERROR_LINE),
    ],
)
def test_the_seventh_holdouts_principles_on_real_logs(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_near_misses_of_the_eleventh_round() -> None:
    # a run of failure lines is one process's: a journal read newest first puts systemd's `Failed with result` of the
    # service above the service's own error (another program): that error line stays the answer
    assert picked_in("holdout-r7/filesystem/k-ollama-nfs-models-mkdir-permission-denied.log") == (
        5,
        LikelyReason.ERROR_LINE,
    )
    # a failure the line says it recovered from (`Couldn't find '…'. Generating new private key.`) begins no run
    assert picked_in("holdout-r4/filesystem/e-kubeai-ollama-openshift-mkdir-root-denied.log") == (
        9,
        LikelyReason.ERROR_LINE,
    )
    # a line that introduces what follows (CTest's `The following tests FAILED:`), a test's verdict (Gradle's `… >
    # test FAILED`) and pytest's `ERROR at setup` header begin no run: what they announce is below them
    assert picked_in("holdout-r6/unexplained/i-llamacpp-ctest-arg-parser.log") == (
        17,
        LikelyReason.ERROR_LINE,
    )
    gradle = ["x.FooTest > testBar FAILED", "    org.junit.ComparisonFailure: Expect a but was b"]
    # (an exception line since the sixteenth round: a packaged Java class ending in Failure)
    assert picked_from(gradle) == (2, LikelyReason.EXCEPTION_LINE)
    # a wrapped sentence needs a plain line above it that starts a sentence and stops mid-way: a record with a header
    # (`16:40:39.507  Container agenticos-redis-1 Waiting`) or a line that ends otherwise is a line of its own
    assert picked_in("holdout-r6/server-not-ready/j-agenticos-compose-redis-unhealthy-deploy.log") == (
        3,
        LikelyReason.FAILURE_LINE,
    )
    assert picked_in("holdout-r2/container-image/b-metamorph-docker-build-cuda-manifest-unknown.log") == (
        11,
        LikelyReason.FAILURE_LINE,
    )
    # hamcrest's pair only: pytest's `approx` and googletest print `Expected:` alone
    assert picked_from(["  Expected: 1.0 ± 1.0e-02", "done"]) == (2, LikelyReason.LAST_LINE)
    # the word error alone in prose or a status line is no failure named without the failure words
    assert picked_from(["getting this error", "", "`rope_scaling` must be a dictionary"]) == (
        3,
        LikelyReason.LAST_LINE,
    )
    assert picked_from(["HTTP/1.1 500 Internal Server Error", "date: Fri"]) == (2, LikelyReason.LAST_LINE)
    # `0 … found` needs the expectation it misses
    assert picked_from(["0 warnings found", "done"]) == (2, LikelyReason.LAST_LINE)


def test_julias_nested_task_errors_and_pytests_cut_recaps() -> None:
    # Julia's task failure: the innermost `nested task error:` (JuliaSIMD/ThreadingUtilities.jl#54, Ray.jl#135), not
    # `ERROR: TaskFailedException` nor a nested one that is a task's failure again
    stack = ["Stacktrace:", " [1] wait(t::Task)", "   @ Base ./task.jl:349", ""]
    nested = [
        "ERROR: TaskFailedException",
        *stack,
        "    nested task error: TaskFailedException",
        *stack,
        "        nested task error: x > 3",
        *stack,
    ]
    assert picked_from(nested) == (11, LikelyReason.EXCEPTION_LINE)
    # a recap shown whole after recaps cut short; recaps all cut short keep the first; recaps all whole keep the first
    cut = "FAILED t.py::test_a - ConnectionResetError: [Errno 104] Connection r..."
    whole = "FAILED t.py::test_b - OSError: [Errno 28] No space left on device"
    assert picked_from([cut, cut.replace("test_a", "test_c"), whole]) == (3, LikelyReason.EXCEPTION_LINE)
    assert picked_from([cut, cut.replace("test_a", "test_c")]) == (1, LikelyReason.EXCEPTION_LINE)
    assert picked_from([whole, whole.replace("test_b", "test_d"), cut]) == (1, LikelyReason.EXCEPTION_LINE)
    # an exception whose message is words, not only another exception's name, is no wrapper
    assert picked_from(["LoadError: could not open file x.jl", "  nested task error: y"]) == (
        1,
        LikelyReason.EXCEPTION_LINE,
    )
