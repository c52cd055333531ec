"""Allocate a KV cache larger than the whole card: torch's CUDA allocator refuses it."""

import torch

print(f"Using device {torch.cuda.get_device_name(0)}", flush=True)
weights = torch.empty(4 * 2**30, dtype=torch.uint8, device="cuda")
print("Model weights loaded: 4.00 GiB", flush=True)
kv_cache = torch.empty(200 * 2**30, dtype=torch.uint8, device="cuda")  # 200 GiB: more than the card has
