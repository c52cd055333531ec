"""The engine initialises CUDA, then forks a worker that uses CUDA too."""

import multiprocessing
import sys

import torch


def worker() -> None:
    torch.zeros(1, device="cuda")


torch.zeros(1, device="cuda")  # the parent has initialised CUDA
process = multiprocessing.get_context("fork").Process(target=worker, name="EngineCore_0")
process.start()
process.join()
print(f"worker exited with code {process.exitcode}", flush=True)
sys.exit(process.exitcode)
