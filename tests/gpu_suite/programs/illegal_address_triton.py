"""A Triton kernel stores far past the end of its buffer: the GPU faults, the next sync reports it."""

import torch
import triton
import triton.language as tl


@triton.jit  # Triton's convention: upper-case compile-time constants
def scatter_kernel(out_ptr, n, BLOCK: tl.constexpr):  # noqa: N803
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    far = offsets.to(tl.int64) * (
        1 << 40
    )  # a stride of 1 TiB: every lane but the first lands in unmapped memory
    tl.store(out_ptr + far, offsets, mask=offsets < n)


out = torch.zeros(1024, device="cuda", dtype=torch.int32)
scatter_kernel[(4,)](out, 1024, BLOCK=256)
torch.cuda.synchronize()
print(out[:4].tolist())
