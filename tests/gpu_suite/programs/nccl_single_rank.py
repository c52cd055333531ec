"""A single-rank NCCL all-reduce under NCCL_DEBUG=INFO that succeeds: a noisy but healthy log."""

import torch
import torch.distributed as dist

device = torch.device("cuda", 0)
dist.init_process_group("nccl", device_id=device)
tensor = torch.full((4,), 2.0, device=device)
dist.all_reduce(tensor)
print(f"all_reduce result {tensor.tolist()}", flush=True)
dist.destroy_process_group()
