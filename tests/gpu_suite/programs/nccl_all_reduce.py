"""One NCCL all-reduce per rank, every rank on cuda:0 (only one GPU here), started by torchrun."""

import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
device = torch.device("cuda", 0)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
tensor = torch.ones(1024, device=device) * (rank + 1)
dist.all_reduce(tensor)
torch.cuda.synchronize()
print(f"rank {rank}: sum {tensor[0].item()}", flush=True)
dist.destroy_process_group()
