"""A custom CUDA kernel (compiled with CuPy, run on a torch tensor) stores float4 at a 4-byte aligned address."""

import cupy
import torch

kernel = cupy.RawKernel(
    r"""
extern "C" __global__ void store_vectors(float* out) {
    float4* vectors = reinterpret_cast<float4*>(out + 1);  // float4 needs 16-byte alignment
    vectors[threadIdx.x] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
}
""",
    "store_vectors",
)
out = torch.zeros(4096, device="cuda")
kernel((1,), (256,), (cupy.uint64(out.data_ptr()),))
torch.cuda.synchronize()
print(out.sum().item())
