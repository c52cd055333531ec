"""Deterministic Allure-results artifacts of realistic vLLM/Dynamo CI logs for the benchmarks, cached by parameters.

Every test is failing (the worst case: every log byte has to be scanned). A share of the tests carries the
root-cause lines of one of several shipped rules somewhere in its log; every failing log ends with wrapper
errors. Each test's log is generated from its own seed in a pool of worker processes (one per core: the 5 GiB
size takes minutes, not an hour), and the zip is written with deflate (zlib's default level 6) in test order;
a worker holds one test's log at a time, and at most a few per worker wait to be written. Same parameters,
same bytes, whatever the number of cores.

Usage: python benchmarks/artifacts.py --size-mib 100 [--big-attachment-mib 200] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

GENERATOR_VERSION = 2  # 2: each test's log from its own seed, generated in parallel
MIB = 1 << 20
BLOCK_SIZE = MIB
TESTS_PER_GIB = 300
DEFAULT_CACHE_DIR = Path(__file__).resolve().parent / ".cache"
FIXED_DATE = (2026, 2, 24, 20, 0, 0)
CLOCK_START = 20 * 3600
WORDS = [
    "the",
    "model",
    "request",
    "token",
    "tokens",
    "prompt",
    "batch",
    "engine",
    "worker",
    "cache",
    "block",
    "memory",
    "stream",
    "chunk",
    "prefill",
    "decode",
    "router",
    "frontend",
    "endpoint",
    "instance",
    "lease",
    "namespace",
    "component",
    "runtime",
    "kv",
    "transfer",
    "layer",
    "attention",
    "head",
    "sequence",
    "length",
    "sampling",
    "temperature",
    "top_p",
    "response",
    "completion",
    "chat",
    "user",
    "assistant",
    "system",
    "message",
    "image",
    "video",
    "audio",
    "encoder",
    "vision",
    "tower",
    "adapter",
    "lora",
    "weight",
    "shard",
    "checkpoint",
    "config",
    "tokenizer",
    "vocabulary",
    "latency",
    "throughput",
    "queue",
    "pending",
    "running",
    "finished",
    "aborted",
    "scheduled",
    "preempted",
    "swapped",
    "metric",
    "counter",
    "gauge",
    "histogram",
    "bucket",
    "label",
    "value",
    "deploy",
    "deployment",
    "service",
    "pod",
    "node",
    "gpu",
    "cuda",
    "device",
    "rank",
    "world",
    "group",
    "port",
    "host",
    "address",
    "health",
    "ready",
    "alive",
    "probe",
    "retry",
    "timeout",
    "backoff",
    "connect",
    "disconnect",
    "publish",
    "subscribe",
    "event",
    "subject",
    "please",
    "describe",
    "summarize",
    "translate",
    "explain",
    "write",
    "story",
    "poem",
    "code",
    "function",
    "answer",
    "question",
    "weather",
    "capital",
    "city",
    "river",
    "mountain",
    "ocean",
    "forest",
    "history",
    "science",
    "music",
    "art",
    "picture",
    "colour",
    "number",
    "list",
    "table",
]
MODELS = (
    "Qwen/Qwen3-0.6B",
    "Qwen/Qwen3-VL-2B-Instruct",
    "meta-llama/Llama-3.1-8B-Instruct",
    "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
    "google/gemma-3-1b-it",
)
VLLM_MESSAGES = (
    (
        "loggers.py:123",
        "Engine 000: Avg prompt throughput: {f1:.1f} tokens/s, Avg generation throughput: "
        "{f2:.1f} tokens/s, Running: {n1} reqs, Waiting: 0 reqs, GPU KV cache usage: {f3:.1f}%, Prefix cache hit "
        "rate: {f4:.1f}%",
    ),
    ("gpu_model_runner.py:2010", "Model loading took {f3:.4f} GiB and {f2:.6f} seconds"),
    ("core.py:199", "init engine (profile, create kv cache, warmup model) took {f2:.2f} seconds"),
    ("kv_cache_utils.py:829", "GPU KV cache size: {n2} tokens"),
    ("kv_cache_utils.py:833", "Maximum concurrency for 8,192 tokens per request: {f2:.2f}x"),
    ("gpu_worker.py:276", "Available KV cache memory: {f4:.2f} GiB"),
    (
        "backends.py:548",
        "Using cache directory: /root/.cache/vllm/torch_compile_cache/{hex} for vLLM's torch.compile",
    ),
    ("monitor.py:34", "torch.compile takes {f2:.2f} s in total"),
    (
        "parallel_state.py:1165",
        "rank {n1} in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
    ),
    ("default_loader.py:267", "Loading weights took {f2:.2f} seconds"),
    ("api_server.py:1611", "Starting vLLM API server 0 on http://0.0.0.0:{port}"),
    ("launcher.py:29", "Available routes are: /v1/chat/completions, Methods: POST"),
    (
        "logger.py:41",
        "Received request chatcmpl-{hex}: prompt: '<|im_start|>user\\n{words}<|im_end|>', "
        "params: SamplingParams(n=1, temperature={f5:.1f}, top_p=1.0, max_tokens={n1})",
    ),
    ("engine.py:310", "Added request chatcmpl-{hex}."),
)
VLLM_WARNINGS = (
    (
        "topk_topp_sampler.py:61",
        "FlashInfer is not available. Falling back to the PyTorch-native implementation "
        "of top-p & top-k sampling. For the best performance, please install FlashInfer.",
    ),
    (
        "config.py:1450",
        "Default sampling parameters have been overridden by the model's Hugging Face generation "
        "config recommended from the model creator.",
    ),
    ("cuda.py:92", "To see benefits of async output processing, enable CUDA graph."),
    (
        "scheduler.py:1101",
        "Sequence group {hex} is preempted by PreemptionMode.RECOMPUTE mode because there is not "
        "enough KV cache space. total_num_cumulative_preemption={n1}",
    ),
)
DYNAMO_TARGETS = (
    ("dynamo_runtime::component::endpoint", 'endpoint started endpoint="generate" instance_id={big}'),
    ("dynamo_runtime::pipeline::network::tcp::server", "tcp transport service on {ip}:{port}"),
    (
        "dynamo_llm::kv_router::scheduler",
        "selected worker worker_id={big} overlap_blocks={n1} new_blocks={n2} logit={f2:.3f}",
    ),
    (
        "dynamo_llm::http::service::openai",
        'request completed request_id="{uuid}" model="{model}" status=200 elapsed_ms={n2}',
    ),
    ("dynamo_runtime::transports::etcd", "lease keep-alive lease_id={big} ttl=10"),
    ("dynamo_llm::discovery::watcher", 'added model model_name="{model}" namespace="dynamo"'),
    ("dynamo_runtime::distributed", "nats client connected server=nats://localhost:4222"),
)
DYNAMO_LEVELS = (("INFO", "\x1b[32m"), ("DEBUG", "\x1b[34m"), ("WARN", "\x1b[33m"))
HARNESS_MESSAGES = (
    "tests.utils.managed_process - INFO - Health check passed: http://localhost:{port}/v1/models",
    "tests.utils.managed_process - INFO - Waiting for port {port} to be ready ({n1}s elapsed)",
    "tests.utils.client - INFO - Response 200 in {f2:.3f}s: {n1} completion tokens",
    "tests.serve.common - INFO - Payload check passed for {model}",
    "tests.utils.managed_process - DEBUG - Running: python -m dynamo.vllm --model {model} --gpu-memory-utilization "
    "0.{n3}",
)
PROGRESS_LINES = (
    "Loading safetensors checkpoint shards: {pct:3d}% Completed | {n3}/4 [00:0{n3}<00:01,  {f5:.2f}it/s]",
    "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): {pct:3d}%|{bar}| {n1}/67 [00:02<00:00, {f4:.2f}it/s]",
    "Processed prompts: {pct:3d}%|{bar}| {n1}/100 [00:0{n3}<00:00, {f4:.2f}it/s, est. speed input: {f2:.2f} toks/s]",
)
PYTEST_LINES = (
    "tests/serve/test_vllm.py::test_serve_deployment[{config}] PASSED                  [{pct:3d}%]",
    "tests/serve/test_dynamo_serve.py::test_router[{config}] PASSED                    [{pct:3d}%]",
    "---------------------------- live log call -----------------------------",
    "collected {n2} items / {n1} deselected / {n3} selected",
    "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0 -- /opt/dynamo/venv/bin/python",
    "rootdir: /workspace, configfile: pyproject.toml, plugins: allure-pytest-2.13.5, timeout-2.3.1, asyncio-0.24.0",
)
TRACEBACK_BLOCKS = (
    (
        "Traceback (most recent call last):",
        '  File "/opt/dynamo/venv/lib/python3.12/site-packages/aiohttp/client.py", line 703, in _request',
        "    conn = await self._connector.connect(",
        '  File "/usr/lib/python3.12/asyncio/tasks.py", line 520, in wait_for',
        "    return await fut",
        "asyncio.exceptions.CancelledError",
        "tests.utils.client - WARNING - Request cancelled, retrying in 1.0s",
    ),
    (
        "Traceback (most recent call last):",
        '  File "/workspace/tests/utils/client.py", line 88, in poll_metrics',
        "    payload = response.json()",
        '  File "/usr/lib/python3.12/json/decoder.py", line 355, in raw_decode',
        '    raise JSONDecodeError("Expecting value", s, err.value) from None',
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
        "tests.utils.client - WARNING - Metrics endpoint not ready, retrying",
    ),
)
NEAR_MISS_LINES = (
    "(EngineCore_DP0 pid={pid}) INFO {vdate} [gpu_worker.py:276] Free memory on device cuda:0 (21.9/22.03 GiB) on "
    "startup. Desired GPU memory utilization is (0.9, 19.83 GiB).",
    "(EngineCore_DP0 pid={pid}) INFO {vdate} [pynccl.py:70] vLLM is using nccl==2.26.2; set NCCL_DEBUG=INFO for details",
    "tests.utils.managed_process - INFO - Port {port} was in use by a previous test, picked another one",
    "(EngineCore_DP0 pid={pid}) INFO {vdate} [gpu_model_runner.py:3480] Graph capturing finished in 9 secs, took "
    "0.55 GiB; no CUDA out of memory risk at this batch size",
)


@dataclass(frozen=True, slots=True)
class Cause:
    """The root-cause lines of one shipped rule, as they appear in a log (format fields: pid, vdate)."""

    rule_id: str
    lines: tuple[str, ...]


CAUSES = (
    Cause(
        "vllm.startup-free-memory",
        (
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] EngineCore failed to start.",
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] Traceback (most recent call last):",
            '(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708]   File "/opt/dynamo/venv/lib/python3.12/site-'
            'packages/vllm/v1/worker/utils.py", line 413, in request_memory',
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708]     raise ValueError(",
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] ValueError: Free memory on device cuda:0 "
            "(19.5/22.03 GiB) on startup is less than desired GPU memory utilization (0.9, 19.83 GiB). Decrease GPU "
            "memory utilization or reduce GPU memory used by other processes.",
        ),
    ),
    Cause(
        "nccl.system-error",
        (
            "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
            "NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
            "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
            "error. ",
            "[rank1]: Last error:",
            "[rank1]: Error while creating shared memory segment /dev/shm/nccl-LeXlEJ (size 9637888)",
        ),
    ),
    Cause(
        "network.address-in-use",
        (
            "(APIServer pid={pid}) ERROR {vdate} [api_server.py:1632] OSError: [Errno 98] error while attempting to "
            "bind on address ('0.0.0.0', 8000): address already in use",
        ),
    ),
    Cause(
        "torch.cuda-oom",
        (
            "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
            "capacity of 22.03 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 20.81 "
            "GiB memory in use. Of the allocated memory 19.90 GiB is allocated by PyTorch, and 194.87 MiB is reserved "
            "by PyTorch but unallocated.",
        ),
    ),
    Cause(
        "hf.gated-repo",
        (
            "    raise _format(GatedRepoError, message, response) from e",
            "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-66f4b037-1bf3d7d219afbc904"
            "ee05694;5601d2c9-8fd8-4ed8-b38d-d8a432e1fa59)",
            "Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/"
            "config.json.",
            "Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have access to it and be "
            "authenticated to access it. Please log in.",
        ),
    ),
    Cause(
        "python.module-not-found",
        (
            "Traceback (most recent call last):",
            '  File "/opt/dynamo/venv/lib/python3.12/site-packages/dynamo/vllm/main.py", line 12, in <module>',
            "    from flashinfer import sampling",
            "ModuleNotFoundError: No module named 'flashinfer'",
        ),
    ),
    Cause(
        "machine.segfault",
        (
            "Fatal Python error: Segmentation fault",
            "",
            "Thread 0x00007f3c2d7fe640 (most recent call first):",
            '  File "/opt/dynamo/venv/lib/python3.12/site-packages/torch/cuda/graphs.py", line 88 in capture_end',
        ),
    ),
    Cause(
        "dynamo.etcd-unavailable",
        ("Exception: Unable to create lease. Check etcd server status at http://localhost:2379",),
    ),
    Cause(
        "vllm.kv-cache-too-small",
        (
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] ValueError: To serve at least one request with the "
            "model's max seq len (100000), (4.26 GiB KV cache is needed, which is larger than the available KV cache "
            "memory (4.25 GiB). Based on the available memory, the estimated maximum model length is 99808. Try "
            "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        ),
    ),
    Cause(
        "cuda.illegal-memory-access",
        (
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] RuntimeError: CUDA error: an illegal memory access "
            "was encountered",
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] CUDA kernel errors might be asynchronously "
            "reported at some other API call, so the stacktrace below might be incorrect.",
            "(EngineCore_DP0 pid={pid}) ERROR {vdate} [core.py:708] For debugging consider passing "
            "CUDA_LAUNCH_BLOCKING=1",
        ),
    ),
)
WRAPPERS = (
    (
        "(APIServer pid={pid}) ERROR {vdate} [core_client.py:602] Engine core proc EngineCore_DP0 died unexpectedly, "
        "shutting down client.",
        "(APIServer pid={pid}) RuntimeError: Engine core initialization failed. See root cause above. Failed core "
        "proc(s): {{}}",
    ),
    (
        "tests.utils.managed_process - ERROR - Main server process exited with code 1 while waiting for health check",
        "E   RuntimeError: Main server process exited with code 1 while waiting for health check",
    ),
    (
        "(APIServer pid={pid}) ERROR {vdate} [async_llm.py:480] AsyncLLM output_handler failed.",
        "(APIServer pid={pid}) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack "
        "trace (above) for the root cause.",
    ),
)
MESSAGES = (
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
    "RuntimeError: Main server process exited with code 1 while waiting for health check",
    "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
)


@dataclass(frozen=True, slots=True)
class ArtifactSpec:
    """What to generate: log bytes in total, test count (0 = scaled with size), one big attachment, seed."""

    size_mib: int
    tests: int = 0
    big_attachment_mib: int = 0
    cause_share: float = 0.6
    seed: int = 1234

    @property
    def test_count(self) -> int:
        """The number of tests: given, or about 300 per GiB of logs (at least 4)."""
        return self.tests or max(4, round(TESTS_PER_GIB * self.size_mib / 1024))

    @property
    def key(self) -> str:
        """The cache key: every parameter that changes the bytes."""
        share = round(self.cause_share * 100)
        return (
            f"allure-{self.size_mib}mib-{self.test_count}tests-big{self.big_attachment_mib}mib-"
            f"causes{share}-seed{self.seed}-v{GENERATOR_VERSION}"
        )


@dataclass(frozen=True, slots=True)
class Artifact:
    """A generated artifact on disk and what it holds."""

    path: Path
    spec: ArtifactSpec
    log_bytes: int
    zip_bytes: int
    expected: dict[str, str | None]
    largest_log_bytes: int

    @property
    def log_mib(self) -> float:
        """Uncompressed log MiB."""
        return self.log_bytes / MIB


class _LogWriter:
    """Generates one test's log: noise lines, the cause block part-way in, wrapper errors at the end."""

    def __init__(self, rng: random.Random, size: int, cause: Cause | None, index: int) -> None:
        self.rng = rng
        self.size = size
        self.cause = cause
        self.cause_at = int(size * (0.3 + 0.65 * rng.random())) if cause else -1
        self.clock = CLOCK_START + index * 97
        self.tick = 0
        self.pids = {name: 1000 + int(rng.random() * 60000) for name in ("api", "core", "worker")}
        self.colour = rng.random() < 0.4
        self.tracing_colour = rng.random() < 0.5
        self.config = f"{rng.choice(('agg', 'disagg', 'mm_e_pd', 'router'))}-{index}"
        self.model = rng.choice(MODELS)
        self.line_kinds: tuple[Callable[[], str], ...] = (
            self.vllm_info,
            self.vllm_warning,
            self.dynamo,
            self.harness,
            self.access,
            self.request_json,
            self.progress,
            self.pytest,
            self.traceback,
            self.near_miss,
        )
        self.weights = (34, 4, 26, 10, 14, 1.2, 5, 3, 0.3, 0.08)

    def blocks(self) -> Iterator[bytes]:
        """The log as encoded blocks of about BLOCK_SIZE bytes."""
        written = 0
        pending: list[str] = []
        pending_bytes = 0
        while written + pending_bytes < self.size:
            for kind in self.rng.choices(self.line_kinds, self.weights, k=256):
                text = kind()
                pending.append(text)
                pending_bytes += len(text) + 1
            if 0 <= self.cause_at <= written + pending_bytes:
                pending.extend(self.cause_lines())
                self.cause_at = -1
            if pending_bytes >= BLOCK_SIZE:
                block = ("\n".join(pending) + "\n").encode()
                written += len(block)
                pending, pending_bytes = [], 0
                yield block
        if self.cause_at >= 0:
            pending.extend(self.cause_lines())
        pending.extend(self.prefixed(line) for line in self.rng.choice(WRAPPERS))
        yield ("\n".join(pending) + "\n").encode()

    def cause_lines(self) -> list[str]:
        assert self.cause is not None
        return [self.prefixed(line) for line in self.cause.lines]

    def prefixed(self, line: str) -> str:
        return "[BASH] " + line.format(pid=self.pids["core"], vdate=self.vllm_date())

    def advance(self) -> int:
        self.tick += 1 + int(self.rng.random() * 40)
        return self.clock + self.tick // 1000

    def vllm_date(self) -> str:
        hours, rest = divmod(self.advance() % 86400, 3600)
        return f"11-28 {hours:02d}:{rest // 60:02d}:{rest % 60:02d}"

    def iso_time(self) -> str:
        seconds = self.advance()
        hours, rest = divmod(seconds % 86400, 3600)
        micros = int(self.rng.random() * 1_000_000)
        return f"2026-02-24T{hours:02d}:{rest // 60:02d}:{rest % 60:02d}.{micros:06d}Z"

    def fields(self) -> dict[str, object]:
        random_value = self.rng.random
        return {
            "f1": random_value() * 2000,
            "f2": random_value() * 100,
            "f3": random_value() * 40,
            "f4": random_value() * 100,
            "f5": random_value() * 2,
            "n1": int(random_value() * 64),
            "n2": int(random_value() * 500_000),
            "n3": 1 + int(random_value() * 4),
            "pct": int(random_value() * 101),
            "hex": f"{self.rng.getrandbits(64):016x}",
            "big": self.rng.getrandbits(62),
            "port": 8000 + int(random_value() * 2000),
            "ip": f"10.0.{int(random_value() * 255)}.{int(random_value() * 255)}",
            "uuid": uuid.UUID(int=self.rng.getrandbits(128)),
            "model": self.model,
            "config": self.config,
            "bar": "█" * int(random_value() * 10) + " " * 3,
            "words": " ".join(self.rng.choices(WORDS, k=4 + int(random_value() * 20))),
        }

    def tag(self, process: str) -> str:
        name = {"api": "APIServer", "core": "EngineCore_DP0", "worker": "Worker_TP0"}[process]
        text = f"({name} pid={self.pids[process]})"
        return f"\x1b[1;36m{text}\x1b[0;0m " if self.colour else f"{text} "

    def vllm_info(self) -> str:
        where, message = self.rng.choice(VLLM_MESSAGES)
        process = self.rng.choice(("api", "core", "core", "worker"))
        return (
            f"[BASH] {self.tag(process)}INFO {self.vllm_date()} [{where}] {message.format(**self.fields())}"
        )

    def vllm_warning(self) -> str:
        where, message = self.rng.choice(VLLM_WARNINGS)
        return (
            f"[BASH] {self.tag('core')}WARNING {self.vllm_date()} [{where}] {message.format(**self.fields())}"
        )

    def dynamo(self) -> str:
        target, message = self.rng.choice(DYNAMO_TARGETS)
        level, colour = self.rng.choices(DYNAMO_LEVELS, (80, 15, 5))[0]
        text = message.format(**self.fields())
        if self.tracing_colour:
            return (
                f"[BASH] \x1b[2m{self.iso_time()}\x1b[0m {colour}{level:>5}\x1b[0m \x1b[2m{target}\x1b[0m"
                f"\x1b[2m:\x1b[0m {text}"
            )
        return f"[BASH] {self.iso_time()} {level:>5} {target}: {text}"

    def harness(self) -> str:
        stamp = self.iso_time()
        return f"[PYTHON] {stamp[:10]} {stamp[11:19]},{stamp[20:23]} - {self.rng.choice(HARNESS_MESSAGES)}".format(
            **self.fields()
        )

    def access(self) -> str:
        fields = self.fields()
        path = self.rng.choice(
            ("/v1/chat/completions", "/v1/completions", "/health", "/metrics", "/v1/models")
        )
        return f'[BASH] {self.tag("api")}INFO:     127.0.0.1:{fields["n2"] % 60000} - "POST {path} HTTP/1.1" 200 OK'

    def request_json(self) -> str:
        rng = self.rng
        content = " ".join(rng.choices(WORDS, k=50 + int(rng.random() * rng.random() * 3000)))
        payload = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": content},
            ],
            "max_tokens": 50 + int(rng.random() * 500),
            "temperature": round(rng.random(), 2),
            "stream": rng.random() < 0.5,
            "nvext": {"ignore_eos": True, "annotations": ["request_id"]},
        }
        stamp = self.iso_time()
        return f"[PYTHON] {stamp[:10]} {stamp[11:19]} - tests.utils.client - DEBUG - Request: {json.dumps(payload)}"

    def progress(self) -> str:
        return f"[BASH] {self.rng.choice(PROGRESS_LINES).format(**self.fields())}"

    def pytest(self) -> str:
        return f"[PYTHON] {self.rng.choice(PYTEST_LINES).format(**self.fields())}"

    def traceback(self) -> str:
        return "\n".join(f"[PYTHON] {line}" for line in self.rng.choice(TRACEBACK_BLOCKS))

    def near_miss(self) -> str:
        fields = self.fields()
        return "[BASH] " + self.rng.choice(NEAR_MISS_LINES).format(
            pid=self.pids["core"], vdate=self.vllm_date(), port=fields["port"]
        )


