"""What a job ran on, read from the lines GPU tools print and the values rules capture."""

from __future__ import annotations

import pytest

from forensics.model import JobContext
from forensics.report.environment import GpuFinder, memory_bucket
from forensics.store.environment import label_gpu_model, runner_facts


@pytest.mark.parametrize(
    ("lines", "facts"),
    [
        (
            [
                "NVIDIA A10G, 23028 MiB, driver 580.95.05, CUDA 13.0"
            ],  # nvidia-smi --query-gpu=name,memory.total
            (("gpu_model", "NVIDIA A10G"), ("gpu_memory", "22 GiB")),
        ),
        (
            [
                "|   0  NVIDIA L40S                    On  |   00000000:00:1E.0 Off |                    0 |",
                "| N/A   30C    P8             32W /  350W |       0MiB /  46068MiB |      0%      Default |",
            ],
            (("gpu_model", "NVIDIA L40S"), ("gpu_memory", "44 GiB")),
        ),
        (
            [
                "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5b1b8a4e-0000-0000-0000-000000000000)",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                "capacity of 79.19 GiB of which 1.20 GiB is free.",
            ],
            (("gpu_model", "NVIDIA H100"), ("gpu_memory", "79 GiB")),
        ),
        (
            [
                "ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU memory"
            ],
            (("gpu_memory", "47 GiB"),),
        ),
        (
            ["|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |"],
            (("gpu_model", "Tesla T4"),),
        ),
        (["AMD Instinct MI300X, 196592 MiB"], (("gpu_model", "AMD Instinct MI300X"),)),
        (
            [
                "NVIDIA-SMI 580.95.05    Driver Version: 580.95.05    CUDA Version: 13.0",
                "Vendor: NVIDIA Corporation",
                "INFO Model loading took 3.9600 GiB and 1.55 seconds",
                "INFO Available KV cache memory: 10.79 GiB",
            ],
            (),
        ),
    ],
    ids=[
        "nvidia-smi-csv",
        "nvidia-smi-table",
        "torch-oom",
        "vllm-older-wording",
        "tesla",
        "amd",
        "near-misses",
    ],
)
def test_gpu_lines(lines: list[str], facts: tuple[tuple[str, str], ...]) -> None:
    finder = GpuFinder()
    finder.add_lines(lines)
    assert finder.facts() == facts


def test_captured_values_and_the_most_frequent_model() -> None:
    finder = GpuFinder()
    finder.add_values((("device", "cuda:0"), ("free_gib", 19.5), ("total_gib", 22.03)))
    finder.add_values((("total", "47.38 GiB"), ("tried", "2.00 GiB")))
    finder.add_values((("total_gib", 22.49),))
    finder.add_lines(["NVIDIA A10G, 23028 MiB", "NVIDIA A10G, 23028 MiB", "GPU 1: NVIDIA H100 (UUID: x)"])
    assert finder.facts() == (("gpu_model", "NVIDIA A10G"), ("gpu_memory", "22 GiB"))
    assert finder.complete


def test_a_runner_label_names_the_model_when_the_logs_do_not() -> None:
    job = JobContext(
        job_id=1, name="test", runner_name="gpu-runner-3", runner_labels=("self-hosted", "gpu-l40s")
    )
    assert label_gpu_model(job) == "NVIDIA L40S"
    assert label_gpu_model(JobContext(job_id=2, name="t", runner_name="g5-a10g-2")) == "NVIDIA A10G"
    assert label_gpu_model(JobContext(job_id=3, name="t", runner_labels=("ubuntu-latest",))) is None
    assert label_gpu_model(None) is None
    finder = GpuFinder()
    assert finder.facts(fallback_model="NVIDIA L40S") == (("gpu_model", "NVIDIA L40S"),)
    finder.add_lines(["NVIDIA A10G, 23028 MiB"])
    assert finder.facts(fallback_model="NVIDIA L40S")[0] == ("gpu_model", "NVIDIA A10G")  # the logs win
    assert runner_facts(job) == (
        ("runner_label", "self-hosted"),
        ("runner_label", "gpu-l40s"),
        ("runner", "gpu-runner-3"),
    )


def test_memory_buckets_are_whole_gib_rounded_down() -> None:
    assert [memory_bucket(gib) for gib in (22.03, 22.49, 44.39, 44.99, 47.999, 80.0)] == [
        "22 GiB",
        "22 GiB",
        "44 GiB",
        "44 GiB",
        "47 GiB",
        "80 GiB",
    ]
