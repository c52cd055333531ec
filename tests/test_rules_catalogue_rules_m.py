"""The eleventh round's catalogue of the GPU runtime, compilers, models and serving engines' own checks (rules-m):
each rule reads every rendering.

Every rendering is quoted from the cited upstream source (its format string rendered, with the prefixes a CI log adds:
mpirun's `[1,13]<stdout>:`, vLLM's `(EngineCore pid=…) ERROR …`, UCX's `[<time>] [<host>:<pid>:<tid>] <file>:<line>`,
TensorRT's `[E]`/`[W]`), a cited public thread or a real train log; the near misses are lines that look alike but must
not name that cause (a host assertion, the allocator's own info line, a sibling message of another family, the source
line that formats a message, a refusal another backend recovered from). The real logs check the rule and line that win.
See docs/accuracy.md, "Eleventh round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # cuda-device-assert: HIP's device __assert_fail (ROCm clr amd_device_functions.h), no block/thread, a closing quote
    (
        "cuda.device-side-assert",
        "/pytorch/aten/src/ATen/native/hip/Indexing.hip:1292: indexSelectLargeIndex: Device-side assertion"
        " `srcIndex < srcSelectDimSize' failed.",
        "mosaicml/composer#2758 (PyTorch's ROCm build; tests/corpus/train/holdout-r7)",
    ),
    # cuda-error / gpu-oom: nccl-tests' CUDACHECK (NVIDIA/nccl-tests src/common.h), under mpirun -tag-output
    (
        "cuda.error",
        "[1,13]<stdout>:192.168.0.138: Test CUDA failure common.cu:732 'invalid device ordinal'",
        "NVIDIA/nccl#348 (tests/corpus/train/holdout-r7)",
    ),
    (
        "cuda.out-of-memory",
        "[1,3]<stdout>:node-a: Test CUDA failure common.cu:892 'out of memory'",
        "nccl-tests src/common.h CUDACHECK with cudaGetErrorString(cudaErrorMemoryAllocation)",
    ),
    # gpu-oom: ONNX Runtime's BFC arena (onnxruntime/core/framework/bfc_arena.cc, AllocateRawInternal)
    (
        "cuda.framework-oom",
        "Failed to allocate memory for requested buffer of size 268435456 |",
        "triton-inference-server/server#5661 (onnxruntime backend; tests/corpus/train/holdout-r7)",
    ),
    (
        "cuda.framework-oom",
        "Non-zero status code returned while running Cast node 'graph_output_cast0' ... BFCArena::AllocateRawInternal"
        " Available memory of 34699008 is smaller than requested bytes of 945041920",
        "bfc_arena.cc's arena-cap (gpu_mem_limit) message as a user quoted it",
    ),
    # gpu-oom: jaxlib's local client (2019) with the status text wrapped after "Out"
    (
        "cuda.framework-oom",
        [
            "[1] 2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672]"
            " Execution of replica 0 failed: Resource exhausted: Out",
            "of memory while trying to allocate 5520758552 bytes.",
        ],
        "jax-ml/jax#788 (tests/corpus/train/holdout-r7)",
    ),
    # gpu-oom: TensorRT's runtime creating an execution context (executionContext.cpp, TensorRT 10)
    (
        "cuda.framework-oom",
        "    [E] [executionContext.cpp::initializeExecutionContext::625] Error Code 2: OutOfMemory (Requested size was"
        " 20132809216 bytes.)",
        "a user's TensorRT 10.13 log loading a VAE engine (Polygraphy levels)",
    ),
    # cuda-illegal-access: ROCR-Runtime's VM fault handler (src/core/runtime/runtime.cpp)
    (
        "cuda.illegal-memory-access",
        "Memory access fault by GPU node-1 (Agent handle: 0x55b017570c40) on address 0x7fcd499e6000. Reason: Page not"
        " present or supervisor privilege.",
        "a ROCm flash-attention benchmark's log as its author quoted it",
    ),
    (
        "cuda.illegal-memory-access",
        "Memory access fault by GPU node-4 (Agent handle: 0x5f1e) on address 0xbb7c342000. Reason: Write access to a"
        " read-only page.",
        "ROCR-Runtime runtime.cpp's other fault reason",
    ),
    # cuda-setup: no code for this architecture, on AMD and from NVRTC at run time
    (
        "cuda.no-kernel-image",
        "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)",
        "torch's NNC fuser / jiterator on sm_121 with NVRTC 12.8, as users quote it",
    ),
    (
        "cuda.no-kernel-image",
        "RuntimeError: HIP error: invalid device function",
        "PyTorch's ROCm build (hipified c10/cuda/CUDAException.cpp) on a gfx target the wheel lacks",
    ),
    (
        "cuda.no-kernel-image",
        "ROCm error: invalid device function",
        'ggml/src/ggml-cuda/common.cuh (GGML_CUDA_NAME "ROCm" error: %s)',
    ),
    # no-gpu: every GPU hidden by the job's own environment
    (
        "cuda.visible-devices-empty",
        [
            '$ CUDA_VISIBLE_DEVICES="" pytest tests/test_issue839_fast_lora_single_projection.py',
            "RuntimeError: Method 'cquantize_blockwise_fp32_nf4' not available in CPU-only version of bitsandbytes",
        ],
        "MakazhanAlpamys/Soup#1128 (tests/corpus/train/holdout-r7); bitsandbytes/cextension.py",
    ),
    # serving-engine-internal: UCX's own ERROR line (src/ucs/debug/log.c format; ib_mlx5_log.c completion errors)
    (
        "dynamo.ucx-error",
        [
            "[1745700389.902821] [labinit01:6274 :0]     ib_mlx5_log.c:179  UCX  ERROR Local protection error on"
            " mlx5_0:1/RoCE (synd 0x4 vend 0x51 hw_synd 0/2)",
            "2025-04-26T20:46:29.907Z ERROR engine.start: nixlBackendError('NIXL_ERR_BACKEND')",
        ],
        "ai-dynamo/dynamo#843 (tests/corpus/train/holdout-r7)",
    ),
    (
        "dynamo.ucx-error",
        [
            "[1744963752.379059] [node1:14252:0]     ib_mlx5_log.c:179  UCX  ERROR Transport retry count exceeded on"
            " mlx5_1:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
            "E0717 07:30:06.719655  994396 nixl_agent.cpp:359] postXferReq: backend 'UCX' status NIXL_ERR_BACKEND",
        ],
        "openucx/ucx src/uct/ib/mlx5/ib_mlx5_log.c (uct_ib_mlx5_completion_with_err) rendered",
    ),
    # python-environment: sgl_kernel's loader (sgl-kernel/python/sgl_kernel/load_utils.py)
    (
        "python.sgl-kernel-load-failed",
        [
            "ImportError: ",
            "[sgl_kernel] CRITICAL: Could not load any common_ops library!",
            "- ImportError: /usr/local/lib/python3.10/dist-packages/sgl_kernel/sm100/common_ops.abi3.so: undefined"
            " symbol: _ZNK3c106SymInt6sym_neERKS0_",
        ],
        "sgl-project/sglang#13948 (tests/corpus/train/holdout-r7)",
    ),
    (
        "python.sgl-kernel-load-failed",
        "ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!",
        "the one-line form build notes and benchmark tables quote",
    ),
    # python-environment: pip's resolver line shortened by whoever pasted it
    (
        "python.version-conflict",
        "ERROR: Cannot install torch==2.10.0+cpu ... conflicting dependencies.",
        "unslothai/unsloth#6660 (tests/corpus/train/holdout-r7)",
    ),
    # model-config: TGI's get_model (server/text_generation_server/models/__init__.py)
    (
        "tgi.model-unsupported-config",
        "NotImplementedError: Sharded Llama requires Flash Attention enabled models.",
        "huggingface/text-generation-inference#686 (FLASH_ATT_ERROR_MESSAGE, 2023-07-)",
    ),
    (
        "tgi.model-unsupported-config",
        "NotImplementedError: Sharded Falcon requires Flash Attention CUDA kernels to be installed.",
        "TGI models/__init__.py FLASH_ATT_ERROR_MESSAGE (2023-04, 299217c9)",
    ),
    (
        "tgi.model-unsupported-config",
        "NotImplementedError: sharded is not supported for AutoModel",
        "TGI models/__init__.py (2023-2025)",
    ),
    (
        "tgi.model-unsupported-config",
        "NotImplementedError: gptq quantization is not supported for AutoModel, you can try to quantize it with"
        " `text-generation-server quantize ORIGINAL_MODEL_ID NEW_MODEL_ID`",
        "TGI models/__init__.py (2023-2024)",
    ),
    (
        "tgi.model-unsupported-config",
        "ValueError: Sharding is currently not supported with `exl2` quantization",
        "TGI models/__init__.py (628d6a13, 2024-05)",
    ),
    # model-config: GPT4All's backend (gpt4all-backend llmodel_c.cpp) as LocalAI and the bindings relay it
    (
        "model.gguf-load-unsupported",
        "9:38PM DBG GRPC(phi-2-layla-v1-chatml-Q8_0.gguf-127.0.0.1:46517): stderr load_model: error 'Model format not"
        " supported (no matching implementation found)'",
        "mudler/LocalAI#2692 (tests/corpus/train/holdout-r7)",
    ),
    (
        "model.gguf-load-unsupported",
        "Unable to instantiate model: Model format not supported (no matching implementation found)",
        'gpt4all-backend llmodel_c.cpp (fprintf "Unable to instantiate model: %s")',
    ),
    # compile-failed: Triton's ptxas step, TVM's tuning database, FlashInfer's JIT
    (
        "triton.compile-failed",
        "(EngineCore_0 pid=9492) subprocess.CalledProcessError: Command"
        " '['/home/jetson/.venv/lib/python3.12/site-packages/triton/backends/nvidia/bin/ptxas', '-lineinfo', '-v',"
        " '--gpu-name=sm_110a', '/tmp/tmp95oy_b9d.ptx', '-o', '/tmp/tmp95oy_b9d.ptx.o']' returned non-zero exit"
        " status 255.",
        "triton-lang/triton#8096 (tests/corpus/train/holdout-r7)",
    ),
    (
        "tvm.compile-failed",
        "xxx/mlc-llm/relax/src/meta_schedule/database/json_database.cc: 202: ValueError: Unable to parse TuningRecord"
        " , on",
        "mlc-ai/mlc-llm#127 (tests/corpus/train/holdout-r7)",
    ),
    (
        "tvm.compile-failed",
        "tvm/src/meta_schedule/database/json_database.cc:212: ValueError: Unable to parse TuningRecord, on line 23"
        " of file log_db/database_tuning_record.json. The workload is:",
        "apache/tvm src/meta_schedule/database/json_database.cc (LOG(FATAL), 0.12-)",
    ),
    (
        "triton.c-build-failed",
        "(EngineCore pid=3164713) ERROR 09-23 10:35:19 [core.py:1374] RuntimeError: Ninja build failed. Ninja output:",
        "a vLLM issue's log (flashinfer/jit/cpp_ext.py run_ninja)",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "cuda.device-side-assert",
        [
            "llama-server: ../src/llama-sampling.cpp:411: void llama_sampler_dist_apply(): Assertion `found' failed."
        ],
        id="glibc-host-assert",
    ),
    pytest.param(
        "cuda.error",
        ["[1,0]<stdout>:host: Test NCCL failure common.cu:958 'unhandled cuda error'"],
        id="nccl-tests-nccl-failure-is-nccl",
    ),
    pytest.param(
        "cuda.framework-oom",
        [
            "2023-04-19 14:01:40.123 [I:onnxruntime:, bfc_arena.cc:317 AllocateRawInternal] Extending BFCArena for Cuda."
            " bin_num:20 (requested) num_bytes: 268435456 (actual) rounded_bytes:268435456",
        ],
        id="ort-arena-extends",
    ),
    pytest.param(
        "cuda.framework-oom",
        [
            'grpc._channel._InactiveRpcError: status = StatusCode.RESOURCE_EXHAUSTED details = "Received message larger'
        ],
        id="grpc-resource-exhausted",
    ),
    pytest.param(
        "dynamo.ucx-error",
        [
            "[1744331142.028115] [ccw-gpu-51:2802608:3]      ucp_worker.c:1903 UCX  INFO    ucp_context_2 inter-node"
            " cfg#3 rma(rc_mlx5/mlx5_ib2:1)  amo(rc_mlx5/mlx5_ib2:1)",
        ],
        id="ucx-info",
    ),
    pytest.param(
        "python.sgl-kernel-load-failed",
        [
            "[sgl_kernel] Attempting to load SM90 (Hopper/H100 with fast math optimization)",
            "ImportError: ",
            "cannot import name 'foo' from partially initialized module 'bar'",
        ],
        id="sgl-kernel-debug-and-another-empty-importerror",
    ),
    pytest.param(
        "cuda.visible-devices-empty",
        ['$ CUDA_VISIBLE_DEVICES="" pytest tests/cpu', "22 passed in 3.10s"],
        id="cpu-only-run-passes",
    ),
    pytest.param(
        "tgi.model-unsupported-config",
        ['    raise NotImplementedError(FLASH_ATT_ERROR_MESSAGE.format("Sharded Llama"))'],
        id="tgi-source-line",
    ),
    pytest.param(
        "model.gguf-load-unsupported",
        [
            "9:38PM DBG GRPC(phi-2.gguf-127.0.0.1:46517): stderr load_model: error 'Model format not supported (no"
            " matching implementation found)'",
            "9:38PM INF [llama-cpp] Loads OK",
        ],
        id="localai-next-backend-loads",
    ),
    pytest.param(
        "triton.compile-failed",
        ["subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1."],
        id="ninja-calledprocesserror",
    ),
    pytest.param(
        "cuda.no-kernel-image",
        ["RuntimeError: CUDA error: invalid device ordinal"],
        id="invalid-device-ordinal-is-cuda-error",
    ),
    pytest.param(
        "python.version-conflict",
        [
            "ERROR: Cannot install -r requirements.txt (line 3) and torch because these packages were not found"
        ],
        id="pip-no-conflict-words",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS: list[tuple[str, str, int | None]] = [
    (
        "holdout-r7/cuda-device-assert/l-composer-rocm-llama2-hip-indexselect.log",
        "cuda.device-side-assert",
        1,
    ),
    ("holdout-r7/cuda-error/l-nccl-tests-mpirun-invalid-device-ordinal.log", "cuda.error", 5),
    ("holdout-r7/gpu-oom/k-triton-onnx-gptj-bfcarena-alloc-failed.log", "cuda.framework-oom", 2),
    ("holdout-r7/gpu-oom/l-jax-replica-failed-resource-exhausted-2019.log", "cuda.framework-oom", 1),
    ("holdout-r7/no-gpu/l-soup-cuda-visible-devices-empty-bnb-cpu-only.log", "cuda.visible-devices-empty", 3),
    # UCX's own ERROR line (plain level) above NIXL's status (ERROR level, later)
    (
        "holdout-r7/serving-engine-internal/k-dynamo-disagg-ucx-local-protection-nixl-backend.log",
        "dynamo.ucx-error",
        5,
    ),
    (
        "holdout-r7/serving-engine-internal/k-sglang-ci-nixl-ucx-gdaki-cq-create-failed.log",
        "dynamo.ucx-error",
        1,
    ),
    ("holdout-r1/serving-engine-internal/dynamo-vllm-nixl-ucx-connect-refused.log", "dynamo.ucx-error", 1),
    ("dynamo/nixl-err-backend-vllm-worker-1108.log", "dynamo.ucx-nixl-error", 3),
    # the exception line of sgl_kernel's multi-line ImportError, not the nested undefined symbol (line 13)
    (
        "holdout-r7/python-environment/k-sglang-router-ci-sgl-kernel-undefined-symbol.log",
        "python.sgl-kernel-load-failed",
        1,
    ),
    # pip's first line names the conflict; ResolutionImpossible (line 5) is its footer
    (
        "holdout-r7/python-environment/l-unsloth-ci-cpu-torch-sympy-resolution.log",
        "python.version-conflict",
        1,
    ),
    (
        "holdout-r7/python-environment/l-pytorch-alpine-markupsafe-conflict.log",
        "python.version-conflict",
        None,
    ),
    (
        "holdout-r7/model-config/k-tgi-sharded-llama-needs-flash-attention.log",
        "tgi.model-unsupported-config",
        9,
    ),
    (
        "holdout-r7/model-config/k-localai-gguf-model-format-not-supported.log",
        "model.gguf-load-unsupported",
        3,
    ),
    ("holdout-r7/compile-failed/l-triton-ptxas-sm110a-thor.log", "triton.compile-failed", 5),
    ("holdout-r7/compile-failed/k-mlc-llm-ios-build-tuning-record-parse.log", "tvm.compile-failed", 6),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
