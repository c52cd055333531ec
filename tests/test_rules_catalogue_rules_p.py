"""The twelfth round's catalogue of the GPU runtime, models, ports and the Python environment (rules-p): each rule reads
every rendering.

Every rendering is quoted from the cited upstream source (its format string rendered, with the prefixes a CI log adds:
docker compose's `service  | `, a JSON log line, glog's `E1107 …]`, uvicorn's `ERROR:    `, Go's `level=ERROR msg=…`),
a cited public thread or a real train log; the near misses are lines that look alike but must not name that cause (the
same errno on a client's connect, a warning the run goes past, a sibling message of another family, a typo in a
script, the source line a traceback quotes). The real logs check the rule and line that win. See docs/accuracy.md,
"Twelfth round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # gpu-oom: FlashInfer's FLASHINFER_CUDA_CALL (include/flashinfer/utils.cuh; SGLang's 3rdparty copy, AITER's utils.cuh)
    (
        "cuda.out-of-memory",
        [
            "CUDA Error: out of memory (2) /sglang/3rdparty/flashinfer/include/flashinfer/handler.cuh: line 100 at"
            " function cudaMallocAsync(&float_buffer_, sizeof(float) *",
            " tmp_size, stream_)",
        ],
        "sgl-project/sglang#109 (tests/corpus/train/holdout-r8)",
    ),
    (
        "cuda.out-of-memory",
        "CUDA error in kernel.cu at line 57: out of memory",
        'a hand-written CHECK_CUDA_ERROR ("CUDA error in %s at line %d: %s") rendered for cudaErrorMemoryAllocation',
    ),
    # cuda-setup: HIP's code-object lookup (ROCm clr hip_code_object.cpp), old typo and ROCm 5+ wording
    (
        "cuda.no-kernel-image",
        "/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:92: guarantee(false && \"hipErrorNoBinaryForGpu: Coudn't"
        ' find binary for current devices!")',
        "ROCm/rocHPCG#22 (ROCm 3.7, gfx803; tests/corpus/train/holdout-r8)",
    ),
    (
        "cuda.no-kernel-image",
        "hipErrorNoBinaryForGPU: Unable to find code object for all current devices!",
        "ROCm docs, PyTorch on ROCm troubleshooting",
    ),
    # cuda-setup: rocBLAS's Tensile library for the GPU's gfx target (ROCm/rocBLAS library/src/tensile_host.cpp)
    (
        "cuda.no-kernel-image",
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU"
        " arch : gfx1036",
        "a llama.cpp ROCm issue on an integrated gfx1036 as quoted in a public thread",
    ),
    (
        "cuda.no-kernel-image",
        [
            "rocBLAS error: Cannot read /plugins/torch/lib/rocblas/library/TensileLibrary.dat:",
            "  Illegal seek for GPU arch : gfx906",
        ],
        "torch rocm7.0 wheels without gfx906 kernels, wrapped as a public report quotes it",
    ),
    # cuda-setup: ROCr's queue abort on a kernel for another ISA (ROCR-Runtime hsa_status_string, clr rocdevice.cpp)
    (
        "cuda.no-kernel-image",
        ":0:rocdevice.cpp            :2776: 7321835745146 us: 1401 : [tid:0x7fc930830700] Callback: Queue"
        " 0x7fc9b7200000 aborting with error : HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is"
        " invalid. code: 0x100f",
        "a ROCm frameworks benchmark's known-issues note (public repository)",
    ),
    # cuda-setup: text-embeddings-inference's compute-capability check (backends/candle/src/lib.rs)
    (
        "cuda.no-kernel-image",
        "tei-1  | 2025-06-01T10:00:00.000000Z ERROR text_embeddings_backend: backends/src/lib.rs:255: Could not start"
        " Candle backend: Could not start backend: Runtime compute cap 120 is not compatible with compile time compute"
        " cap 80",
        "TEI backends/candle/src/lib.rs compatible_compute_cap, through backends/src/lib.rs's tracing::error! (compose)",
    ),
    # no-gpu: torch/IPEX's XPU device pool, then IPEX selecting a device that is not there
    (
        "cuda.xpu-no-device",
        [
            "/opt/venv/lib/python3.10/site-packages/intel_extension_for_pytorch/xpu/lazy_init.py:80: UserWarning: XPU"
            " Device count is zero! (Triggered internally at /build/intel-pytorch-extension/csrc/gpu/runtime/Device.cpp"
            ":127.)",
            "RuntimeError: dpcppSetDevice: device_id is out of range",
        ],
        "intel/intel-extension-for-pytorch csrc/gpu/runtime/Device.cpp (TORCH_WARN, then TORCH_CHECK in dpcppSetDevice)",
    ),
    # port-in-use: EADDRNOTAVAIL on bind, each runtime's rendering
    (
        "network.bind-address-unavailable",
        "ERROR:    [Errno 99] error while attempting to bind on address ('::1', 8000, 0, 0): cannot assign requested"
        " address",
        "abetlen/llama-cpp-python#77 (uvicorn via asyncio; tests/corpus/train/holdout-r8)",
    ),
    (
        "network.bind-address-unavailable",
        "ERROR:    [Errno 49] error while attempting to bind on address ('192.168.1.20', 8080): can't assign requested"
        " address",
        "CPython Lib/asyncio/base_events.py create_server on macOS (errno 49, strerror lower-cased)",
    ),
    (
        "network.bind-address-unavailable",
        'time=2025-01-01T00:00:00Z level=ERROR msg="server failed" err="listen tcp 10.0.0.5:8080: bind: cannot assign'
        ' requested address"',
        "golang/go src/net/net.go OpError (listen → bind) under log/slog",
    ),
    (
        "network.bind-address-unavailable",
        "Error: error binding to 10.0.0.5:3000: error creating server listener: Cannot assign requested address (os"
        " error 99)",
        "hyper 0.14 server::Builder bind (Rust io::Error Display)",
    ),
    (
        "network.bind-address-unavailable",
        "[Nest] ERROR [Server] Error: listen EADDRNOTAVAIL: address not available 203.0.113.1:3001",
        "Node lib/net.js under NestJS's logger, as a public test log shows it",
    ),
    (
        "network.bind-address-unavailable",
        "[W socket.cpp:436] [c10d] The server socket has failed to bind to 10.1.2.3:29500 (errno: 99 - Cannot assign"
        " requested address).",
        "pytorch torch/csrc/distributed/c10d/socket.cpp",
    ),
    # model-config: text-embeddings-inference's Candle backend and candle's VarBuilder
    (
        "model.candle-backend-model-unsupported",
        "dense-embed  | 2025-04-23T03:14:07.818830Z ERROR text_embeddings_backend: backends/src/lib.rs:255: Could not"
        " start Candle backend: Could not start backend: cannot find tensor encoder.layer.0.attention.q_lin.weight",
        "huggingface/text-embeddings-inference#600 (tests/corpus/train/holdout-r8)",
    ),
    (
        "model.candle-backend-model-unsupported",
        '{"timestamp":"2025-03-24T04:51:46.312403Z","level":"ERROR","message":"Could not start Candle backend: Could'
        ' not start backend: cannot find tensor embeddings.word_embeddings.weight","target":"text_embeddings_backend"}',
        "huggingface/text-embeddings-inference#524 (JSON logs; tests/corpus/train/holdout-r8)",
    ),
    (
        "model.candle-backend-model-unsupported",
        "2025-01-10T10:00:00.000000Z ERROR text_embeddings_backend: backends/src/lib.rs:388: Could not start Candle"
        " backend: Could not start backend: Mistral is only supported on Cuda devices in fp16 with flash attention v2"
        " enabled",
        "TEI backends/candle/src/lib.rs (Config::Mistral without flash attention v2)",
    ),
    (
        "model.candle-backend-model-unsupported",
        "2025-01-10T10:00:00.000000Z ERROR text_embeddings_backend: backends/src/lib.rs:388: Could not start Candle"
        " backend: Could not start backend: Gemma3 is only supported in fp32 precision",
        "TEI backends/candle/src/lib.rs (Gemma3 in float16)",
    ),
    (
        "model.candle-backend-model-unsupported",
        "Error: shape mismatch for model.embed_tokens.weight, got [32000, 4096], expected [32064, 4096]",
        'candle-transformers quantized_var_builder.rs get ("shape mismatch for {name}, got {:?}, expected {shape:?}")',
    ),
    # model-config: Triton's model repository manager (triton-inference-server/core)
    (
        "triton.model-not-in-repository",
        "E1107 07:34:03.823179 7 model_repository_manager.cc:1265] failed to poll model 'pipe': model not found in any"
        " model repository.",
        "triton-inference-server/model_analyzer#786 (Triton 23.10; tests/corpus/train/holdout-r8)",
    ),
    # model-config: LoRAX's adapter support check (server/lorax_server/models/model.py) and its 2023 form
    (
        "tgi.adapter-loading-unsupported",
        "2023-11-27T08:25:59.318818Z ERROR lorax_client: router/client/src/lib.rs:33: Server error: 'BLOOMSharded'"
        " object has no attribute 'load_adapter'",
        "predibase/lorax#65 (tests/corpus/train/holdout-r8)",
    ),
    (
        "tgi.adapter-loading-unsupported",
        "ValueError: This model does not support dynamic adapter loading. Please initialize a new model instance from"
        " the base model and remove preloaded adapters to enable dynamic adapter loading.",
        "predibase/lorax server/lorax_server/models/model.py (load_adapter with a preloaded adapter)",
    ),
    # model-config: llama.cpp's file reader (llama_file::read_raw) uncaught, and through the loader
    (
        "model.weights-unreadable",
        "  what():  unexpectedly reached end of file",
        "ggml-org/llama.cpp#1569 (build 584; tests/corpus/train/holdout-r8: the line under libstdc++'s terminate line)",
    ),
    (
        "model.weights-unreadable",
        "llama_model_load: error loading model: unexpectedly reached end of file",
        "ggml-org/llama.cpp src/llama.cpp llama_model_load's LLAMA_LOG_ERROR",
    ),
    # python-environment: Hugging Face's _LazyModule (transformers, diffusers, optimum, trl)
    (
        "python.lazy-import-failed",
        [
            "RuntimeError: Failed to import transformers.models.auto.feature_extraction_auto because of the following"
            " error (look up to see its traceback):",
            "Failed to import transformers.generation.utils because of the following error (look up to see its"
            " traceback):",
        ],
        "huggingface/transformers#36888 (tests/corpus/train/holdout-r8; its inner TypeError, the line below, is"
        " python.lazy-import-inner-mismatch's since the thirteenth round)",
    ),
    (
        "python.lazy-import-failed",
        "RuntimeError: Failed to import diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion because of the"
        " following error (look up to see its traceback):",
        "diffusers src/diffusers/utils/import_utils.py _LazyModule._get_module (the wrapper line; its inner error below)",
    ),
    # python-environment: torchvision's operators not registered (torch/_library/fake_impl.py; torchvision/extension.py)
    (
        "python.torchvision-ops-missing",
        "RuntimeError: operator torchvision::nms does not exist",
        "torchvision/_meta_registrations.py at import under a mismatched torch, as public issues and notes quote it",
    ),
    (
        "python.torchvision-ops-missing",
        "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are"
        " incompatible, or if you had errors while compiling torchvision from source.",
        "pytorch/vision torchvision/extension.py _assert_has_ops",
    ),
    # python-environment: torch's numpy bridge under NumPy 2 (torch/csrc/utils/tensor_numpy.cpp)
    (
        "python.numpy-abi-mismatch",
        "RuntimeError: Numpy is not available",
        "torch built against NumPy 1.x with NumPy 2 installed (JetPack and NGC images, as public notes quote it)",
    ),
    # cuda-setup: PyTorch's cuDNN check (torch/backends/cudnn/__init__.py), 2.x and 1.x wordings
    (
        "cuda.library-version-mismatch",
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 19, 0) but found runtime"
        " version (9, 8, 0)",
        "public setup notes (a system cuDNN 9.8 on LD_LIBRARY_PATH under torch's bundled 9.19)",
    ),
    (
        "cuda.library-version-mismatch",
        [
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against",
            "(9, 20, 0) but found runtime version (9, 13, 1). ... Looks like your",
        ],
        "a public troubleshooting page's wrapped quote (NeMo under a host LD_LIBRARY_PATH)",
    ),
    # python-environment: huggingface_hub's CLI older or newer than the script
    (
        "hf.cli-version-mismatch",
        "huggingface-cli: error: argument {env,login,whoami,logout,repo,lfs-enable-largefiles,lfs-multipart-upload,"
        "scan-cache,delete-cache}: invalid choice: 'download' (choose from 'env', 'login', 'whoami', 'logout', 'repo',"
        " 'lfs-enable-largefiles', 'lfs-multipart-upload', 'scan-cache', 'delete-cache')",
        "LetheSec/HuggingFace-Download-Accelerator#8 (tests/corpus/train/holdout-r8)",
    ),
    (
        "hf.cli-version-mismatch",
        "huggingface-cli: error: argument {env,login,whoami,logout,repo,upload,download,lfs-enable-largefiles,"
        "lfs-multipart-upload,scan-cache,delete-cache,tag,version}: invalid choice: 'upload-large-folder' (choose from"
        " 'env', 'login', 'whoami', 'logout', 'repo', 'upload', 'download')",
        "huggingface_hub < 0.25 (upload-large-folder arrived in ecbbeb355, v0.25.0)",
    ),
    (
        "hf.cli-version-mismatch",
        "Warning: `huggingface-cli` is deprecated and no longer works. Use `hf` instead.",
        "huggingface/huggingface_hub src/huggingface_hub/cli/deprecated_cli.py (v1.11.0+)",
    ),
    # python-environment: bitsandbytes 0.38-0.42's RuntimeError whose message starts with a newline
    (
        "python.bitsandbytes-cuda-setup-failed",
        [
            "RuntimeError:",
            "        CUDA Setup failed despite GPU being available. Please run the following command to get more"
            " information:",
        ],
        "bitsandbytes 0.41 cextension.py raise RuntimeError('''\\n        CUDA Setup failed …''')",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "cuda.out-of-memory",
        [
            "CUDA Error: invalid argument (1) /workspace/flashinfer/include/flashinfer/attention/handler.cuh: line 395"
            " at function cudaMemcpyAsync(int_buffer_, page_locked_int_buffer_, num_bytes_to_copy,"
            " cudaMemcpyHostToDevice, stream_)"
        ],
        id="flashinfer-other-cuda-error",
    ),
    pytest.param(
        "cuda.no-kernel-image",
        [
            "rocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx1031*co. Make sure that"
            " ROCBLAS_TENSILE_LIBPATH is set correctly."
        ],
        id="rocblas-tensile-path-warning",
    ),
    pytest.param(
        "cuda.xpu-no-device",
        [
            "/opt/venv/lib/python3.11/site-packages/torch/xpu/__init__.py:60: UserWarning: XPU device count is zero!"
            " (Triggered internally at /pytorch/c10/xpu/XPUFunctions.cpp:115.)",
            "FAILED tests/test_model.py::test_forward - AssertionError: assert 3 == 4",
        ],
        id="xpu-warning-on-a-cpu-run",
    ),
    pytest.param(
        "network.bind-address-unavailable",
        [
            "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8000): Max retries exceeded"
            " with url: /v1/completions (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at"
            " 0x7f>: Failed to establish a new connection: [Errno 99] Cannot assign requested address'))"
        ],
        id="eaddrnotavail-on-connect",
    ),
    pytest.param(
        "network.bind-address-unavailable",
        ["dial tcp 10.0.0.5:8080: connect: cannot assign requested address"],
        id="go-dial-eaddrnotavail",
    ),
    pytest.param(
        "model.candle-backend-model-unsupported",
        [
            "2025-06-01T10:00:00.000000Z  WARN text_embeddings_backend_candle: backends/candle/src/lib.rs:226: The"
            " `config.json` contains `hidden_act=gelu` and GeLU + tanh approximation will be used instead of exact GeLU"
        ],
        id="tei-gelu-warning",
    ),
    pytest.param(
        "triton.model-not-in-repository",
        ["+ grep -c 'model not found in any model repository' ./server.log"],
        id="triton-qa-grep",
    ),
    pytest.param(
        "tgi.adapter-loading-unsupported",
        ["AttributeError: 'FlashLlama' object has no attribute 'warmup_cache'"],
        id="other-missing-attribute",
    ),
    pytest.param(
        "model.weights-unreadable",
        ["bash: line 12: syntax error: unexpected end of file"],
        id="shell-unexpected-eof",
    ),
    pytest.param(
        "python.lazy-import-failed",
        ["ERROR: Failed to import plugin myapp.plugins.export"],
        id="app-import-failure",
    ),
    pytest.param(
        "hf.cli-version-mismatch",
        ["⚠️  Warning: 'huggingface-cli download' is deprecated. Use 'hf download' instead."],
        id="hub-cli-deprecation-warning-still-runs",
    ),
    pytest.param(
        "hf.cli-version-mismatch",
        [
            "huggingface-cli: error: argument {env,login,whoami,logout,repo,upload,download}: invalid choice:"
            " 'downlaod' (choose from 'env', 'login', 'whoami', 'logout', 'repo', 'upload', 'download')"
        ],
        id="hub-cli-typo",
    ),
    pytest.param(
        "python.bitsandbytes-native-library",
        [
            "│ ❱ 20 │   │   raise RuntimeError('''                                                              │",
            "│   21 │   │   CUDA Setup failed despite GPU being available. Please run the following command     │",
        ],
        id="rich-quoted-raise",
    ),
    pytest.param(
        "python.torchvision-ops-missing",
        ["RuntimeError: operator myproject::fused_rmsnorm does not exist"],
        id="another-namespace-op",
    ),
    pytest.param(
        "python.numpy-abi-mismatch",
        ["SKIPPED [1] tests/test_pixel_array.py:12: NumPy is not available"],
        id="pytest-skip-reason-numpy",
    ),
    pytest.param(
        "machine.segfault",
        [
            "panic: runtime error: invalid memory address or nil pointer dereference",
            "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1da9531]",
        ],
        id="go-nil-pointer-panic",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS: list[tuple[str, str, int | None]] = [
    ("holdout-r8/gpu-oom/m-sglang-flashinfer-handler-cudamallocasync-oom.log", "cuda.out-of-memory", 1),
    ("holdout-r8/cuda-setup/o-rochpcg-hip-no-binary-for-gpu.log", "cuda.no-kernel-image", 4),
    # THCudaCheck FAIL (line 1) yields to the traceback's RuntimeError with the same message
    ("holdout-r8/cuda-setup/n-mlperf-ssd-thcudacheck-driver-insufficient.log", "cuda.driver-mismatch", 10),
    ("holdout-r8/no-gpu/o-ipex-xpu-device-count-zero.log", "cuda.xpu-no-device", 2),
    (
        "holdout-r8/port-in-use/m-llama-cpp-python-server-bind-ipv6-errno99.log",
        "network.bind-address-unavailable",
        1,
    ),
    # gRPC core's bind failure (line 1) before Triton's "failed to start GRPC service" (line 2), as holdout-r6's log
    ("holdout-r8/port-in-use/o-trtllm-backend-mpirun-grpc-port-in-use.log", "network.address-in-use", 1),
    ("holdout-r6/port-in-use/i-trtllm-backend-grpc-port.log", "network.address-in-use", 1),
    (
        "holdout-r8/model-config/m-tei-distiluse-candle-cannot-find-tensor.log",
        "model.candle-backend-model-unsupported",
        5,
    ),
    (
        "holdout-r8/model-config/m-tei-jina-reranker-v2-json-log-cannot-find-tensor.log",
        "model.candle-backend-model-unsupported",
        1,
    ),
    (
        "holdout-r8/model-config/m-triton-model-analyzer-model-not-in-repository.log",
        "triton.model-not-in-repository",
        8,
    ),
    # the router's ERROR line, not the client's JSON copy on line 1
    (
        "holdout-r8/model-config/m-lorax-bloom-unsupported-for-adapters.log",
        "tgi.adapter-loading-unsupported",
        4,
    ),
    (
        "holdout-r8/model-config/m-llamacpp-opencl-powervr-unexpected-eof-abort.log",
        "model.weights-unreadable",
        9,
    ),
    # the bare RuntimeError, not the source line rich quotes (line 10)
    (
        "holdout-r8/python-environment/n-kohya-bitsandbytes-cuda-setup-rich.log",
        "python.bitsandbytes-cuda-setup-failed",
        14,
    ),
    (
        "holdout-r3/python-environment/d-bitsandbytes-0-42-missing-native-cpu-so.log",
        "python.bitsandbytes-native-library",
        3,
    ),
    (
        "holdout-r8/python-environment/n-hf-accelerator-old-hub-cli-no-download.log",
        "hf.cli-version-mismatch",
        4,
    ),
    (
        "holdout-r8/python-environment/n-mapreader-ci-transformers-pytree-kwarg.log",
        "python.lazy-import-inner-mismatch",
        3,
    ),
    # where a specific rule reads the wrapped error, it answers on its own line (the lazy-import rule is below it)
    (
        "holdout-r1/python-environment/transformers-lazy-import-wraps-undefined-symbol.log",
        "python.undefined-symbol",
        2,
    ),
    (
        "dev-lower/python-env/glibc-232-bare-rank0-transformers-cosmos-transfer-42.log",
        "python.shared-library-missing",
        2,
    ),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
