"""A Triton kernel that does not compile: tl.arange needs a power-of-two range."""

import torch
import triton
import triton.language as tl


@triton.jit  # Triton's convention: upper-case compile-time constants
def rmsnorm_kernel(x_ptr, out_ptr, HIDDEN: tl.constexpr):  # noqa: N803
    offsets = tl.arange(0, HIDDEN)
    x = tl.load(x_ptr + offsets).to(tl.float32)
    tl.store(out_ptr + offsets, x * tl.rsqrt(tl.sum(x * x) / HIDDEN + 1e-6))


x = torch.randn(1000, device="cuda")
out = torch.empty_like(x)
rmsnorm_kernel[(1,)](x, out, HIDDEN=1000)
print(out.sum().item())
