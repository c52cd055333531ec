"""A worker told to use GPU 3 on a machine with one GPU."""

import os

import torch

local_rank = int(os.environ.get("LOCAL_RANK", "3"))
print(f"worker local_rank={local_rank}, visible GPUs: {torch.cuda.device_count()}", flush=True)
torch.cuda.set_device(local_rank)
buffer = torch.zeros(1024, device="cuda")
print(buffer.sum().item())
