"""A tiny seeded GPU 'model': greedy-decode eight token ids and print them."""

import torch

torch.manual_seed(0)
vocab, hidden = 128, 64
embedding = torch.nn.Embedding(vocab, hidden).cuda()
head = torch.nn.Linear(hidden, vocab).cuda()
token = torch.tensor([1], device="cuda")
generated = []
with torch.no_grad():
    for _ in range(8):
        token = head(embedding(token)).argmax(-1)
        generated.append(int(token.item()))
print("[W] TensorFloat32 tensor cores are available but not enabled", flush=True)
print(" ".join(map(str, generated)))
