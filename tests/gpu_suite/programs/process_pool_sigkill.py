"""A tokenisation process pool whose worker is killed by SIGKILL while it works."""

import os
import signal
from concurrent.futures import ProcessPoolExecutor


def tokenize(shard: int) -> int:
    if shard == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return shard


if __name__ == "__main__":
    print("tokenizing 4 shards with 2 workers", flush=True)
    with ProcessPoolExecutor(max_workers=2) as pool:
        print(list(pool.map(tokenize, range(4))))
