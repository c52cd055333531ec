"""The fourteenth round's catalogue for processes, networks, containers, distributed runtimes and the harness
(killed-by-signal, disk-full, filesystem, network-unreachable, connection-refused, container-image,
runner-infrastructure, rendezvous-failure, collective-timeout, ray-died, server-not-ready, test-timeout, test-setup,
wrong-response): the emitters the tenth holdout showed the pack had not read (the batch schedulers Slurm, PBS/Torque,
OpenPBS, LSF and HTCondor; Kubernetes' node lifecycle and Helm's --wait; Gomega; Ray's raylet and GCS client; the C++
runtime's own aborts; FUSE and NFS mounts; corporate and Squid proxies; enroot/pyxis; Buildkite's agent; nextest) in
each rendering their source prints.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r10, cited in SOURCES-holdout-r10a.md / -r10b.md / -r10c.md); the near misses are
lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Fourteenth round".
"""

from __future__ import annotations

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import TRAIN, catalogue_tests
from tests.support.rulebook import root_cause_of

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # runner-infrastructure: the batch schedulers' node failures and the CI queue's missing runner
    (
        "runner.lost",
        "srun: error: Node failure on mia1-p01-g16",
        'SchedMD/slurm src/api/step_launch.c (_node_fail_handler: error("Node failure on %s"))',
    ),
    (
        "runner.lost",
        "Slurm Job_id=4132 Name=train-llm Failed, Run time 02:13:07, NODE_FAIL",
        "SchedMD/slurm src/slurmctld/agent.c (the job-failure mail subject)",
    ),
    (
        "runner.lost",
        "comment = Job requeued, execution node gpu-n17 down",
        'openpbs/openpbs src/server/node_manager.c ("Job requeued, execution node %s down")',
    ),
    (
        "runner.lost",
        "Job deleted, execution node gpu-n17 down",
        'openpbs/openpbs src/server/node_manager.c ("Job deleted, execution node %s down")',
    ),
    (
        "runner.lost",
        "job preempted (node failure)",
        "adaptivecomputing/torque src/server/req_delete.c (the operator's reason under the owner's mail), "
        "holdout-r10/runner-infrastructure/t-pbs-gpu-node-failure-job-deleted",
    ),
    (
        "runner.lost",
        "004 (1234.000.000) 2025-03-01 10:02:11 Job was evicted.",
        "htcondor/htcondor src/condor_utils/condor_event.cpp (JobEvictedEvent in the user log)",
    ),
    (
        "runner.lost",
        "024 (1235.000.000) 2025-03-01 10:40:00 Job reconnection failed",
        "htcondor/htcondor src/condor_utils/condor_event.cpp (JobReconnectFailedEvent)",
    ),
    (
        "runner.lost",
        "Message:          Pod was terminated in response to imminent node shutdown.",
        "kubernetes pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go (kubectl describe pod)",
    ),
    (
        "runner.lost",
        "Message:                   Node origin-ci-ig-n-d4fs which was running pod ghproxy-f9bbcc785-r4lwz is unresponsive",
        "kubernetes pkg/util/node/node.go (NodeUnreachablePodMessage, reason NodeLost)",
    ),
    (
        "runner.no-runner",
        "This request was automatically failed because there were no runners enabled online to process the request "
        "for more than 1 day.",
        "GitHub Actions' queue annotation, the other word order (holdout-r10/runner-infrastructure/u-cuda-memtest-…)",
    ),
    # test-timeout: the schedulers' run-time limits and nextest
    (
        "runner.step-timeout",
        "=>> PBS: job killed: walltime 7230 exceeded limit 7200",
        "openpbs/openpbs and adaptivecomputing/torque src/resmom/mom_main.c (kill_msg)",
    ),
    (
        "runner.step-timeout",
        "TERM_RUNLIMIT: job killed after reaching LSF run time limit.",
        "IBM Spectrum LSF lsbatch.h termination reasons as the job report prints them",
    ),
    (
        "runner.step-timeout",
        "Slurm Job_id=88121 Name=gpu-ci Failed, Run time 04:00:17, TIMEOUT",
        "SchedMD/slurm src/slurmctld/agent.c (the job-failure mail subject)",
    ),
    (
        "pytest.timeout",
        "     TIMEOUT [  60.000s] ( 13/100) my-binary-id test_name",
        "nextest-rs/nextest nextest-runner/src/reporter/displayer/imp.rs (status_line_all_variants snapshot)",
    ),
    # killed-by-signal: the launchers' and CI agents' renderings
    (
        "process.signal-exit-status",
        "🚨 Error: The command exited with status 137",
        'buildkite/agent internal/job/executor.go (e.shell.Errorf("The command exited with status %d"))',
    ),
    (
        "process.signal-exit-status",
        "  | [ERROR 2023-03-29 08:44:58,216] glue.py: 420  Command returned non-success status: 137",
        "ray-project/ray release/ray_release (CommandError), holdout-r10/killed-by-signal/s-ray-release-serve-…",
    ),
    (
        "process.signal-exit-status",
        "Exited with code 137",
        "CircleCI's step summary, holdout-r10/killed-by-signal/u-addons-server-supervisorctl-restart-137",
    ),
    (
        "process.killed-by-signal",
        "torch.distributed.elastic.multiprocessing.api.SignalException: Process 4242 got signal: 15",
        "pytorch torch/distributed/elastic/multiprocessing/api.py (_terminate_process_handler)",
    ),
    # filesystem: FUSE / NFS mounts gone
    (
        "machine.mount-disconnected",
        "OSError: [Errno 107] Transport endpoint is not connected: '/content/drive/MyDrive/models/v1-5-pruned.ckpt'",
        "CPython Objects/exceptions.c (OSError.__str__ with a filename; glibc strerror(ENOTCONN))",
    ),
    (
        "machine.mount-disconnected",
        "ls: cannot access '/mnt/data': Transport endpoint is not connected",
        'GNU coreutils ls ("cannot access %s" with strerror(ENOTCONN)) on a dead sshfs mount',
    ),
    (
        "machine.mount-disconnected",
        "Error: stat /gcs/bucket/checkpoints: transport endpoint is not connected",
        "golang/go os.PathError with syscall's ENOTCONN text (a gcsfuse mount gone)",
    ),
    (
        "machine.mount-disconnected",
        "OSError: [Errno 116] Stale file handle: '/home/ci/.cache/huggingface/hub'",
        "CPython OSError.__str__ for ESTALE (glibc strerror(116))",
    ),
    (
        "machine.mount-disconnected",
        "OSError: [Errno 5] Input/output error: '/content/drive/MyDrive/sd/models/v1-5.ckpt'",
        "CPython OSError.__str__ for EIO on a mounted path",
    ),
    (
        "machine.too-many-open-files",
        "RuntimeError: unable to open shared memory object </torch_4242_1> in read-write mode: Too many open files (24)",
        "pytorch aten/src/ATen/MapAllocator.cpp (a DataLoader worker through /dev/shm)",
    ),
    (
        "fatal-line.filesystem",
        "OSError: [Errno 107] Transport endpoint is not connected",
        "holdout-r10/filesystem/u-sd-webui-colab-drive-transport-endpoint (no path: the tier's words)",
    ),
    # disk-full
    (
        "machine.no-space-left",
        "E: You don't have enough free space in /var/cache/apt/archives/.",
        "apt apt-private/private-install.cc",
    ),
    # network-unreachable: a proxy answering for the server
    (
        "network.proxy-error",
        "prisma.engine.errors.EngineRequestError: 400: <HEAD><TITLE>Request on loopback from external IP</TITLE></HEAD>",
        "Symantec/Blue Coat ProxySG's exception page, holdout-r10/network-unreachable/s-litellm-prisma-engine-…",
    ),
    (
        "network.proxy-error",
        "X-Squid-Error: ERR_ACCESS_DENIED 0",
        "squid-cache/squid errors/templates (the response header of its error pages)",
    ),
    # connection-refused
    (
        "network.connection-refused",
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='0.0.0.0', port=30000): Max retries exceeded "
        "with url: /generate (Caused by NewConnectionError('<urllib3.connection.HTTPConnection objec",
        "urllib3 connection.py (NewConnectionError) to a loopback host, holdout-r10/connection-refused/s-sglang-…",
    ),
    # container-image
    (
        "container.image-pull-failed",
        "pyxis:     [ERROR] URL https://nvcr.io/v2/nvidia/pytorch/manifests/99.01-py3 returned error code: 404 Not Found",
        "NVIDIA/enroot src/common.sh (common::curl), relayed by NVIDIA/pyxis pyxis_slurmstepd.c",
    ),
    (
        "container.image-pull-failed",
        "Error: initializing source docker://x:latest: reading manifest latest in docker.io/library/x: requested "
        "access to the resource is denied",
        'containers/image docker/docker_client.go ("reading manifest %s in %s: %w"), podman pull',
    ),
    # ray-died
    (
        "ray.node-died",
        "[2023-06-01 13:43:05,421 E 26 94] (raylet) agent_manager.cc:135: The raylet exited immediately because the "
        "Ray agent failed. The raylet fate shares with the agent.",
        "ray-project/ray src/ray/raylet/agent_manager.cc (Ray 1.x-2.9)",
    ),
    (
        "ray.node-died",
        "The raylet exited immediately because one Ray agent failed, agent_name = dashboard_agent/4242.",
        "ray-project/ray src/ray/raylet/agent_manager.cc (Ray 2.10 and later)",
    ),
    (
        "ray.node-died",
        "The raylet exited immediately because the runtime env agent timed out when Raylet try to connect to it.",
        "ray-project/ray src/ray/raylet/runtime_env_agent_client.cc",
    ),
    (
        "ray.node-died",
        "[2025-12-19 15:55:39,521 E 3044 30260] rpc_client.h:203: Failed to connect to GCS within 60 seconds. GCS may "
        "have been killed. It's either GCS is terminated by `ray stop` or is killed unexpectedly.",
        "ray-project/ray src/ray/rpc/gcs/gcs_rpc_client.h (rpc_client.h since 2.40)",
    ),
    # collective-timeout and rendezvous-failure, as terminals wrap them
    (
        "distributed.watchdog-timeout",
        "s watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This "
        "typically indi",
        "pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (HeartbeatMonitor), wrapped at 116 columns",
    ),
    (
        "distributed.store-unreachable",
        "`(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out after "
        "1800s while trying to connect to (172.17.0.2",
        "pytorch torch/csrc/distributed/c10d/socket.cpp, the address wrapped to the next line",
    ),
    # server-not-ready: Helm's --wait and Gomega's Eventually on pods
    (
        "harness.server-not-ready",
        "Error: UPGRADE FAILED: resource Deployment/taskboard/taskboard-backend not ready. status: InProgress, "
        "message: Updated: 1/2",
        "helm/helm pkg/kube/statuswait.go (Helm 4 and 3.19+)",
    ),
    (
        "harness.server-not-ready",
        "Error: INSTALLATION FAILED: context deadline exceeded",
        "helm/helm v3 (install --wait past its --timeout)",
    ),
    (
        "harness.server-wait-timeout",
        [
            "        Timed out after 180.000s.",
            "expected pod inf-ext-e2e/epp-669f468cd5-7xqfj to have condition ready, but it was not ready",
        ],
        "onsi/gomega internal/async_assertion.go with kgateway test/gomega/matchers/pod_matcher.go",
    ),
    # hub-access: ModelScope, the hub vLLM and SGLang read with *_USE_MODELSCOPE
    (
        "hf.modelscope-not-accessible",
        "requests.exceptions.HTTPError: 404 Not Found: Qwen/Qwen9-7B does not exist or is not accessible, Request id: "
        "4f2a0c for url: https://www.modelscope.cn/api/v1/models/Qwen/Qwen9-7B/revisions",
        "modelscope/modelscope modelscope/hub/errors.py handle_http_response (June 2026 on)",
    ),
    (
        "hf.modelscope-not-accessible",
        "2025-03-01 10:00:00,000 - modelscope - ERROR - The request model: Qwen/Qwen9-7B does not exist!",
        "modelscope/modelscope modelscope/hub/errors.py handle_http_response (1.x to May 2026)",
    ),
    (
        "hf.modelscope-not-accessible",
        "requests.exceptions.HTTPError: Authentication token does not exist, failed to access model my-org/private-llm "
        "which may not exist or may be private. Please login first.",
        "modelscope/modelscope modelscope/hub/errors.py handle_http_response (a 403 without a login)",
    ),
    # wrong-response
    (
        "harness.response-mismatch",
        "AssertionError: Output audio transcript should match model text (sim=0.377):",
        "vllm-project/vllm-omni tests/entrypoints/openai_api/test_qwen3_omni_realtime_websocket.py (holdout-r10)",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "process.signal-exit-status",
        [
            "pure virtual method called",
            "terminate called without an active exception",
            "E1019 08:21:39.599000 3036 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
            "local_rank: 0 (pid: 3042) of binary: /usr/bin/python",
        ],
        id="cxx-pure-virtual-abort-then-torchrun-minus-6",
    ),
    pytest.param(
        "fatal-line.killed-by-signal",
        [
            "pure virtual method called",
            "terminate called without an active exception",
            "E1019 08:21:39.599000 3036 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
            "local_rank: 0 (pid: 3042) of binary: /usr/bin/python",
        ],
        id="tier-leaves-a-bare-sigabrt-status",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["libc++abi: Pure virtual function called!", "Aborted (core dumped)"],
        id="libcxxabi-pure-virtual-abort",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["torch.distributed.elastic.multiprocessing.api.SignalException: Process 4242 got signal: 2"],
        id="torchelastic-ctrl-c",
    ),
    pytest.param(
        "runner.lost",
        ["comment = Job never started, execution node gpu-n17 down"],
        id="openpbs-requeued-before-it-ran",
    ),
    pytest.param(
        "runner.lost",
        ["022 (1234.000.000) 2025-03-01 10:02:11 Job disconnected, attempting to reconnect"],
        id="htcondor-disconnect-it-recovers-from",
    ),
    pytest.param(
        "runner.step-timeout",
        ["=>> PBS: job killed: mem 33554432kb exceeded limit 16777216kb"],
        id="pbs-memory-limit-not-walltime",
    ),
    pytest.param(
        "pytest.timeout",
        ["TIMEOUT-PASS [ 240.000s] (  3/100) my-binary-id test_name"],
        id="nextest-timeout-pass",
    ),
    pytest.param(
        "machine.mount-disconnected",
        ["OSError: [Errno 107] Transport endpoint is not connected"],
        id="socket-enotconn-without-a-path",
    ),
    pytest.param(
        "machine.mount-disconnected",
        ["OSError: [Errno 5] Input/output error: '/dev/tty'"],
        id="eio-on-a-terminal",
    ),
    pytest.param(
        "network.proxy-error",
        [
            '# corporate proxies answer "400 Request on loopback from external IP" unless NO_PROXY has 127.0.0.1'
        ],
        id="proxy-page-quoted-in-a-comment",
    ),
    pytest.param(
        "network.connection-refused",
        [
            "requests.exceptions.ReadTimeout: HTTPConnectionPool(host='localhost', port=8000): Read timed out. "
            "(read timeout=30)"
        ],
        id="loopback-read-timeout-not-refused",
    ),
    pytest.param(
        "container.image-pull-failed",
        [
            "[ERROR] URL https://nvcr.io/v2/nvidia/pytorch/blobs/sha256:ab returned error code: 502 Bad Gateway"
        ],
        id="enroot-registry-5xx",
    ),
    pytest.param(
        "harness.server-not-ready",
        [
            'Release "gopher" failed: failed post-install: resource Job/default/gopher not ready. status: '
            "InProgress, message: Job in progress"
        ],
        id="helm-post-install-job",
    ),
    pytest.param(
        "harness.server-wait-timeout",
        [
            "    controller_test.go:88: ",
            "        Timed out after 30.000s.",
            "        Expected",
            "            <int>: 2",
        ],
        id="gomega-eventually-on-a-number",
    ),
    pytest.param(
        "ray.node-died",
        [
            'INFRA_FAILURE_PATTERNS = ["failed to connect to gcs within 60 seconds", "gcs may have been killed"]'
        ],
        id="gcs-words-in-a-grep-list",
    ),
    pytest.param(
        "hf.modelscope-not-accessible",
        [
            "requests.exceptions.HTTPError: 502 Server Error: Bad Gateway, Request id: 4f2a0c, for url: "
            "https://www.modelscope.cn/api/v1/models/Qwen/Qwen2-7B/revisions"
        ],
        id="modelscope-5xx",
    ),
    pytest.param(
        "pytest.setup-error",
        [
            "E               RuntimeError: Server processes exited with code 2 before becoming ready.",
            "",
            "tests/helpers/runtime.py:294: RuntimeError",
            "______________ ERROR at setup of test_text_to_image_001[default] _______________",
        ],
        id="setup-header-under-a-server-exited-wrapper",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r10/runner-infrastructure/t-pbs-gpu-node-failure-job-deleted.log", "runner.lost", 6),
    ("holdout-r10/runner-infrastructure/u-cuda-memtest-ci-no-runners-online.log", "runner.no-runner", 1),
    (
        "holdout-r10/killed-by-signal/s-ray-release-serve-failure-status-137.log",
        "process.signal-exit-status",
        10,
    ),
    (
        "holdout-r10/killed-by-signal/u-addons-server-supervisorctl-restart-137.log",
        "process.signal-exit-status",
        2,
    ),
    (
        "holdout-r10/connection-refused/s-sglang-sm75-warmup-new-connection-error.log",
        "network.connection-refused",
        20,
    ),
    (
        "holdout-r10/network-unreachable/s-litellm-prisma-engine-proxy-loopback-400.log",
        "network.proxy-error",
        4,
    ),
    ("holdout-r10/filesystem/u-sd-webui-colab-drive-transport-endpoint.log", "fatal-line.filesystem", 6),
    (
        "holdout-r10/wrong-response/s-vllm-omni-realtime-pcm-transcript-similarity-assert.log",
        "harness.response-mismatch",
        3,
    ),
    (
        "holdout-r10/collective-timeout/t-vlm-r1-nccl-heartbeat-watchdog-stuck.log",
        "distributed.watchdog-timeout",
        1,  # the record's own line since the fifteenth round (rules-x), as labelled
    ),
    ("holdout-r10/ray-died/u-sematic-raylet-agent-failed.log", "ray.node-died", 2),
    (
        "holdout-r10/rendezvous-failure/u-openrlhf-vllm-worker-store-connect-timeout.log",
        "distributed.store-unreachable",
        1,
    ),
    (
        "holdout-r10/server-not-ready/u-kgateway-inference-ext-epp-pod-never-ready.log",
        "harness.server-wait-timeout",
        5,
    ),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


@pytest.mark.parametrize(
    "name",
    [
        "holdout-r10/unexplained/u-megatron-profiling-pure-virtual-at-exit.log",
        "holdout-r10/server-not-ready/s-vllm-omni-pipefusion-server-exited-code-2-before-ready.log",
        "holdout-r9/unexplained/p-vllm-omni-perf-bench-server-exited-code-1-before-ready.log",
    ],
)
def test_a_program_s_own_abort_or_a_start_up_wrapper_names_no_cause(name: str, rule_pack: RuleSet) -> None:
    """The tenth set's false cause (a C++ runtime abort at teardown, then torchrun's -6) and the server-exited wrapper
    (labelled unexplained, as its ninth-set twin) stay unexplained: no ordinary rule and no fatal-line rule names them."""
    assert root_cause_of(TRAIN / name, rule_pack) == (None, None)
