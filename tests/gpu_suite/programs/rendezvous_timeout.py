"""Rank 0 waits for a second rank that never comes."""

import os
from datetime import timedelta

import torch.distributed as dist

port = int(os.environ["MASTER_PORT"])
print(f"rank 0 waiting for 1 more rank on 127.0.0.1:{port}", flush=True)
dist.init_process_group(
    "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=2, timeout=timedelta(seconds=5)
)
