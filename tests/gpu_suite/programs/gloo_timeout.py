"""Rank 1 never joins the all-reduce: rank 0's gloo collective times out."""

import os
import time
from datetime import timedelta

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
dist.init_process_group("gloo", timeout=timedelta(seconds=5))
tensor = torch.ones(16)
if rank == 0:
    dist.all_reduce(tensor)
    print(f"sum {tensor[0].item()}", flush=True)
else:
    time.sleep(15)  # rank 1 is stuck elsewhere
