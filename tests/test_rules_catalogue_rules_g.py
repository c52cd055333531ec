"""The ninth round's catalogue of GPU-memory, CUDA, compiler, crash and model renderings: each rule reads every one.

Every rendering is quoted from the cited upstream source (its message text, with the prefixes a CI log adds), a cited
public thread or a real log (tests/corpus/train/holdout-r5, cited in SOURCES-holdout-r5a.md / -r5b.md); the near
misses are lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Ninth round".
"""

from __future__ import annotations

from pathlib import Path

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # gpu-oom: Ascend CANN's runtime (EL0004 in its three renderings, the runtime's and GE's own lines)
    (
        "cuda.out-of-memory",
        "[Stage-0] ERROR 01-16 10:20:16 [gpu_worker.py:226] [PID: 5393] 2026-01-16-10:20:15.729.456"
        " Memory_Allocation_Failure(EL0004): Failed to allocate memory.",
        "CANN >= 8.2 through vLLM's worker log (vllm-project/vllm-omni#705)",
    ),
    (
        "cuda.out-of-memory",
        "EL0004: [PID: 316198] 2025-09-28-07:22:29.827.496 Failed to allocate memory.",
        "CANN 8.x (vllm-project/vllm-ascend#3141)",
    ),
    (
        "cuda.out-of-memory",
        "EL0004: Failed to allocate memory.",
        "CANN 7 / torch_npu, as a public repository's notes quote it",
    ),
    (
        "cuda.out-of-memory",
        "        rtMalloc execute failed, reason=[driver error:out of memory][FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:50]",
        "CANN runtime's TraceBack line (torch_npu run quoted in a public repository)",
    ),
    (
        "cuda.out-of-memory",
        "ERROR 04-09 21:56:46 [diffusion_worker.py:452]         Call rtMalloc fail, purpose: page caching, type = 2,"
        " size:3221291008, device_id:0[FUNC:Alloc][FILE:device_allocator.cc][LINE:72]",
        "GE's device_allocator.cc through vllm-omni's diffusion worker (PKU-YuanGroup/Helios#62)",
    ),
    # gpu-oom: Intel GPUs and Gaudi
    (
        "cuda.out-of-memory",
        "level_zero backend failed with error: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)",
        "Intel's Unified Runtime under llama.cpp's SYCL backend (a public repository's measured OOM)",
    ),
    (
        "cuda.out-of-memory",
        "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::939524096 (896)MB",
        "Habana's PyTorch bridge on Gaudi (HabanaAI/vllm-fork calibration README)",
    ),
    # gpu-oom: PyTorch's allocators
    (
        "torch.cuda-oom",
        "NPU out of memory. Tried to allocate more than 1EB memory",
        "torch_npu's caching allocator on a corrupted size (flashserve/flash-linear-attention-npu#149)",
    ),
    (
        "torch.allocator-oom-warning",
        "[rank1]:[W804 15:02:21.951609576 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 1"
        " while trying to allocate 26229080064 bytes (free: 16487546880, total: 191503007744).",
        "c10/cuda/CUDACachingAllocator.cpp alloc_block's LOG(WARNING) (vllm-project/vllm#51071)",
    ),
    (
        "torch.allocator-oom-warning",
        "[W] memory allocation failed with OOM on device 0 while trying to allocate 467664896 bytes",
        "the same warning on a unified-memory device, as a public write-up quotes it",
    ),
    # gpu-oom: TensorFlow's and XLA's allocators
    (
        "cuda.framework-oom",
        "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[256,112,112,64]",
        "TF <= 1.4 op_kernel.cc (tensorflow/tensorflow#4735)",
    ),
    (
        "cuda.framework-oom",
        "2018-08-06 05:47:57.037241: E tensorflow/core/common_runtime/executor.cc:696] Executor failed to create"
        " kernel. Resource exhausted: OOM when allocating tensor of shape [32256512,512] and type float",
        "TF 1.x gpu_device.cc MakeTensorFromProto (a training log quoted in a public repository)",
    ),
    (
        "cuda.framework-oom",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to"
        " allocate 50.00M. That was not possible. There are 27.86M free.; (0x0x0_HBM0)",
        "XLA's TPU runtime through JAX (a Flax run quoted in a public repository)",
    ),
    (
        "cuda.framework-oom",
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_train_step': Attempting to reserve"
        " 51.43G at the bottom of memory. That was not possible. There are 46.61G free, 0B reserved, and 46.61G"
        " reservable.",
        "XLA's TPU runtime loading a program (a MaxText-style run's notes in a public repository)",
    ),
    # cuda-error
    (
        "cuda.error",
        "RuntimeError: CUDA error: unspecified launch failure`",
        "c10 CUDAException.cpp, the log closed by a Markdown backquote (XPixelGroup/BasicSR#211)",
    ),
    (
        "cuda.error",
        "onnxruntime::CudaCall CUDA failure 8: the function requires an architectural feature absent from the device ;"
        " GPU=0 ; hostname=x ; expr=cublasCreate(&cublas_handle_);",
        "onnxruntime core/providers/cuda/cuda_call.cc (CudaCall), as a public repository quotes it",
    ),
    # cuda-setup: the CUDA toolkit does not know the GPU's architecture (a JIT or source build)
    (
        "cuda.no-kernel-image",
        "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
        "NVIDIA nvcc (a CUDA 12.4 toolkit asked for Blackwell; the spacing nvcc prints)",
    ),
    (
        "cuda.no-kernel-image",
        "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        "Triton 3.5's bundled ptxas on a GB10 (triton-lang/triton#8539)",
    ),
    # compile-failed
    (
        "triton.mlir-pass-failed",
        'loc(callsite(callsite("path/to/anaconda_env/lib/python3.8/site-packages/triton/language/core.py":1398:21 at'
        ' "06-fused-attention.py":52:35) at "06-fused-attention.py":168:67)): error: \'triton_gpu.cmpf\' op requires'
        " the same encoding for all operands and results",
        "MLIR's default diagnostic under Triton 2.1 (triton-lang/triton#2855)",
    ),
    (
        "triton.mlir-pass-failed",
        "/home/pi-user/trifast/src/trifast/triton_factorized.py:19:0: error: Failures have been detected while"
        " processing an MLIR pass pipeline",
        "mlir/lib/Pass/PassCrashRecovery.cpp through Triton 3.x's SourceMgr handler (triton-lang/triton#6951)",
    ),
    (
        "triton.compile-failed",
        "triton.language.semantic.IncompatibleTypeErrorImpl: invalid operands of type pointer<int64> and"
        " triton.language.int32",
        "triton/language/semantic.py check_ptr_type_impl (state-spaces/mamba#701)",
    ),
    (
        "triton.compile-failed",
        "triton.compiler.errors.UnsupportedLanguageConstruct: at 4:8:",
        "triton/compiler/errors.py (a CompilationError subclass naming the position)",
    ),
    (
        "tvm.compile-failed",
        "RuntimeError: Cannot find compilation output, compilation failed",
        "mlc-ai/mlc-llm python/mlc_llm/interface/jit.py _run_jit (mlc-ai/mlc-llm#3417)",
    ),
    # segfault: Go's runtime report of a signal in C code
    (
        "machine.segfault",
        [
            "SIGSEGV: segmentation violation",
            "PC=0x7180ec649a70 m=17 sigcode=1",
            "signal arrived during cgo execution",
        ],
        "golang/go runtime/signal_unix.go sighandler (ollama/ollama#2198)",
    ),
    # model-config: a weights file that is not the whole file, in GGUF and PyTorch's zip format
    (
        "model.weights-unreadable",
        "gguf_init_from_file_impl: invalid magic characters: 'vers', expected 'GGUF'",
        "ggml-org/llama.cpp ggml/src/gguf.cpp (a Git LFS pointer in llama.cpp's own CI log)",
    ),
    (
        "model.weights-unreadable",
        "llama_model_load: error loading model: tensor 'blk.35.ffn_up.weight' data is not within the file bounds,"
        " model is corrupted or incomplete",
        "ggml-org/llama.cpp src/llama-model-loader.cpp (a cut GGUF download)",
    ),
    (
        "model.weights-unreadable",
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory",
        "caffe2/serialize/inline_container.cc through torch.load (a cut checkpoint)",
    ),
    # model-config: ONNX Runtime refusing the model
    (
        "model.onnx-model-rejected",
        "onnxruntime.capi.onnxruntime_pybind11_state.InvalidGraph: [ONNXRuntimeError] : 10 : INVALID_GRAPH : This is"
        " an invalid model. Error in Node:batchnorm : Required attribute 'consumed_inputs' is missing.",
        "onnxruntime core/graph/graph.cc through the Python binding (microsoft/onnxruntime#5379)",
    ),
    (
        "model.onnx-model-rejected",
        "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could"
        " not find an implementation for ConvInteger(10) node with name '/conv1/Conv_quant'",
        "onnxruntime session_state.cc / kernel_registry.cc (a quantized model on a provider without the kernel)",
    ),
    (
        "model.onnx-model-rejected",
        "[QualityClassifier] Failed with preferred providers ([ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model"
        " from /tmp/kestrel_tag_wt/analyzer/models/quality.onnx failed:Protobuf parsing failed.), falling back to CPU",
        "onnxruntime on a Git LFS pointer instead of the model, as a public repository's notes quote it",
    ),
    (
        "model.onnx-model-rejected",
        "    Unsupported model IR version: 10, max supported IR version: 9",
        "onnxruntime core/graph/model.cc (Model::Model), the message's own line in a quoted traceback",
    ),
]

