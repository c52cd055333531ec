"""The fourteenth round's catalogue for GPU, CUDA, memory, compilers, models, serving engines, ports and the Python
environment (gpu-oom, host-oom, serving-gpu-memory, max-model-len, cuda-illegal-access, cuda-error, cuda-setup, no-gpu,
nccl-error, triton-out-of-resources, compile-failed, segfault, model-config, serving-engine-internal, port-in-use,
python-environment): the emitters of the tenth holdout's misses (ggml/llama.cpp under Ollama and llama-server, vLLM's
multiproc executor, ONNX Runtime's provider bridge in Python and the Rust `ort` crate, bitsandbytes' CUDA setup, glibc's
loader, Caffe's CUDA_CHECK, transformers' AutoConfig, SD.Next's Triton check) and their neighbours (cuDNN's and
torch's Windows loaders, CPython's dynload_win, the ggml backends' allocators, Ollama's GPU discovery and registry,
uvicorn on Windows, SGLang's context check, ONNX Runtime's CUDA EP, the other engines' and runtimes' wordings), in each
rendering their source prints.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r10, cited in SOURCES-holdout-r10a.md / -r10b.md / -r10c.md); the near misses are
lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Fourteenth round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # cuda-setup / no-gpu: ggml's CUDA backend start and Ollama's discovery
    (
        "llamacpp.backend-init-failed",
        "llama-cpp    | ggml_cuda_init: failed to initialize CUDA: unknown error",
        "ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu ggml_cuda_init under docker compose (holdout-r10/cuda-setup/s-llamacpp-…)",
    ),
    (
        "llamacpp.backend-init-failed",
        "ggml_cuda_init: failed to initialize MUSA: initialization error",
        "ggml-cuda.cu ggml_cuda_init, the MUSA build's GGML_CUDA_NAME (cudaGetErrorString's cudaErrorInitializationError)",
    ),
    (
        "cuda.driver-mismatch",
        "ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version",
        "ggml-cuda.cu ggml_cuda_init with cudaErrorInsufficientDriver: the driver's own words win",
    ),
    (
        "cuda.driver-mismatch",
        "ggml_cuda_init: failed to initialize CUDA: forward compatibility was attempted on non supported HW",
        "ggml-cuda.cu ggml_cuda_init with cudaErrorCompatNotSupportedOnDevice",
    ),
    (
        "cuda.no-gpus",
        "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected",
        "ggml-cuda.cu ggml_cuda_init with cudaErrorNoDevice: no-gpu, not cuda-setup",
    ),
    (
        "cuda.no-gpus",
        "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected",
        "ggml-cuda.cu ggml_cuda_init, the HIP build (hipErrorNoDevice's string)",
    ),
    (
        "cuda.no-gpus",
        "F0527 08:43:32.401912 27274 syncedmem.hpp:18] Check failed: error == cudaSuccess (38 vs. 0)  no **CUDA-capable device is detected**",
        "BVLC/caffe include/caffe/util/device_alternate.hpp CUDA_CHECK (holdout-r10/no-gpu/t-caffe-…, the issue's markdown kept)",
    ),
    (
        "cuda.no-gpus",
        "F1201 09:50:34.636102   721 common.cpp:152] Check failed: error == cudaSuccess (100 vs. 0)  no CUDA-capable device is detected",
        "Caffe's CUDA_CHECK under CUDA >= 10.1 (cudaErrorNoDevice renumbered to 100)",
    ),
    (
        "cuda.no-gpus",
        "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : CUDA failure 100: no CUDA-capable device is detected ; GPU=0 ; hostname=runner-1 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_call.cc ; line=123 ; expr=cudaSetDevice(info_.device_id);",
        "microsoft/onnxruntime onnxruntime/core/providers/cuda/cuda_call.cc (CudaCall's 'CUDA failure %d: %s ; GPU=%d ; hostname=… ; file=… ; line=… ; expr=…')",
    ),
    (
        "cuda.driver-mismatch",
        "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version ; GPU=0 ; hostname=runner-1 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=245 ; expr=cudaSetDevice(info_.device_id);",
        "onnxruntime cuda_call.cc CudaCall with cudaErrorInsufficientDriver",
    ),
    (
        "fatal-line.no-gpu",
        'time=2024-09-17T15:04:08.215Z level=INFO source=gpu.go:560 msg="no nvidia devices detected" library=/usr/lib/x86_64-linux-gnu/libcuda.so.550.107.02',
        "ollama/ollama gpu/gpu.go 0.3.x (holdout-r10/no-gpu/s-ollama-docker-debian-…)",
    ),
    (
        "fatal-line.cuda-setup",
        'time=2025-01-10T10:00:00.000Z level=WARN source=gpu.go:617 msg="version mismatch between driver and cuda driver library - reboot or upgrade may be required: library /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"',
        "ollama/ollama gpu/gpu.go (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH's slog.Warn)",
    ),
    (
        "fatal-line.cuda-setup",
        'time=2025-01-10T10:00:00.000Z level=WARN source=gpu.go:669 msg="unknown error initializing cuda driver library /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15: cuda driver library init failure: 999. see https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"',
        "ollama/ollama gpu/gpu.go (CUDA_ERROR_UNKNOWN's slog.Warn)",
    ),
    (
        "cuda.no-kernel-image",
        "onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Conv node. Name:'Conv_0' Status Message: CUDA error cudaErrorNoKernelImageForDevice:no kernel image is available for execution on the device",
        "onnxruntime cuda_call.cc (CUDA_CALL_THROW's 'CUDA error <enum>:<string>') through a kernel's Status",
    ),
    # gpu-oom: the ggml backends' and ONNX Runtime's device allocators, torch's other devices
    (
        "cuda.out-of-memory",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory",
        "ggml-org/llama.cpp ggml-cuda.cu ('%s: allocating %.2f MiB on device %d: cudaMalloc failed: %s')",
    ),
    (
        "cuda.framework-oom",
        "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
        'ggml-org/llama.cpp ggml/src/ggml-vulkan/ggml-vulkan.cpp (std::cerr << "ggml_vulkan: " << e.what())',
    ),
    (
        "cuda.out-of-memory",
        "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : CUDA failure 2: out of memory ; GPU=0 ; hostname=runner-1 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_allocator.cc ; line=47 ; expr=cudaMalloc((void**)&p, size);",
        "onnxruntime cuda_allocator.cc CUDAAllocator::Alloc through CudaCall",
    ),
    (
        "torch.cuda-oom",
        "RuntimeError: MPS backend out of memory (MPS allocated: 17.17 GB, other allocations: 1.53 GB, max allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause system failure).",
        "pytorch aten/src/ATen/mps/MPSAllocator.mm (MPSHeapAllocatorImpl::malloc)",
    ),
    (
        "torch.cuda-oom",
        "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 15.11 GiB",
        'pytorch c10/xpu/XPUCachingAllocator.cpp (TORCH_CHECK_WITH(OutOfMemoryError, …, "XPU out of memory. Tried to allocate …"))',
    ),
    (
        "torch.cuda-oom",
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 63.98 GiB of which 1.20 GiB is free.",
        "pytorch c10/cuda/CUDACachingAllocator.cpp hipified (ROCm builds)",
    ),
    (
        "cuda.framework-oom",
        "RuntimeError: Could not allocate tensor with 4915840 bytes. There is not enough GPU video memory available!",
        "torch-directml's allocator (Windows / WSL through DirectML)",
    ),
    # cuda-illegal-access: Apple's GPU page fault
    (
        "cuda.illegal-memory-access",
        "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Caused GPU Address Fault Error (0000000b:kIOGPUCommandBufferCallbackErrorPageFault)",
        "ml-explore/mlx mlx/backend/metal/device.cpp with IOGPU's page-fault error",
    ),
    # host-oom: ggml's host buffers
    (
        "machine.host-alloc-failed",
        "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 437944320",
        "ggml-org/llama.cpp ggml/src/ggml-backend.cpp (holdout-r10/host-oom/s-ollama-runner-cpu-buffer-…)",
    ),
    (
        "machine.host-alloc-failed",
        "alloc_tensor_range: failed to allocate CUDA_Host buffer of size 5831117920",
        "ggml-org/llama.cpp ggml/src/ggml-alloc.c (pinned host memory, after the CPU buffer it falls back to)",
    ),
    (
        "machine.host-alloc-failed",
        "llama_model_load: error loading model: unable to allocate CPU_REPACK buffer",
        "ggml-org/llama.cpp src/llama-model.cpp load_tensors ('unable to allocate %s buffer')",
    ),
    (
        "machine.host-alloc-failed",
        "ggml_aligned_malloc: insufficient memory (attempted to allocate 24576.00 MB)",
        "ggml-org/llama.cpp ggml/src/ggml.c ggml_aligned_malloc",
    ),
    # serving-engine-internal: vLLM's executor
    (
        "vllm.worker-rpc-timeout",
        "ERROR 09-06 04:14:11 [core.py:640] TimeoutError: RPC call to execute_model timed out.",
        "vllm-project/vllm vllm/v1/executor/multiproc_executor.py collective_rpc (holdout-r10/serving-engine-internal/s-llm-scaler-…)",
    ),
    (
        "vllm.worker-rpc-timeout",
        "(EngineCore_DP0 pid=812) TimeoutError: RPC call to sample_tokens timed out waiting for the RPC lock.",
        "vllm/v1/executor/multiproc_executor.py (2026: the RPC lock's wait)",
    ),
    # python-environment: the loaders, relayed
    (
        "python.shared-library-missing",
        "2024-01-01 10:00:00.000000000 [E:onnxruntime:Default, provider_bridge_ort.cc:1480 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1193 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.8: cannot open shared object file: No such file or directory",
        "onnxruntime core/session/provider_bridge_ort.cc ProviderLibrary::Get with the posix loader's dlerror()",
    ),
    (
        "python.shared-library-missing",
        'Error loading "onnxruntime_providers_cuda.dll" which depends on "cublasLt64_12.dll" which is missing. (Error 126: "The specified module could not be found.")',
        "onnxruntime core/platform/windows/env.cc DetermineLoadLibraryError",
    ),
    (
        "python.shared-library-missing",
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory",
        "cuDNN 8's sub-library loader (libcudnn.so.8)",
    ),
    (
        "python.shared-library-missing",
        "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
        "cuDNN 8 on Windows (cudnn64_8.dll's loader)",
    ),
    (
        "python.shared-library-missing",
        'OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "C:\\Users\\x\\venv\\lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.',
        "pytorch torch/__init__.py _load_dll_libraries (Windows)",
    ),
    (
        "python.undefined-symbol",
        "ImportError: DLL load failed while importing _C: The specified procedure could not be found.",
        "CPython Python/dynload_win.c (ERROR_PROC_NOT_FOUND)",
    ),
    (
        "python.undefined-symbol",
        "OSError: /home/gpu/anaconda3/envs/FXM/lib/python3.7/lib-dynload/../../libcublas.so.11: symbol free_gemm_select version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference",
        "glibc elf/dl-lookup.c through ctypes (holdout-r10/python-environment/t-onnxruntime-gpu-import-cublas-symbol)",
    ),
    (
        "python.bitsandbytes-binary-not-found",
        [
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda121.so. Maybe you need to compile it from source?",
            "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...",
            "",
            "================================================ERROR=====================================",
            "CUDA SETUP: CUDA detection failed! Possible reasons:",
        ],
        "bitsandbytes 0.39.1 bitsandbytes/cuda_setup/main.py run_cuda_setup (its add_log_entry lines, banner included)",
    ),
    (
        "python.cpp-extension-toolchain",
        [
            "      The detected CUDA version (11.8) mismatches the version that was used to compile",
            "      PyTorch (12.1). Please make sure to use the same CUDA versions.",
        ],
        "pytorch torch/utils/cpp_extension.py _check_cuda_version (CUDA_MISMATCH_MESSAGE's two lines under pip's build output)",
    ),
    (
        "python.cpp-extension-toolchain",
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        "pytorch torch/utils/cpp_extension.py _join_cuda_home",
    ),
    (
        "python.cpp-extension-toolchain",
        "RuntimeError: Ninja is required to load C++ extensions",
        "pytorch torch/utils/cpp_extension.py verify_ninja_availability (torch 1.x wording)",
    ),
    # model-config: transformers, llama.cpp's vocabulary, Ollama's registry
    (
        "model.model-type-keyerror",
        [
            "KeyError: 'qwen2'",
            '    config_class = CONFIG_MAPPING[config_dict["model_type"]]',
        ],
        "huggingface/transformers models/auto/configuration_auto.py before 4.31 (the KeyError, the frame's source line in the log)",
    ),
    (
        "model.trust-remote-code",
        "ValueError: Loading models/falcon-7b-instruct-GPTQ requires you to execute the ",
        "transformers dynamic_module_utils.py resolve_trust_remote_code, wrapped at 80 columns (holdout-r10/model-config/u-tgwebui-…)",
    ),
    (
        "model.gguf-load-unsupported",
        "/llama.cpp/src/llama-vocab.cpp:2089: GGML_ASSERT(id_to_token.size() == token_to_id.size()) failed",
        "ggml-org/llama.cpp src/llama-vocab.cpp llama_vocab::impl::load through ggml_abort",
    ),
    (
        "model.gguf-load-unsupported",
        "C:\\a\\ollama\\ollama\\llm\\llama.cpp\\src\\llama.cpp:5511: GGML_ASSERT(vocab.id_to_token.size() == vocab.token_to_id.size()) failed",
        "llama.cpp src/llama.cpp llm_load_vocab (2024) vendored by Ollama (holdout-r10/model-config/s-ollama-ggml-assert-…)",
    ),
    (
        "model.unsupported-architecture",
        "Error: pull model manifest: 412: The model you are attempting to pull requires a newer version of Ollama.",
        "the ollama CLI relaying ollama.com's 412",
    ),
    # compile-failed
    (
        "triton.compile-failed",
        "16:26:52-725979 ERROR    Triton: InductorError",
        "vladmandic/sdnext modules/devices.py test_triton (holdout-r10/compile-failed/u-sdnext-…)",
    ),
    (
        "model.unsupported-architecture",
        "ValueError: GGUF model with architecture deepseek2 is not supported yet.",
        "huggingface/transformers src/transformers/modeling_gguf_pytorch_utils.py load_gguf_checkpoint",
    ),
    (
        "model.unsupported-architecture",
        "ValueError: Unknown quantization type, got fp8 - supported types are: ['awq', 'bitsandbytes_4bit', 'bitsandbytes_8bit', 'gptq']",
        "huggingface/transformers src/transformers/quantizers/auto.py",
    ),
    # segfault, python-environment on Windows
    (
        "machine.segfault",
        "Windows fatal exception: access violation",
        "CPython Modules/faulthandler.c faulthandler_exc_handler (STATUS_ACCESS_VIOLATION)",
    ),
    (
        "python.undefined-symbol",
        'OSError: [WinError 127] The specified procedure could not be found. Error loading "C:\\Python311\\Lib\\site-packages\\torch\\lib\\shm.dll" or one of its dependencies.',
        "pytorch torch/__init__.py _load_dll_libraries (ERROR_PROC_NOT_FOUND)",
    ),
    (
        "python.torchvision-ops-missing",
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please reinstall the torchvision that matches your PyTorch install.",
        "pytorch/vision torchvision/extension.py _check_cuda_version",
    ),
    # nccl-error: XLA's wrapper
    (
        "nccl.cuda-error",
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:297: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) ''.",
        "openxla/xla XLA_NCCL_STATUS ('NCCL operation %s failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'.')",
    ),
    (
        "nccl.system-error",
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) ''.",
        "openxla/xla XLA_NCCL_STATUS with ncclSystemError",
    ),
    # max-model-len, port-in-use: the neighbours' wordings
    (
        "vllm.max-model-len-too-large",
        "ValueError: User-specified context_length (65536) is greater than the derived context_length (32768). This may lead to incorrect model outputs or CUDA errors.",
        "sgl-project/sglang python/sglang/srt/configs/model_config.py (the ValueError without the override's hint)",
    ),
    (
        "network.address-in-use",
        "ERROR:    [Errno 10048] error while attempting to bind on address ('0.0.0.0', 8000): only one usage of each socket address (protocol/network address/port) is normally permitted",
        "encode/uvicorn uvicorn/server.py startup on Windows",
    ),
    (
        "network.address-in-use",
        "main: couldn't bind HTTP server socket, hostname: 0.0.0.0, port: 8080",
        "ggml-org/llama.cpp tools/server/server.cpp",
    ),
    (
        "network.address-in-use",
        "Error: listen tcp 127.0.0.1:11434: bind: address already in use",
        "ollama serve (Go net.OpError)",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "llamacpp.backend-init-failed",
        [
            "ggml_cuda_init: found 1 CUDA devices:",
            "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes",
        ],
        id="ggml-cuda-init-healthy",
    ),
    pytest.param(
        "machine.host-alloc-failed",
        ["alloc_tensor_range: failed to allocate CUDA0 buffer of size 8589934592"],
        id="ggml-gpu-buffer-is-not-host-memory",
    ),
    pytest.param(
        "machine.host-alloc-failed",
        [
            "ggml_cuda_host_malloc: failed to allocate 1024.00 MiB of pinned memory: out of memory",
            "llm_load_tensors:        CPU buffer size =  4096.00 MiB",
        ],
        id="ggml-pinned-memory-warning-then-fallback",
    ),
    pytest.param(
        "vllm.worker-rpc-timeout",
        ['    raise TimeoutError(f"RPC call to {method} timed out.") from e'],
        id="vllm-rpc-timeout-source-line",
    ),
    pytest.param(
        "python.shared-library-missing",
        [
            "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory"
        ],
        id="tensorflow-import-time-dlerror-warning",
    ),
    pytest.param(
        "python.bitsandbytes-binary-not-found",
        [
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.so. Maybe you need to compile it from source?",
            "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...",
        ],
        id="bitsandbytes-cpu-fallback-without-gpu",
    ),
    pytest.param(
        "model.model-type-keyerror",
        ["    value = results['accuracy']", "KeyError: 'accuracy'"],
        id="test-own-keyerror",
    ),
    pytest.param(
        "model.gguf-load-unsupported",
        ["//ml/backend/ggml/ggml/src/ggml-cpu/ggml-cpu.c:8456: GGML_ASSERT(i01 >= 0 && i01 < ne01) failed"],
        id="ggml-own-assertion",
    ),
    pytest.param(
        "triton.compile-failed",
        ["    from torch._inductor.exc import InductorError"],
        id="inductor-error-import-line",
    ),
    pytest.param(
        "cuda.no-gpus",
        [
            "F0527 08:43:32.401912 27274 common.cpp:151] Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable"
        ],
        id="caffe-devices-busy-is-not-no-device",
    ),
    pytest.param(
        "vllm.max-model-len-too-large",
        [
            "[2025-03-01 10:00:00] WARNING model_config.py:242: Warning: User-specified context_length (65536) is greater than the derived context_length (32768). This may lead to incorrect model outputs or CUDA errors."
        ],
        id="sglang-context-length-override-warning",
    ),
    pytest.param(
        "python.cpp-extension-toolchain",
        [
            "UserWarning: The detected CUDA version (12.4) has a minor version mismatch with the version that was used to compile PyTorch (12.1). Most likely this shouldn't be a problem."
        ],
        id="cpp-extension-minor-cuda-mismatch-warning",
    ),
    pytest.param(
        "fatal-line.no-gpu",
        ['time=2024-09-17T15:04:08.212Z level=INFO source=gpu.go:200 msg="looking for compatible GPUs"'],
        id="ollama-discovery-start",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS: list[tuple[str, str, int | None]] = [
    ("holdout-r10/model-config/s-ollama-ggml-assert-vocab-size.log", "model.gguf-load-unsupported", 1),
    (
        "holdout-r10/cuda-setup/s-llamacpp-server-cuda-compose-init-unknown-error.log",
        "llamacpp.backend-init-failed",
        1,
    ),
    ("holdout-r10/host-oom/s-ollama-runner-cpu-buffer-alloc-failed.log", "machine.host-alloc-failed", 4),
    ("holdout-r10/no-gpu/s-ollama-docker-debian-no-nvidia-devices-detected.log", "fatal-line.no-gpu", 13),
    (
        "holdout-r10/serving-engine-internal/s-llm-scaler-vllm-xpu-execute-model-rpc-timeout.log",
        "vllm.worker-rpc-timeout",
        6,
    ),
    (
        "holdout-r10/python-environment/t-ort-rust-cuda-provider-libcublaslt12.log",
        "python.shared-library-missing",
        2,
    ),
    (
        "holdout-r10/python-environment/t-onnxruntime-gpu-import-cublas-symbol.log",
        "python.undefined-symbol",
        12,
    ),
    (
        "holdout-r10/python-environment/t-bitsandbytes-039-egg-missing-cuda118-lib.log",
        "python.bitsandbytes-binary-not-found",
        8,
    ),
    ("holdout-r10/gpu-oom/t-meta-sr-windows-thcudacheck-oom.log", "cuda.out-of-memory", 17),
    ("holdout-r10/model-config/t-hunyuan-7b-colab-unknown-model-type.log", "model.model-type-keyerror", 9),
    (
        "holdout-r10/cuda-device-assert/t-semseg-spatial-nll-label-out-of-range.log",
        "cuda.device-side-assert",
        9,
    ),
    ("holdout-r10/no-gpu/t-caffe-runtest-aws-g2-no-cuda-device.log", "cuda.no-gpus", 1),
    (
        "holdout-r10/model-config/u-tgwebui-colab-falcon-gptq-trust-remote-code.log",
        "model.trust-remote-code",
        3,
    ),
    ("holdout-r10/compile-failed/u-sdnext-startup-triton-test-inductorerror.log", "triton.compile-failed", 1),
    # the ValueError after the KeyError answers where the log holds it (the labelling convention)
    (
        "holdout-r6/model-config/j-llava-med-colab-llava-mistral-unknown.log",
        "model.unsupported-architecture",
        13,
    ),
    (
        "holdout-r6/model-config/j-internmanip-gr00t-unknown-model-type.log",
        "model.unsupported-architecture",
        20,
    ),
    # the Vulkan allocator's exception line stays the answer, not the size line above it
    ("holdout-r4/gpu-oom/e-llamacpp-vulkan-multi-gpu-out-of-device-memory.log", "cuda.framework-oom", 19),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
