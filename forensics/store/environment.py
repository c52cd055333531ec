"""What a job ran on, as the store keeps it: `(dimension, value)` facts — runner, runner labels, GPU.

The GPU model and memory come with the report (`report/environment.py` reads them from the logs while the
input is open); a runner label naming a known GPU is the fallback for the model.
"""

from __future__ import annotations

import regex

from forensics.model import Dimension, JobContext

RUNNER = Dimension.RUNNER.value
RUNNER_LABEL = Dimension.RUNNER_LABEL.value
GPU_MODEL = Dimension.GPU_MODEL.value
GPU_MEMORY = Dimension.GPU_MEMORY.value
DIMENSIONS = (RUNNER_LABEL, GPU_MODEL, GPU_MEMORY, RUNNER)
GPU_DIMENSIONS = (GPU_MODEL, GPU_MEMORY)

Fact = tuple[str, str]

_LABEL_GPUS = {
    name.lower(): f"NVIDIA {name}"
    for name in (
        "A10G",
        "A10",
        "A100",
        "A6000",
        "B200",
        "GB200",
        "H100",
        "H200",
        "L4",
        "L40",
        "L40S",
        "T4",
        "V100",
    )
}
_LABEL_TOKEN = regex.compile(r"[A-Za-z0-9]+")


def runner_facts(job: JobContext | None) -> tuple[Fact, ...]:
    """The runner's name and labels."""
    if job is None:
        return ()
    facts: list[Fact] = [(RUNNER_LABEL, label) for label in job.runner_labels if label]
    if job.runner_name:
        facts.append((RUNNER, job.runner_name))
    return tuple(dict.fromkeys(facts))


def label_gpu_model(job: JobContext | None) -> str | None:
    """A known GPU model named by a runner label or the runner's name (`gpu-l40s`, `g5-a10g-2`)."""
    if job is None:
        return None
    for text in (*job.runner_labels, job.runner_name):
        for token in _LABEL_TOKEN.findall(text):
            if token.lower() in _LABEL_GPUS:
                return _LABEL_GPUS[token.lower()]
    return None
