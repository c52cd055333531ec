"""A kernel shipped only as sm_80 machine code (no PTX) loaded on a Hopper GPU."""

import os
import shutil
import subprocess
import sys
import tempfile

import cupy

SOURCE = 'extern "C" __global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }\n'
nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
work = tempfile.mkdtemp()
source = os.path.join(work, "fill.cu")
cubin = os.path.join(work, "fill.cubin")
with open(source, "w") as handle:
    handle.write(SOURCE)
subprocess.run([nvcc, "-cubin", "-gencode", "arch=compute_80,code=sm_80", source, "-o", cubin], check=True)
print(f"built {cubin} for sm_80", flush=True)
module = cupy.RawModule(path=cubin)
fill = module.get_function("fill")
out = cupy.zeros(32, dtype=cupy.float32)
fill((1,), (32,), (out,))
cupy.cuda.runtime.deviceSynchronize()
print(out.sum(), file=sys.stderr)
