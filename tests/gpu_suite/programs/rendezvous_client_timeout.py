"""Rank 1 connects to a master address where no rank 0 listens."""

import os
from datetime import timedelta

import torch.distributed as dist

port = int(os.environ["MASTER_PORT"])
print(f"rank 1 connecting to 127.0.0.1:{port}", flush=True)
dist.init_process_group(
    "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=1, world_size=2, timeout=timedelta(seconds=5)
)
