"""What an input's job ran on, read from its logs while the input is open: GPU model and GPU memory.

The GPU is read from what the job's logs reveal: values a rule captured (vLLM's `total_gib`, PyTorch's
`total`), `nvidia-smi` lines (`NVIDIA A10G, 23028 MiB`, `|  0MiB / 46068MiB |`) and the totals that
vLLM and PyTorch print (the store falls back to a runner label naming a known GPU). Memory is the
card's total in whole GiB, rounded down, so the 22.03 GiB torch reports and the 23028 MiB nvidia-smi
reports for one A10G land in the same "22 GiB" bucket. Models keep the name the driver prints
("NVIDIA A10G", "Tesla T4").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from forensics.lazy_regex import LazyRegex
from forensics.model import Dimension, EnvironmentFacts, Value

GPU_MODEL = Dimension.GPU_MODEL.value
GPU_MEMORY = Dimension.GPU_MEMORY.value

Fact = tuple[str, str]

_MODEL = LazyRegex(
    r"\b(?P<model>NVIDIA (?:GeForce )?(?:RTX )?[A-Z]{1,2}\d{1,4}[A-Za-z]{0,3}(?: Ada)?)\b"
    r"|\b(?P<model>Tesla [A-Z]\d{1,4}[A-Za-z]?)\b"
    r"|\b(?P<model>AMD Instinct MI\d{3}[A-Z]?)\b"
)
_MEMORY_MIB = LazyRegex(
    r"\d+\s?MiB\s*/\s*(?P<mib>\d{4,7})\s?MiB"  # nvidia-smi's table: used / total
    r"|\bNVIDIA [^,\n]{2,40},\s*(?P<mib>\d{4,7})\s?MiB"  # nvidia-smi --query-gpu=name,memory.total
)
_MEMORY_GIB = LazyRegex(
    r"total capac(?:i)?ty of (?P<gib>\d+(?:\.\d+)?) GiB"  # torch.OutOfMemoryError
    r"|Free memory on device[^(\n]{0,40}\(\d+(?:\.\d+)?/(?P<gib>\d+(?:\.\d+)?) GiB\)"  # vLLM's startup check
)
_QUANTITY = LazyRegex(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[KMGT]i?B)")
_UNIT_GIB = {
    "KB": 2**-20,
    "KiB": 2**-20,
    "MB": 2**-10,
    "MiB": 2**-10,
    "GB": 1.0,
    "GiB": 1.0,
    "TB": 1024.0,
    "TiB": 1024.0,
}
_LINE_HINTS = ("NVIDIA", "Tesla", "AMD Instinct", "MiB", "GiB")


def memory_bucket(gib: float) -> str:
    """`22 GiB` for 22.03 or 22.49: whole GiB, rounded down."""
    return f"{math.floor(gib + 1e-9)} GiB"


class GpuFinder:
    """Collects GPU models and memory totals from captured values and log lines; the most frequent wins."""

    def __init__(self) -> None:
        self.models: Counter[str] = Counter()
        self.memory: Counter[str] = Counter()

    @property
    def complete(self) -> bool:
        """Both the model and the memory are known."""
        return bool(self.models) and bool(self.memory)

    def add_values(self, fields: Iterable[tuple[str, Value]]) -> None:
        """Values a rule captured: `total_gib` (a number of GiB), `total` ("22.03 GiB"), `gpu_model`."""
        for name, value in fields:
            if name == "total_gib" and isinstance(value, int | float) and value > 0:
                self.memory[memory_bucket(float(value))] += 1
            elif name == "total" and isinstance(value, str):
                gib = quantity_gib(value)
                if gib:
                    self.memory[memory_bucket(gib)] += 1
            elif name in ("gpu_model", "gpu_name") and isinstance(value, str) and value:
                self.models[value] += 1

    def add_lines(self, lines: Iterable[str]) -> None:
        """Log lines: only those naming a GPU or a memory size go through the patterns."""
        for line in lines:
            if not any(hint in line for hint in _LINE_HINTS):
                continue
            model = _MODEL.search(line)
            if model:
                self.models[model["model"]] += 1
            mib = _MEMORY_MIB.search(line)
            if mib:
                self.memory[memory_bucket(int(mib["mib"]) / 1024)] += 1
            gib = _MEMORY_GIB.search(line)
            if gib:
                self.memory[memory_bucket(float(gib["gib"]))] += 1

    def facts(self, *, fallback_model: str | None = None) -> tuple[Fact, ...]:
        """The most frequent model and memory size (a label's model when the logs named none)."""
        facts: list[Fact] = []
        model = _most_common(self.models) or fallback_model
        if model:
            facts.append((GPU_MODEL, model))
        memory = _most_common(self.memory)
        if memory:
            facts.append((GPU_MEMORY, memory))
        return tuple(facts)

    def environment(self) -> EnvironmentFacts:
        """The most frequent model and memory size, as the report carries them."""
        return EnvironmentFacts(
            gpu_model=_most_common(self.models) or "", gpu_memory=_most_common(self.memory) or ""
        )


def quantity_gib(text: str) -> float | None:
    """`22.03 GiB`, `23028 MiB`, `24 GB` → GiB (GB read as GiB: close enough for bucketing)."""
    match = _QUANTITY.search(text)
    if match is None:
        return None
    return float(match["number"]) * _UNIT_GIB.get(match["unit"], 0.0) or None


def _most_common(counter: Counter[str]) -> str | None:
    if not counter:
        return None
    return min(counter.items(), key=lambda item: (-item[1], item[0]))[0]
