"""A kernel writes out of bounds between two NCCL all-reduces (one rank under torchrun)."""

import torch
import torch.distributed as dist
import triton
import triton.language as tl


@triton.jit  # Triton's convention: upper-case compile-time constants
def scatter_kernel(out_ptr, n, BLOCK: tl.constexpr):  # noqa: N803
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets.to(tl.int64) * (1 << 40), offsets, mask=offsets < n)


device = torch.device("cuda", 0)
dist.init_process_group("nccl", device_id=device)
hidden = torch.ones(1024, device=device)
dist.all_reduce(hidden)
torch.cuda.synchronize()
print("step 0: all-reduce done", flush=True)
index = torch.zeros(1024, device=device, dtype=torch.int32)
scatter_kernel[(4,)](index, 1024, BLOCK=256)
dist.all_reduce(hidden)
torch.cuda.synchronize()
print(f"step 1: {hidden[0].item()}", flush=True)
