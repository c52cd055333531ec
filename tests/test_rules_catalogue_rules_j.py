"""The ninth round's catalogue of the serving engines' own failures (serving-gpu-memory, max-model-len,
serving-engine-internal): each rule reads every rendering.

Every rendering is quoted from the cited upstream source (its message text, with the prefixes a CI log adds: vLLM's
process tag and header, SGLang's `[stamp TP0]`, docker compose's `service  | `, Go's `level=ERROR … error="…"`, the
TensorRT-LLM tag), a cited public thread or a real train log; the near misses are lines that look alike but must not
name that cause (healthy start-up reports, a scheduler's retry, docs and source text quoted in a log). The real logs
check the rule and line that win. See docs/accuracy.md, "Ninth round".
"""

from __future__ import annotations

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import TRAIN, catalogue_tests
from tests.support.rulebook import root_cause_of

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # serving-gpu-memory: vLLM's start-up budget checks (vllm/v1/worker/gpu_worker.py, vllm/v1/core/kv_cache_utils.py,
    # V0's vllm/worker/worker.py), as each process and container prefixes them
    (
        "vllm.startup-free-memory",
        "(EngineCore_DP0 pid=7) ERROR 11-28 08:14:19 [core.py:718] ValueError: Free memory on device (31.44/79.19 GiB)"
        " on startup is less than desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or"
        " reduce GPU memory used by other processes.",
        "vllm v1/worker/gpu_worker.py (0.10), EngineCore's prefix",
    ),
    (
        "vllm.startup-free-memory",
        "[rank0]: ValueError: Free memory on device cuda:0 (3.21/4.0 GiB) on startup is less than desired GPU memory"
        " utilization (0.85, 3.4 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
        "vllm v1/worker/utils.py request_memory (0.11+, with the device), torch's rank prefix",
    ),
    (
        "vllm.no-memory-for-cache-blocks",
        "vllm-1  | ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when"
        " initializing the engine.",
        "vllm worker/worker.py raise_if_cache_size_invalid (V0), docker compose prefix (vllm-project/vllm#10439)",
    ),
    (
        "vllm.no-memory-for-cache-blocks",
        "(EngineCore_DP0 pid=1234) ERROR 03-10 08:07:20 [core.py:708] ValueError: No available memory for the cache"
        " blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
        "vllm v1/core/kv_cache_utils.py check_enough_kv_cache_memory",
    ),
    (
        "vllm.no-memory-for-cache-blocks",
        "RuntimeError: No enough gpu memory for kv cache.",
        "lmdeploy lmdeploy/pytorch/engine/executor/base.py",
    ),
    (
        "vllm.kv-cache-too-small",
        "[vllm]                 | ERROR 06-02 05:17:18 [core.py:387] ValueError: To serve at least one request with the"
        " models's max seq len (40960), (10.00 GiB KV cache is needed, which is larger than the available KV cache"
        " memory (1.25 GiB). Based on the available memory,  Try increasing `gpu_memory_utilization` or decreasing"
        " `max_model_len` when initializing the engine.",
        "vllm v1/core/kv_cache_utils.py (0.9, the estimate left empty), a compose log quoted in a public thread",
    ),
    (
        "vllm.kv-cache-too-small",
        "ValueError: To serve at least one request with the model's max seq len (4096), (1.0 GiB KV cache is needed,"
        " which is larger than the available KV cache memory (0.58 GiB). Based on the available memory, the estimated"
        " maximum model length is 2368. Try increasing `gpu_memory_utilization` (which also controls CPU memory on the"
        " CPU backend) or decreasing `max_model_len` when initializing the engine.",
        "vllm v1/core/kv_cache_utils.py (0.11+ wording), quoted from a public benchmark log",
    ),
    (
        "vllm.kv-cache-too-small",
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in"
        " KV cache (27296). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the"
        " engine.",
        "vllm worker/worker.py raise_if_cache_size_invalid (V0), quoted in a public README",
    ),
    # SGLang's pool, at start-up and while serving (srt/model_executor/model_runner.py, srt/mem_cache/common.py)
    (
        "sglang.not-enough-memory",
        "[2026-02-24 20:21:58 TP0] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
        " Current value: mem_fraction_static=0.1",
        "sglang srt/model_executor/model_runner.py (newer wording)",
    ),
    (
        "sglang.not-enough-memory",
        "RuntimeError: Not enought memory. Please try to increase --mem-fraction-static.",
        "sglang srt model_runner.py init_memory_pool as of early 2024 (the typo)",
    ),
    (
        "sglang.not-enough-memory",
        "[2025-09-12 03:14:15 TP0] Prefill out of memory. Try to lower your batch size.",
        "sglang srt/mem_cache/common.py alloc_for_extend (logger.error)",
    ),
    (
        "sglang.not-enough-memory",
        "RuntimeError: Decode out of memory. Try to lower your batch size.",
        "sglang srt/mem_cache/common.py alloc_for_decode",
    ),
    # TGI's warmup (server/text_generation_server/models/flash_causal_lm.py), relayed by the v3 router
    (
        "tgi.not-enough-memory",
        "2024-11-13T08:00:00.000000Z ERROR warmup{max_input_length=4095 max_prefill_tokens=4096}:warmup:"
        " text_generation_router_v3::client: backends/v3/src/client/mod.rs:45: Server error: Not enough memory to"
        " handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`",
        "text-generation-inference flash_causal_lm.py warmup, the router's tracing line",
    ),
    (
        "trtllm.kv-cache-too-small",
        "[TensorRT-LLM][ERROR] maxTokensInPagedKvCache must be large enough to process at least 1 sequence to"
        " completion (i.e. must be larger than beam_width * tokensPerBlock * maxBlocksPerSeq)",
        "TensorRT-LLM cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp (NVIDIA/TensorRT-LLM#542)",
    ),
    # Ollama's own budget (llm/server.go, to May 2026), as the CLI, the API and the server log show it
    (
        "ollama.model-exceeds-memory",
        "Error: 500 Internal Server Error: model requires more system memory (37.9 GiB) than is available (14.2 GiB)",
        "ollama llm/server.go, the CLI's rendering",
    ),
    (
        "ollama.model-exceeds-memory",
        'HTTP 500: {"error":"model requires more system memory (8.4 GiB) than is available (7.7 GiB)"}',
        "ollama llm/server.go, the API body a client reports",
    ),
    (
        "ollama.model-exceeds-memory",
        'time=2025-03-01T10:11:12.345Z level=ERROR source=sched.go:455 msg="error loading llama server"'
        ' error="memory layout cannot be allocated with num_gpu = 99"',
        "ollama llm/server.go (memory layout), server/sched.go's slog line",
    ),
    (
        "mlc.insufficient-gpu-memory",
        "tvm._ffi.base.TVMError: Insufficient GPU memory error: The available single GPU memory is 6060.000 MB, which"
        " is less than the sum of model weight size (4308.000 MB) and temporary buffer size (2048.000 MB).",
        "mlc-llm cpp/serve/config.cc EstimateMemoryUsageOnMode",
    ),
    (
        "llamacpp.kv-cache-alloc-failed",
        [
            "0.06.650.537 E llama_init_from_model: failed to initialize the context: failed to allocate buffer for"
            " kv cache",
            "0.06.650.549 E srv    load_model: failed to create_context with model 'x.gguf'",
        ],
        "llama.cpp src/llama-context.cpp / tools/server (llama-server's log format)",
    ),
    (
        "llamacpp.kv-cache-alloc-failed",
        [
            "ggml_aligned_malloc: insufficient memory (attempted to allocate 36000.00 MB)",
            "alloc_tensor_range: failed to allocate CPU buffer of size 37748736000",
            "llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache",
        ],
        "llama.cpp ggml/src/ggml.c, ggml-alloc.c, src/llama-context.cpp (an Ollama run asking a 256k context)",
    ),
    (
        "llamacpp.kv-cache-alloc-failed",
        "llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache",
        "llama.cpp llama.cpp (2024)",
    ),
    (
        "vllm.swap-space-too-large",
        "(EngineCore_DP0 pid=88) ERROR 05-25 00:00:22 [core.py:708] ValueError: Too large swap space. 32.00 GiB out"
        " of the 31.26 GiB total CPU memory is allocated for the swap space.",
        "vllm config/cache.py CacheConfig.verify_with_parallel_config, EngineCore's prefix",
    ),
    # max-model-len: the start-up check (vllm config/model.py _get_and_verify_max_len; sglang configs/model_config.py)
    (
        "vllm.max-model-len-too-large",
        "ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len"
        " (max_position_embeddings=32768 or model_max_length=None in model's config.json). This may lead to incorrect"
        " model outputs or CUDA errors. To allow overriding this maximum, set the env var"
        " VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
        "vllm config.py (0.6-0.9), quoted in a public issue digest",
    ),
    (
        "vllm.max-model-len-too-large",
        "(APIServer pid=53)   Value error, User-specified max_model_len (65536) is greater than the derived"
        " max_model_len (max_position_embeddings=32768.0 or model_max_length=None in model's config.json). To allow"
        " overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
        "vllm config/model.py (0.10+, pydantic's Value error line)",
    ),
    (
        "vllm.max-model-len-too-large",
        "ValueError: User-specified max_model_len (25000) is greater than the derived max_model_len (None=4096 in"
        " model's config.json). This may lead to incorrect model outputs or CUDA errors. Make sure the value is correct"
        " and within the model context size.",
        "vllm config.py (0.4-0.5), quoted in a public README",
    ),
    # serving-engine-internal
    (
        "vllm.frontend-handshake-timeout",
        "(EngineCore_DP3 pid=412) ERROR 08-01 10:11:12 [core.py:700] RuntimeError: Did not receive response from"
        " front-end process within 5 minutes",
        "vllm v1/engine/core.py startup_handshake (HANDSHAKE_TIMEOUT_MINS)",
    ),
    (
        "vllm.frontend-handshake-timeout",
        "(ApiServer_0 pid=10466) TimeoutError: Timed out waiting for engines to send initial message on input socket.",
        "vllm v1/engine/core_client.py MPClient (VLLM_ENGINE_READY_TIMEOUT_S), a multi-API-server start",
    ),
    (
        "vllm.cuda-graph-capture-failed",
        [
            "Exception: Capture cuda graph failed: CUDA error: operation not permitted when stream is capturing",
            "[2025-06-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        ],
        "sglang srt/model_executor/cuda_graph_runner.py",
    ),
    (
        "trtllm.mpi-world-mismatch",
        "[TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp"
        " (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:99)",
        "TensorRT-LLM cpp/tensorrt_llm/runtime/worldConfig.cpp (v0.5-0.10)",
    ),
]

