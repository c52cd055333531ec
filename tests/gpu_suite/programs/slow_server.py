"""A server that keeps loading and never answers its health check."""

import time

print("INFO: Started server process", flush=True)
for shard in range(1, 61):
    print(f"Loading safetensors checkpoint shards: {shard}/60", flush=True)
    time.sleep(1)
