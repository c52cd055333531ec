"""The eighth round's catalogue of serving-engine, model-conversion and GPU-runtime renderings: each rule reads every one.

Every rendering is quoted from the cited upstream source or real log (tests/corpus/train/holdout-r4, cited in
SOURCES-holdout-r4a.md / -r4b.md) and is the format the rule's comment cites; the near misses are lines that look
alike but must not name that cause. The real logs check the rule and line that win. See docs/accuracy.md, "Eighth
round".
"""

from __future__ import annotations

from tests.support.catalogue import catalogue_tests

_BUILD_FAILED = "[01/08/2024-17:57:31] [TRT-LLM] [E] Engine building failed, please check the error log."

# (rule that must answer on line 1, the lines, where they are quoted from)
CATALOGUE = [
    (
        "trtllm.build-out-of-memory",
        [
            "[11/10/2023-06:30:40] [TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::140] Error Code 2:"
            " OutOfMemory (no further information)",
            _BUILD_FAILED,
        ],
        "NVIDIA/TensorRT-LLM#346 (TensorRT 9.x builder)",
    ),
    (
        "trtllm.build-out-of-memory",
        [
            "[11/10/2023-06:30:40] [TRT] [E] 2: [globWriter.cpp::makeResizableGpuMemory::423] Error Code 2:"
            " OutOfMemory (no further information)",
            "AssertionError: Failed to build engine for rank 0",
        ],
        "NVIDIA/TensorRT-LLM#346 with the older examples/*/build.py wrapper (TensorRT-LLM 0.5)",
    ),
    (
        "trtllm.builder-error",
        [
            "[04/19/2024-14:11:41] [TRT] [E] 10: [optimizer.cpp::computeCosts::4048] Error Code 10: Internal Error"
            " (Could not find any implementation for node {ForeignNode[LLaMAForCausalLM/transformer/layers/0/"
            "input_layernorm/CONSTANT_1]}.)",
            _BUILD_FAILED,
        ],
        "NVIDIA/TensorRT-LLM#1478",
    ),
    (
        "trtllm.builder-error",
        [
            "[06/22/2024-21:01:54] [E] Error[9]: [pluginV2Builder.cpp::reportPluginError::23] Error Code 9: Internal"
            " Error (/SCA_IndexRebatch_TRT: could not find any supported formats consistent with input/output data"
            " types)",
            "[06/22/2024-21:01:54] [E] Engine could not be created from network",
            "[06/22/2024-21:01:54] [E] Building engine failed",
        ],
        "a trtexec build log (TensorRT 8.5.1) quoted in a public repository",
    ),
    (
        "ray.worker-died-system-error",
        [
            "2021-12-31 01:53:03,200\tWARNING worker.py:1245 -- A worker died or was killed while executing a task by"
            " an unexpected system error. To troubleshoot the problem, check the logs for the dead worker.",
            "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
        ],
        "werner-duvaud/muzero-general#182 (ray python/ray/_private/worker.py, Ray 1.x)",
    ),
    (
        "ray.worker-died-system-error",
        [
            "ray.exceptions.WorkerCrashedError: The worker died unexpectedly while executing this task. Check"
            " python-core-worker-*.log files for more information.",
        ],
        "ray python/ray/exceptions.py WorkerCrashedError",
    ),
    (
        "model.gguf-convert-unsupported",
        ["NotImplementedError: The rope scaling type longrope is not supported yet"],
        "ggml-org/llama.cpp#8259 (convert-hf-to-gguf.py set_gguf_parameters, 2024)",
    ),
    (
        "model.gguf-convert-unsupported",
        ["Exception: failed to guess 'n_ctx'. This model is unknown or unsupported."],
        "ggml-org/llama.cpp#4768 (convert.py Params.loadHFTransformerJson, 2023)",
    ),
    (
        "model.gguf-convert-unsupported",
        ["NotImplementedError: Architecture 'Qwen3NextForCausalLM' not supported!"],
        "ggml-org/llama.cpp convert_hf_to_gguf.py ModelBase.from_model_architecture",
    ),
    (
        "model.gguf-convert-unsupported",
        ["NotImplementedError: BPE pre-tokenizer was not recognized - update get_vocab_base_pre()"],
        "ggml-org/llama.cpp convert_hf_to_gguf.py get_vocab_base_pre",
    ),
    (
        "model.gguf-load-unsupported",
        [
            "llama_model_load: error loading model: error loading model vocabulary: unknown pre-tokenizer type:"
            " 'qwen2'",
            "llama_load_model_from_file: exception loading model",
        ],
        "an ollama server log quoted in a public repository (llama.cpp src/llama-vocab.cpp)",
    ),
    (
        "model.gguf-load-unsupported",
        [
            "llama_model_load: error loading model: done_getting_tensors: wrong number of tensors; expected 81, got 58"
        ],
        "a llama-server log quoted in a public repository (llama.cpp src/llama-model-loader.cpp)",
    ),
    (
        "torch.cuda-oom",
        [
            "**RuntimeError: CUDA out of memory.** Tried to allocate 1.71 GiB (GPU 0; 31.72 GiB total capacity;"
            " 23.58 GiB already allocated; 1.58 GiB free; 29.08 GiB reserved in total by PyTorch)",
        ],
        "facebookresearch/detectron2#1563 (a Markdown paste of torch < 1.13's message)",
    ),
    (
        "harness.response-mismatch",
        ['[ retriever ] Content does not match the expected result: {"detail":"Not Found"}'],
        "opea-project/GenAIComps tests (validate_service's content branch, rendered)",
    ),
    (
        "harness.response-mismatch",
        ["[ embedding ] HTTP status is not 200. Received status was 500"],
        "opea-project/GenAIComps tests (validate_service's status branch, rendered)",
    ),
]

