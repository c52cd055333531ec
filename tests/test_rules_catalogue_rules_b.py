"""The seventh round's catalogue for the distributed runtime, the Hub, networks and processes: each family's rule reads
every rendering quoted here, and the third holdout's fixed misses name the right rule and line.

Every rendering is quoted from the cited public thread, upstream file or real log (tests/corpus/train/holdout-r3, cited
in SOURCES-holdout-r3a.md / -r3b.md) in the format the rule's comment cites from the emitter's source; the near misses
are lines that look alike but must not name that cause (retries that may succeed, INFO traces, other hosts, healthy
banners). See docs/accuracy.md, "Seventh round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import TRAIN, catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer on line 1, rendering, where it is quoted from)
CATALOGUE = [
    # nccl-error: NCCL's socket WARN lines across releases (src/misc/socket.cc, include/socket.h, src/os/linux.cc)
    (
        "nccl.connect-failed",
        "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned"
        " 113(No route to host) errno 115(Operation now in progress)",
        "train holdout-r3/nccl-error/c-sglang-multinode-nccl-socket-no-route-to-host.log (NCCL 2.19-2.23)",
    ),
    (
        "nccl.connect-failed",
        "ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed :"
        " Software caused connection abort",
        "NVIDIA/nccl-tests#166 (NCCL 2.18)",
    ),
    (
        "nccl.connect-failed",
        "*server name* [0] include/socket.h:185 WARN Call to connect failed : Connection refused",
        "NVIDIA/nccl#111 (NCCL 2.0)",
    ),
    (
        "nccl.connect-failed",
        "[0604/1024][2025-02-16 22:31:34,422] [misc/socket.cc:586] [s12gn3064:pid=3942408] NCCL WARN socketPollConnect"
        " poll() returned 1, no POLLOUT events",
        "NVIDIA/nccl#1618 (NCCL 2.23)",
    ),
    (
        "nccl.remote-error",
        "a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from"
        " 10.200.84.247<58355> failed : Broken pipe",
        "train holdout-r3/nccl-error/d-nccl-aws-p4d-recv-broken-pipe-remote.log (NCCL 2.14)",
    ),
    (
        "nccl.remote-error",
        "ubuntu:39964:40044 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer"
        " node1<57557>",
        "NVIDIA/nccl-tests#166 (NCCL 2.18)",
    ),
    (
        "nccl.remote-error",
        "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer"
        " fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)",
        "NVIDIA/nccl#928",
    ),
    (
        "nccl.remote-error",
        "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)",
        "NVIDIA/nccl#1664 (a vendor IB plugin)",
    ),
    (
        "nccl.internal-error",
        "GroupNCCL.cpp:1275, internal error, NCCL version 2.14.3",
        "train holdout-r3/nccl-error/d-r2gengpt-lightning-distbackenderror-internal.log (the paste cut its start)",
    ),
    # rendezvous-failure: ProcessGroupNCCL's ncclUniqueId exchange through the store, the store-based barrier
    (
        "distributed.store-failure",
        "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value"
        " store by key '0', but store->get('0') got error: Socket Timeout",
        "train holdout-r3/rendezvous-failure/c-tgi-sharded-llama-c10d-store-socket-timeout.log",
    ),
    (
        "distributed.store-failure",
        "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key:"
        " store_based_barrier_key:1 (world_size=8, worker_count=1, timeout=0:30:00)",
        "torch 1.x distributed_c10d.py _store_based_barrier",
    ),
    # collective-timeout: monitored_barrier names the rank that never arrived
    (
        "distributed.watchdog-timeout",
        "RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms",
        "pytorch docs/source/distributed.rst",
    ),
    # hub-access / hub-download: the Hub's Rust clients (reqwest, hf-hub's ureq) and the hf-mirror.com endpoint
    (
        "hf.unauthorized",
        "Message:  Failed to fetch model 'Nomic-Embed-Text' due to 'Fetching 'https://huggingface.co/nomic-ai/"
        "nomic-embed-text-v1.5-GGUF/resolve/main/nomic-embed-text-v1.5.Q8_0.gguf' failed: Server returned HTTP status"
        " client error (401 Unauthorized) for url (https://huggingface.co/nomic-ai/nomic-embed-text-v1.5-GGUF/resolve/"
        "main/nomic-embed-text-v1.5.Q8_0.gguf) HTTP status'",
        "train holdout-r3/hub-access/c-tabby-fetch-model-hf-401-panic.log (reqwest)",
    ),
    (
        "hf.unauthorized",
        "Error: request error: https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/tokenizer.json: status"
        " code 401",
        "huggingface/candle#424 (hf-hub's ureq client)",
    ),
    (
        "hf.rate-limited",
        "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://cdn-lfs.hf-mirror.com/"
        "repos/d3/36/d336e691db6b26b29482553af06f12dcdf6030d98dd09e339e447f224906b13e/071fbc0b8ba5c0a9c61e099ce01c17"
        "fa4e71090a5185fdfe69817ef3ec60bd81",
        "train holdout-r3/hub-download/d-hf-cli-hssd-dataset-cdn-lfs-429.log (HF_ENDPOINT=https://hf-mirror.com)",
    ),
    (
        "hf.cannot-connect",
        "2024-11-21T19:08:28.461123Z ERROR screenpipe: continuous recording error: request error: https://"
        "huggingface.co/openai/whisper-large-v3-turbo/resolve/main/config.json: Connection Failed: tls connection init"
        " failed: invalid peer certificate: UnknownIssuer",
        "huggingface/candle#2668 (a TLS failure to the Hub is hub-download, as the sixth round's convention has it)",
    ),
    # killed-by-signal: Go's os/exec through ollama, every Go signal name
    (
        "process.killed-by-signal",
        'time=2024-08-26T09:53:44.346Z level=ERROR source=sched.go:451 msg="error loading llama server"'
        ' error="llama runner process has terminated: signal: terminated"',
        "train holdout-r3/killed-by-signal/c-ollama-codespaces-runner-signal-terminated.log",
    ),
    (
        "process.killed-by-signal",
        "fish: Job 1, 'go test ./...' terminated by signal SIGKILL (Forced quit)",
        "a public write-up of a Go test run killed by the OOM killer (fish src/proc.rs)",
    ),
    (
        "process.killed-by-signal",
        "Error: signal: illegal instruction (core dumped)",
        "Wails' docs (Go's os.ProcessState for SIGILL)",
    ),
    (
        "process.killed-by-signal",
        "--cfg=parallel_compiler -Zbinary-dep-depinfo -L native=/checkout/obj/build/x86_64-unknown-linux-gnu/"
        "stage0-rustc/x86_64-unknown-linux-gnu/release/build/backtrace-sys-7615ed222efdef73/out` (signal: 9,"
        " SIGKILL: kill)",
        "a rust-lang/rust CI log of 2020-04-15 (cargo's ProcessError)",
    ),
    # segfault: fish's job report
    (
        "machine.segfault",
        "fish: Job 1, 'pytest' terminated by signal SIGSEGV (Address boundary error)",
        "train holdout-r3/segfault/d-torchgeo-bench-faiss-knn-sigsegv-fish.log",
    ),
    (
        "machine.segfault",
        "error: Process didn't exit successfully: `target/arm-unknown-linux-gnueabihf/debug/example-arm-asm` (signal:"
        " 11, SIGSEGV: invalid memory reference)",
        "a public article on Rust's asm! macro (cargo's ProcessError)",
    ),
    # host-oom: the kernel's reaper, systemd-oomd, the test's own process
    (
        "machine.oom-killed",
        "Apr 25 06:31:57 yihuachiu-GTX1080 kernel: [594677.436088] oom_reaper: reaped process 29918 (python), now"
        " anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
        "train holdout-r3/host-oom/d-deepspeech-syslog-python-oom-killer.log",
    ),
    (
        "machine.oom-killed",
        "2026-04-12T19:04:42+0100 host systemd-oomd[939]: Killed /user.slice/user-1000.slice/user@1000.service/"
        "app.slice/flatpak-session-helper.service due to memory pressure for /user.slice/user-1000.slice/"
        "user@1000.service/app.slice being 82.36% > 80.00% for > 20s with reclaim activity",
        "systemd src/oom/oomd-manager.c",
    ),
    (
        "machine.oom-killed-test-process",
        "Aug 18 03:19:11 169 kernel: Killed process 7748 (python) total-vm:12907828kB, anon-rss:11500204kB,"
        " file-rss:0kB",
        "systemd/systemd#6966",
    ),
    # network-unreachable: libcurl's errno text, ping's perror
    (
        "network.unreachable",
        "curl: (7) Failed to connect to xxxx port 8999: No route to host",
        "apache/brpc#1573",
    ),
    (
        "network.unreachable",
        "cURL error 7: Failed to connect to cloud.nastuzzi.fr port 443: No route to host",
        "NastuzziSamy/files_external_gdrive#9 (libcurl through PHP)",
    ),
    ("network.unreachable", "connect: Network is unreachable", "iputils ping.c (perror)"),
    # disk-full: kubelet's eviction of a pod whose node ran out of ephemeral storage
    (
        "machine.no-space-left",
        "Message:        The node was low on resource: ephemeral-storage. Container ebaogi-bff-app was using 34260Ki,"
        " which exceeds its request of 0.",
        "kubernetes/kubernetes#91600",
    ),
]

# (rule that must not answer, lines): look-alikes that are not that cause
NEAR_MISSES = [
    pytest.param(
        "nccl.connect-failed",
        [
            "[03/16][2025-02-25 15:46:48,390] [misc/socket.cc:551] [s11gn1268:pid=3987720] NCCL INFO socketPollConnect:"
            " connect returned Connection timed out, retrying (1/34) after sleep for 100 msec",
            "NCCL INFO Call to connect returned Connection refused, retrying",
        ],
        id="nccl-connect-retried",
    ),
    pytest.param(
        "nccl.internal-error",
        ["node0:2201:2201 [0] NCCL INFO NCCL version 2.14.3+cuda11.7", "NCCL version 2.21.5+cuda12.4"],
        id="nccl-version-banner",
    ),
    pytest.param(
        "nccl.remote-error",
        [
            "node0:123:456 [0] NCCL INFO misc/socket.cc:535 -> 6",
            "node0:123:456 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.5<0>",
            "[gloo/transport/tcp/pair.cc:598] Connection closed by peer [2401:db00:eef0:1100:3560:0:1c05:25d]:8594",
        ],
        id="nccl-info-trail-and-gloo",
    ),
    pytest.param(
        "hf.unauthorized",
        [
            "error: HTTP status client error (401 Unauthorized) for url"
            " (https://europe-python.pkg.dev/project-id/pypi/simple/requests/)"
        ],
        id="reqwest-401-not-the-hub",
    ),
    pytest.param(
        "hf.rate-limited",
        [
            "prefix: Error while reading the server response: HTTP status client error (429 Too Many Requests) for url"
            " (http://example.com/), request id: req-123"
        ],
        id="reqwest-429-not-the-hub",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            'time=2024-08-26T09:53:44.346Z level=INFO source=main.go:88 msg="received signal: terminated, shutting'
            ' down"',
            'time=2024-08-26T09:53:44.346Z level=ERROR source=sched.go:451 msg="error loading llama server"'
            ' error="llama runner process has terminated: exit status 2"',
        ],
        id="go-graceful-sigterm-and-exit-status",
    ),
    pytest.param(
        "machine.oom-killed-test-process",
        [
            "Apr 25 06:31:56 host kernel: [594646.252242] gsd-color invoked oom-killer: gfp_mask=0x14200ca"
            "(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=0",
            "python invoked pytest with 8 workers",
        ],
        id="daemon-oom-and-prose",
    ),
    pytest.param(
        "network.unreachable",
        [
            # the timed-out curl line joined network.unreachable in the eighth round (connect timeouts; rules-e)
            "curl: (7) Failed to connect to localhost port 3000 after 1 ms: Connection refused",
        ],
        id="curl-refused-or-timed-out",
    ),
    pytest.param(
        "machine.no-space-left",
        [
            "Message:          The node was low on resource: memory. Container runner was using 31Gi, request is 16Gi.",
            "Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 Insufficient ephemeral-storage.",
        ],
        id="memory-eviction-and-scheduling",
    ),
]

# the fixed misses of the third holdout: (log, rule, line)
REAL_LOGS = [
    ("holdout-r3/nccl-error/c-sglang-multinode-nccl-socket-no-route-to-host.log", "nccl.connect-failed", 1),
    ("holdout-r3/nccl-error/d-nccl-aws-p4d-recv-broken-pipe-remote.log", "nccl.remote-error", 1),
    # the cut ProcessGroupNCCL line is the first of the error, above the ncclInternalError detail line
    ("holdout-r3/nccl-error/d-r2gengpt-lightning-distbackenderror-internal.log", "nccl.internal-error", 1),
    (
        "holdout-r3/rendezvous-failure/c-tgi-sharded-llama-c10d-store-socket-timeout.log",
        "distributed.store-failure",
        4,
    ),
    ("holdout-r3/hub-access/c-tabby-fetch-model-hf-401-panic.log", "hf.unauthorized", 9),
    ("holdout-r3/hub-download/d-hf-cli-hssd-dataset-cdn-lfs-429.log", "hf.rate-limited", 6),
    (
        "holdout-r3/killed-by-signal/c-ollama-codespaces-runner-signal-terminated.log",
        "process.killed-by-signal",
        12,
    ),
    # the first faulthandler line (after pytest -v's node id) beats the repeat and fish's report below it
    ("holdout-r3/segfault/d-torchgeo-bench-faiss-knn-sigsegv-fish.log", "machine.segfault", 3),
    # the OOM event that names the test's interpreter beats the desktop daemon's earlier one
    ("holdout-r3/host-oom/d-deepspeech-syslog-python-oom-killer.log", "machine.oom-killed-test-process", 4),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_sglangs_own_kill_after_a_failed_warm_up_is_no_signal_death(rule_pack: RuleSet) -> None:
    """SGLang kills its process tree after logging the warm-up failure: the 'Killed' is its own cleanup (unexplained,
    the failed assertion is the likely cause), the train case that was the false cause."""
    log = TRAIN / "holdout-r3/unexplained/c-sglang-warmup-502-then-killed.log"
    assert root_cause_of(log, rule_pack) == (None, None)


def test_a_bare_kill_without_sglangs_own_failure_is_still_named(rule_pack: RuleSet, tmp_path: Path) -> None:
    lines = ["[2024-12-13 01:45:02] INFO:     Application startup complete.", "", "Killed"]
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == ("process.killed-by-signal", 3)


def test_nccls_connect_warning_outranks_the_system_error_it_causes(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """The WARN that names the unreachable peer outranks torch's 'unhandled system error' exception that wraps it."""
    lines = [
        "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned"
        " 113(No route to host) errno 115(Operation now in progress)",
        "node5:240:240 [6] NCCL INFO bootstrap.cc:285 -> 2",
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691,"
        " unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
    ]
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == ("nccl.connect-failed", 1)


def test_a_rank_killed_by_the_oom_killer_beats_the_peers_lost_connection(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """A peer's 'Connection closed by remote peer' is the aftermath of the rank that died first."""
    lines = [
        "node0:1:2 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer node1<57557>",
        "Aug 18 03:19:11 169 kernel: Out of memory: Killed process 7748 (python) total-vm:12907828kB",
    ]
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == ("machine.oom-killed-test-process", 2)


def test_a_daemons_oom_event_alone_stays_the_general_rule(rule_pack: RuleSet, tmp_path: Path) -> None:
    line = (
        "Apr 25 06:31:56 host kernel: [594646.252242] gsd-color invoked oom-killer: gfp_mask=0x14200ca"
        "(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=0"
    )
    assert root_cause_of(write_log(tmp_path, [line]), rule_pack) == ("machine.oom-killed", 1)
