"""The seventh round's catalogue for the serving engines and the GPU runtime: each rule reads every rendering quoted here.

Each rendering is a line of a real log (tests/corpus/train/holdout-r3, cited in SOURCES-holdout-r3a.md / -r3b.md) or
the format the rule's comment cites from the emitting component's source (file and version named beside it), rendered
with plausible values. The near misses are lines that look alike but must not name that cause. The real logs check
the rule and line that win. See docs/accuracy.md, "Seventh round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # gpu-oom: PyTorch's cudaMallocAsync backend (c10/cuda/CUDAMallocAsyncAllocator.cpp), three torch generations
    (
        "torch.cuda-oom",
        "torch.OutOfMemoryError: Allocation on device ",
        "train holdout-r3/gpu-oom/c-comfyui-allocation-on-device-root-logger.log (torch 2.4, device 0's NUL byte)",
    ),
    (
        "torch.cuda-oom",
        "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)",
        "CUDAMallocAsyncAllocator.cpp mallocAsync, torch >= 2.5 (device cast to int)",
    ),
    (
        "torch.cuda-oom",
        "torch.cuda.OutOfMemoryError: allocation on device 1 would exceed allowed memory",
        "CUDAMallocAsyncAllocator.cpp, torch 2.0",
    ),
    (
        "torch.cuda-oom",
        "RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try"
        " lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
        "vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run (2025-2026)",
    ),
    (
        "torch.cuda-oom",
        "RuntimeError: CUDA out of memory occurred when warming up pooler (task='embed') with 64 dummy requests."
        " Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
        "vllm/v1/worker/gpu_model_runner.py _dummy_pooler_run",
    ),
    # gpu-oom: LMDeploy TurboMind (FasterTransformer's check kept, then the 2026 logger)
    (
        "cuda.out-of-memory",
        "[TM][ERROR] CUDA runtime error: out of memory /opt/lmdeploy/src/turbomind/cor",
        "train holdout-r3/gpu-oom/c-lmdeploy-jetson-orin-turbomind-awq-cuda-oom.log",
    ),
    (
        "cuda.out-of-memory",
        "  what():  [TM][ERROR] CUDA driver error: /lmdeploy/src/turbomind/kernels/gemm/cuda_utils.cc:42 'out of memory'",
        "lmdeploy src/turbomind/utils/cuda_utils.h CUDRVCHECK (2024-2026)",
    ),
    (
        "cuda.out-of-memory",
        "[TM][FATAL][0520.10:01:12.345678][allocator.cc:88] CUDA error: out of memory",
        "lmdeploy src/turbomind/utils/cuda_utils.cc + core/logger.cc (2026, #4565)",
    ),
    # gpu-oom: CuPy's pool (with and without the class) and XLA's two allocators
    (
        "cuda.framework-oom",
        "Exception in main training loop: Out of memory allocating 25,600,000 bytes (allocated so far:"
        " 3,635,267,072 bytes).",
        "train holdout-r3/gpu-oom/d-chainer-matting-trainer-cupy-oom.log (Chainer over CuPy)",
    ),
    (
        "cuda.framework-oom",
        "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes (allocated so far:"
        " 2,147,483,648 bytes, limit set to: 3,000,000,000 bytes).",
        "cupy/cuda/memory.pyx OutOfMemoryError with a pool limit",
    ),
    (
        "cuda.framework-oom",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB"
        " (3206250496B) on device ordinal 0",
        "train holdout-r3/gpu-oom/d-graphcast-failed-to-allocate-request.log (xla stream_executor_memory_allocator.cc)",
    ),
    (
        "cuda.framework-oom",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Resource exhausted: Out of memory while"
        " trying to allocate 8589934592 bytes.",
        "tensorflow/compiler/xla BFC allocator, TF 1.x status text",
    ),
    (
        "cuda.framework-oom",
        "Out of memory error on GPU 0. Cannot allocate 1.000000GB memory on GPU 0, 7.084717GB memory has been"
        " allocated and available memory is only 716.750000MB.",
        "PaddlePaddle paddle/fluid/memory/allocation/cuda_allocator.cc (>= 2.0)",
    ),
    (
        "cuda.framework-oom",
        "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of"
        " 32.00G hbm. Exceeded hbm capacity by 17.34G.",
        "openxla/xla's TPU compile-time HBM check, as XLA's own error-code page quotes it",
    ),
    (
        "cuda.out-of-memory",
        "Status Message: CUDA failure 2: out of memory ; GPU=0 ; hostname=runner-7 ; file=/onnxruntime_src/"
        "onnxruntime/core/providers/cuda/cuda_allocator.cc ; line=48 ; expr=cudaMalloc((void**)&p, size);",
        "microsoft/onnxruntime core/providers/cuda/cuda_call.cc (CudaCall)",
    ),
    # the same checks on AMD GPUs: PyTorch's ROCm build and ggml's backend name
    (
        "cuda.out-of-memory",
        "ROCm error: out of memory",
        'llama.cpp ggml/src/ggml-cuda/common.cuh (GGML_CUDA_NAME "ROCm")',
    ),
    (
        "cuda.error",
        "RuntimeError: HIP error: unspecified launch failure",
        "PyTorch ROCm build, hipified c10/cuda/CUDAException.cpp",
    ),
    # cuda-device-assert: kernels that are not .cu files (Triton, Inductor's generated bounds checks)
    (
        "cuda.device-side-assert",
        "/root/.cache/vllm/torch_compile_cache/torch_aot_compile/ab12/inductor_cache/xy/cxyz.py:53: unknown: block:"
        " [129,0,0], thread: [224,0,0] Assertion `index out of bounds: 0 <= tmp16 < 40960` failed.",
        "torch/_inductor/codegen/triton.py bounds check through CUDA's __assertfail (vLLM worker)",
    ),
    (
        "cuda.device-side-assert",
        "unknown:0: unknown: block: [0,0,0], thread: [32,0,0] Assertion `index out of bounds: 0 <= tmp42 < 1024`"
        " failed.",
        "Inductor kernel without a source position",
    ),
    (
        "cuda.device-side-assert",
        "Assertion `index out of bounds: 0 <= tmp0 < 128` failed",
        "the SYCL (Intel GPU) rendering, the assertion on its own line",
    ),
    # cuda-illegal-access: NVIDIA's memory checkers and ROCm's enum
    (
        "cuda.illegal-memory-access",
        "========= Invalid __global__ write of size 4 bytes",
        "compute-sanitizer --tool memcheck (CUDA >= 11)",
    ),
    (
        "cuda.illegal-memory-access",
        "========= Invalid __shared__ read of size 8",
        "cuda-memcheck (CUDA < 11)",
    ),
    (
        "cuda.illegal-memory-access",
        "RuntimeError: HIP error hipErrorIllegalAddress",
        "ROCm's hipError_t name",
    ),
    # serving-gpu-memory: LMDeploy's PyTorch engine, SGLang's TP memory-balance check
    (
        "vllm.no-memory-for-cache-blocks",
        "RuntimeError: No enough gpu memory for kv cache.",
        "lmdeploy/pytorch/engine/executor/base.py (2024-2026)",
    ),
    (
        "vllm.no-memory-for-cache-blocks",
        "RuntimeError: No enough gpu memory for runtime.",
        "lmdeploy/pytorch/engine/executor/base.py",
    ),
    (
        "sglang.not-enough-memory",
        "RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes."
        " min_per_gpu_memory=16.28, local_gpu_memory=46.81, local_gpu_memory * 0.9=42.129",
        "sglang/srt/model_executor/model_runner.py init_torch_distributed (2025)",
    ),
    (
        "sglang.not-enough-memory",
        "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes.",
        "sglang/srt/model_executor/model_runner.py (2024)",
    ),
    # triton-out-of-resources: Inductor's static launcher (torch >= 2.7) next to Triton's own wording
    (
        "triton.out-of-resources",
        "[rank0]:Exception No valid triton configs. OutOfMemoryError: out of resource: triton_flex_attention"
        " Required: 262144 Hardware limit:232448 Reducing block sizes or `num_stages` may help.",
        "train holdout-r3/triton-out-of-resources/d-torchtitan-flex-attention-autotune-no-valid-configs.log",
    ),
    (
        "triton.out-of-resources",
        "torch.OutOfMemoryError: out of resource: triton_tem_fused_mm_0 Required: 131072 Hardware limit:101376"
        " Reducing block sizes or `num_stages` may help.",
        "torch/csrc/inductor/static_cuda_launcher.cpp",
    ),
    # compile-failed: Triton's launcher build (MSVC, gcc) and TVM / MLC-LLM compile passes
    (
        "triton.c-build-failed",
        r"C:\Users\solom\AppData\Local\Temp\tmpjq12u9wr\__triton_launcher.c(123): error C2059: syntax error: '}'",
        "train holdout-r3/compile-failed/d-triton-windows-launcher-msvc-c2059.log (triton-windows, MSVC)",
    ),
    (
        "triton.c-build-failed",
        "/tmp/tmpa8d0qk1v/cuda_utils.c:1:10: fatal error: cuda.h: No such file or directory",
        "triton python/triton/runtime/build.py, gcc's diagnostic",
    ),
    (
        "triton.c-build-failed",
        r"Failed to compile. cc_cmd: ['C:\\Program Files\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\Tools"
        r"\\MSVC\\14.40.33807\\bin\\Hostx64\\x64\\cl.exe', 'C:\\Users\\u\\AppData\\Local\\Temp\\tmp1\\main.c', '/nologo']",
        "woct0rdho/triton-windows python/triton/runtime/build.py (_build)",
    ),
    (
        "triton.c-build-failed",
        r"subprocess.CalledProcessError: Command '['C:\\Program Files\\LLVM\\bin\\clang-cl.exe',"
        r" 'C:\\Users\\u\\AppData\\Local\\Temp\\tmpab12cd34\\cuda_utils.c', '/O2']' returned non-zero exit status 2.",
        "triton-windows build.py re-raising check_call's error (clang-cl)",
    ),
    (
        "triton.c-build-failed",
        "RuntimeError: Error building extension 'fused_adam'",
        "torch/utils/cpp_extension.py _run_ninja_build (DeepSpeed's JIT op build, microsoft/DeepSpeed#4889)",
    ),
    (
        "triton.compile-failed",
        "torch._dynamo.exc.InternalTorchDynamoError: AttributeError: 'NoneType' object has no attribute 'is_tensor'",
        "torch/_dynamo/convert_frame.py (torch >= 2.1)",
    ),
    # server-not-ready: llama.cpp's server tests, JS helpers, OpenLiberty's FAT, Triton's L0 scripts
    (
        "harness.server-not-ready",
        'FAILED unit/test_chat_completion.py::test_completion_with_json_schema[False-json_schema0-6-"42"] -'
        " TimeoutError: Server did not start within 12 seconds",
        "train holdout-r3/server-not-ready/c-llama-cpp-ci-server-tests-did-not-start-12s.log",
    ),
    (
        "harness.server-not-ready",
        "Error: Server did not start within 30000ms",
        "JS harnesses' reject(new Error(`Server did not start within ${timeout}ms`))",
    ),
    (
        "harness.server-not-ready",
        "java.util.concurrent.TimeoutException: Timed out waiting for server and app to be ready. Timeout set to"
        " 180000ms.",
        "train holdout-r3/server-not-ready/d-open-liberty-fat-readiness-endpoint-timeout.log",
    ),
    (
        "harness.server-not-ready",
        "*** Failed to start /opt/tritonserver/bin/tritonserver",
        "triton-inference-server/server qa/L0_*/test.sh after run_server",
    ),
    (
        "harness.server-not-ready",
        "RuntimeError: Timeout to start the InferenceService isvc-paddle.                                The"
        " InferenceService is as following: {'apiVersion': 'serving.kserve.io/v1beta1'}",
        "kserve python/kserve/kserve/api/kserve_client.py wait_isvc_ready",
    ),
    (
        "harness.server-not-ready",
        'error: deployment "vllm-server" exceeded its progress deadline',
        "kubectl pkg/polymorphichelpers/rollout_status.go",
    ),
    (
        "harness.server-not-ready",
        "E   TimeoutError: Container did not emit logs satisfying predicate in 120.000 seconds",
        "testcontainers-python core/testcontainers/core/waiting_utils.py wait_for_logs (4.x)",
    ),
    (
        "harness.server-not-ready",
        "TimeoutError: Wait time (120s) exceeded for _connect(args: (), kwargs: {}). Exception: timed out",
        "testcontainers-python waiting_utils.py wait_container_is_ready",
    ),
    # serving-engine-internal: Triton's TensorRT-LLM backend
    (
        "trtllm.model-instance-failed",
        "E0213 09:12:45.123456 1 model_lifecycle.cc:638] failed to load 'tensorrt_llm' version 1: Internal:"
        " unexpected error when creating modelInstanceState: Invalid gpt_model_type. Must be"
        " v1/inflight_batching/inflight_fused_batching.",
        "tensorrtllm_backend inflight_batcher_llm/src/model_instance_state.cc (2023-2024)",
    ),
    # rust-panic: hooks that log the panic themselves
    (
        "rust.panic",
        '2025-03-01T10:00:00.000000Z ERROR tracing_panic: A panic occurred panic.payload="called `Option::unwrap()`'
        ' on a `None` value" panic.location="lib/runtime/src/component.rs:214:38" panic.backtrace=disabled backtrace',
        "LukeMathWalker/tracing-panic src/lib.rs through tracing-subscriber's formatter",
    ),
    (
        "rust.panic",
        "[2025-07-26T09:30:09Z ERROR candle_vllm] panicked at src/main.rs:406:19:",
        "core/src/panic/panic_info.rs Display (Rust >= 1.73) logged by a custom hook",
    ),
    # model-config: llama.cpp's GGUF loader and the engines' Transformers-backend fallback
    (
        "model.unsupported-architecture",
        "llama_model_load: error loading model: error loading model architecture: unknown model architecture:"
        " 'qwen35'",
        "llama.cpp src/llama-model.cpp load_arch",
    ),
    (
        "model.unsupported-architecture",
        "ValueError: Cannot find model module. 'UrsaForConditionalGeneration' is not a registered model in the"
        " Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' is not"
        " present in the model config's 'auto_map' (relevant if the model is custom).",
        "sglang/srt/model_loader/utils.py resolve_transformers_arch; vllm models/registry.py",
    ),
    (
        "vllm.engine-config-unsupported",
        "ValueError: There is no module or parameter named 'visual' in Qwen3_5Model",
        "vllm/model_executor/models/utils.py AutoWeightsLoader._load_module",
    ),
    # model-config: serde's missing field (Rust engines) and transformers' config attribute
    (
        "model.config-field-missing",
        'APIError { data: "missing field `vocab_size` at line 46 column 1" }',
        "train holdout-r3/model-config/c-candle-vllm-compose-mistral-missing-vocab-size-panic.log",
    ),
    (
        "model.config-field-missing",
        "Error: missing field `rope_theta` at line 25 column 1",
        "serde Error::missing_field + serde_json Display",
    ),
    (
        "model.config-field-missing",
        "AttributeError: 'Mistral3Config' object has no attribute 'vocab_size'",
        "CPython's AttributeError on transformers' PretrainedConfig",
    ),
]

NEAR_MISSES = [
    # the sixteenth round reads ComfyUI's "!!! Exception during processing !!! Allocation on device" as the OOM itself
    # (train's holdout-r12 y-comfyui-animatediff-allocation-on-device labels it so); only the unloading line stays a
    # near miss
    pytest.param(
        "torch.cuda-oom",
        ["2024-09-15 22:48:26,085 - root - ERROR - Got an OOM, unloading all loaded models."],
        id="comfyui-wrapper-lines",
    ),
    pytest.param(
        "cuda.out-of-memory",
        [
            "[TM][WARN][0520.10:01:12.345678][engine.cc:605] dp0 ID 12: cache out of memory, no request can be"
            " admitted; failing head-of-line request",
            "[TM][INFO][0520.10:01:12.345901][scheduler.cc:1186] out of memory at 3/8",
        ],
        id="turbomind-scheduler-notes",
    ),
    pytest.param(
        "cuda.framework-oom",
        [
            "I0000 00:00:1700000000.000000  1234 stream_executor_memory_allocator.cc:60] Allocated 2.99GiB"
            " (3206250496B) on device ordinal 0: 0x7f0000000000"
        ],
        id="xla-allocation-succeeded",
    ),
    pytest.param(
        "sglang.not-enough-memory",
        [
            "[2025-06-01 10:00:00 TP1] The memory capacity is unbalanced. Some GPUs may be occupied by other"
            " processes. min_per_gpu_memory=70.1, local_gpu_memory=79.2, local_gpu_memory * 0.9=71.28"
        ],
        id="sglang-balance-warning",
    ),
    pytest.param(
        "vllm.no-memory-for-cache-blocks",
        [
            "2025-03-01 10:00:00,000 - lmdeploy - WARNING - base.py:402 - No enough memory. Update max_prefill_token_num=2048"
        ],
        id="lmdeploy-prefill-shrunk",
    ),
    pytest.param(
        "triton.c-build-failed",
        [
            "src/main.c:12:5: error: implicit declaration of function 'foo'",
            r"C:\Users\u\AppData\Local\Temp\tmpjq12u9wr\__triton_launcher.c(40): warning C4819: The file contains a"
            " character that cannot be represented in the current code page (936)",
        ],
        id="other-main-c-and-msvc-warning",
    ),
    pytest.param(
        "tvm.compile-failed",
        [
            '  File "/opt/venv/lib/python3.11/site-packages/mlc_llm/serve/engine.py", line 912, in _generate',
            "tvm.error.InternalError: Check failed: (token_ids.size() > 0) is false: input is empty",
        ],
        id="tvm-runtime-check",
    ),
    pytest.param(
        "cuda.device-side-assert",
        [
            "llama-server: ../src/llama-sampling.cpp:411: void llama_sampler_dist_apply(llama_token_data_array*):"
            " Assertion `found' failed."
        ],
        id="glibc-host-assert",
    ),
    pytest.param(
        "cuda.error",
        ["RuntimeError: HIP error: invalid device function"],
        id="hip-no-kernel-for-this-gpu-is-setup",
    ),
    pytest.param(
        "cuda.illegal-memory-access",
        [
            "========= ERROR SUMMARY: 0 errors",
            "========= Uninitialized __global__ memory read of size 4 bytes",
        ],
        id="sanitizer-clean-and-initcheck",
    ),
    pytest.param(
        "triton.c-build-failed",
        ["            # RuntimeError: Error building extension 'dummy_allocator'"],
        id="skip-list-comment",
    ),
    pytest.param(
        "triton.compile-failed",
        [
            "2024-09-22 19:38:41.140252: W external/xla/xla/service/gpu/buffer_comparator.cc:1054] INTERNAL: ptxas"
            " exited with non-zero error code 65280, output: ptxas /tmp/tempfile-ravg1170-528e6f61-1909-622b8be3ab01d,"
            " line 10; fatal   : Unsupported .version 7.8; current version is '7.4'",
            "ptxas fatal   : Ptx assembly aborted due to errors",
            "",
            "Relying on driver to perform ptx compilation. ",
        ],
        id="xla-ptxas-warning-recovered",
    ),
    pytest.param(
        "model.unsupported-architecture",
        [
            "[2026-03-18 23:35:07] WARNING utils.py:70: MiniCPMV has no SGLang implementation, falling back to"
            " Transformers implementation. Some features may not be supported and performance may not be optimal."
        ],
        id="sglang-transformers-fallback-warning",
    ),
    pytest.param(
        "rust.panic",
        ["rpc error: code = Internal desc = A panic occurred", '    panic("A panic occurred")'],
        id="go-recovered-panic",
    ),
    pytest.param(
        "harness.server-not-ready",
        ['Waiting for deployment "vllm-server" rollout to finish: 0 of 1 updated replicas are available...'],
        id="rollout-in-progress",
    ),
    pytest.param(
        "harness.server-not-ready",
        [
            '>               raise TimeoutError(f"Server did not start within {timeout_seconds} seconds")',
            "Server started and listening on 127.0.0.1:8080",
        ],
        id="quoted-raise-and-healthy-start",
    ),
    pytest.param(
        "trtllm.model-instance-failed",
        [
            "| tensorrt_llm   | 1       | READY  |",
            '        std::string errStr = std::string("unexpected error when creating modelInstanceState: ") + ex.what();',
        ],
        id="ready-table-and-source-line",
    ),
    pytest.param(
        "model.config-field-missing",
        [
            "Failed to deserialize the JSON body into the target type: missing field `model` at line 1 column 20",
            "AttributeError: 'LlamaForCausalLM' object has no attribute 'vocab_size'",
        ],
        id="request-body-and-model-object",
    ),
]

# (train log, rule that must win, its line; None when any line of that rule will do)
REAL_LOGS = [
    ("holdout-r3/gpu-oom/c-comfyui-allocation-on-device-root-logger.log", "torch.cuda-oom", 2),
    ("holdout-r3/gpu-oom/c-lmdeploy-jetson-orin-turbomind-awq-cuda-oom.log", "cuda.out-of-memory", 8),
    ("holdout-r3/gpu-oom/d-chainer-matting-trainer-cupy-oom.log", "cuda.framework-oom", 2),
    ("holdout-r3/gpu-oom/d-graphcast-failed-to-allocate-request.log", "cuda.framework-oom", 16),
    ("holdout-r3/compile-failed/c-mlc-chat-compile-relax-structinfo-check.log", "tvm.compile-failed", 16),
    # MSVC's first diagnostic, not triton-windows' "Failed to compile. cc_cmd:" print two lines later
    ("holdout-r3/compile-failed/d-triton-windows-launcher-msvc-c2059.log", "triton.c-build-failed", 3),
    # the model's config field, not the Rust panic above it (the panic is the symptom)
    (
        "holdout-r3/model-config/c-candle-vllm-compose-mistral-missing-vocab-size-panic.log",
        "model.config-field-missing",
        6,
    ),
    (
        "holdout-r3/server-not-ready/c-llama-cpp-ci-server-tests-did-not-start-12s.log",
        "harness.server-not-ready",
        1,
    ),
    (
        "holdout-r3/server-not-ready/d-open-liberty-fat-readiness-endpoint-timeout.log",
        "harness.server-not-ready",
        1,
    ),
    # the wrapped status table: the backend's row, not its continuation
    (
        "holdout-r3/serving-engine-internal/c-triton-trtllm-backend-mpisize-assertion-unavailable.log",
        "trtllm.model-instance-failed",
        6,
    ),
    (
        "holdout-r3/triton-out-of-resources/d-torchtitan-flex-attention-autotune-no-valid-configs.log",
        "triton.out-of-resources",
        1,
    ),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_tensorrt_llms_own_reason_outranks_the_backends_wrapper(rule_pack: RuleSet, tmp_path: Path) -> None:
    """When the table does not cut TensorRT-LLM's assertion, the world-size rule names it (55 over the wrapper's 40)."""
    log = write_log(
        tmp_path,
        [
            "| tensorrt_llm | 1 | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState:"
            " [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/"
            "worldConfig.cpp:80) |"
        ],
    )
    assert root_cause_of(log, rule_pack) == ("trtllm.mpi-world-mismatch", 1)


def test_an_out_of_memory_inside_the_backends_wrapper_is_gpu_memory(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """TensorRT-LLM's CUDA OOM relayed by the backend stays gpu-oom (60 over the wrapper's 40)."""
    log = write_log(
        tmp_path,
        [
            "| tensorrt_llm | 1 | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState:"
            " [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory"
            " (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112) |"
        ],
    )
    assert root_cause_of(log, rule_pack) == ("trtllm.cuda-out-of-memory", 1)


def test_a_panic_over_a_request_body_is_still_the_panic(rule_pack: RuleSet, tmp_path: Path) -> None:
    """serde's missing field on a field that is no model-config key leaves the panic as the answer."""
    log = write_log(
        tmp_path,
        [
            "thread 'main' panicked at src/main.rs:406:19:",
            'APIError { data: "missing field `messages` at line 1 column 2" }',
        ],
    )
    assert root_cause_of(log, rule_pack) == ("rust.panic", 1)


def test_fastertransformers_oom_stays_the_tensorrt_llm_rule(rule_pack: RuleSet, tmp_path: Path) -> None:
    """The TurboMind widening leaves FasterTransformer's [FT] line to trtllm.cuda-out-of-memory, as before."""
    log = write_log(
        tmp_path, ["[FT][ERROR] CUDA runtime error: out of memory /workspace/src/allocator.h:181"]
    )
    assert root_cause_of(log, rule_pack) == ("trtllm.cuda-out-of-memory", 1)
