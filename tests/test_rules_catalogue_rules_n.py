"""The eleventh round's catalogue for processes, networks, the Hub, distributed runtimes and the harness
(killed-by-signal, hub-download, rendezvous-failure, ray-died, host-oom, test-timeout, server-not-ready): each rule
reads every rendering of its message family that the emitter's source prints.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds: Ray's
glog-style header, a shell's partial line before zsh's notice, urllib3's repr as requests re-raises it, the Rust
router's tracing prefix) or a real train log (tests/corpus/train/holdout-r7, cited in SOURCES-holdout-r7a.md /
-r7b.md); the near misses are lines that look alike but must not name that cause (a warning before the failure, a
retry notice, a test's own assertion, docs text quoted in a log). The real logs check the rule and line that win.
See docs/accuracy.md, "Eleventh round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # killed-by-signal: zsh prints its notice where the cursor is (Src/jobs.c printjob; Src/signames.c's lower-case names)
    (
        "process.killed-by-signal",
        "collecting ... zsh: killed     pytest tests/openadapt/test_summary.py::test_summary_empty",
        "zsh Src/jobs.c after pytest's unfinished 'collecting ...' line (OpenAdaptAI/OpenAdapt#917)",
    ),
    (
        "process.killed-by-signal",
        "Epoch 3:  41%|████      | 410/1000 [02:11<03:09,  3.11it/s] zsh: killed     python train.py",
        "zsh Src/jobs.c after a tqdm bar redrawn without a newline",
    ),
    (
        "process.killed-by-signal",
        "zsh: illegal hardware instruction  python -c 'import tensorflow as tf'",
        "zsh Src/signames1.awk, SIGILL's name in the foreground notice",
    ),
    # killed-by-signal: the DataLoader worker's own signal handlers (torch/csrc/DataLoader.cpp SIGNAL_HANDLER, 0.4-2.x)
    (
        "process.killed-by-signal",
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
        "torch/csrc/DataLoader.cpp handler_SIGBUS (msr-fiddle/pipedream#28)",
    ),
    (
        "process.killed-by-signal",
        "[rank1]: ERROR: Unexpected floating-point exception encountered in worker.",
        "torch/csrc/DataLoader.cpp handler_SIGFPE, torch's rank prefix",
    ),
    # killed-by-signal: Open MPI's launcher with an empty host name (orte help-orterun.txt "%s noticed that process rank
    # %s with PID %s on node %s exited on signal %d (%s).")
    (
        "mpi.rank-killed-by-signal",
        "mpirun noticed that process rank 0 with PID 0 on node exited on signal 4 (Illegal instruction).",
        "open-mpi/ompi orte/tools/orterun/help-orterun.txt (horovod/horovod#926)",
    ),
    (
        "mpi.rank-killed-by-signal",
        "prterun noticed that process rank 3 with PID 81234 on node gpu-node-07 exited on signal 9 (Killed).",
        "openpmix/prrte src/tools/prte/help-prterun.txt (Open MPI 5)",
    ),
    # hub-download: urllib3's MaxRetryError for the Hub with the OS error inside (urllib3 src/urllib3/exceptions.py,
    # connection.py; 1.26 and 2.x), as requests and huggingface_hub re-raise it
    (
        "hf.connect-errno",
        "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host=‘[huggingface.co](http://huggingface.co/)’,"
        " port=443): Max retries exceeded with url: /sentence-transformers/all-MiniLM-L6-v2/resolve/main/config.json"
        " (Caused by NewConnectionError(‘<urllib3.connection.HTTPSConnection object at 0x7f217c62e8d0>: Failed to"
        " establish a new connection: [Errno 101] Network is unreachable’))",
        "urllib3 1.26 NewConnectionError, as pasted in ShishirPatil/gorilla#1161 (curly quotes, Markdown link)",
    ),
    (
        "hf.connect-errno",
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded"
        " with url: /api/models/Qwen/Qwen2.5-7B-Instruct/revision/main (Caused by NewConnectionError('<urllib3.connection"
        ".HTTPSConnection object at 0x7f0c5b1e2d10>: Failed to establish a new connection: [Errno 111] Connection"
        " refused'))",
        "urllib3 1.26 connection.py _new_conn (ECONNREFUSED), requests' ConnectionError",
    ),
    (
        "hf.connect-errno",
        "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='hf-mirror.com', port=443): Max retries exceeded with"
        ' url: /BAAI/bge-m3/resolve/main/config.json (Caused by NameResolutionError("<urllib3.connection.HTTPSConnection'
        " object at 0x7f3a>: Failed to resolve 'hf-mirror.com' ([Errno -2] Name or service not known)\"))",
        "urllib3 2.x connection.py NameResolutionError, HF_ENDPOINT=https://hf-mirror.com",
    ),
    (
        "hf.connect-errno",
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='cdn-lfs.huggingface.co', port=443): Max retries"
        " exceeded with url: /repos/ab/cd/model.safetensors (Caused by ProtocolError('Connection aborted.',"
        " ConnectionResetError(104, 'Connection reset by peer')))",
        "urllib3 exceptions.py ProtocolError with http.client's reset (the LFS CDN host)",
    ),
    # rendezvous-failure: the TCPStore client of torch 1.0-1.10 (c10d Utils.cpp tcputil::connect)
    (
        "distributed.store-connect-oserror",
        [
            "RuntimeError: Connection refused",
            '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/rendezvous.py", line 119, in'
            " _tcp_rendezvous_handler",
            "    store = TCPStore(result.hostname, result.port, world_size, start_daemon, timeout)",
        ],
        "torch 1.4 rendezvous.py _tcp_rendezvous_handler, std::system_error(ECONNREFUSED)",
    ),
    (
        "distributed.store-connect-oserror",
        [
            "RuntimeError: connect() timed out.",
            '  File "/usr/local/lib/python3.6/dist-packages/torch/distributed/rendezvous.py", line 143, in'
            " _env_rendezvous_handler",
        ],
        "torch 1.0-1.7 c10d Utils.cpp kConnectTimeoutMsg",
    ),
    # ray-died: the raylet's own fatal line when its node was declared dead (src/ray/raylet/node_manager.cc)
    (
        "ray.node-died",
        "[2022-02-16 12:46:52,789 C 149 149] node_manager.cc:170: This node has beem marked as dead.",
        "ray 1.x node_manager.cc heartbeat callback (the source's typo)",
    ),
    (
        "ray.node-died",
        "[2024-05-02 10:11:12,345 C 4321 4321] node_manager.cc:1012: [Timeout] Exiting because this node manager has"
        " mistakenly been marked as dead by the GCS: GCS failed to check the health of this node for 5 times. This is"
        " likely because the machine or raylet has become overloaded.",
        "ray 2.x node_manager.cc NodeRemoved",
    ),
    (
        "ray.node-died",
        "F0301 12:00:00.123456  4321  4321 node_manager.cc:688:  Check failed: node_id != self_node_id_ Exiting because"
        " this node manager has mistakenly been marked dead by the monitor: GCS didn't receive heartbeats within timeout"
        " 30000 ms. This is likely since the machine or raylet became overloaded.",
        "ray 0.8-1.x node_manager.cc NodeRemoved RAY_CHECK",
    ),
    (
        "ray.node-died",
        "(raylet) Raylet is terminated. Termination is unexpected. Possible reasons include: (1) SIGKILL by the user or"
        " system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other termination"
        " signals. Last 20 lines of the Raylet logs:",
        "ray python/ray/dashboard/agent.py (Ray 2.x), published to the driver with Ray's (raylet) prefix",
    ),
    # host-oom: CPython's MemoryError as pytest's short test summary words it (src/_pytest/terminal.py)
    (
        "machine.host-alloc-failed",
        "FAILED tests/models/test_autoencoders.py::test_from_pretrained - MemoryError",
        "pytest terminal.py _get_line_with_reprcrash_message (Lightning-Universe/lightning-bolts)",
    ),
    (
        "machine.host-alloc-failed",
        "ERROR tests/test_data.py::test_load[big shard] - MemoryError: Unable to allocate 7.45 GiB",
        "pytest terminal.py, an error in setup, a parametrised id with a space",
    ),
    # test-timeout: the runner's step timeout behind a dashboard's own clock (actions/runner StepsRunner.cs)
    (
        "runner.step-timeout",
        "05:12:24.09  ##[error]The action has timed out.",
        "actions/runner src/Runner.Worker/StepsRunner.cs (< 2.314), a copied log viewer's HH:MM:SS.cc clock",
    ),
    # server-not-ready: SGLang's router giving up on its workers (sgl-router/src/router.rs)
    (
        "harness.server-not-ready",
        "[Router (Rust)] 2025-03-08 02:43:09 - ERROR - Timeout 300s waiting for worker http://0.0.0.0:31000 to become"
        " healthy. Please set --router-worker-startup-timeout-secs (sglang_router.launch_server) or"
        " --worker-startup-timeout-secs (sglang_worker.router) to a larger value",
        "sgl-router src/router.rs add_worker",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "process.killed-by-signal",
        ["If the tests die with zsh: killed it is the OOM killer, see the FAQ."],
        id="prose-naming-zsh-killed",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "# ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."
        ],
        id="dataloader-message-in-a-code-comment",
    ),
    pytest.param(
        "mpi.rank-killed-by-signal",
        ["mpirun noticed that process rank 1 with PID 4242 on node node01 exited on signal 15 (Terminated)."],
        id="mpirun-sigterm-of-the-other-ranks",
    ),
    pytest.param(
        "hf.connect-errno",
        [
            "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with"
            " url: /simple/torch/ (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f1>:"
            " Failed to establish a new connection: [Errno 101] Network is unreachable'))"
        ],
        id="urllib3-errno-to-another-host",
    ),
    pytest.param(
        "hf.connect-errno",
        [
            "WARNING:huggingface_hub.utils._http:Retrying in 1s [Retry 1/5].",
            "Downloading config.json: 100%|██████████| 665/665 [00:00<00:00, 1.2MB/s]",
        ],
        id="hub-retry-that-succeeded",
    ),
    pytest.param(
        "distributed.store-connect-oserror",
        ["RuntimeError: Connection refused", '  File "/srv/app/redis_client.py", line 40, in connect'],
        id="bare-os-error-without-tcpstore",
    ),
    pytest.param(
        "ray.node-died",
        [
            "[2022-02-16 12:45:07,907 W 149 199] node_manager.cc:157: Last heartbeat was sent 6901 ms ago. There might be"
            " resource pressure on this node. If heartbeat keeps lagging, this node can be marked as dead mistakenly."
        ],
        id="ray-heartbeat-lag-warning",
    ),
    pytest.param(
        "ray.node-died",
        ["(raylet) Raylet is terminated. Termination is graceful."],
        id="raylet-stopped-on-purpose",
    ),
    pytest.param(
        "machine.host-alloc-failed",
        ["FAILED tests/test_alloc.py::test_raises_memoryerror - AssertionError: MemoryError not raised"],
        id="memoryerror-in-an-assertion-message",
    ),
    pytest.param(
        "runner.step-timeout",
        ["echo 'The action has timed out.' > expected.txt"],
        id="the-sentence-in-a-script",
    ),
    pytest.param(
        "harness.server-not-ready",
        [
            "[Router (Rust)] 2025-03-08 02:33:09 - INFO - Worker http://0.0.0.0:31000 health check is pending with error:"
            " error sending request for url (http://0.0.0.0:31000/health)"
        ],
        id="router-pending-info-while-workers-load",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    (
        "holdout-r7/killed-by-signal/l-openadapt-pytest-zsh-killed-collection.log",
        "process.killed-by-signal",
        5,
    ),
    ("holdout-r7/killed-by-signal/l-pipedream-dataloader-bus-error-shm.log", "process.killed-by-signal", 4),
    (
        "holdout-r7/killed-by-signal/l-horovod-mpirun-rank-signal-4-illegal-instruction.log",
        "mpi.rank-killed-by-signal",
        2,
    ),
    ("holdout-r7/killed-by-signal/k-scalellm-compose-killed-137.log", "process.killed-by-signal", 1),
    (
        "holdout-r7/killed-by-signal/k-akash-vllm-worker-sigterm-pod-exit-137.log",
        "process.signal-exit-status",
        7,
    ),
    ("holdout-r7/hub-download/l-gorilla-bfcl-hf-network-unreachable.log", "hf.connect-errno", 5),
    ("holdout-r3/hub-download/d-geneface-hubert-preprocessor-dns.log", "hf.connect-errno", 8),
    (
        "holdout-r7/rendezvous-failure/l-mmaction2-tcpstore-connection-timed-out.log",
        "distributed.store-connect-oserror",
        14,
    ),
    ("holdout-r7/ray-died/l-ray-raylet-heartbeat-lag-marked-dead.log", "ray.node-died", 3),
    ("holdout-r7/host-oom/l-lightning-bolts-windows-gha-short-summary.log", "machine.host-alloc-failed", 6),
    ("holdout-r7/test-timeout/k-tt-transformers-unit-tests-action-timed-out.log", "runner.step-timeout", 3),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
