"""Deterministic vLLM / NVIDIA Dynamo style process logs, so scenario fixtures look like a nightly GPU job."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

ANSI_RESET = "\x1b[0;0m"
PROGRESS_BAR = "\u2588" * 10
ANSI_DIM = "\x1b[2m"
ANSI_PLAIN_RESET = "\x1b[0m"
PROCESS_COLOURS = {
    "APIServer": "\x1b[1;36m",
    "EngineCore": "\x1b[1;33m",
    "Worker": "\x1b[1;35m",
}
LEVEL_COLOURS = {"INFO": "\x1b[32m", "WARN": "\x1b[33m", "ERROR": "\x1b[31m", "DEBUG": "\x1b[34m"}
NIGHTLY_START = datetime(2025, 11, 28, 8, 14, 3)
VLLM_VERSION = "0.11.0"
SITE_PACKAGES = "/opt/dynamo/venv/lib/python3.12/site-packages"
PYTHON_LIB = "/usr/lib/python3.12"
WRAPPER_ENGINE_CORE = (
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"
)
ENCODER_FREE_MEMORY_ERROR = (
    "ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU memory "
    "utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
    "processes."
)

Frame = tuple[str, int, str, str]
"""A traceback frame: file path, line number, function name, source line."""


@dataclass(frozen=True)
class Process:
    """A vLLM process tag such as ``(EngineCore_DP0 pid=6940)``, optionally ANSI-coloured like a TTY run."""

    name: str
    pid: int
    coloured: bool = False

    def tag(self) -> str:
        """Return the tag text that vLLM puts before every line of this process."""
        plain = f"({self.name} pid={self.pid})"
        if not self.coloured:
            return plain + " "
        colour = next(
            (code for key, code in PROCESS_COLOURS.items() if self.name.startswith(key)), "\x1b[1;36m"
        )
        return f"{colour}{plain}{ANSI_RESET} "


class LogWriter:
    """Accumulates harness-prefixed log lines with a seeded clock, so every run produces identical text."""

    def __init__(self, seed: str, *, harness_prefix: str = "BASH", start: datetime = NIGHTLY_START) -> None:
        self.random = random.Random(seed)
        self.clock = start
        self.prefix = f"[{harness_prefix}] " if harness_prefix else ""
        self.lines: list[str] = []

    def advance(self, low: float = 0.0, high: float = 0.4) -> None:
        """Move the fake clock forward by a random number of seconds."""
        self.clock += timedelta(seconds=self.random.uniform(low, high))

    def emit(self, text: str) -> None:
        """Append text, prefixing each physical line the way `sed -u "s/^/[BASH] /"` does."""
        for line in text.split("\n"):
            self.lines.append(self.prefix + line)

    def vllm_stamp(self) -> str:
        """Return the current time in vLLM's ``MM-DD HH:MM:SS`` format."""
        return self.clock.strftime("%m-%d %H:%M:%S")

    def vllm(self, process: Process | None, level: str, source: str, message: str) -> None:
        """Append a vLLM logger line, tagged with its process when it comes from a child process."""
        self.advance(0.0, 0.25)
        tag = process.tag() if process else ""
        for index, part in enumerate(message.split("\n")):
            self.emit(f"{tag}{level} {self.vllm_stamp()} [{source}] {part}" if index == 0 else f"{tag}{part}")

    def raw(self, process: Process | None, text: str) -> None:
        """Append an unformatted line (print, tqdm, multiprocessing traceback) with the process tag only."""
        tag = process.tag() if process else ""
        for part in text.split("\n"):
            self.emit(f"{tag}{part}")

    def dynamo(self, level: str, target: str, message: str, *, coloured: bool = False) -> None:
        """Append a Dynamo runtime line in its Rust tracing format (``<iso time>Z  INFO target: message``)."""
        self.advance(0.0, 0.2)
        stamp = self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond:06d}Z"
        padded = level.rjust(5)
        if coloured:
            colour = LEVEL_COLOURS.get(level, "")
            self.emit(
                f"{ANSI_DIM}{stamp}{ANSI_PLAIN_RESET} {colour}{padded}{ANSI_PLAIN_RESET} "
                f"{ANSI_DIM}{target}{ANSI_PLAIN_RESET}{ANSI_DIM}:{ANSI_PLAIN_RESET} {message}"
            )
        else:
            self.emit(f"{stamp} {padded} {target}: {message}")

    def shell(self, command: str) -> None:
        """Append a ``set -x`` trace line of the launch script."""
        self.emit(f"+ {command}")

    def traceback(
        self,
        frames: Sequence[Frame],
        exception: str,
        *,
        process: Process | None = None,
        logged_at: str | None = None,
        line_tag: str = "",
    ) -> None:
        """Append a Python traceback, raw (multiprocessing) or through a logger (``logged_at=source``)."""
        body = ["Traceback (most recent call last):"]
        for path, number, function, source in frames:
            body.append(f'  File "{path}", line {number}, in {function}')
            body.append(f"    {source}")
        body.extend(exception.split("\n"))
        for text in body:
            if logged_at is not None:
                self.vllm(process, "ERROR", logged_at, text)
            else:
                self.raw(process, f"{line_tag}{text}")

    def text(self) -> str:
        """Return the whole log with a trailing newline, as the harness writes it to disk."""
        return "\n".join(self.lines) + "\n"


def site(path: str) -> str:
    """Return the absolute path of a module in the image's virtualenv."""
    return f"{SITE_PACKAGES}/{path}"


