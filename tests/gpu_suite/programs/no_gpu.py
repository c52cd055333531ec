"""A server started with no visible GPU (CUDA_VISIBLE_DEVICES is empty)."""

import torch

print(f"torch.cuda.is_available() = {torch.cuda.is_available()}", flush=True)
weights = torch.zeros(1024, device="cuda")
