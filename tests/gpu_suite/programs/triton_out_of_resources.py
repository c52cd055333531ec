"""A Triton matmul tuned with blocks too large for the shared memory of one multiprocessor."""

import torch
import triton
import triton.language as tl


@triton.jit  # Triton's convention: upper-case compile-time constants
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # noqa: N803
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    inner = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rows[:, None] * K + (k + inner)[None, :])
        b = tl.load(b_ptr + (k + inner)[:, None] * N + cols[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))


M = N = 512
K = 2048
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
matmul_kernel[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=512, num_stages=3, num_warps=8)
torch.cuda.synchronize()
print(c.float().abs().mean().item())