# (rule that must not answer, lines that look alike)
NEAR_MISSES = [
    # the builder recovers from an allocation failure while profiling tactics: the build went on
    (
        "trtllm.build-out-of-memory",
        [
            "[11/10/2023-06:30:40] [TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::140] Error Code 2:"
            " OutOfMemory (no further information)",
            "[11/10/2023-06:31:40] [TRT-LLM] [I] Serializing engine to ./trt_engines/fp16/1-gpu/rank0.engine...",
        ],
    ),
    (
        "trtllm.builder-error",
        [
            "[11/10/2023-06:30:40] [TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime"
            " (out of memory)",
            "[11/10/2023-06:31:40] [TRT-LLM] [I] Engine generation completed in 61.2 sec.",
        ],
    ),
    (
        "ray.worker-died-system-error",
        ["The actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT"],
    ),
    ("model.gguf-load-unsupported", ["llm_load_vocab: missing pre-tokenizer type, using: 'default'"]),
    # curl's 000 is no answer at all (a connection failure), not a wrong response
    ("harness.response-mismatch", ["[ tgi-service ] HTTP status is not 200. Received status was 000"]),
    (
        "model.gguf-convert-unsupported",
        [
            "WARNING:hf-to-gguf:** WARNING: The BPE pre-tokenizer was not recognized!",
            "INFO:hf-to-gguf:Set model parameters",
        ],
    ),
]

# (train log, rule, line)
REAL_LOGS = [
    (
        "holdout-r4/gpu-oom/e-trtllm-build-llama13b-error-code-2-outofmemory.log",
        "trtllm.build-out-of-memory",
        3,
    ),
    ("holdout-r4/gpu-oom/f-detectron2-kaist-markdown-bold-oom.log", "torch.cuda-oom", 11),
    (
        "holdout-r4/serving-engine-internal/e-trtllm-mixtral-build-plugin-scratch-space.log",
        "trtllm.builder-error",
        5,
    ),
    ("holdout-r4/ray-died/f-muzero-reanalyse-worker-died.log", "ray.worker-died-system-error", 1),
    ("holdout-r4/wrong-response/f-opea-docsum-empty-response-body.log", "harness.response-mismatch", 7),
    (
        "holdout-r4/model-config/e-llamacpp-convert-bloom-failed-guess-nctx.log",
        "model.gguf-convert-unsupported",
        12,
    ),
    (
        "holdout-r4/model-config/e-llamacpp-convert-phi3-longrope-unsupported.log",
        "model.gguf-convert-unsupported",
        11,
    ),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
