"""The sixteenth round's catalogue for the GPU stack, the model's config, the Python environment and the container
runtime (gpu-oom, model-config, cuda-device-assert, triton-out-of-resources, nccl-error, python-environment,
container-image, serving-engine-internal): the emitters the twelfth holdout showed the pack had not read (ComfyUI's executor, MLC-LLM's model
directory checks, TGI's clap-parsed model options, Ascend C's kernel assert, Inductor's autotuner, NCCL's listening
socket, urllib3 / pip without an ssl module, the lazy import wrapper's inner ImportError, the kubelet's pull event, runc
starting a command the image lacks, pyxis' import, docker pull's bare stream error) in each rendering their
source prints.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r12, cited in SOURCES-holdout-r12a.md / -r12b.md / -r12c.md); the near misses
are lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Sixteenth round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # gpu-oom: ComfyUI's executor logs the allocator's message without its class
    (
        "torch.cuda-oom",
        "2024-09-23 22:52:29,415 - root - ERROR - !!! Exception during processing !!! Allocation on device ",
        'Comfy-Org/ComfyUI execution.py (logging.error(f"!!! Exception during processing !!! {ex}")), '
        "torch's cudaMallocAsync message cut at device 0's NUL byte",
    ),
    (
        "torch.cuda-oom",
        "2024-09-23 22:52:29,415 - root - ERROR - !!! Exception during processing !!! CUDA out of memory. Tried to "
        "allocate 2.00 GiB. GPU 0 has a total capacity of 11.99 GiB of which 0 bytes is free.",
        "Comfy-Org/ComfyUI execution.py over the native allocator's message",
    ),
    # model-config: MLC-LLM's model directory, TGI's launcher options
    (
        "mlc.model-files-missing",
        "libc++abi: terminating due to uncaught exception of type tvm::runtime::InternalError: [12:42:06] "
        "/Users/ci/mlc-llm/cpp/serve/model.cc:41: InternalError: Check failed: (config_istream) is false:",
        "mlc-ai/mlc-llm cpp/serve/model.cc Model::LoadModelConfig (ICHECK(config_istream)) on macOS",
    ),
    (
        "mlc.model-files-missing",
        "ValueError: Fail to find mlc-chat-config.json under dist/Llama-3-8B-Instruct-q4f16_1.",
        "mlc-ai/mlc-llm python/mlc_llm/support/auto_config.py detect_mlc_chat_config",
    ),
    (
        "mlc.model-files-missing",
        "tvm.error.InternalError: Cannot find any tokenizer under: /models/phi-2-q4f16_1-MLC",
        "mlc-ai/mlc-llm cpp/tokenizers/tokenizers.cc Tokenizer::FromPath (LOG(FATAL))",
    ),
    (
        "tgi.launcher-model-option-invalid",
        [
            "error: invalid value 'yarn' for '--rope-scaling <ROPE_SCALING>'",
            "  [possible values: linear, dynamic]",
        ],
        "huggingface/text-generation-inference launcher/src/main.rs (RopeScaling value enum) under clap 4",
    ),
    (
        "tgi.launcher-model-option-invalid",
        [
            "error: invalid value 'fp8' for '--quantize <QUANTIZE>'",
            "  [possible values: awq, eetq, gptq, bitsandbytes]",
        ],
        "huggingface/text-generation-inference launcher/src/main.rs (Quantization value enum) under clap 4",
    ),
    # cuda-device-assert: Ascend C's kernel assert through the device printf
    (
        "cuda.device-side-assert",
        "[ASSERT] /usr/local/Ascend/ascend-toolkit/8.0.0/opp/built-in/op_impl/ai_core/tbe/impl/ascendc/"
        "index_put/index_put.h:88: Assertion `(idx < dimSize)' Index 70000 out of range[0 32000)!",
        'CANN kernel_operator ascendc_assert ("[ASSERT] <file>:<line>: Assertion `<cond>\' <message>")',
    ),
    (
        "cuda.device-side-assert",
        "[ASSERT] /tmp/op/assert_matmul.asc:57:MatmulKernel Assertion 'aGM != nullptr' ",
        "cannmirror/asc-devkit impl/utils/debug/asc_aicore_assert_impl.h (__assert_fail's printf)",
    ),
    (
        "cuda.device-side-assert",
        "Error: /paddle/paddle/phi/kernels/gpu/cross_entropy_kernel.cu:1033 Assertion `label_value >= 0 && "
        "label_value < n_classes` failed. The value of label expected >= 0 and < 10, but got 11.",
        'PaddlePaddle paddle/phi/core/enforce.h (device PADDLE_ENFORCE: "Error: %s:%d Assertion `%s` failed. ")',
    ),
    # triton-out-of-resources: Inductor's autotuner with no config left; Triton-Ascend's UB
    (
        "triton.out-of-resources",
        [
            "torch._inductor.exc.InductorError: RuntimeError: No valid triton configs. OutOfMemoryError: out of "
            "resource: triton_tem_fused_flex_attention_0 Required: 139776 Hardware limit: 101376"
        ],
        "pytorch torch/_inductor/runtime/triton_heuristics.py (CachingAutotuner precompile), torch >= 2.7's class",
    ),
    (
        "triton.out-of-resources",
        [
            "RuntimeError: No valid triton configs. OutOfResources: out of resource: shared memory",
            "",
            'Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information',
        ],
        "pytorch triton_heuristics.py: the message below BackendCompilerFailed's \"backend='inductor' raised:\" "
        "(torch 2.1-2.6)",
    ),
    (
        "triton.out-of-resources",
        'E loc("/tmp/tmpsb6qkdih/kernel.ttadapter.mlir":3:3): error: ub overflow, requires 3072256 bits while 1572864 '
        "bits available! (possible reason: tiling basic block is too large)",
        "Ascend/triton-ascend docs/en/programming_guide.md (the BiSheng compiler's PlanMemory UB overflow)",
    ),
    # serving-engine-internal: vLLM V1's worker traceback relayed by its multiproc executor
    (
        "vllm.cuda-graph-capture-failed",
        [
            "(Worker_TP1 pid=15193) ERROR 05-08 19:06:38 [multiproc_executor.py:962] torch.AcceleratorError: CUDA "
            "error: operation not permitted when stream is capturing",
            "(Worker_TP1 pid=15193) ERROR 05-08 19:06:38 [multiproc_executor.py:962]",
        ],
        "vllm-project/vllm vllm/v1/executor/multiproc_executor.py (WorkerProc.worker_main's logger.exception, the "
        "blank line of a chained traceback)",
    ),
    # nccl-error: the listening side of NCCL's sockets
    (
        "nccl.system-error",
        "nd20-01:275975:275975 [0] misc/socket.cc:379 NCCL WARN Call to bind failed : Cannot assign requested address",
        'NVIDIA/nccl src/misc/socket.cc (SYSCHECK(bind(…), "bind"))',
    ),
    (
        "nccl.system-error",
        "gpu3:101:101 [0] include/socket.h:390 NCCL WARN Call to getsockname failed : Bad file descriptor",
        "NVIDIA/nccl src/include/socket.h createListenSocket (NCCL <= 2.11)",
    ),
    # python-environment: no ssl module; the lazy import's inner ImportError
    (
        "python.ssl-module-unavailable",
        "requests.exceptions.SSLError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded "
        "with url: /openai/clip-vit-large-patch14/resolve/main/vocab.json (Caused by SSLError(\"Can't connect to HTTPS "
        'URL because the SSL module is not available."))',
        "urllib3 connectionpool.py HTTPSConnectionPool._new_conn under requests",
    ),
    (
        "python.ssl-module-unavailable",
        "WARNING: pip is configured with locations that require TLS/SSL, however the ssl module in Python is not "
        "available.",
        "pypa/pip src/pip/_internal/cli/req_command.py",
    ),
    (
        "python.ssl-module-unavailable",
        "urllib.error.URLError: <urlopen error unknown url type: https>",
        "CPython Lib/urllib/request.py without an HTTPSHandler (no ssl module)",
    ),
    # container-image: the kubelet's event, the runtime starting the command, pyxis, docker pull's stream
    (
        "container.kubelet-pull-failed",
        '  Warning  Failed  3s  kubelet  Failed to pull image "ghcr.io/acme/app:main": rpc error: code = '
        'DeadlineExceeded desc = failed to pull and unpack image "ghcr.io/acme/app:main": failed to resolve reference '
        '"ghcr.io/acme/app:main": failed to do request: Head "https://ghcr.io/v2/acme/app/manifests/main": dial tcp '
        "140.82.112.34:443: i/o timeout",
        "kubernetes pkg/kubelet/images/image_manager.go (Failed to pull image %q: %v) over containerd's resolver",
    ),
    (
        "container.entrypoint-not-found",
        "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
        'failed: unable to start container process: exec: "python3": executable file not found in $PATH',
        "opencontainers/runc libcontainer/standard_init_linux.go (exec.LookPath) under containerd, runc >= 1.1",
    ),
    (
        "container.image-pull-failed",
        "slurmstepd: error: pyxis: failed to import docker image: nvcr.io#nvidia/pytorch:25.01-py3",
        'NVIDIA/pyxis pyxis_slurmstepd.c (slurm_error "pyxis: failed to import docker image: %s")',
    ),
    (
        "container.image-pull-failed",
        "slurmstepd: error: pyxis: failed to create container filesystem for image: nvcr.io#nvidia/pytorch:25.01-py3",
        "NVIDIA/pyxis pyxis_slurmstepd.c",
    ),
    (
        "container.pull-stream-refused",
        [
            "unauthorized: authentication required",
            "latest: Pulling from pytorch/translate",
        ],
        "moby pkg/jsonmessage + docker/cli: the pull stream's errorDetail printed bare",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "torch.cuda-oom",
        [
            "2024-09-15 22:48:26,085 - root - ERROR - Got an OOM, unloading all loaded models.",
            "2024-09-15 22:48:26,140 - root - INFO - Prompt executed in 41.11 seconds",
        ],
        id="comfyui-unloading-after-oom",
    ),
    pytest.param(
        "mlc.model-files-missing",
        ["InternalError: Check failed: (kv_cache_.defined()) is false: KV cache has not been initialized."],
        id="mlc-other-check",
    ),
    pytest.param(
        "tgi.launcher-model-option-invalid",
        ["error: invalid value 'abc' for '--port <PORT>': invalid digit found in string"],
        id="clap-port-typo",
    ),
    pytest.param(
        "cuda.device-side-assert",
        ["python3: /workspace/csrc/cache.cc:88: void copy(): Assertion `n > 0' failed."],
        id="glibc-host-assert",
    ),
    pytest.param(
        "triton.out-of-resources",
        ["Runtime error during autotuning:", "No valid triton configs. Ignoring this choice."],
        id="autotuner-rejected-one-choice",
    ),
    pytest.param(
        "nccl.system-error",
        ["node3:4410:4410 [0] misc/socket.cc:379 NCCL WARN Call to bind failed : Address already in use"],
        id="nccl-port-taken",
    ),
    pytest.param(
        "python.ssl-module-unavailable",
        [
            "requests.exceptions.SSLError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded "
            "with url: /x (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] "
            "certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)')))"
        ],
        id="certificate-not-ssl-module",
    ),
    pytest.param(
        "python.lazy-import-inner-missing", ["No module named 'yaml'"], id="bare-line-without-wrapper"
    ),
    pytest.param(
        "container.entrypoint-not-found",
        [
            'OCI runtime exec failed: exec failed: unable to start container process: exec: "curl": executable file '
            "not found in $PATH: unknown"
        ],
        id="docker-exec-into-running-container",
    ),
    pytest.param(
        "container.entrypoint-not-found",
        [
            "Error: crun: executable file `pgrep` not found in $PATH: No such file or directory: OCI runtime attempted "
            "to invoke a command that was not found"
        ],
        id="podman-exec-or-run-alike",
    ),
    pytest.param(
        "container.pull-stream-refused",
        [
            "latest: Pulling from library/python",
            "The push refers to repository [docker.io/acme/app]",
            "denied: requested access to the resource is denied",
        ],
        id="docker-push-denied",
    ),
    pytest.param(
        "container.kubelet-pull-failed",
        ['  Normal  Pulled  2s  kubelet  Successfully pulled image "vllm/vllm-openai:v0.11.0" in 10.1s'],
        id="kubelet-pull-succeeded",
    ),
    pytest.param(
        "container.kubelet-pull-failed",
        [
            '  Warning  Failed  90s  kubelet  Failed to pull image "ghcr.io/acme/app:main": rpc error: code = '
            "DeadlineExceeded desc = context deadline exceeded",
            '  Normal   Pulled  20s  kubelet  Successfully pulled image "ghcr.io/acme/app:main" in 1m9.8s',
        ],
        id="kubelet-pull-retried-then-pulled",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r12/gpu-oom/y-comfyui-animatediff-allocation-on-device.log", "torch.cuda-oom", 20),
    ("holdout-r3/gpu-oom/c-comfyui-allocation-on-device-root-logger.log", "torch.cuda-oom", 2),
    (
        "holdout-r12/model-config/y-mlc-llm-serve-config-istream-check-failed.log",
        "mlc.model-files-missing",
        1,
    ),
    (
        "holdout-r12/model-config/y-tgi-launcher-rope-scaling-yarn-invalid-value.log",
        "tgi.launcher-model-option-invalid",
        1,
    ),
    (
        "holdout-r12/cuda-device-assert/y-ascend-sglang-glm5-gather-v3-index-assert.log",
        "cuda.device-side-assert",
        1,
    ),
    ("holdout-r12/cuda-error/y-ollama-rocm-rms-norm-invalid-device-function.log", "cuda.no-kernel-image", 2),
    ("holdout-r12/triton-out-of-resources/z-flex-attention-sm86-head192.log", "triton.out-of-resources", 1),
    (
        "holdout-r3/serving-engine-internal/c-vllm-nightly-worker-cuda-graph-capture-unsupported.log",
        "vllm.cuda-graph-capture-failed",
        1,
    ),
    ("pytorch-cuda/cuda-error-stream-capturing-kyutai-179.log", "cuda.error", 1),
    ("holdout-r12/nccl-error/z-returnn-nccl-bind-cannot-assign.log", "nccl.system-error", 4),
    (
        "holdout-r12/python-environment/z-stable-diffusion-ssl-module-missing.log",
        "python.ssl-module-unavailable",
        2,
    ),
    (
        "holdout-r12/python-environment/z-transformers-t5-no-torch-c.log",
        "python.lazy-import-inner-missing",
        9,
    ),
    (
        "holdout-r12/container-image/y-openwebui-helm-ghcr-image-pull-timeout.log",
        "container.kubelet-pull-failed",
        2,
    ),
    (
        "holdout-r12/container-image/aa-csi-baremetal-busybox-imagepullbackoff.log",
        "container.kubelet-pull-failed",
        7,
    ),
    (
        "holdout-r12/container-image/y-opea-vllm-latest-nonroot-python3-not-found.log",
        "container.entrypoint-not-found",
        1,
    ),
    ("holdout-r12/container-image/z-pyxis-enroot-nvcr-pytorch-import.log", "container.image-pull-failed", 8),
    (
        "holdout-r12/container-image/z-pytorch-translate-docker-pull-unauthorized.log",
        "container.pull-stream-refused",
        26,
    ),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


# (the lazy wrapper's line, the inner ImportError's str() below it, where it is quoted from): the inner line answers
LAZY_IMPORT_INNER = [
    pytest.param(
        "RuntimeError: Failed to import transformers.models.t5.modeling_t5 because of the following error (look up to "
        "see its traceback):",
        "No module named 'torch._C'",
        id="transformers-no-torch-c",
    ),
    pytest.param(
        "RuntimeError: Failed to import transformers.integrations.peft because of the following error (look up to see "
        "its traceback):",
        "cannot import name 'EncoderDecoderCache' from 'transformers' (/usr/lib/python3/transformers/__init__.py)",
        id="transformers-name-missing",
    ),
]


@pytest.mark.parametrize(("wrapper", "inner"), LAZY_IMPORT_INNER)
def test_the_lazy_import_answer_is_the_inner_error(
    wrapper: str, inner: str, rule_pack: RuleSet, tmp_path: Path
) -> None:
    """huggingface/transformers src/transformers/utils/import_utils.py _LazyModule._get_module (and diffusers' copy)
    prints the inner ImportError's str() on the line below its RuntimeError; that line names the cause."""
    log = write_log(tmp_path, [wrapper, inner])
    assert root_cause_of(log, rule_pack) == ("python.lazy-import-inner-missing", 2)