@dataclass(frozen=True)
class ModelSpec:
    """What a launch script serves: Hugging Face id, architecture and sizes shown in the logs."""

    repository: str
    architecture: str
    shards: int
    weights_gib: float
    max_model_len: int


QWEN3_0_6B = ModelSpec("Qwen/Qwen3-0.6B", "Qwen3ForCausalLM", 1, 1.12, 40960)
QWEN3_VL_2B = ModelSpec("Qwen/Qwen3-VL-2B-Instruct", "Qwen3VLForConditionalGeneration", 1, 3.96, 16384)
LLAMA_3_1_8B = ModelSpec("meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM", 4, 14.99, 16384)


def launch_preamble(writer: LogWriter, script: str, commands: Sequence[str], *, devices: str = "0") -> None:
    """Write the launch script's xtrace and environment banner, as the dynamo harness captures it."""
    writer.shell(f"source /workspace/examples/backends/vllm/launch/{script}")
    writer.shell("set -e")
    writer.shell("trap 'echo Cleaning up...; kill 0' EXIT")
    writer.emit("DYNAMO_HOME=/workspace")
    writer.emit(f"HF_HOME=/models  CUDA_VISIBLE_DEVICES={devices}  DYN_LOG=info")
    for command in commands:
        writer.shell(command)


def frontend_startup(writer: LogWriter, *, coloured: bool) -> None:
    """Write the Dynamo frontend's startup lines (etcd, NATS, HTTP service)."""
    lease = writer.random.getrandbits(64)
    writer.dynamo(
        "INFO", "dynamo_runtime::distributed", "Initializing distributed runtime", coloured=coloured
    )
    writer.dynamo(
        "INFO",
        "dynamo_runtime::transports::etcd",
        f"etcd lease {lease:x} granted, ttl=10s",
        coloured=coloured,
    )
    writer.dynamo(
        "INFO",
        "dynamo_runtime::transports::nats",
        "Connected to NATS server nats://localhost:4222",
        coloured=coloured,
    )
    writer.dynamo(
        "INFO",
        "dynamo_llm::http::service::service_v2",
        'Starting HTTP service on: 0.0.0.0:8000 address="0.0.0.0:8000"',
        coloured=coloured,
    )
    writer.dynamo(
        "INFO",
        "dynamo_llm::discovery::watcher",
        "Watching for new models in namespace 'dynamo'",
        coloured=coloured,
    )


def vllm_engine_startup(
    writer: LogWriter,
    api: Process,
    core: Process,
    model: ModelSpec,
    *,
    extra_arguments: str = "",
    tensor_parallel: int = 1,
) -> None:
    """Write vLLM's startup up to the point where the EngineCore starts loading the model."""
    writer.vllm(None, "INFO", "__init__.py:216", "Automatically detected platform cuda.")
    writer.vllm(api, "INFO", "api_server.py:1805", f"vLLM API server version {VLLM_VERSION}")
    writer.vllm(
        api,
        "INFO",
        "utils.py:233",
        f"non-default args: {{'model': '{model.repository}', 'max_model_len': {model.max_model_len}, "
        f"'enforce_eager': False, 'tensor_parallel_size': {tensor_parallel}, 'enable_prefix_caching': True"
        f"{extra_arguments}}}",
    )
    hugging_face_downloads(writer, api, model)
    writer.vllm(api, "INFO", "model.py:547", f"Resolved architecture: {model.architecture}")
    writer.raw(api, "`torch_dtype` is deprecated! Use `dtype` instead!")
    writer.vllm(api, "INFO", "model.py:1510", f"Using max model len {model.max_model_len}")
    writer.vllm(
        api, "INFO", "scheduler.py:205", "Chunked prefill is enabled with max_num_batched_tokens=8192."
    )
    writer.vllm(core, "INFO", "core.py:644", "Waiting for init message from front-end.")
    writer.vllm(
        core,
        "INFO",
        "core.py:77",
        f"Initializing a V1 LLM engine (v{VLLM_VERSION}) with config: model='{model.repository}', "
        f"speculative_config=None, tokenizer='{model.repository}', skip_tokenizer_init=False, "
        "tokenizer_mode=auto, "
        f"revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len={model.max_model_len}, "
        f"download_dir=None, load_format=auto, tensor_parallel_size={tensor_parallel}, "
        "pipeline_parallel_size=1, "
        "data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, "
        "kv_cache_dtype=auto, device_config=cuda, seed=0, enable_prefix_caching=True, "
        "chunked_prefill_enabled=True, "
        "compilation_config={'level': 3, 'cudagraph_mode': [2, 1], 'use_inductor': True}",
    )
    writer.vllm(
        core,
        "INFO",
        "parallel_state.py:1208",
        "rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
    )
    writer.vllm(
        core,
        "WARNING",
        "topk_topp_sampler.py:66",
        "FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k "
        "sampling. For the best performance, please install FlashInfer.",
    )


def hugging_face_downloads(writer: LogWriter, api: Process, model: ModelSpec) -> None:
    """Write the tqdm lines huggingface_hub prints while fetching a model into the ``HF_HOME`` cache."""
    files = ["config.json", "generation_config.json", "tokenizer_config.json", "tokenizer.json", "vocab.json"]
    files += [f"model-{index:05d}-of-{model.shards:05d}.safetensors" for index in range(1, model.shards + 1)]
    for name in files:
        size = writer.random.uniform(0.5, 900.0)
        speed = writer.random.uniform(5, 120)
        writer.raw(
            api, f"{name}: 100%|{PROGRESS_BAR}| {size:.1f}k/{size:.1f}k [00:00<00:00, {speed:.1f}MB/s]"
        )


