"""Download a model snapshot with huggingface_hub (the cache is empty)."""

import sys

from huggingface_hub import snapshot_download

repo = sys.argv[1]
print(f"downloading {repo}", flush=True)
path = snapshot_download(repo, allow_patterns=["*.json", "*.safetensors"])
print(path)
