"""The rendezvous port is still held by a store left over from an earlier run."""

import os

import torch.distributed as dist

port = int(os.environ["MASTER_PORT"])
leftover = dist.TCPStore("127.0.0.1", port, is_master=True, wait_for_workers=False)
print(f"an earlier run's store still listens on {port}", flush=True)
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