NEAR_MISSES = [
    # the allocator's warning ranks low: another cause in the log (here a refused Hub download) wins
    (
        "torch.allocator-oom-warning",
        [
            "[rank0]:[W922 05:15:28] memory allocation failed with OOM on device 0 while trying to allocate 3630170112"
            " bytes (free: 202833920, total: 25250627584).",
            "HTTPError: 403 Client Error: Forbidden for url:"
            " https://huggingface.co/meta-llama/Meta-Llama-3-8B-Instruct/resolve/main/config.json",
        ],
    ),
    # a TensorFlow tensor in host memory, TF's recoverable BFC notice
    (
        "cuda.framework-oom",
        [
            "ResourceExhaustedError: OOM when allocating tensor with shape[100000,100000] and type float on"
            " /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
            "W tensorflow/core/common_runtime/bfc_allocator.cc:275] Allocator (GPU_0_bfc) ran out of memory trying to"
            " allocate 2.20GiB. The caller indicates that this is not a failure, but may mean that there could be"
            " performance gains if more memory were available.",
        ],
    ),
    # CANN's other error codes
    (
        "cuda.out-of-memory",
        [
            "[ERROR] 2026-01-16-10:20:16 (PID:5393, Device:0, RankID:0) ERR00100 PTA call acl api failed.",
            "EL0003: The argument is invalid.",
        ],
    ),
    # a Go nil-pointer panic (the program's bug) and Go's SIGSEGV after ggml's failed assertion
    (
        "machine.segfault",
        [
            "panic: runtime error: invalid memory address or nil pointer dereference",
            "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5c1d3a]",
        ],
    ),
    (
        "machine.segfault",
        [
            "//ml/backend/ggml/ggml/src/ggml-cpu/ggml-cpu.c:8456: GGML_ASSERT(i01 >= 0 && i01 < ne01) failed",
            "SIGSEGV: segmentation violation",
            "PC=0x7f27a8e24c47 m=0 sigcode=1 addr=0x206a03fb4",
        ],
    ),
    # ONNX Runtime: the caller's wrong input, ORT's own unit test
    (
        "model.onnx-model-rejected",
        [
            "onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT :"
            " Got invalid dimensions for input: pixel_values for the following indices",
        ],
    ),
    (
        "model.onnx-model-rejected",
        [
            "C:\\Users\\tolia\\AppData\\Local\\Temp\\onnxruntime\\onnxruntime\\test\\optimizer\\graph_transform_test.cc(116):"
            " error: Value of: session_object.Load(model_uri).IsOK()",
        ],
    ),
    # MLIR's notes and warnings, a C compiler's error, the JIT turned off by policy
    (
        "triton.mlir-pass-failed",
        [
            "/home/u/k.py:19:0: note: Pipeline failed while executing [`TritonGPUPipeline` on 'builtin.module'"
            " operation]",
            "src/main.c:12:5: error: implicit declaration of function 'foo'",
        ],
    ),
    ("tvm.compile-failed", ["RuntimeError: JIT is disabled by MLC_JIT_POLICY=OFF"]),
    # any pickled file (a dataset, a fixture) that is an LFS pointer says this, not only weights
    ("model.weights-unreadable", ["_pickle.UnpicklingError: invalid load key, 'v'."]),
    (
        "cuda.no-kernel-image",
        [
            "nvcc warning : The 'compute_35', 'compute_37', 'sm_35', and 'sm_37' architectures are deprecated, and may"
            " be removed in a future release (Use -Wno-deprecated-gpu-targets to suppress warning).",
        ],
    ),
    # a quoted raise of the front-end error (a traceback's source line)
    ("triton.compile-failed", ["    raise IncompatibleTypeErrorImpl(type_a, type_b)"]),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r5/compile-failed/g-mlc-llm-jit-compilation-output-missing.log", "tvm.compile-failed", 14),
    (
        "holdout-r5/compile-failed/h-mamba-triton-incompatible-type-pointer-int64.log",
        "triton.compile-failed",
        12,
    ),
    (
        "holdout-r5/compile-failed/h-triton-fused-attention-cmpf-encoding-passmanager.log",
        "triton.mlir-pass-failed",
        1,
    ),
    ("holdout-r5/gpu-oom/g-vllm-omni-npu-rtmalloc-failure.log", "cuda.out-of-memory", 3),
    ("holdout-r5/gpu-oom/g-vllm-ci-lm-eval-pcp-allocator-oom.log", "torch.allocator-oom-warning", 3),
    ("holdout-r5/gpu-oom/h-tf-slim-inception-oom-allocating.log", "cuda.framework-oom", 1),
    ("holdout-r5/cuda-error/h-basicsr-esrgan-unspecified-launch-failure.log", "cuda.error", 9),
    ("holdout-r5/segfault/g-ollama-serve-cuda-init-sigsegv.log", "machine.segfault", 10),
    (
        "holdout-r5/model-config/h-ort-tinyyolo-invalid-graph-consumed-inputs.log",
        "model.onnx-model-rejected",
        7,
    ),
    (
        "holdout-r4/cuda-device-assert/f-reid-baseline-classnll-target-out-of-range.log",
        "cuda.device-side-assert",
        14,
    ),
    ("holdout-r4/cuda-device-assert/f-lednet-thcudacheck-spatialclassnll.log", "cuda.device-side-assert", 19),
]

