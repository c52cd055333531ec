"""A server process that dies by a signal (sent to itself) while loading."""

import os
import signal
import sys

signal_name = sys.argv[1] if len(sys.argv) > 1 else "SIGKILL"
print("Loading safetensors checkpoint shards: 50% 1/2", flush=True)
os.kill(os.getpid(), getattr(signal, signal_name))