def log_sizes(spec: ArtifactSpec, rng: random.Random) -> list[int]:
    """Bytes of each test's log: the big attachment first (if any), the rest varied around the mean."""
    total = spec.size_mib * MIB
    count = spec.test_count
    sizes: list[int] = []
    if spec.big_attachment_mib:
        big = spec.big_attachment_mib * MIB
        if big >= total or count < 2:
            raise ValueError(
                "the big attachment must be smaller than the artifact and leave room for other tests"
            )
        sizes.append(big)
        total -= big
        count -= 1
    weights = [0.3 + 1.4 * rng.random() for _ in range(count)]
    scale = total / sum(weights)
    sizes.extend(int(weight * scale) for weight in weights)
    return sizes


def _entry(name: str) -> zipfile.ZipInfo:
    """A deflated zip entry with a fixed date and plain file permissions (so the zip is byte-stable)."""
    info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


@dataclass(frozen=True, slots=True)
class _PlannedLog:
    """What a worker needs to generate one test's log."""

    index: int
    size: int
    cause: Cause | None
    seed: int


def _generate(planned: _PlannedLog) -> tuple[bytes, str]:
    """One test's whole log and its config name (a worker process's job)."""
    writer = _LogWriter(random.Random(planned.seed), planned.size, planned.cause, planned.index)
    return b"".join(writer.blocks()), writer.config


