"""torch.compile on CPU tensors where the configured C++ compiler (CXX) does not exist."""

import torch


@torch.compile
def gated_gelu(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x) * torch.sigmoid(gate)


x = torch.randn(16, 64)
print(gated_gelu(x, x).sum().item())
