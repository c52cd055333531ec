"""Ask for 200 GiB on the GPU through another stack: `cupy-pool`, `cuda-malloc` or `jax`."""

import os
import sys

stack = sys.argv[1]
print(f"reserving the KV cache through {stack}: 200.00 GiB", flush=True)
if stack == "cupy-pool":
    import cupy

    cache = cupy.empty((50, 1024, 1024, 1024), dtype=cupy.float32)
elif stack == "cuda-malloc":
    import cupy

    pointer = cupy.cuda.runtime.malloc(200 * 2**30)
elif stack == "jax":
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # take memory as used, like the others
    import jax
    import jax.numpy as jnp

    print(f"devices: {jax.devices()}", flush=True)
    cache = jnp.zeros((50, 1024, 1024, 1024), dtype=jnp.float32)
    cache.block_until_ready()
