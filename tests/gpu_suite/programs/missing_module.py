"""The test environment lacks the serving package."""

import torch

print(f"torch {torch.__version__}", flush=True)
import sglang  # noqa: E402  # not installed on this machine

print(sglang.__version__)