def write_artifact(path: Path, spec: ArtifactSpec, *, jobs: int | None = None) -> Artifact:
    """Write the artifact zip at `path`; the logs are generated by `jobs` processes (default: one per core)."""
    rng = random.Random(spec.seed)
    sizes = log_sizes(spec, rng)
    plan: list[tuple[_PlannedLog, str, str]] = []  # the log to generate, the test's uuid, its attachment
    expected: dict[str, str | None] = {}
    for index, size in enumerate(sizes):
        cause = CAUSES[len(expected) % len(CAUSES)] if rng.random() < spec.cause_share or index == 0 else None
        test_uuid = str(uuid.UUID(int=rng.getrandbits(128)))
        attachment = f"{uuid.UUID(int=rng.getrandbits(128))}-attachment.txt"
        plan.append((_PlannedLog(index, size, cause, rng.getrandbits(64)), test_uuid, attachment))
        expected[test_uuid] = cause.rule_id if cause else None
    workers = max(1, min(jobs or os.cpu_count() or 1, len(plan)))
    log_bytes = 0
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive,
        multiprocessing.get_context("fork").Pool(workers) as pool,
    ):
        logs = [planned for planned, _, _ in plan]
        # a window of a few logs per worker at a time, so finished logs never pile up waiting to be written
        for start in range(0, len(plan), 4 * workers):
            window = logs[start : start + 4 * workers]
            for (planned, test_uuid, attachment), (log, config) in zip(
                plan[start : start + len(window)], pool.imap(_generate, window), strict=True
            ):
                archive.writestr(_entry(attachment), log)
                log_bytes += len(log)
                index = planned.index
                message = MESSAGES[index % len(MESSAGES)]
                result = {
                    "uuid": test_uuid,
                    "historyId": f"{index:032x}",
                    "name": f"test_serve_deployment[{config}]",
                    "fullName": "tests.serve.test_vllm#test_serve_deployment",
                    "status": "broken" if index % 4 else "failed",
                    "statusDetails": {
                        "message": message,
                        "trace": f"tests/serve/test_vllm.py:142: in test\n{message}",
                    },
                    "attachments": [{"name": "bash.log.txt", "source": attachment, "type": "text/plain"}],
                    "labels": [
                        {"name": "suite", "value": "test_vllm"},
                        {"name": "tag", "value": "nightly"},
                        {"name": "tag", "value": "gpu_1"},
                    ],
                    "parameters": [{"name": "config", "value": repr(config)}],
                    "start": 1771963200000 + index * 60_000,
                    "stop": 1771963200000 + index * 60_000 + 45_000,
                }
                archive.writestr(_entry(f"{test_uuid}-result.json"), json.dumps(result, indent=1))
    return Artifact(
        path=path,
        spec=spec,
        log_bytes=log_bytes,
        zip_bytes=path.stat().st_size,
        expected=expected,
        largest_log_bytes=max(sizes),
    )


