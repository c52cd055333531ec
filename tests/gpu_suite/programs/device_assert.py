"""A token id past the vocabulary reaches the embedding on the GPU: a device-side assert fires."""

import torch

vocab_size = 32000
embedding = torch.nn.Embedding(vocab_size, 64).cuda()
token_ids = torch.tensor([[1, 15043, 3186, 32005]], device="cuda")  # 32005 >= vocab_size
hidden = embedding(token_ids)
print(f"hidden norm {hidden.norm().item():.3f}")