# (rule that must not answer, lines)
NEAR_MISSES = [
    pytest.param(
        "sglang.not-enough-memory",
        [
            "[2025-03-07 15:52:26 TP0] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.9998 -> 1.0000"
        ],
        id="sglang-decode-retract-info",
    ),
    pytest.param(
        "ollama.model-exceeds-memory",
        [
            'time=2025-03-01T10:11:12.345Z level=INFO source=server.go:1070 msg="model requires more system memory than'
            ' is currently available, evicting a model to make space" required="5.1 GiB" free="3.9 GiB"'
        ],
        id="ollama-evicts-and-retries",
    ),
    pytest.param(
        "llamacpp.kv-cache-alloc-failed",
        [
            "alloc_tensor_range: failed to allocate CPU buffer of size 7851737088",
            "llama_model_load: error loading model: unable to allocate CPU buffer",
        ],
        id="llamacpp-weights-not-kv",
    ),
    pytest.param(
        "llamacpp.kv-cache-alloc-failed",
        [
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 5000.00 MiB on device 0: cudaMalloc failed: out of"
            " memory",
            "llama_kv_cache: failed to allocate buffer for kv cache",
        ],
        id="llamacpp-cuda-oom-first-is-gpu-oom",
    ),
    pytest.param(
        "vllm.swap-space-too-large",
        [
            "WARNING 05-25 00:00:22 config.py:405] Possibly too large swap space. 8.00 GiB out of the 15.40 GiB total"
            " CPU memory is allocated for the swap space."
        ],
        id="vllm-swap-space-warning",
    ),
    pytest.param(
        "vllm.frontend-handshake-timeout",
        [
            "(EngineCore_DP0 pid=4411) INFO 02-24 20:21:58 [core.py:644] Waiting for init message from front-end."
        ],
        id="vllm-handshake-waiting-info",
    ),
    pytest.param(
        "mlc.insufficient-gpu-memory",
        [
            "[10:11:12] /workspace/mlc-llm/cpp/serve/config.cc:722: Estimated total single GPU memory usage: 5873.157 MB"
            " (Parameters: 4308.133 MB. KVCache: 1067.516 MB. Temporary buffer: 497.508 MB). The actual usage might be"
            " slightly larger than the estimated number."
        ],
        id="mlc-estimate-info",
    ),
    pytest.param(
        "vllm.kv-cache-too-small",
        [
            "(EngineCore_DP0 pid=7) INFO 11-28 08:14:19 [kv_cache_utils.py:1087] GPU KV cache size: 123,456 tokens",
            "(EngineCore_DP0 pid=7) INFO 11-28 08:14:19 [kv_cache_utils.py:1091] Maximum concurrency for 4,096 tokens"
            " per request: 30.14x",
        ],
        id="vllm-kv-cache-report",
    ),
    pytest.param(
        "vllm.max-model-len-too-large",
        [
            "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context"
            " length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion)."
            " Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'param': None,"
            " 'code': 400}"
        ],
        id="request-longer-than-context-is-not-the-server-config",
    ),
]

