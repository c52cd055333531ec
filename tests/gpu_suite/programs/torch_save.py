"""torch.save an 8 MiB state dict into the folder given (a 1 MiB tmpfs in the test)."""

import os
import sys

import torch

folder = sys.argv[1]
state = {"lm_head.weight": torch.randn(2048, 1024)}
print(f"saving state dict to {folder}", flush=True)
torch.save(state, os.path.join(folder, "model.pt"))
print("saved")