def vllm_model_loading(writer: LogWriter, core: Process, model: ModelSpec) -> None:
    """Write weight loading with tqdm progress, including one carriage-return joined progress line."""
    writer.vllm(core, "INFO", "gpu_model_runner.py:2602", f"Starting to load model {model.repository}...")
    writer.vllm(core, "INFO", "gpu_model_runner.py:2634", "Loading model from scratch...")
    writer.vllm(core, "INFO", "cuda.py:366", "Using Flash Attention backend on V1 engine.")
    writer.vllm(core, "INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
    total = model.shards
    updates = []
    for done in range(total + 1):
        percent = int(100 * done / total)
        speed = writer.random.uniform(0.8, 3.4)
        elapsed = f"00:{done * 2:02d}"
        updates.append(
            f"Loading safetensors checkpoint shards: {percent:3d}% Completed | {done}/{total} "
            f"[{elapsed}<00:{(total - done) * 2:02d}, {speed:.2f}it/s]"
        )
    writer.raw(core, "\r".join(updates))
    writer.raw(core, "")
    writer.vllm(
        core,
        "INFO",
        "default_loader.py:267",
        f"Loading weights took {writer.random.uniform(0.3, 6.0):.2f} seconds",
    )
    writer.vllm(
        core,
        "INFO",
        "gpu_model_runner.py:2653",
        f"Model loading took {model.weights_gib:.4f} GiB and {writer.random.uniform(0.8, 9.0):.6f} seconds",
    )


def vllm_compile_and_warmup(writer: LogWriter, core: Process, api: Process, model: ModelSpec) -> None:
    """Write torch.compile, KV cache sizing, CUDA graph capture and the ready banner."""
    digest = f"{writer.random.getrandbits(40):010x}"
    writer.vllm(
        core,
        "INFO",
        "backends.py:548",
        f"Using cache directory: /root/.cache/vllm/torch_compile_cache/{digest}/rank_0_0/backbone "
        "for vLLM's torch.compile",
    )
    writer.vllm(
        core,
        "INFO",
        "backends.py:559",
        f"Dynamo bytecode transform time: {writer.random.uniform(3, 9):.2f} s",
    )
    writer.vllm(core, "INFO", "backends.py:197", "Cache the graph for dynamic shape for later use")
    writer.raw(
        core,
        f"{site('torch/_inductor/utils.py')}:1436: UserWarning: TensorFloat32 tensor cores for "
        "float32 matrix multiplication available but not enabled.",
    )
    for graph in range(writer.random.randint(4, 9)):
        writer.vllm(
            core,
            "DEBUG",
            "backends.py:132",
            f"Compiling a graph for dynamic shape takes {writer.random.uniform(0.3, 1.9):.2f} s "
            f"(graph {graph})",
        )
    writer.vllm(
        core, "INFO", "monitor.py:34", f"torch.compile takes {writer.random.uniform(8, 30):.2f} s in total"
    )
    kv_gib = writer.random.uniform(9.0, 15.5)
    writer.vllm(core, "INFO", "gpu_worker.py:298", f"Available KV cache memory: {kv_gib:.2f} GiB")
    tokens = int(kv_gib * 9350)
    writer.vllm(core, "INFO", "kv_cache_utils.py:1087", f"GPU KV cache size: {tokens:,} tokens")
    writer.vllm(
        core,
        "INFO",
        "kv_cache_utils.py:1091",
        f"Maximum concurrency for {model.max_model_len:,} tokens per request: "
        f"{tokens / model.max_model_len:.2f}x",
    )
    writer.raw(
        core,
        f"Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|{PROGRESS_BAR}| "
        f"67/67 [00:03<00:00, {writer.random.uniform(15, 30):.2f}it/s]",
    )
    writer.raw(
        core,
        f"Capturing CUDA graphs (decode, FULL): 100%|{PROGRESS_BAR}| "
        f"35/35 [00:01<00:00, {writer.random.uniform(20, 40):.2f}it/s]",
    )
    writer.vllm(
        core,
        "INFO",
        "gpu_model_runner.py:3480",
        f"Graph capturing finished in {writer.random.randint(2, 6)} secs, took 0.52 GiB",
    )
    writer.vllm(
        core,
        "INFO",
        "core.py:210",
        "init engine (profile, create kv cache, warmup model) took "
        f"{writer.random.uniform(12, 40):.2f} seconds",
    )
    writer.vllm(
        api,
        "INFO",
        "loggers.py:147",
        f"Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {tokens // 16}",
    )
    writer.vllm(api, "INFO", "api_server.py:1600", "Supported_tasks: ['generate']")


def dynamo_worker_registration(writer: LogWriter, model: ModelSpec, component: str) -> None:
    """Write the Dynamo vLLM worker registering its endpoint and the frontend discovering the model."""
    writer.dynamo(
        "INFO", "dynamo.vllm.main", f"Registering {component} endpoint 'dynamo.{component}.generate'"
    )
    writer.dynamo(
        "INFO",
        "dynamo_runtime::component::endpoint",
        f"Endpoint 'generate' ready, instance id {writer.random.getrandbits(48):x}",
    )
    writer.dynamo(
        "INFO",
        "dynamo_llm::discovery::watcher",
        f'added model model_name="{model.repository}" namespace=dynamo',
    )
    writer.dynamo(
        "WARN",
        "dynamo_llm::model_express",
        f"ModelExpress download failed (401 Unauthorized) for {model.repository}, "
        "falling back to HuggingFace Hub",
    )


def request_traffic(writer: LogWriter, api: Process, count: int) -> None:
    """Write access-log and throughput lines for a batch of test requests."""
    for _ in range(count):
        port = writer.random.randint(32768, 60999)
        path = writer.random.choice(
            ["/v1/chat/completions", "/v1/completions", "/v1/chat/completions", "/v1/models"]
        )
        writer.dynamo(
            "INFO",
            "dynamo_llm::http::service::openai",
            f"request completed method=POST path={path} status=200 client=127.0.0.1:{port} "
            f"request_id={writer.random.getrandbits(64):016x} elapsed_ms={writer.random.randint(12, 900)}",
        )
        if writer.random.random() < 0.3:
            writer.vllm(
                api,
                "INFO",
                "loggers.py:123",
                f"Engine 000: Avg prompt throughput: {writer.random.uniform(0, 400):.1f} tokens/s, "
                f"Avg generation throughput: {writer.random.uniform(5, 90):.1f} tokens/s, "
                f"Running: {writer.random.randint(0, 3)} reqs, Waiting: 0 reqs, "
                f"GPU KV cache usage: {writer.random.uniform(0, 4):.1f}%, "
                f"Prefix cache hit rate: {writer.random.uniform(0, 60):.1f}%",
            )


def background_chatter(writer: LogWriter, count: int, *, worker: Process | None = None) -> None:
    """Write unremarkable runtime noise: keepalives, discovery polls, metrics and compiler warnings."""
    choices = [
        lambda: writer.dynamo(
            "DEBUG",
            "dynamo_runtime::transports::etcd",
            f"keep-alive lease {writer.random.getrandbits(64):x} ttl=10",
        ),
        lambda: writer.dynamo(
            "INFO", "dynamo_llm::discovery::watcher", "Waiting for model instances to register, 0 ready"
        ),
        lambda: writer.dynamo(
            "DEBUG",
            "dynamo_runtime::pipeline::network::tcp::server",
            f"tcp stream server listening on 10.0.{writer.random.randint(0, 9)}."
            f"{writer.random.randint(2, 250)}:{writer.random.randint(30000, 40000)}",
        ),
        lambda: writer.dynamo(
            "DEBUG",
            "dynamo_runtime::metrics",
            f"uptime_seconds={writer.random.randint(10, 400)} nats_msgs_in={writer.random.randint(0, 9000)}",
        ),
        lambda: writer.dynamo(
            "INFO", "dynamo_runtime::system_status_server", "GET /health 200 (0 ready endpoints)"
        ),
    ]
    if worker is not None:
        choices += [
            lambda: writer.vllm(worker, "DEBUG", "core.py:733", "EngineCore waiting for work."),
            lambda: writer.vllm(
                None,
                "DEBUG",
                "utils.py:812",
                "Waiting for 1 local, 0 remote core engine proc(s) to start. "
                f"({writer.random.randint(1, 60)}s)",
            ),
            lambda: writer.vllm(
                worker,
                "DEBUG",
                "shm_broadcast.py:466",
                "No available shared memory broadcast block found in "
                f"{writer.random.randint(60, 600)} second.",
            ),
        ]
    for _ in range(count):
        writer.random.choice(choices)()


def graceful_shutdown(writer: LogWriter, api: Process) -> None:
    """Write the SIGTERM sequence the harness triggers when a passing test tears the deployment down."""
    writer.emit("Cleaning up...")
    writer.vllm(api, "INFO", "launcher.py:101", "Shutting down FastAPI HTTP server.")
    writer.dynamo("INFO", "dynamo_runtime::runtime", "Received SIGTERM, shutting down gracefully")
    writer.dynamo("INFO", "dynamo_runtime::transports::etcd", "Revoked etcd lease, deregistered instance")
    writer.raw(
        None,
        "[rank0]:[W1128 08:19:44.106251154 ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
        "destroy_process_group() was not called before program exit, which can leak resources.",
    )
    writer.emit("Terminated")


def healthy_deployment_log(config_name: str, model: ModelSpec, script: str, *, requests: int = 80) -> str:
    """Return the log of a deployment that starts, serves the test's requests and shuts down cleanly."""
    writer = LogWriter(f"healthy:{config_name}")
    api = Process("APIServer", writer.random.randint(4000, 9000), coloured=True)
    core = Process("EngineCore_DP0", api.pid + writer.random.randint(300, 900), coloured=True)
    launch_preamble(
        writer,
        script,
        [
            "python -m dynamo.frontend --http-port 8000 &",
            f"python -m dynamo.vllm --model {model.repository} --connector none",
        ],
    )
    frontend_startup(writer, coloured=False)
    vllm_engine_startup(writer, api, core, model)
    background_chatter(writer, 60)
    vllm_model_loading(writer, core, model)
    background_chatter(writer, 40, worker=core)
    vllm_compile_and_warmup(writer, core, api, model)
    dynamo_worker_registration(writer, model, "backend")
    request_traffic(writer, api, requests)
    background_chatter(writer, 50, worker=core)
    graceful_shutdown(writer, api)
    return writer.text()


ENGINE_CORE_FRAMES: tuple[Frame, ...] = (
    (site("vllm/v1/engine/core.py"), 699, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)"),
    (
        site("vllm/v1/engine/core.py"),
        498,
        "__init__",
        "super().__init__(vllm_config, executor_class, log_stats,",
    ),
    (site("vllm/v1/engine/core.py"), 83, "__init__", "self.model_executor = executor_class(vllm_config)"),
    (site("vllm/executor/executor_base.py"), 54, "__init__", "self._init_executor()"),
    (site("vllm/executor/uniproc_executor.py"), 54, "_init_executor", 'self.collective_rpc("init_device")'),
    (
        site("vllm/executor/uniproc_executor.py"),
        83,
        "collective_rpc",
        "return [run_method(self.driver_worker, method, args, kwargs)]",
    ),
    (site("vllm/utils/__init__.py"), 3122, "run_method", "return func(*args, **kwargs)"),
    (site("vllm/worker/worker_base.py"), 259, "init_device", "self.worker.init_device()  # type: ignore"),
    (
        site("vllm/v1/worker/gpu_worker.py"),
        187,
        "init_device",
        "self.requested_memory = request_memory(init_snapshot, self.cache_config)",
    ),
    (site("vllm/v1/worker/utils.py"), 413, "request_memory", "raise ValueError("),
)

ENCODE_WORKER_WRAPPER_FRAMES: tuple[Frame, ...] = (
    (f"{PYTHON_LIB}/runpy.py", 198, "_run_module_as_main", "return _run_code(code, main_globals, None,"),
    (f"{PYTHON_LIB}/runpy.py", 88, "_run_code", "exec(code, run_globals)"),
    (site("dynamo/vllm/__main__.py"), 7, "<module>", "main()"),
    (site("dynamo/vllm/main.py"), 1102, "main", "uvloop.run(worker())"),
    (site("uvloop/__init__.py"), 96, "run", "return __asyncio.run("),
    (site("dynamo/vllm/main.py"), 118, "worker", "await init_multimodal_encode_worker(runtime, config)"),
    (
        site("dynamo/vllm/multimodal_handlers/encode_worker_handler.py"),
        91,
        "__init__",
        "self.vision_model = load_vision_model(self.model)",
    ),
    (site("dynamo/vllm/multimodal_utils/model.py"), 64, "load_vision_model", "llm = LLM("),
    (site("vllm/entrypoints/llm.py"), 297, "__init__", "self.llm_engine = LLMEngine.from_engine_args("),
    (site("vllm/v1/engine/llm_engine.py"), 177, "from_engine_args", "return cls(vllm_config=vllm_config,"),
    (
        site("vllm/v1/engine/core_client.py"),
        450,
        "__init__",
        "with launch_core_engines(vllm_config, executor_class,",
    ),
    (f"{PYTHON_LIB}/contextlib.py", 144, "__exit__", "next(self.gen)"),
    (site("vllm/v1/engine/utils.py"), 732, "launch_core_engines", "wait_for_engine_startup("),
    (site("vllm/v1/engine/utils.py"), 785, "wait_for_engine_startup", "raise RuntimeError("),
)


def encoder_memory_log(config_name: str, *, video: bool = False, rank_tagged: bool = False) -> str:
    """Return the OPS-4445 log: the encode worker's engine fails the free-memory precheck, then a wrapper."""
    writer = LogWriter(f"encoder-memory:{config_name}")
    script = "disagg_multimodal_e_pd.sh" if "_e_pd_" in config_name else "disagg_multimodal_epd.sh"
    prefill = Process("APIServer", writer.random.randint(4000, 6000), coloured=True)
    prefill_core = Process("EngineCore_DP0", prefill.pid + writer.random.randint(200, 600), coloured=True)
    encoder_core = Process("EngineCore_DP0", 6940, coloured=not video)
    launch_preamble(
        writer,
        script,
        [
            "python -m dynamo.frontend --http-port 8000 &",
            f"python -m dynamo.vllm --model {QWEN3_VL_2B.repository} --multimodal-worker --enforce-eager "
            "--kv-cache-memory-bytes 4096361000 &",
            f"python -m dynamo.vllm --model {QWEN3_VL_2B.repository} --multimodal-encode-worker"
            + (" --enable-video" if video else ""),
        ],
    )
    frontend_startup(writer, coloured=True)
    vllm_engine_startup(
        writer, prefill, prefill_core, QWEN3_VL_2B, extra_arguments=", 'kv_cache_memory_bytes': 4096361000"
    )
    background_chatter(writer, 80, worker=prefill_core)
    writer.dynamo(
        "INFO", "dynamo.vllm.main", "Starting multimodal encode worker for Qwen/Qwen3-VL-2B-Instruct"
    )
    writer.vllm(
        None,
        "INFO",
        "model.py:64",
        "Loading Qwen-VL vision tower with vLLM (mm_encoder_only=True, enforce_eager=True)",
    )
    writer.vllm(
        None,
        "INFO",
        "utils.py:233",
        "non-default args: {'model': 'Qwen/Qwen3-VL-2B-Instruct', 'max_model_len': 1, 'enforce_eager': True, "
        "'kv_cache_memory_bytes': 67108864, 'mm_encoder_only': True}",
    )
    if video:
        writer.vllm(
            None,
            "WARNING",
            "processing.py:1019",
            "Video input detected; using fps=2 and max_frames=32 from the processor config.",
        )
    writer.vllm(encoder_core, "INFO", "core.py:644", "Waiting for init message from front-end.")
    writer.vllm(
        encoder_core,
        "INFO",
        "core.py:77",
        f"Initializing a V1 LLM engine (v{VLLM_VERSION}) with config: model='Qwen/Qwen3-VL-2B-Instruct', "
        "max_seq_len=1, enforce_eager=True, mm_encoder_only=True",
    )
    vllm_model_loading(writer, prefill_core, QWEN3_VL_2B)
    writer.vllm(encoder_core, "ERROR", "core.py:708", "EngineCore failed to start.")
    if rank_tagged:
        writer.traceback(ENGINE_CORE_FRAMES, ENCODER_FREE_MEMORY_ERROR, line_tag="[rank0]: ")
    else:
        writer.traceback(
            ENGINE_CORE_FRAMES, ENCODER_FREE_MEMORY_ERROR, process=encoder_core, logged_at="core.py:708"
        )
        writer.raw(encoder_core, "Process EngineCore_DP0:")
        writer.traceback(
            (
                (f"{PYTHON_LIB}/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
                (
                    f"{PYTHON_LIB}/multiprocessing/process.py",
                    108,
                    "run",
                    "self._target(*self._args, **self._kwargs)",
                ),
                *ENGINE_CORE_FRAMES,
            ),
            ENCODER_FREE_MEMORY_ERROR,
            process=encoder_core,
        )
    background_chatter(writer, 60, worker=prefill_core)
    vllm_compile_and_warmup(writer, prefill_core, prefill, QWEN3_VL_2B)
    writer.vllm(
        prefill_core,
        "WARNING",
        "gpu_worker.py:311",
        "Memory usage increased by 2.48 GiB during startup; another process may be using this GPU.",
    )
    background_chatter(writer, 150, worker=prefill_core)
    writer.traceback(ENCODE_WORKER_WRAPPER_FRAMES, WRAPPER_ENGINE_CORE)
    return writer.text()


def tensor_parallel_nccl_log(config_name: str) -> str:
    """Return a TP=2 log where worker rank 1 hits an NCCL system error, then the wrappers."""
    writer = LogWriter(f"nccl:{config_name}")
    api = Process("APIServer", writer.random.randint(4000, 9000), coloured=True)
    core = Process("EngineCore_DP0", api.pid + 211, coloured=True)
    ranks = [Process(f"Worker_TP{rank}", core.pid + 40 + rank, coloured=True) for rank in range(2)]
    launch_preamble(
        writer,
        "agg.sh",
        [
            "python -m dynamo.frontend --http-port 8000 &",
            f"python -m dynamo.vllm --model {LLAMA_3_1_8B.repository} --tensor-parallel-size 2",
        ],
        devices="0,1",
    )
    frontend_startup(writer, coloured=False)
    vllm_engine_startup(writer, api, core, LLAMA_3_1_8B, tensor_parallel=2)
    background_chatter(writer, 90)
    for rank in ranks:
        writer.vllm(
            rank,
            "INFO",
            "parallel_state.py:1208",
            f"rank {rank.name[-1]} in world size 2 is assigned as DP rank 0, PP rank 0, "
            f"TP rank {rank.name[-1]}, EP rank 0",
        )
        writer.vllm(rank, "INFO", "pynccl.py:103", "vLLM is using nccl==2.26.2")
    writer.raw(
        ranks[0], "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Hq3kx1 (size 9637888)"
    )
    writer.vllm(ranks[1], "ERROR", "multiproc_executor.py:597", "WorkerProc failed to start.")
    nccl_frames: tuple[Frame, ...] = (
        (
            site("vllm/v1/executor/multiproc_executor.py"),
            571,
            "worker_main",
            "worker = WorkerProc(*args, **kwargs)",
        ),
        (site("vllm/v1/executor/multiproc_executor.py"), 437, "__init__", "self.worker.init_device()"),
        (
            site("vllm/v1/worker/gpu_worker.py"),
            201,
            "init_device",
            "init_worker_distributed_environment(self.vllm_config, self.rank,",
        ),
        (
            site("vllm/distributed/parallel_state.py"),
            1082,
            "init_distributed_environment",
            "torch.distributed.barrier()",
        ),
        (site("torch/distributed/c10d_logger.py"), 81, "wrapper", "return func(*args, **kwargs)"),
        (site("torch/distributed/distributed_c10d.py"), 4811, "barrier", "work = group.barrier(opts=opts)"),
    )
    writer.traceback(
        nccl_frames,
        "torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error. \n"
        "Last error:\n"
        "Error while creating shared memory segment /dev/shm/nccl-Hq3kx1 (size 9637888)",
        process=ranks[1],
        logged_at="multiproc_executor.py:597",
    )
    background_chatter(writer, 45)
    writer.vllm(core, "ERROR", "core.py:708", "EngineCore failed to start.")
    writer.traceback(
        (
            *ENGINE_CORE_FRAMES[:4],
            (
                site("vllm/v1/executor/multiproc_executor.py"),
                106,
                "_init_executor",
                "self.workers = WorkerProc.wait_for_ready(unready_workers)",
            ),
            (site("vllm/v1/executor/multiproc_executor.py"), 509, "wait_for_ready", "raise e from None"),
        ),
        "Exception: WorkerProc initialization failed due to an exception in a background process. "
        "See stack trace for root cause.",
        process=core,
        logged_at="core.py:708",
    )
    writer.vllm(core, "INFO", "multiproc_executor.py:558", "Parent process exited, terminating worker")
    writer.traceback(
        (
            (
                site("vllm/entrypoints/openai/api_server.py"),
                1953,
                "run_server",
                "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)",
            ),
            (site("vllm/v1/engine/utils.py"), 785, "wait_for_engine_startup", "raise RuntimeError("),
        ),
        WRAPPER_ENGINE_CORE,
        process=api,
    )
    background_chatter(writer, 20)
    return writer.text()


def gated_repo_log(config_name: str, model: ModelSpec) -> str:
    """Return a log where loading the model's config hits a Hugging Face gated-repo 401."""
    writer = LogWriter(f"gated:{config_name}")
    request_id = f"Root=1-6929a{writer.random.getrandbits(28):07x}-{writer.random.getrandbits(96):024x}"
    url = f"https://huggingface.co/{model.repository}/resolve/main/config.json"
    launch_preamble(
        writer,
        "agg.sh",
        [
            "python -m dynamo.frontend --http-port 8000 &",
            f"python -m dynamo.vllm --model {model.repository} --pipeline-parallel-size 2",
        ],
        devices="0,1",
    )
    frontend_startup(writer, coloured=False)
    background_chatter(writer, 140)
    writer.vllm(None, "INFO", "__init__.py:216", "Automatically detected platform cuda.")
    writer.dynamo("WARN", "dynamo.vllm.args", "HF_TOKEN is not set; gated models will fail to download")
    writer.traceback(
        (
            (
                site("huggingface_hub/utils/_http.py"),
                409,
                "hf_raise_for_status",
                "response.raise_for_status()",
            ),
            (
                site("requests/models.py"),
                1026,
                "raise_for_status",
                "raise HTTPError(http_error_msg, response=self)",
            ),
        ),
        f"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: {url}",
    )
    writer.emit("")
    writer.emit("The above exception was the direct cause of the following exception:")
    writer.emit("")
    writer.traceback(
        (
            (site("transformers/utils/hub.py"), 479, "cached_files", "hf_hub_download("),
            (
                site("huggingface_hub/file_download.py"),
                1010,
                "hf_hub_download",
                "return _hf_hub_download_to_cache_dir(",
            ),
            (
                site("huggingface_hub/file_download.py"),
                1533,
                "_raise_on_head_call_error",
                "raise head_call_error",
            ),
            (
                site("huggingface_hub/utils/_http.py"),
                426,
                "hf_raise_for_status",
                "raise _format(GatedRepoError, message, response) from e",
            ),
        ),
        f"huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: {request_id})\n\n"
        f"Cannot access gated repo for url {url}.\n"
        f"Access to model {model.repository} is restricted. You must have access to it and be "
        "authenticated to access it. Please log in.",
    )
    writer.emit("")
    writer.emit("The above exception was the direct cause of the following exception:")
    writer.emit("")
    writer.traceback(
        (
            (site("dynamo/vllm/main.py"), 1102, "main", "uvloop.run(worker())"),
            (site("vllm/engine/arg_utils.py"), 1155, "create_model_config", "return ModelConfig("),
            (site("transformers/utils/hub.py"), 543, "cached_files", "raise OSError("),
        ),
        f"OSError: You are trying to access a gated repo.\nMake sure to have access to it at https://huggingface.co/{model.repository}.\n"
        f"401 Client Error. (Request ID: {request_id})",
    )
    background_chatter(writer, 60)
    writer.emit("Cleaning up...")
    return writer.text()


def frontend_port_in_use_log(config_name: str) -> str:
    """Return the frontend's ``python.log.txt`` where binding port 8000 fails with EADDRINUSE."""
    writer = LogWriter(f"frontend:{config_name}", harness_prefix="PYTHON")
    writer.dynamo("INFO", "dynamo_runtime::distributed", "Initializing distributed runtime")
    writer.dynamo(
        "INFO", "dynamo_runtime::transports::nats", "Connected to NATS server nats://localhost:4222"
    )
    background_chatter(writer, 40)
    writer.dynamo("INFO", "dynamo.frontend.main", "Starting HTTP frontend on 0.0.0.0:8000")
    writer.traceback(
        (
            (
                f"{PYTHON_LIB}/runpy.py",
                198,
                "_run_module_as_main",
                "return _run_code(code, main_globals, None,",
            ),
            (site("dynamo/frontend/__main__.py"), 4, "<module>", "main()"),
            (site("dynamo/frontend/main.py"), 377, "main", "uvloop.run(async_main())"),
            (site("dynamo/frontend/main.py"), 361, "async_main", 'await run_input(runtime, "http", engine)'),
            (
                f"{PYTHON_LIB}/asyncio/base_events.py",
                1584,
                "create_server",
                "raise OSError(err.errno, msg) from None",
            ),
        ),
        "OSError: [Errno 98] Address already in use",
    )
    writer.dynamo("INFO", "dynamo_runtime::runtime", "Runtime shutdown complete")
    return writer.text()


def health_check_timeout_log(config_name: str) -> str:
    """Return a worker log that is healthy itself but never sees the frontend answer the health check."""
    writer = LogWriter(f"health-timeout:{config_name}")
    api = Process("APIServer", writer.random.randint(4000, 9000))
    core = Process("EngineCore_DP0", api.pid + 301)
    launch_preamble(
        writer,
        "disagg.sh",
        [
            f"python -m dynamo.vllm --model {QWEN3_0_6B.repository} --is-prefill-worker &",
            f"python -m dynamo.vllm --model {QWEN3_0_6B.repository}",
        ],
        devices="0,1",
    )
    vllm_engine_startup(writer, api, core, QWEN3_0_6B)
    vllm_model_loading(writer, core, QWEN3_0_6B)
    vllm_compile_and_warmup(writer, core, api, QWEN3_0_6B)
    writer.dynamo("INFO", "dynamo.vllm.main", "Registering backend endpoint 'dynamo.backend.generate'")
    for attempt in range(1, 101):
        writer.dynamo(
            "WARN",
            "dynamo_runtime::transports::etcd",
            f"No frontend instance registered in namespace 'dynamo' yet (check {attempt})",
        )
        if attempt % 3 == 0:
            background_chatter(writer, 2, worker=core)
    writer.emit(
        "RuntimeError: TIMEOUT: Check URL: http://localhost:8000/health failed after 300s (timeout=300s)"
    )
    writer.emit("Terminated")
    return writer.text()


def request_plane_error_log(config_name: str) -> str:
    """Return a log with a novel failure no rule knows: the worker's request handler raises a KeyError, exit 1.

    (Until issue 13 this was a Rust panic; panics now have their own rule, `rust.panic`.)
    """
    writer = LogWriter(f"panic:{config_name}")
    api = Process("APIServer", writer.random.randint(4000, 9000), coloured=True)
    core = Process("EngineCore_DP0", api.pid + 407, coloured=True)
    launch_preamble(
        writer,
        "agg_router.sh",
        [
            "python -m dynamo.frontend --http-port 8000 --router-mode kv &",
            f"python -m dynamo.vllm --model {QWEN3_0_6B.repository} --migration-limit 3",
        ],
        devices="0,1",
    )
    frontend_startup(writer, coloured=True)
    vllm_engine_startup(writer, api, core, QWEN3_0_6B)
    vllm_model_loading(writer, core, QWEN3_0_6B)
    vllm_compile_and_warmup(writer, core, api, QWEN3_0_6B)
    dynamo_worker_registration(writer, QWEN3_0_6B, "backend")
    request_traffic(writer, api, 70)
    writer.dynamo(
        "WARN",
        "dynamo_runtime::pipeline::network::egress::push_router",
        "Worker stream ended early, migrating request (1/3)",
    )
    background_chatter(writer, 40, worker=core)
    writer.emit("")
    writer.traceback(
        [
            (
                site("dynamo/vllm/handlers.py"),
                231,
                "generate",
                "async for res in self._generate_token_mode(request, context):",
            ),
            (
                site("dynamo/vllm/handlers.py"),
                312,
                "_generate_token_mode",
                'prompt = TokensPrompt(prompt_token_ids=request["token_ids"])',
            ),
        ],
        "KeyError: 'token_ids'",
    )
    writer.dynamo(
        "WARN",
        "dynamo_runtime::pipeline::network::ingress::push_handler",
        "generate handler raised; closing the stream",
    )
    writer.emit("Cleaning up...")
    return writer.text()


def memory_profiling_race_log(config_name: str, attempt: int) -> str:
    """Return the retry scenario's log: attempt 1 loses the memory-profiling race, later attempts pass."""
    writer = LogWriter(f"profiling:{config_name}:{attempt}")
    api = Process("APIServer", writer.random.randint(4000, 9000), coloured=True)
    core = Process("EngineCore_DP0", api.pid + 122, coloured=True)
    launch_preamble(
        writer,
        "agg_router.sh",
        [
            "python -m dynamo.frontend --http-port 8000 --router-mode kv &",
            f"python -m dynamo.vllm --model {QWEN3_0_6B.repository} &",
            f"python -m dynamo.vllm --model {QWEN3_0_6B.repository}",
        ],
    )
    frontend_startup(writer, coloured=False)
    vllm_engine_startup(writer, api, core, QWEN3_0_6B)
    vllm_model_loading(writer, core, QWEN3_0_6B)
    if attempt > 1:
        vllm_compile_and_warmup(writer, core, api, QWEN3_0_6B)
        dynamo_worker_registration(writer, QWEN3_0_6B, "backend")
        request_traffic(writer, api, 60)
        graceful_shutdown(writer, api)
        return writer.text()
    background_chatter(writer, 90, worker=core)
    writer.vllm(core, "ERROR", "core.py:708", "EngineCore failed to start.")
    writer.traceback(
        (
            *ENGINE_CORE_FRAMES[:4],
            (
                site("vllm/v1/worker/gpu_worker.py"),
                263,
                "determine_available_memory",
                "assert self.init_snapshot.free_memory > free_gpu_memory, (",
            ),
        ),
        "AssertionError: Error in memory profiling. Initial free memory 21.4 GiB, "
        "current free memory 22.0 GiB. "
        "This happens when the GPU memory was not properly cleaned up before initializing the vLLM instance.",
        process=core,
        logged_at="core.py:708",
    )
    writer.traceback(
        ((site("vllm/v1/engine/utils.py"), 785, "wait_for_engine_startup", "raise RuntimeError("),),
        WRAPPER_ENGINE_CORE,
        process=api,
    )
    background_chatter(writer, 40)
    writer.emit("Cleaning up...")
    return writer.text()


def shared_server_header(config_name: str) -> tuple[LogWriter, Process]:
    """Start the module-scoped TP=2 server's log; tests append their traffic before teardown attaches it."""
    writer = LogWriter(f"shared:{config_name}")
    api = Process("APIServer", writer.random.randint(4000, 9000), coloured=True)
    core = Process("EngineCore_DP0", api.pid + 95, coloured=True)
    launch_preamble(
        writer,
        "agg.sh",
        [
            "python -m dynamo.frontend --http-port 8000 &",
            f"python -m dynamo.vllm --model {QWEN3_0_6B.repository} --tensor-parallel-size 2",
        ],
        devices="0,1",
    )
    frontend_startup(writer, coloured=False)
    vllm_engine_startup(writer, api, core, QWEN3_0_6B, tensor_parallel=2)
    background_chatter(writer, 40)
    vllm_model_loading(writer, core, QWEN3_0_6B)
    background_chatter(writer, 30, worker=core)
    vllm_compile_and_warmup(writer, core, api, QWEN3_0_6B)
    dynamo_worker_registration(writer, QWEN3_0_6B, "backend")
    return writer, api