(
    test_each_rendering_is_read_by_its_rule,
    test_look_alikes_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_the_allocator_warning_yields_to_the_exception_it_leads_to(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """When the allocator's retry fails too, torch raises: the exception, not the warning before it, is the cause."""
    log = write_log(
        tmp_path,
        [
            "[rank0]:[W804 15:02:21.946490582 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on"
            " device 0 while trying to allocate 26229080064 bytes (free: 16487546880, total: 191503007744).",
            "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.43 GiB. GPU 0 has a total"
            " capacity of 178.35 GiB of which 15.35 GiB is free.",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("torch.cuda-oom", 2)


def test_the_mlir_diagnostic_outranks_the_pass_manager_exception_after_it(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """Triton raises a bare 'PassManager::run failed' after MLIR printed why: the diagnostic is the root line."""
    log = write_log(
        tmp_path,
        [
            "/workspace/kernels/matmul.py:41:20: error: failed to legalize operation 'tt.dot' that was explicitly"
            " marked illegal",
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3/dist-packages/triton/compiler/compiler.py", line 91, in optimize_ttgir',
            "    pm.run(mod)",
            "RuntimeError: PassManager::run failed",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("triton.mlir-pass-failed", 1)


def test_the_jit_compile_subprocess_error_is_the_earlier_line(rule_pack: RuleSet, tmp_path: Path) -> None:
    """MLC-LLM's JIT runs the compiler as a subprocess: its own failed check, printed first, is the cause's line."""
    log = write_log(
        tmp_path,
        [
            '  File "/usr/lib/python3/dist-packages/tvm/driver/build_module.py", line 281, in build',
            "tvm.error.InternalError: Check failed: n->dtype.lanes() == 1 (4 vs. 1) : Vector loads are not supported"
            " here",
            '  File "/opt/venv/lib/python3.11/site-packages/mlc_llm/interface/jit.py", line 134, in _run_jit',
            "RuntimeError: Cannot find compilation output, compilation failed",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("tvm.compile-failed", 2)


def test_a_toolkit_that_does_not_know_the_gpu_outranks_the_compile_error_it_causes(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """Triton's PTXASError comes first and names no reason; ptxas's own line says the toolkit is too old for the GPU."""
    log = write_log(
        tmp_path,
        [
            "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error",
            "`ptxas` stderr:",
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("cuda.no-kernel-image", 3)
