"""Pin a 64 GiB host buffer for CPU offload (under `ulimit -v` in the test)."""

import torch

print("allocating CPU swap space: 64.00 GiB", flush=True)
swap = torch.empty(64 * 2**30, dtype=torch.uint8)
print(swap.shape)
