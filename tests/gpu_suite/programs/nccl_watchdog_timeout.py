"""An all-reduce queued behind a kernel that never finishes in time: the NCCL watchdog fires."""

import os
from datetime import timedelta

import torch
import torch.distributed as dist

device = torch.device("cuda", 0)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device, timeout=timedelta(seconds=5))
tensor = torch.ones(1024, device=device)
dist.all_reduce(tensor)
torch.cuda.synchronize()
print(f"rank {os.environ['RANK']}: warm-up all-reduce done", flush=True)
torch.cuda._sleep(40_000_000_000)  # a kernel that spins about 20 s: the stuck step
dist.all_reduce(tensor)
print(f"sum {tensor[0].item()}", flush=True)
