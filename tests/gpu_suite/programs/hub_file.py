"""Download one file with huggingface_hub (the cache is empty)."""

import sys

from huggingface_hub import hf_hub_download

repo, filename = sys.argv[1], sys.argv[2]
print(f"downloading {repo}/{filename}", flush=True)
print(hf_hub_download(repo, filename))
