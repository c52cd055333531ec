"""A torchrun worker (rank 1) is killed by SIGKILL."""

import os
import signal
import time

rank = int(os.environ["RANK"])
print(f"rank {rank} loading weights", flush=True)
if rank == 1:
    os.kill(os.getpid(), signal.SIGKILL)
time.sleep(15)