# (train log, rule that wins, its line)
REAL_LOGS = [
    (
        "holdout-r5/serving-gpu-memory/g-qanything-vllm-zero-gpu-blocks.log",
        "vllm.no-memory-for-cache-blocks",
        1,
    ),
    ("holdout-r5/serving-engine-internal/g-trtllm-backend-mpisize-tp-pp.log", "trtllm.mpi-world-mismatch", 5),
    (
        "holdout-r3/serving-gpu-memory/c-vllm-compose-enginecore-request-memory-3090.log",
        "vllm.startup-free-memory",
        14,
    ),
    ("holdout-r2/serving-gpu-memory/vllm-qwen-max-seq-len-above-kv-cache.log", "vllm.kv-cache-too-small", 2),
    (
        "holdout-r2/max-model-len/vllm-serve-qwen72b-max-model-len-above-derived.log",
        "vllm.max-model-len-too-large",
        1,
    ),
    ("dev-engines/serving-gpu-memory/sglang-not-enough-memory-spec-4330.log", "sglang.not-enough-memory", 3),
]

# Serving logs of train labelled unexplained (a wrapper alone, an engine's own assertion, a request longer than the
# context): none of this family's rules may name a cause there.
UNEXPLAINED_SERVING_LOGS = [
    "holdout-r5/unexplained/g-ollama-runner-terminated-journal.log",
    "holdout-r5/unexplained/g-mlc-chat-android-kv-cache-ctor-args.log",
    "holdout-r5/unexplained/g-ollama-ggml-cpu-get-rows-assert-sigsegv.log",
    "holdout-r5/unexplained/g-sglang-long-input-max-new-tokens-typeerror.log",
    "dev/unexplained/prompt-longer-than-max-model-len-gui-r1-32.log",
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


@pytest.mark.parametrize("name", UNEXPLAINED_SERVING_LOGS)
def test_the_serving_rules_stay_silent_on_unexplained_serving_logs(name: str, rule_pack: RuleSet) -> None:
    assert root_cause_of(TRAIN / name, rule_pack) == (None, None)
