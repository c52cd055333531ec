"""torch.multiprocessing.spawn starts two workers; worker 1 is killed by SIGKILL."""

import os
import signal
import time

import torch.multiprocessing as mp


def worker(index: int) -> None:
    print(f"worker {index} ready", flush=True)
    if index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(10)


if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
