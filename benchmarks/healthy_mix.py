"""Healthy serving traffic, generated at run time from real line shapes (vLLM, SGLang, Dynamo, the test harness).

What most of a nightly log is: a metrics line every few seconds, one access line per request, request
debug lines, warnings, Dynamo's tracing output, the odd progress bar. The shapes are those of the logs in
`tests/corpus/train/` (vLLM `loggers.py` metrics, uvicorn access lines, SGLang `Decode batch.` / `Prefill
batch.` lines with their `[date TP0]` stamp, Dynamo's tracing lines with and without colour); the values are
random. Nothing here is a failure: every line the scanner looks at twice is a pre-filter false positive.
Deterministic for a seed; no file is committed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from artifacts import MIB, _LogWriter

SGLANG_LINES = (
    "Decode batch. #running-req: {n1}, #token: {n2}, token usage: 0.{n3}{n1}, cuda graph: True, "
    "gen throughput (token/s): {f2:.2f}, #queue-req: 0, ",
    "Prefill batch. #new-seq: 1, #new-token: {n1}, #cached-token: {n2}, token usage: 0.0{n3}, "
    "#running-req: {n1}, #queue-req: 0, ",
    'INFO:     127.0.0.1:{port} - "POST /generate HTTP/1.1" 200 OK',
    'INFO:     127.0.0.1:{port} - "GET /health HTTP/1.1" 200 OK',
    "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem={f3:.2f} GB, mem usage={f5:.2f} GB.",
)


class HealthyWriter(_LogWriter):
    """The benchmark artifact's line kinds without failures, plus SGLang's scheduler and access lines."""

    def __init__(self, rng: random.Random, size: int) -> None:
        super().__init__(rng, size, None, 0)
        kinds: tuple[tuple[Callable[[], str], float], ...] = (
            (self.vllm_info, 30),  # metrics every few seconds, request received/added debug lines
            (self.access, 18),  # one access line per request
            (self.sglang, 18),
            (self.dynamo, 20),  # INFO / DEBUG / WARN tracing lines
            (self.harness, 6),
            (self.vllm_warning, 3),
            (self.progress, 3),
            (self.request_json, 0.5),
            (self.pytest, 1.5),
        )
        self.line_kinds = tuple(kind for kind, _ in kinds)
        self.weights = tuple(weight for _, weight in kinds)

    def sglang(self) -> str:
        hours, rest = divmod(self.advance() % 86400, 3600)
        stamp = f"2025-09-13 {hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
        return f"[{stamp} TP0] " + self.rng.choice(SGLANG_LINES).format(**self.fields())

    def lines(self) -> Iterator[str]:
        """Lines until `size` bytes are written (no cause, no closing wrapper errors)."""
        written = 0
        while written < self.size:
            for kind in self.rng.choices(self.line_kinds, self.weights, k=256):
                text = kind()
                written += len(text.encode()) + 1
                yield text


def healthy_bytes(size_mib: float, seed: int = 7) -> bytes:
    """About `size_mib` MiB of healthy serving logs."""
    writer = HealthyWriter(random.Random(seed), int(size_mib * MIB))
    return ("\n".join(writer.lines()) + "\n").encode()
