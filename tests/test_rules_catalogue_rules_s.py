"""The thirteenth round's catalogue for the GPU, CUDA, compile and model families, across the stacks the pack had not
read (TensorFlow/XLA on CUDA and ROCm, Lua Torch, Ascend CANN / torch_npu, Intel Gaudi, Tenstorrent tt-metal, ONNX
Runtime and onnxruntime-genai, TVM/MLC-LLM, Triton Inference Server): each rule reads every rendering.

Every rendering is quoted from the cited upstream source (its message text, with the prefixes a CI log adds: glog's
`E … file.cc:N]`, torch.distributed's `[rankN]:`, the hl_logger header), a cited public thread or a real train log; the
near misses are lines that look alike but must not name that cause (a warning torch_npu logs and retries, a parameter
error, a server's graceful signal, a pytest skip reason quoting the message, a start-up version warning). The real logs
check the rule and line that win. See docs/accuracy.md, "Thirteenth round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # gpu-oom: error 2 in the THC frames, HIP's enum, TensorFlow's stream executor, tt-metal's bank allocator
    (
        "cuda.out-of-memory",
        "cuda runtime error (2) : out of memory at /home/ubuntu/torch/extra/cutorch/lib/THC/THCGeneral.c:608",
        "torch/cutorch lib/THC/THCGeneral.c __THCudaCheck (torch/cutorch#498; tests/corpus/train/holdout-r9)",
    ),
    (
        "cuda.out-of-memory",
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=265 error=2 : out of memory",
        "pytorch aten/src/THC/THCGeneral.cpp __THCudaCheck (torch 0.4-1.4), the line before the RuntimeError",
    ),
    (
        "cuda.out-of-memory",
        "2023-11-01 16:19:17.812101: E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:606] failed to"
        " allocate 127.99TiB (140729850295296 bytes) from device: HIP_ERROR_OutOfMemory",
        "tensorflow compiler/xla/stream_executor/rocm/rocm_driver.cc DeviceAllocate (TF 2.12 ROCm; keras-team/keras#13889)",
    ),
    (
        "cuda.out-of-memory",
        "2019-03-01 10:12:20.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.77G"
        " (4046333952 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
        "tensorflow stream_executor/cuda/cuda_driver.cc DeviceAllocate (TF 1.x-2.x, the CUDA twin of the ROCm line)",
    ),
    (
        "cuda.out-of-memory",
        "TT_FATAL: Out of Memory: Not enough space to allocate 1061683200 B DRAM buffer across 8 banks, where each bank"
        " needs to store 132710400 B, but bank size is 4273390016 B (allocated: 4221954688 B, free: 51435328 B, largest"
        " free block: 45589184 B)",
        "tenstorrent/tt-metal tt_metal/impl/allocator/bank_manager.cpp, as a public tt-forge bring-up report quotes it",
    ),
    (
        "cuda.out-of-memory",
        "Always | FATAL    | Out of Memory: Not enough space to allocate 896204800 B DRAM buffer across 12 banks, where"
        " each bank needs to store 74686464 B",
        "tt-metal bank_manager.cpp through tt-forge's loguru sink, as tt-forge's failure-reason table quotes it",
    ),
    (
        "cuda.framework-oom",
        "`W tensorflow/core/common_runtime/executor.cc:1076] 0x18ef02bb0 Compute status: Resource exhausted: OOM when"
        " allocating tensor with shape",
        "tensorflow core/common_runtime/executor.cc (TF 0.x; tensorflow/tensorflow#1355, tests/corpus/train/holdout-r9)",
    ),
    (
        "cuda.framework-oom",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with"
        " shape[1024,1024,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
        "tensorflow core/framework/op_kernel.cc / bfc_allocator.cc (TF 1.x-2.x)",
    ),
    # cuda-setup: the kernel image the driver cannot load; Ascend's graph engine that does not start
    (
        "cuda.no-kernel-image",
        [
            "CUDA error: device kernel image is invalid",
            "  current device: 0, in function ggml_cuda_compute_forward at"
            " /home/runner/work/llama.cpp-builds/llama.cpp-builds/ggml/src/ggml-cuda/ggml-cuda.cu:2962",
        ],
        "ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu CUDA_CHECK (canonical/inference-snaps#255)",
    ),
    (
        "cuda.no-kernel-image",
        "torch.AcceleratorError: CUDA error: device kernel image is invalid",
        "pytorch c10/cuda/CUDAException.cpp with cudaGetErrorString(cudaErrorInvalidKernelImage), torch >= 2.8",
    ),
    (
        "cuda.npu-init-failed",
        [
            "RuntimeError: SetPrecisionMode:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155 NPU function error:"
            " at_npu::native::AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is 500001",
            "       GEInitialize failed.[FUNC:GEInitialize][FILE:ge_api.cc][LINE:337]",
        ],
        "Ascend/pytorch NPUException.h NPU_CHECK_ERROR over CANN ge_api.cc (vllm-project/vllm-ascend#692)",
    ),
    # cuda-error: torch_npu's runtime errors (the device's own faults)
    (
        "cuda.error",
        "RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:26 NPU function error:"
        " c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035",
        "Ascend/pytorch torch_npu/csrc/core/npu/NPUException.h NPU_CHECK_ERROR (2.5-2.6), a public torch_npu log",
    ),
    (
        "cuda.error",
        "RuntimeError: ACL stream synchronize failed, error code:507035",
        "torch_npu 2.1-2.5's synchronize (vllm-project/vllm-ascend#1038)",
    ),
    # TVM's / dmlc's CUDA_CALL check: the string after "CUDA: " (out of memory is gpu-oom's)
    (
        "cuda.out-of-memory",
        "tvm.error.InternalError: Check failed: (e == cudaSuccess || e == cudaErrorCudartUnloading) is false: CUDA: out"
        " of memory",
        "apache/tvm src/runtime/cuda/cuda_common.h CUDA_CALL (the message tests/python/relax expects)",
    ),
    (
        "cuda.error",
        "tvm.error.InternalError: Check failed: (e == cudaSuccess || e == cudaErrorCudartUnloading) is false: CUDA:"
        " unspecified launch failure",
        "apache/tvm src/runtime/cuda/cuda_common.h CUDA_CALL with cudaGetErrorString(cudaErrorLaunchFailure)",
    ),
    # cuda-error: Intel GPUs' runtime results (Unified Runtime, SYCL)
    (
        "cuda.error",
        "RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)",
        "oneapi-src/unified-runtime include/ur_api.h via torch XPU / IPEX, as public Arc bring-up notes quote it",
    ),
    (
        "cuda.error",
        "RuntimeError: Native API failed: 20 (UR_RESULT_ERROR_DEVICE_LOST)",
        "SYCL's exception text over the Unified Runtime, as a public XPU service log quotes it",
    ),
    # nccl-error and port-in-use: Ascend's HCCL under torch_npu's ProcessGroupHCCL
    (
        "nccl.hccl-error",
        "(Worker_DP0_TP0_EP0 pid=60571) ERROR 12-04 14:46:08 [multiproc_executor.py:597] RuntimeError: create_config:"
        "build/CMakeFiles/torch_npu.dir/compiler_depend.ts:149 HCCL function error: hcclCommInitRootInfoConfig(numRanks,"
        " &rootInfo, rank, config, &(comm->hcclComm_)), error code is 7",
        "Ascend/pytorch torch_npu/csrc/distributed/HCCLUtils.hpp HCCL_CHECK_ERROR, vLLM's worker prefix (vllm-ascend)",
    ),
    (
        "network.hccl-port-bound",
        [
            "RuntimeError: createHCCLCommOrigin:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:2314 HCCL function"
            " error: HcclGetRootInfo(&hcclID), error code is 7",
            "ERR02200 DIST call hccl api failed",
            "Failed to bind the IP port. Reason: The IP address and port have been bound already.",
        ],
        "torch_npu HCCL_CHECK_ERROR over CANN's EI0020 report, as an Ascend framework's FAQ quotes it",
    ),
    # no-gpu: HIP's twin of cudaErrorNoDevice
    (
        "cuda.no-gpus",
        "RuntimeError: HIP error: no ROCm-capable device is detected",
        "ROCm clr hipamd/src/hip_error.cpp (hipErrorNoDevice) through torch's ROCm build",
    ),
    # gpu-oom: OpenVINO's GPU plugin's device allocation
    (
        "cuda.out-of-memory",
        "[CL ext] Can not allocate 536870912 bytes for USM Device",
        "openvino src/plugins/intel_gpu/src/runtime/ocl/ocl_ext.hpp usm_device_alloc, as a public note quotes it",
    ),
    # compile-failed: OpenVINO's GPU kernel build
    (
        "openvino.gpu-program-build-failed",
        "Program build failed(0_part_0): You may enable OCL source dump to see the error log.",
        "openvino src/plugins/intel_gpu/src/graph/kernels_cache.cpp build_batch (2022.x wording)",
    ),
    # compile-failed: Gaudi's graph compiler, TVM's fatal location line
    (
        "habana.graph-compile-failed",
        "[19:08:34.164951][GC                    ][error][tid:44F8A] Failed to load tpc kernel for node: TPC634, GUID:"
        " constant_bf16. Got error: GLUE_FAILED",
        "Gaudi graph compiler's hl_logger line (HabanaAI/vllm-fork#484)",
    ),
    (
        "habana.graph-compile-failed",
        "[rank2]: RuntimeError: Graph compile failed. synStatus=synStatus 26 [Generic failure].",
        "habana_frameworks' bridge backend/synapse_helpers/graph.cpp (huggingface/optimum-habana#1426)",
    ),
    (
        "habana.graph-compile-failed",
        "RuntimeError: Graph compile failed. synStatus=synStatus 26 [Generic failure].",
        "habana_frameworks' bridge, SynapseAI 1.21 (huggingface/optimum-habana#2231)",
    ),
    (
        "tvm.compile-failed",
        "[16:03:11] D:\\a\\package\\package\\tvm\\src\\tir\\schedule\\./concrete_schedule.h:287: ValueError: The block"
        " no longer exists in the IRModule",
        "apache/tvm include/tvm/runtime/logging.h LOG(FATAL) location line (mlc-ai/mlc-llm#2105)",
    ),
    # model-config: ONNX Runtime's session refusing the model, under any binding
    (
        "model.onnx-model-rejected",
        "onnxruntime_genai.onnxruntime_genai.OrtException: Load model from .\\examples\\python\\builtAgain\\\\model.onnx"
        ' failed:This is an invalid model. In Node, ("/model/layers.0/attn/GroupQueryAttention", GroupQueryAttention,'
        ' "com.microsoft", -1) : ("/model/layers.0/attn/qkv_proj/MatMulNBits/output_0": tensor(float),"","",',
        "onnxruntime core/session/inference_session.cc Load via onnxruntime-genai (microsoft/onnxruntime-genai#1024)",
    ),
    (
        "model.onnx-model-rejected",
        "onnxruntime.capi.onnxruntime_pybind11_state.InvalidProtobuf: [ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load"
        " model from model.onnx failed:Protobuf parsing failed.",
        "onnxruntime python/onnxruntime_pybind_exceptions.cc over inference_session.cc (a Git LFS pointer as the model)",
    ),
    # segfault and triton-out-of-resources
    (
        "machine.segfault",
        "#  SIGSEGV (0xb) at pc=0x00007fa6ebe997c9, pid=60940, tid=0x00007f9bc16bf700",
        "openjdk hotspot src/hotspot/share/utilities/vmError.cpp report header (a JVM crashing in native code)",
    ),
    (
        "machine.segfault",
        ["Signal (11) received.", " 0# 0x000060322740904D in /opt/tritonserver/bin/tritonserver"],
        "triton-inference-server/server src/triton_signal.cc ErrorSignalHandler (2.46; server#8284)",
    ),
    (
        "triton.out-of-resources",
        [
            "triton.runtime.errors.OutOfResources:",
            "out of resource: shared memory, Required: 98304, Hardware limit: 65536.",
        ],
        "triton runtime/errors.py OutOfResources, the message on its own line (ROCm/aiter#3257)",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "cuda.error",
        [
            "[rank0]:[W530 17:44:21.455843271 compiler_depend.ts:526] Warning: NPU warning, error code is"
            " 507035[Error]:"
        ],
        id="torch-npu-warning-logged",
    ),
    pytest.param(
        "cuda.error",
        [
            "RuntimeError: LazySetDevice:../torch_npu/csrc/core/npu/NPUFunctions.cpp:342 NPU function error: err, error"
            " code is 107001"
        ],
        id="acl-parameter-error-not-a-device-fault",
    ),
    pytest.param(
        "cuda.error",
        [
            "cuda runtime error (2) : out of memory at /home/ubuntu/torch/extra/cutorch/lib/THC/THCGeneral.c:608"
        ],
        id="thc-out-of-memory-is-gpu-oom",
    ),
    pytest.param(
        "cuda.out-of-memory",
        [
            "SKIPPED [1] tests/models/test_sd35.py:41: Out of Memory: Not enough space to allocate 94633984 B DRAM"
            " buffer across 12 banks"
        ],
        id="tt-skip-reason-quotes-the-message",
    ),
    pytest.param(
        "cuda.error",
        ["RuntimeError: level_zero backend failed with error: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)"],
        id="ur-device-memory-is-gpu-oom",
    ),
    pytest.param(
        "cuda.error",
        [
            "Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES) -5 (PI_ERROR_OUT_OF_RESOURCES)"
        ],
        id="pi-out-of-resources-unclear",
    ),
    pytest.param(
        "nccl.hccl-error",
        [
            "RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:148 HCCL function error:"
            " hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 1"
        ],
        id="hccl-parameter-error-callers-bug",
    ),
    pytest.param(
        "cuda.out-of-memory",
        [
            "# into CUDA: Out of Memory error. Once debugged successfully, setting it to False allowed me to train the"
            " model using GPU itself."
        ],
        id="tutorial-comment-mentions-oom",
    ),
    pytest.param(
        "openvino.gpu-program-build-failed",
        [
            "Error: [GPU] ProgramBuilder build failed!",
            "[CL ext] Can not allocate 2030043136 bytes for USM Host",
        ],
        id="openvino-wrapper-over-an-allocation",
    ),
    pytest.param("machine.segfault", ["Signal (15) received."], id="tritonserver-sigterm-graceful"),
    pytest.param("machine.segfault", ["Signal (2) received."], id="tritonserver-sigint-graceful"),
    pytest.param(
        "model.onnx-model-rejected",
        [
            "onnxruntime.capi.onnxruntime_pybind11_state.NoSuchFile: [ONNXRuntimeError] : 3 : NO_SUCHFILE : Load model"
            " from model.onnx failed:Load model model.onnx failed. File doesn't exist"
        ],
        id="ort-model-path-missing",
    ),
    pytest.param(
        "habana.graph-compile-failed",
        [
            "[WARNING|misc.py:213] 2025-09-25 08:11:12,577 >> optimum-habana v1.20.0.dev0 has been validated for"
            " SynapseAI v1.22.0 but habana-frameworks v1.21.0.555 was found, this could lead to undefined behavior!"
        ],
        id="optimum-habana-version-warning",
    ),
    pytest.param(
        "cuda.npu-init-failed",
        [
            "RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error:"
            " c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035",
            "[Error]: The vector core execution is abnormal.",
        ],
        id="npu-runtime-fault-not-init",
    ),
]

# (train log, rule that must win, its line)
REAL_LOGS: list[tuple[str, str, int | None]] = [
    (
        "holdout-r9/compile-failed/p-mlc-llm-compile-dlight-block-no-longer-exists.log",
        "tvm.compile-failed",
        9,
    ),
    ("holdout-r9/segfault/p-tritonserver-2-46-signal-11-start-sh.log", "machine.segfault", 1),
    (
        "holdout-r9/cuda-setup/p-inference-snaps-llama-cli-driver-535-kernel-image-invalid.log",
        "cuda.no-kernel-image",
        9,
    ),
    (
        "holdout-r9/triton-out-of-resources/p-aiter-fp8-mqa-logits-mi300x-lds-98304.log",
        "triton.out-of-resources",
        1,
    ),
    ("holdout-r9/gpu-oom/q-cutorch-lua-test-out-of-memory.log", "cuda.out-of-memory", 1),
    (
        "holdout-r9/cuda-setup/q-bnb-centos-rich-cuda-setup-failed.log",
        "python.bitsandbytes-cuda-setup-failed",
        5,
    ),
    ("holdout-r9/gpu-oom/q-tf-keras-loop-models-resource-exhausted.log", "cuda.framework-oom", 1),
    (
        "holdout-r9/model-config/r-onnxruntime-genai-model-qa-invalid-gqa-node.log",
        "model.onnx-model-rejected",
        9,
    ),
    (
        "holdout-r9/compile-failed/r-habana-vllm-fork-tpc-kernel-glue-failed.log",
        "habana.graph-compile-failed",
        1,
    ),
    ("holdout-r9/cuda-error/r-ascend-torch-npu-sync-stream-507035-vector-core.log", "cuda.error", 12),
    ("holdout-r9/cuda-setup/r-vllm-ascend-910b2-ge-initialize-platform-info.log", "cuda.npu-init-failed", 1),
    ("holdout-r9/gpu-oom/r-tensorflow-rocm-horovod-hip-error-outofmemory.log", "cuda.out-of-memory", 2),
    # the innermost message of a nested lazy import (docs/likely-cause.md), an API the installed torch lacks
    (
        "holdout-r8/python-environment/n-mapreader-ci-transformers-pytree-kwarg.log",
        "python.lazy-import-inner-mismatch",
        3,
    ),
    # an ACL parameter error above CANN's empty device range stays the no-gpu rule's
    ("holdout-r2/no-gpu/vllm-ascend-ut-setdevice-no-npu-visible.log", "cuda.no-gpus", 9),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