def ensure_artifact(
    spec: ArtifactSpec, cache_dir: Path = DEFAULT_CACHE_DIR, *, verbose: bool = True
) -> Artifact:
    """The cached artifact for `spec`, generated (once) if missing."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"{spec.key}.zip"
    manifest = cache_dir / f"{spec.key}.json"
    if path.is_file() and manifest.is_file():
        data = json.loads(manifest.read_text())
        return Artifact(
            path=path,
            spec=spec,
            log_bytes=data["log_bytes"],
            zip_bytes=path.stat().st_size,
            expected=data["expected"],
            largest_log_bytes=data["largest_log_bytes"],
        )
    if verbose:
        print(f"generating {path.name} (once; cached in {cache_dir}) …", flush=True)
    partial = path.with_suffix(".zip.partial")
    artifact = write_artifact(partial, spec)
    os.replace(partial, path)
    data = {
        "spec": asdict(spec),
        "log_bytes": artifact.log_bytes,
        "largest_log_bytes": artifact.largest_log_bytes,
        "expected": artifact.expected,
    }
    manifest.write_text(json.dumps(data, indent=1))
    return Artifact(
        path=path,
        spec=spec,
        log_bytes=artifact.log_bytes,
        zip_bytes=artifact.zip_bytes,
        expected=artifact.expected,
        largest_log_bytes=artifact.largest_log_bytes,
    )


def main() -> None:
    """Generate (or find in the cache) one artifact and print where it is."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mib", type=int, default=100, help="uncompressed log MiB in total")
    parser.add_argument("--tests", type=int, default=0, help="test count (default: about 300 per GiB)")
    parser.add_argument("--big-attachment-mib", type=int, default=0, help="one test's log this large")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    options = parser.parse_args()
    spec = ArtifactSpec(
        size_mib=options.size_mib,
        tests=options.tests,
        big_attachment_mib=options.big_attachment_mib,
        seed=options.seed,
    )
    artifact = ensure_artifact(spec, options.cache_dir)
    causes = sum(rule is not None for rule in artifact.expected.values())
    print(
        f"{artifact.path}: {artifact.log_mib:.1f} MiB of logs in {len(artifact.expected)} tests "
        f"({causes} with a root cause), zip {artifact.zip_bytes / MIB:.1f} MiB"
    )


if __name__ == "__main__":
    main()
