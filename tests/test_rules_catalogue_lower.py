"""The sixth round's catalogue of CUDA, NCCL, OS-error and signal renderings: each rule reads every rendering quoted here.

Every rendering is quoted from the cited public thread or real log (tests/corpus/train, cited in
SOURCES-holdout-r2a.md / -r2b.md) and is the format the rule's comment cites from the upstream source; the near misses
are lines that look alike but must not name that cause. The real logs check the line and rule that win. See
docs/accuracy.md, "Sixth round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import TRAIN, catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # cuda-error: THC's own line (torch <= 0.4), its RuntimeError, c10's "CUDA error: <cudaGetErrorString>",
    # TensorRT-LLM's check(), Caffe's CUDA_CHECK through glog, the runtime and driver enum names
    (
        "cuda.error",
        "THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1502004572321/work/torch/lib/THC/generic/THCStorage.cu"
        " line=66 error=46 : all CUDA-capable devices are busy or unavailable",
        "pytorch/pytorch#2704",
    ),
    (
        "cuda.error",
        "RuntimeError: cuda runtime error (46) : all CUDA-capable devices are busy or unavailable at"
        " /opt/conda/conda-bld/pytorch_1502004572321/work/torch/lib/THC/generic/THCStorage.cu:66",
        "pytorch/pytorch#2704 (title)",
    ),
    (
        "cuda.error",
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
        "facebookresearch/detectron2#2580",
    ),
    (
        "cuda.error",
        "CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        "ggml-org/llama.cpp#11841 (ggml-cuda's CUDA_CHECK)",
    ),
    (
        "cuda.error",
        "  what():  [TensorRT-LLM][ERROR] CUDA runtime error in cudaMemGetInfo(&free, &total): unknown error"
        " (/home/jenkins/agent/workspace/LLM/release-0.10/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/common/"
        "cudaUtils.h:319)",
        "train holdout-r2/cuda-error/trtllm-build-cudamemgetinfo-unknown-error.log",
    ),
    (
        "cuda.error",
        "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable",
        "NVIDIA/DIGITS#2005 (Caffe)",
    ),
    (
        "cuda.error",
        "RuntimeError: cudaErrorLaunchFailure: unspecified launch failure",
        "huggingface/accelerate#83",
    ),
    (
        "cuda.error",
        "numba.cuda.cudadrv.driver.CudaAPIError: [702] Call to cuMemcpyDtoH results in CUDA_ERROR_LAUNCH_TIMEOUT",
        "numba/numba#4351",
    ),
    # nccl-error: torch.cuda.nccl's "NCCL Error <n>: <reason>", ProcessGroupNCCL's "NCCL error in: <file>:<line>, …",
    # vLLM's pynccl "NCCL error: …", the ncclResult_t names torch prints under them
    ("nccl.system-error", "RuntimeError: NCCL Error 2: unhandled system error", "amdegroot/ssd.pytorch#577"),
    (
        "nccl.system-error",
        "[rank0]: RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)",
        "train holdout-r2/nccl-error/b-hunyuan-all-to-all-nccl-error-2.log",
    ),
    ("nccl.cuda-error", "  what():  NCCL Error 1: unhandled cuda error", "bubbliiiing/yolov7-pytorch#63"),
    ("nccl.cuda-error", "RuntimeError: NCCL Error 1: unhandled cuda error", "open-mmlab/mmsegmentation#2266"),
    (
        "nccl.cuda-error",
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, unhandled cuda error,"
        " NCCL version 2.4.8",
        "fanq15/FewX#74",
    ),
    (
        "nccl.cuda-error",
        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "vllm-project/vllm#7896 (title)",
    ),
    ("nccl.cuda-error", "ncclUnhandledCudaError: Call to CUDA function failed.", "swz30/Restormer#75"),
    (
        "distributed.dist-backend-error",
        "(_AsyncLLMEngine pid=641091) ncclInvalidArgument: Invalid value for an argument.",
        "torch's getNcclErrorDetailStr under a vLLM Ray worker",
    ),
    # port-in-use: the bare strerror of old TCPStore, Gloo's bind, CPython's errno text
    ("network.address-in-use", "RuntimeError: Address already in use", "NVIDIA/Megatron-LM#343"),
    (
        "network.address-in-use",
        "RuntimeError: [/opt/conda/conda-bld/pytorch_1634272178570/work/third_party/gloo/gloo/transport/tcp/"
        "pair.cc:176] bind: Address already in use",
        "pytorch/pytorch#104136",
    ),
    (
        "network.address-in-use",
        "OSError: [Errno 98] Address already in use",
        "train holdout-r2/port-in-use/vllm-api-server-temp-socket-bind-errno98.log",
    ),
    (
        "network.address-in-use",
        "docker: Error response from daemon: driver failed programming external connectivity on endpoint"
        " shipyard-proxy (b6f760b12220a78b27e24063d8eb341e78a311a8962119ec2016436d3e0c75f5): Bind for 0.0.0.0:2375"
        " failed: port is already allocated.",
        "ehazlett/shipyard#821",
    ),
    (
        "network.address-in-use",
        "System.IO.IOException: Failed to bind to address http://127.0.0.1:5000: address already in use.",
        "dotnet/core#4038",
    ),
    # connection-refused: aiohttp under uvloop, nginx's "(errno: strerror)"
    (
        "network.connection-refused",
        "17:26:26 - LiteLLM Router:INFO: router.py:770 - litellm.acompletion(model=ollama/phi3:medium-128k)"
        " Exception litellm.APIConnectionError: Cannot connect to host localhost:11434 ssl:default"
        " [Connection refused]",
        "train holdout-r2/connection-refused/litellm-router-ollama-cannot-connect-refused.log",
    ),
    (
        "network.connection-refused",
        "2018/09/04 19:06:12 [error] 223#223: *1 connect() failed (111: Connection refused) while connecting to"
        ' upstream, client: 127.0.0.1, server: localhost, request: "GET /health HTTP/1.1",'
        ' upstream: "http://127.0.0.1:81/health", host: "localhost:9876"',
        "train holdout-r2/connection-refused/b-nginx-proxy-manager-health-upstream-refused.log",
    ),
    # connection-refused: gRPC core, redis-py, libpq (both wordings), WSAECONNREFUSED's text without the WinError tag
    (
        "network.connection-refused",
        "failed to connect to all addresses; last error: UNKNOWN: ipv4:74.118.152.178:50052: Failed to connect to"
        " remote host: connect: Connection refused (111)",
        "lautenberger/elmfire#86",
    ),
    (
        "network.connection-refused",
        "redis.exceptions.ConnectionError: Error 111 connecting to 127.0.0.1:6379. Connection refused.",
        "redis/redis-py#1474",
    ),
    (
        "network.connection-refused",
        "server - Error trying to receive messages: Error 10061 connecting to localhost:6379. No connection could be"
        " made because the target machine actively refused it.",
        "akulakov/django-mcbv#7",
    ),
    (
        "network.connection-refused",
        'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed:'
        " Connection refused",
        "worldveil/dejavu#306",
    ),
    (
        "network.connection-refused",
        "psycopg2.OperationalError: could not connect to server: Connection refused",
        "cookiecutter/cookiecutter-django#2767",
    ),
    # network-unreachable: ENETUNREACH / EHOSTUNREACH in CPython, Go, OpenSSH, aiohttp; DNS through aiohttp;
    # datasets' "Couldn't reach <url>" for a host outside the Hub
    (
        "network.unreachable",
        "HTTPSConnectionPool(host='api6.ipify.org', port=443): Max retries exceeded with url: /?format=json"
        " (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f7473106160>:"
        " Failed to establish a new connection: [Errno 101] Network is unreachable'))",
        "timothymiller/cloudflare-ddns#189",
    ),
    ("network.unreachable", "socket.error: [Errno 101] Network is unreachable", "milo2012/osintstalker#19"),
    ("network.unreachable", "dial tcp 119.90.100.53:2048: connect: no route to host", "fatedier/frp#1149"),
    (
        "network.unreachable",
        "ssh: connect to host 180.1.1.50 port 22: No route to host",
        "chipmanfu/Cyber-Range#4",
    ),
    (
        "network.unreachable",
        "ClientConnectorError: Cannot connect to host python.org:80 ssl:None [Network is unreachable]",
        "aio-libs/aiohttp#3171",
    ),
    (
        "network.unreachable",
        "ConnectionError: Couldn't reach https://raw.githubusercontent.com/huggingface/datasets/1.2.1/datasets/race/"
        "race.py",
        "train holdout-r2/network-unreachable/b-datasets-race-script-couldnt-reach-github-raw.log",
    ),
    (
        "network.dns-resolution-failed",
        "ClientConnectorError: Cannot connect to host api.github.com:443 ssl:True [Temporary failure in name"
        " resolution]",
        "virtool/virtool#763",
    ),
    # filesystem: str(OSError) quoted inside another message
    (
        "machine.too-many-open-files",
        "Failed to get the file for model unsloth/Qwen3-235B-A22B-128K-GGUF/Q2_K/Qwen3-235B-A22B-128K-Q2_K-*.gguf,"
        " error: [Errno 24] Too many open files: '/var/root/.modelscope/credentials/session'",
        "train holdout-r2/filesystem/gpustack-model-eval-errno24-too-many-open-files.log",
    ),
    # disk-full: EDQUOT outside CPython's "[Errno 122]", SQLite's SQLITE_FULL
    (
        "machine.no-space-left",
        "-bash: cannot create temp file for here-document: Disk quota exceeded",
        "mikeizbicki/cmc-csci046#542",
    ),
    (
        "machine.no-space-left",
        "Sep 09 05:11:31 SHANADOA python[5456]: sqlite3.OperationalError: database or disk is full",
        "pymedusa/Medusa#1055",
    ),
    # killed-by-signal: joblib/loky's TerminatedWorkerError (loky/backend/utils.py _format_exitcodes)
    (
        "process.killed-by-signal",
        "joblib.externals.loky.process_executor.TerminatedWorkerError: A worker process managed by the executor was"
        " unexpectedly terminated. This could be caused by a segmentation fault while calling the function or by an"
        " excessive memory usage causing the Operating System to kill the worker. The exit codes of the workers are"
        " {SIGKILL(-9)}",
        "joblib/loky's format as scikit-learn users quote it",
    ),
    # killed-by-signal: GNU make's status for a killed recipe
    ("process.signal-exit-status", "make[3]: *** [s-automata] Error 137", "codesnake/OpenELEC.tv#9"),
    # killed-by-signal: torch's MultiProcessTestCase
    (
        "process.signal-exit-status",
        "Expected zero exit code but got -6",
        "train holdout-r2/killed-by-signal/b-pytorch-tensorpipe-rpc-child-exit-minus-6.log",
    ),
]

# (rule that must NOT answer, lines): retries, the Hub's own wording, source lines, a host that answered, a program's
# own abort
NEAR_MISSES = [
    pytest.param(
        "network.unreachable",
        [
            "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection"
            " broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f3c>:"
            " Failed to establish a new connection: [Errno 101] Network is unreachable')': /simple/torch/"
        ],
        id="pip-retry-warning",
    ),
    pytest.param(
        "network.unreachable",
        [
            '    raise ConnectionError("Couldn\'t reach {}".format(url))',
            "ConnectionError: Couldn't reach 'squad' on the Hub (ConnectTimeout)",
            "ConnectionError: Couldn't reach https://huggingface.co/datasets/squad/resolve/main/squad.py",
        ],
        id="datasets-source-line-and-the-hub",
    ),
    pytest.param(
        "network.connection-refused",
        [
            "2018/09/04 19:06:12 [error] 223#223: *1 upstream timed out (110: Connection timed out) while connecting"
            " to upstream, client: 127.0.0.1"
        ],
        id="nginx-upstream-timeout",
    ),
    pytest.param(
        "network.address-in-use",
        ["RuntimeError: Address already in use by another test; retrying with port 29501 succeeded"],
        id="a-sentence-about-the-port",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["The exit codes of the workers are {SIGTERM(-15), SIGTERM(-15)}"],
        id="loky-workers-stopped-on-purpose",
    ),
    pytest.param(
        "process.signal-exit-status",
        ["make: *** [Makefile:182: all] Error 2"],
        id="make-error-2-is-no-signal",
    ),
    pytest.param(
        "cuda.error",
        [
            "THCudaCheck is a macro that wraps every CUDA call in the old THC library",
            "Check failed: error == cudaSuccess",
        ],
        id="thc-prose-and-a-bare-check",
    ),
]

# the fixed misses of the second holdout: (log, rule, line)
REAL_LOGS = [
    ("holdout-r2/cuda-error/trtllm-build-cudamemgetinfo-unknown-error.log", "cuda.error", 3),
    ("holdout-r2/cuda-error/b-pytorch-thcudacheck-error-46-second-process.log", "cuda.error", 1),
    ("holdout-r2/nccl-error/b-hunyuan-all-to-all-nccl-error-2.log", "nccl.system-error", 6),
    # the bind error outranks vLLM's warning that it could not load libcuda (vLLM goes on after it)
    ("holdout-r2/port-in-use/vllm-api-server-temp-socket-bind-errno98.log", "network.address-in-use", 9),
    ("holdout-r2/port-in-use/b-megatron-tcpstore-address-already-in-use.log", "network.address-in-use", 7),
    (
        "holdout-r2/connection-refused/litellm-router-ollama-cannot-connect-refused.log",
        "network.connection-refused",
        6,
    ),
    (
        "holdout-r2/connection-refused/b-nginx-proxy-manager-health-upstream-refused.log",
        "network.connection-refused",
        1,
    ),
    (
        "holdout-r2/network-unreachable/b-datasets-race-script-couldnt-reach-github-raw.log",
        "network.unreachable",
        14,
    ),
    # the IPython traceback quotes the raise statement on line 4; the exception line is the evidence
    ("holdout-r2/network-unreachable/b-argilla-mlsum-gitlab-couldnt-reach.log", "network.unreachable", 8),
    (
        "holdout-r2/filesystem/gpustack-model-eval-errno24-too-many-open-files.log",
        "machine.too-many-open-files",
        1,
    ),
    (
        "holdout-r2/killed-by-signal/b-pytorch-tensorpipe-rpc-child-exit-minus-6.log",
        "process.signal-exit-status",
        13,
    ),
    # torch alone (no serving engine in the log): a stream-capture error is a plain CUDA error
    ("pytorch-cuda/cuda-error-stream-capturing-kyutai-179.log", "cuda.error", 1),
    # the same wording inside vLLM (its frames in the traceback) stays the engine's capture failure
    ("vllm/cuda-graph-capture-windows-tp-5.log", "vllm.cuda-graph-capture-failed", None),
    ("vllm/cuda-graph-capture-nccl-uncaptured-ray-4432.log", "vllm.cuda-graph-capture-failed", None),
    # NCCL's own socket failure outranks the OS's "No route to host" it carries
    ("dev/nccl/nccl-system-error-no-route-pytorch-transformer-distributed-1.log", "nccl.system-error", None),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_an_abort_after_a_c_assertion_is_the_programs_own(rule_pack: RuleSet) -> None:
    """glibc's assert() aborts the process: the shell's 'abort' after it is no outside signal (labelled unexplained)."""
    log = TRAIN / "holdout-r2/unexplained/llama-server-sampler-dist-assertion-found-abort.log"
    assert root_cause_of(log, rule_pack) == (None, None)


def test_a_kill_without_an_assertion_is_still_named(rule_pack: RuleSet, tmp_path: Path) -> None:
    # the same shell notice alone (zsh's job table, Src/signames.c) stays a signal death
    assert root_cause_of(write_log(tmp_path, ["zsh: abort      ./run-server-glm"]), rule_pack) == (
        "process.killed-by-signal",
        1,
    )
