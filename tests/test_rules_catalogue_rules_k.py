"""The tenth round's catalogue of the GPU, CUDA, NCCL, compiler, model and port rules (rules-k): each rule reads every
rendering its emitter words the cause with.

Every rendering is quoted from the cited upstream source (its format string, with the prefixes a CI log adds: NCCL's
`host:pid:tid [dev] file:line NCCL WARN`, glog's `E0705 …] `, Python logging's `ERROR:name:`, Ollama's CLI `Error: `),
a cited public thread or a real train log; the near misses are lines that look alike but must not name that cause
(healthy start-up reports, probing NCCL skips and goes on, another tool's template errors, docs text). The real logs
check the rule and line that win. See docs/accuracy.md, "Tenth round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # cuda-device-assert: CUDA's __assertfail line, whole or wrapped after the condition's closing backtick
    (
        "cuda.device-side-assert",
        [
            "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1422: indexSelectLargeIndex: block: [31,0,0], thread:"
            " [0,0,0] Assertion `srcIndex < srcSelectDimSize` ",
            "failed.",
        ],
        "hoon9405/GenHPF#17 (train holdout-r6), CUDA's device runtime printf wrapped by the paste",
    ),
    # compile-failed: Triton's CompilationError as a repr inside another message
    (
        "triton.compile-failed",
        "future: <Task finished name='Task-5' coro=<RouterManager.loop_for_fwd() done, defined at"
        " /opt/lightllm/lightllm/server/router/manager.py:84> exception=CompilationError('at 38:4:\\ndef"
        " _rotary_kernel(\\n    Q, Cos, Sin,\\n",
        "ModelTC/LightLLM#19 (train holdout-r6): asyncio's Task repr, triton/compiler/errors.py CompilationError",
    ),
    (
        "triton.compile-failed",
        "future: <Task finished name='Task-9' coro=<forward() done, defined at /srv/router.py:84>"
        " exception=CompilationError(\"at 1:0:\\ndef _k(X, mode='fwd'):\")>",
        "asyncio's Task repr; Python's repr() quotes a message holding a single quote with double quotes",
    ),
    # model-config: llama_model_load's staged wrappers (src/llama.cpp) over llama-model-loader.cpp / llama-vocab.cpp
    (
        "model.gguf-load-unsupported",
        "llama_model_load: error loading model: error loading model vocabulary: invalid gguf type for"
        " tokenizer.ggml.scores",
        "LostRuins/koboldcpp#2404 (train holdout-r6)",
    ),
    (
        "model.gguf-load-unsupported",
        "llama_model_load: error loading model: error loading model hyperparameters: key not found in model:"
        " gemma3.attention.layer_norm_rms_epsilon",
        "llama-model-loader.cpp get_key (a llama-server on an Ollama blob, public notes)",
    ),
    (
        "model.gguf-load-unsupported",
        "llama_model_load: error loading model: error loading model hyperparameters: key qwen2.context_length has"
        " wrong type u64 but expected type u32",
        "llama-model-loader.cpp GKV::get_kv ('key %s has wrong type %s but expected type %s')",
    ),
    (
        "model.gguf-load-unsupported",
        "llama_model_load: error loading model: check_tensor_dims: tensor 'token_embd.weight' has wrong shape;"
        " expected  4096, 32002, got  4096, 32000,     1,     1",
        "llama-model-loader.cpp check_tensor_dims (a vocabulary resized after conversion)",
    ),
    (
        "model.gguf-load-unsupported",
        "Error: llama runner process has terminated: error loading model: missing tensor 'blk.0.attn_norm.weight'",
        "llama-model.cpp create_tensor ('missing tensor %s'), Ollama's CLI wrapping its runner",
    ),
    (
        "model.gguf-convert-unsupported",
        "ERROR:hf-to-gguf:Model Qwen3MoeForCausalLM is not supported",
        "llama.cpp convert_hf_to_gguf.py main() (logger.error after NotImplementedError)",
    ),
    (
        "model.weights-unreadable",
        "OSError: Unable to load weights from pytorch checkpoint file for '/models/m/pytorch_model.bin' at"
        " '/models/m/pytorch_model.bin'. If you tried to load a PyTorch model from a TF 2.0 checkpoint, please set"
        " from_tf=True.",
        "transformers modeling_utils.py load_state_dict (v4.x)",
    ),
    (
        "model.weights-unreadable",
        "OSError: You seem to have cloned a repository without having git-lfs installed. Please install git-lfs and"
        " run `git lfs install` followed by `git lfs pull` in the folder you cloned.",
        "transformers modeling_utils.py load_state_dict (a Git LFS pointer)",
    ),
    (
        "model.tokenizer-error",
        "Error: json: cannot unmarshal array into Go struct field .model.merges of type string",
        "ollama convert/tokenizer.go before 445601295 (Dec 2024), Go encoding/json",
    ),
    # model-config: Ollama's chat template parsed by Go's text/template
    (
        "ollama.template-parse-error",
        'Error: template: :3: function "currentDate" not defined',
        "ollama/ollama#11681 (train holdout-r6), template/template.go Parse + text/template/parse Tree.errorf",
    ),
    (
        "ollama.template-parse-error",
        'HTTP 500: {"error":"template: :1: unexpected \\"}\\" in operand"}',
        "the same through Ollama's API body (JSON-escaped quotes)",
    ),
    (
        "ollama.template-parse-error",
        "ollama._types.ResponseError: template: :7: unclosed action (status code: 500)",
        "ollama-python _types.ResponseError over the 500 body",
    ),
    # cuda-setup: torch's start-up warnings (torch/cuda/__init__.py _check_capability)
    (
        "cuda.arch-unsupported-warning",
        "NVIDIA A100-PCIE-40GB with CUDA capability sm_80 is not compatible with the current PyTorch installation.",
        "PrateekMunjal/TorchAL#4 (train holdout-r6): incompatible_device_warn, header cut",
    ),
    (
        "cuda.arch-unsupported-warning",
        [
            "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:262: UserWarning: Found GPU0 NVIDIA TITAN"
            " V which is of cuda capability 7.0. PyTorch no longer supports this GPU because it is too old. The"
            " minimum cuda capability supported by this library is 7.5.",
        ],
        "old_gpu_warn on one line (a vLLM environment report quoted in public notes)",
    ),
    (
        "cuda.driver-mismatch",
        "AssertionError: libcuda.so cannot found!",
        "triton python/triton/common/build.py (2.x), backends/nvidia/driver.py (3.x) libcuda_dirs; public setup notes",
    ),
    # cuda-error: ggml's 2023 CUDA_CHECK, Numba's driver, AOTI's runtime
    (
        "cuda.error",
        "CUDA error 999 at /tmp/llama.cpp/ggml-cuda.cu:6234: unknown error",
        "llama.cpp ggml-cuda.cu CUDA_CHECK (2023): 'CUDA error %d at %s:%d: %s'",
    ),
    (
        "cuda.error",
        "numba.cuda.cudadrv.driver.CudaAPIError: [719] Call to cuCtxSynchronize results in UNKNOWN_CUDA_ERROR",
        "numba/cuda/cudadrv/driver.py _check_ctypes_error (an error code its ERROR_MAP lacks)",
    ),
    (
        "cuda.error",
        [
            "  Error: CUDA error: invalid argument",
            "  terminate called after throwing an instance of 'std::runtime_error'",
            "  ./we-run-this.sh: line 34:  1930 Aborted                 (core dumped) cmake-out/aoti_run model.so",
        ],
        "pytorch/torchchat#709 (train holdout-r6): AOTI's CONVERT_EXCEPTION_TO_ERROR_CODE prints 'Error: <what()>'",
    ),
    # nccl-error: NCCL's own WARN lines (ibvwrap.cc, checks.h, net_socket.cc, rings.cc)
    (
        "nccl.system-error",
        "hai-a100-3:3778851:3779883 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed",
        "NVIDIA/nccl#562 (train holdout-r6): IBV_PTR_CHECK, NCCL 2.8",
    ),
    (
        "nccl.system-error",
        "gpu-7:912:1001 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with error Connection timed"
        " out errno 110",
        "NCCL src/misc/ibvwrap.cc IBV_INT_CHECK_RET_ERRNO",
    ),
    (
        "nccl.system-error",
        "node1:4101:4188 [3] misc/ibvwrap.cc:110 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate"
        " memory",
        "NCCL src/misc/ibvwrap.cc IBV_PTR_CHECK_ERRNO (RLIMIT_MEMLOCK)",
    ),
    (
        "nccl.system-error",
        "worker-0:77:140 [1] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied",
        "NCCL src/include/shm.h + checks.h SYSCHECKVAL (2.4-2.8)",
    ),
    (
        "nccl.invalid-usage",
        "node1:4101:4188 [0] transport/net_socket.cc:420 NCCL WARN NET/Socket : message truncated : receiving 4 bytes"
        " instead of 2",
        "NCCL src/transport/net_socket.cc (2.8)",
    ),
    (
        "nccl.internal-error",
        "node0:2201:2260 [3] graph/rings.cc:51 NCCL WARN Error : ring 1 does not loop back to start (0 != 7)",
        "NCCL src/graph/rings.cc ncclBuildRings",
    ),
    # port-in-use: Triton's own bind error and llama-server's
    (
        "network.address-in-use",
        "E0705 08:07:40.219789 79386 main.cc:245] failed to start GRPC service: Unavailable - Socket '0.0.0.0:18001'"
        " already in use ",
        "triton-inference-server/tensorrtllm_backend#524 (train holdout-r6): src/main.cc + src/grpc/grpc_server.cc",
    ),
    (
        "network.address-in-use",
        "tritonserver.UnavailableError: Socket '0.0.0.0:8002' already in use ",
        "src/http_server.cc (the metrics front end) through tritonserver's Python API",
    ),
    (
        "network.address-in-use",
        "main: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8080",
        "llama.cpp tools/server/server.cpp LOG_ERR",
    ),
    # no-gpu: JAX asking for a GPU platform it lacks, torch.load of a GPU checkpoint without CUDA
    (
        "cuda.no-gpus",
        "RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present."
        " Platforms present are: cpu",
        "jax/_src/xla_bridge.py canonicalize_platform",
    ),
    (
        "cuda.no-gpus",
        "RuntimeError: Unknown backend cuda. Available backends are ['cpu']",
        "jax/_src/xla_bridge.py get_backend",
    ),
    (
        "cuda.no-gpus",
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If"
        " you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map"
        " your storages to the CPU.",
        "torch/serialization.py validate_cuda_device",
    ),
    # segfault: Windows' access violation as an exit status (NTSTATUS STATUS_ACCESS_VIOLATION, ntstatus.h)
    (
        "machine.segfault-exit-status",
        "Error: llama runner process has terminated: exit status 0xc0000005",
        "ollama llm/server.go: the runner's exit status through Go's os.ProcessState on Windows",
    ),
    (
        "machine.segfault-exit-status",
        "Process finished with exit code -1073741819 (0xC0000005)",
        "an IDE's signed rendering of STATUS_ACCESS_VIOLATION",
    ),
    # serving-engine-internal: TensorRT's runtime refusing a plan from another release
    (
        "trtllm.engine-load-failed",
        "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::32] Error Code 1: Serialization (Serialization"
        " assertion magicTagRead == kMAGIC_TAG failed.Magic tag does not match)",
        "TensorRT 8.x stdArchiveReader as the Python bindings' logger prints it",
    ),
    # python-environment: an entry point whose object the installed module lacks (vLLM's plugin loader)
    (
        "python.entry-point-missing",
        [
            "ERROR 10-13 03:39:35 [__init__.py:46] AttributeError: module 'vllm_ascend' has no attribute 'register'",
            "ERROR 10-13 03:39:35 [__init__.py:46]     return functools.reduce(getattr, attrs, module)",
        ],
        "vllm-project/vllm-ascend#3403 (train holdout-r6): importlib/metadata EntryPoint.load",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "nccl.system-error",
        [
            "node0:9621:9685 [0] misc/ibvwrap.cc:42 NCCL WARN Call to ibv_open_device failed",
            "node0:9621:9685 [0] NCCL INFO Call to ibv_query_ece not supported",
            "node0:9621:9701 [0] misc/ibvwrap.cc:88 NCCL WARN Call to ibv_get_async_event failed",
        ],
        id="nccl-probing-and-teardown-warns",
    ),
    pytest.param(
        "ollama.template-parse-error",
        [
            "template parsing error: template: :1: unclosed action",
            'Error: template: mychart/templates/deployment.yaml:12: function "toYml" not defined',
            'Error: template: :1:12: executing "" at <.Messages>: can\'t evaluate field Messages',
        ],
        id="docker-helm-and-execution-template-errors",
    ),
    pytest.param(
        "cuda.arch-unsupported-warning",
        [
            "UserWarning: Found GPU0 Orin which is of compute capability (CC) 8.7.",
            "The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:",
        ],
        id="torch-cc-table-is-cosmetic-on-orin",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "terminate called after throwing an instance of 'c10::Error'",
            "  what():  CUDA error: an illegal instruction was encountered",
            "Aborted (core dumped)",
        ],
        id="uncaught-cpp-exception-abort-is-not-a-kill",
    ),
    pytest.param(
        "model.gguf-load-unsupported",
        [
            "llama_model_load: error loading model: failed to open /models/absent.gguf: No such file or directory",
            "llama_model_loader: - kv  19:                      tokenizer.ggml.scores arr[f32,32000]   = [0.0, ...]",
        ],
        id="missing-file-and-metadata-dump",
    ),
    pytest.param(
        "python.entry-point-missing",
        [
            '  File "/src/app/train.py", line 12, in <module>',
            "AttributeError: module 'numpy' has no attribute 'float'",
        ],
        id="own-code-attribute-error",
    ),
    pytest.param(
        "machine.segfault-exit-status",
        [
            "Error: llama runner process has terminated: exit status 0xc0000409",
            "Error: llama runner process has terminated: exit status 0xc000001d",
        ],
        id="other-windows-ntstatus-codes",
    ),
    pytest.param(
        "network.address-in-use",
        [
            "I0705 08:07:41.100000 79386 grpc_server.cc:2495] Started GRPCInferenceService at 0.0.0.0:8001",
            "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
        ],
        id="healthy-server-start",
    ),
]

# (train log, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r6/cuda-error/i-torchchat-aoti-runner-invalid-argument.log", "cuda.error", 7),
    (
        "holdout-r6/model-config/i-koboldcpp-ministral-vocab-invalid-gguf-type.log",
        "model.gguf-load-unsupported",
        5,
    ),
    ("holdout-r6/model-config/i-ollama-gptoss-currentdate-template.log", "ollama.template-parse-error", 2),
    ("holdout-r6/compile-failed/i-lightllm-rotary-kernel-compilation-error.log", "triton.compile-failed", 1),
    ("holdout-r6/cuda-device-assert/j-genhpf-indexselect-assert-hydra.log", "cuda.device-side-assert", 8),
    ("holdout-r6/cuda-setup/j-torchal-a100-sm80-no-kernel-image.log", "cuda.no-kernel-image", 4),
    ("holdout-r6/nccl-error/j-tf-slurm-pyxis-nccl-ibv-create-qp.log", "nccl.system-error", 4),
    ("holdout-r6/nccl-error/j-horovod-tf-ncclcomminitrank-ibv-create-qp.log", "nccl.system-error", 1),
    ("holdout-r6/port-in-use/i-trtllm-backend-grpc-port.log", "network.address-in-use", 1),
    ("holdout-r6/python-environment/i-vllm-ascend-no-register.log", "python.entry-point-missing", 11),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_the_no_kernel_image_error_outranks_torchs_earlier_arch_warning(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """The warning names the cause only when the log keeps no error line; the error line wins where both stand."""
    warning = "NVIDIA A100-PCIE-40GB with CUDA capability sm_80 is not compatible with the current PyTorch installation."
    error = (
        "Trial 0 failed: RuntimeError('CUDA error: no kernel image is available for execution on the device')"
    )
    assert root_cause_of(write_log(tmp_path, [warning, error]), rule_pack) == ("cuda.no-kernel-image", 2)
    assert root_cause_of(write_log(tmp_path, [warning, "Trial 0 failed"]), rule_pack) == (
        "cuda.arch-unsupported-warning",
        1,
    )


def test_a_cpp_exceptions_abort_leaves_the_cuda_error_its_cause(rule_pack: RuleSet, tmp_path: Path) -> None:
    """std::terminate's SIGABRT is the uncaught exception's consequence; with no terminate line it is a signal death."""
    error = "  what():  CUDA error: an unspecified launch failure"
    abort = "./run.sh: line 3:  1930 Aborted                 (core dumped) ./runner"
    terminate = "terminate called after throwing an instance of 'c10::Error'"
    assert root_cause_of(write_log(tmp_path, [terminate, error, abort]), rule_pack) == ("cuda.error", 2)
    assert root_cause_of(write_log(tmp_path, ["Loading the model", abort]), rule_pack) == (
        "process.killed-by-signal",
        2,
    )
