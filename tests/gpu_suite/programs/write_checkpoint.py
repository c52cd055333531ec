"""Write an 8 MiB checkpoint into the folder given (a 1 MiB tmpfs in the test)."""

import os
import sys

folder = sys.argv[1]
print(f"saving checkpoint to {folder}", flush=True)
with open(os.path.join(folder, "shard-00001.bin"), "wb") as handle:
    for _ in range(8):
        handle.write(os.urandom(1 << 20))
        handle.flush()
print("saved")
