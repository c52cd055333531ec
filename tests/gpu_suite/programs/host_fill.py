"""Grow host memory 64 MiB at a time until 4 GiB (inside a 256 MiB memory cgroup in the test)."""

chunks = []
for _ in range(64):
    chunks.append(bytearray(64 << 20))
    print(f"prefetched {len(chunks) * 64} MiB of weights", flush=True)
