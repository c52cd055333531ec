"""A CUDA kernel (CuPy RawKernel) writes through a null pointer."""

import cupy

kernel = cupy.RawKernel(
    r"""
extern "C" __global__ void write_slot(unsigned long long address) {
    int* slots = reinterpret_cast<int*>(address);
    slots[threadIdx.x] = threadIdx.x;
}
""",
    "write_slot",
)
kernel((1,), (32,), (cupy.uint64(0),))
cupy.cuda.runtime.deviceSynchronize()
