"""The twelfth round's catalogue for processes, the Hub, containers, Ray, disks, networks and the harness
(killed-by-signal, hub-download, hub-access, container-image, ray-died, disk-full, network-unreachable,
server-not-ready, wrong-response, test-setup): each widened rule reads every rendering of its message family that the
emitter's source prints, and stands down where the line proves no cause (a silent death, a program's own abort).

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r8, cited in SOURCES-holdout-r8a.md / -r8b.md / -r8c.md); the near misses are lines
that look alike but must not name that cause. The real logs check the rule and line that win. See docs/accuracy.md,
"Twelfth round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # killed-by-signal: glog's failure signal handler (glog src/signalhandler.cc DumpSignalInfo; folly; Paddle wraps it)
    (
        "process.killed-by-signal",
        "*** SIGABRT (@0x70900000356) received by PID 854 (TID 0x7f6506ffd700) from PID 854; stack trace: ***",
        "glog src/signalhandler.cc (as ray-project/ray#10967 quotes it, Ray's own header stripped)",
    ),
    (
        "process.killed-by-signal",
        "  [SignalInfo: *** SIGABRT (@0x2a0400000c21) received by PID 3105 (TID 0x7f05dd211740) from PID 3105 ***]",
        "Paddle paddle/fluid/platform/init.cc SignalHandle (holdout-r8/killed-by-signal/o-paddlehelix-…)",
    ),
    (
        "process.killed-by-signal",
        "*** SIGBUS (@0x7f3a1c000000) received by PID 4242 (TID 0x7f3a2b7fe700) from PID 0; stack trace: ***",
        "glog src/signalhandler.cc, a bus error (shared memory gone)",
    ),
    # hub-download: hf_transfer's own PyException (huggingface/hf_transfer src/lib.rs 0.1.x)
    (
        "hf.download-failed",
        "Exception: Error while downloading: reqwest::Error { kind: Body, source: hyper::Error(Body, Custom { kind: UnexpectedEof, error: IncompleteBody }) }",
        "hf_transfer src/lib.rs download() (holdout-r8/hub-download/n-hf-accelerator-hf-transfer-incomplete-body)",
    ),
    (
        "hf.download-failed",
        "Exception: Failed after too many retries (5): error decoding response body",
        'hf_transfer src/lib.rs download_async ("Failed after too many retries ({max_retries}): {dlerr}")',
    ),
    (
        "hf.download-failed",
        "Exception: Failed too many failures in parallel (10): error decoding response body (no permits available)",
        'hf_transfer src/lib.rs download_async ("Failed too many failures in parallel ({parallel_failures}): …")',
    ),
    # hub-download: a resumed download the CDN refuses (requests' raise_for_status, httpx's from huggingface_hub 1.0)
    (
        "hf.download-failed",
        "[rank0]: huggingface_hub.utils._errors.HfHubHTTPError: 416 Client Error: Requested Range Not Satisfiable for url: https://cdn-lfs-us- .....",
        "holdout-r8/hub-download/m-vllm-rocm-405b-hf-416-range-not-satisfiable (vLLM 0.5.3)",
    ),
    (
        "hf.download-failed",
        "requests.exceptions.HTTPError: 416 Client Error: Requested Range Not Satisfiable for url: https://cdn-lfs.huggingface.co/repos/7a/1b/abc",
        "requests/models.py raise_for_status under huggingface_hub's http_get (Range: bytes=<resume size>-)",
    ),
    (
        "hf.download-failed",
        "httpx.HTTPStatusError: Client error '416 Requested Range Not Satisfiable' for url 'https://cas-bridge.xethub.hf.co/xet-bridge-us/abc'",
        "httpx/_models.py raise_for_status (huggingface_hub >= 1.0)",
    ),
    # hub-access: the Hub's 403 (it outranks huggingface_hub's 'locate the file' wrapper: the real log below)
    (
        "hf.unauthorized",
        "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/meta-llama/Meta-Llama-3.1-8B-Instruct/resolve/0e9e39f249a16976918f6564b8830bc894c89659/.gitattributes",
        "requests/models.py raise_for_status under huggingface_hub's hf_raise_for_status (holdout-r8/hub-access/o-torchtune-…)",
    ),
    # container-image: distribution's errcode TOOMANYREQUESTS, each registry's own message after the code
    (
        "container.image-pull-failed",
        "Error response from daemon: toomanyrequests: Rate exceeded",
        "Amazon ECR Public through dockerd (holdout-r8/container-image/n-mcloud-agent-…)",
    ),
    (
        "container.image-pull-failed",
        "toomanyrequests: retry-after: 985.86µs, allowed: 44000/minute",
        "ghcr.io through docker compose pull (holdout-r8/container-image/n-terrifi-actions-…)",
    ),
    (
        "container.image-pull-failed",
        "Error response from daemon: toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit",
        "Docker Hub's message through dockerd",
    ),
    # ray-died: RAY_CHECK / RAY_LOG(FATAL) in a Ray process (src/ray/util/logging.cc, spdlog's 'C' level)
    (
        "ray.fatal-check-failed",
        "(raylet) [2022-09-16 09:27:25,719 C 236 236] (raylet) memory_monitor.cc:121:  Check failed: (_left_ > _right_)  117896851456 vs 117896851456",
        "holdout-r8/ray-died/n-raylet-memory-monitor-check-failed (Ray 2.0)",
    ),
    (
        "ray.fatal-check-failed",
        "[2023-05-02 11:04:17,512 C 81 81] (gcs_server) gcs_actor_manager.cc:1032:  Check failed: actor_to_register_callbacks_.count(actor_id) > 0",
        "src/ray/util/logging.cc RAY_CHECK in the GCS server (the component after the header, Ray 2.x)",
    ),
    (
        "ray.fatal-check-failed",
        "[2021-03-04 08:15:02,044 C 4121 4121] node_manager.cc:1195:  Check failed: worker",
        "src/ray/util/logging.cc RAY_CHECK (Ray 1.x: no component)",
    ),
    # disk-full: the kubelet's DiskPressure condition (pkg/kubelet/eviction), the scheduler's taint filter
    (
        "machine.no-space-left",
        "Mar 17 12:45:18 minikube kubelet[2278]: W0317 12:45:18.103283    2278 eviction_manager.go:159] Failed to admit pod kindnet-k7lrh_kube-system(04524076-3420-49c6-ae14-053fac0b083f) - node has conditions: [DiskPressure]",
        "holdout-r8/disk-full/o-minikube-kubelet-diskpressure-admit (kubelet 1.17)",
    ),
    (
        "machine.no-space-left",
        'I0301 10:00:00.000000    1234 eviction_manager.go:176] "Failed to admit pod to node" pod="ci/runner-abc" nodeCondition=[DiskPressure]',
        "kubernetes pkg/kubelet/eviction/eviction_manager.go Admit, structured klog (1.21+)",
    ),
    (
        "machine.no-space-left",
        "  Message:      Pod The node had condition: [DiskPressure]. ",
        "kubernetes pkg/kubelet/eviction/helpers.go nodeConditionMessageFmt, as kubectl describe pod shows it",
    ),
    (
        "machine.no-space-left",
        "  Warning  FailedScheduling  12s  default-scheduler  0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }.",
        "kubernetes pkg/scheduler/framework/plugins/tainttoleration (1.26+)",
    ),
    (
        "machine.no-space-left",
        "  Warning  FailedScheduling  12s  default-scheduler  0/1 nodes are available: 1 node(s) had taint {node.kubernetes.io/disk-pressure: }, that the pod didn't tolerate.",
        "kubernetes pkg/scheduler/framework/plugins/tainttoleration (before 1.26)",
    ),
    # network-unreachable: OpenSSL's reason cut by a console's hard wrap
    (
        "network.tls-verify-failed",
        "  Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'SSLError(SSLError(1, u'[SSL: CERTIFICATE_",
        "holdout-r8/network-unreachable/o-pipenv-virtualenv-pip-ssl-verify-proxy (pip 10, Windows console wrap)",
    ),
    # server-not-ready: a harness's readiness probe giving up on a health endpoint
    (
        "harness.server-not-ready",
        "[FAIL] qwen35-27b-q4km   cuda: serve NOT PROBED: apr serve did not answer /health within 90s",
        "holdout-r8/server-not-ready/o-aprender-model-ladder-serve-health-90s (paiml/aprender)",
    ),
    (
        "harness.server-not-ready",
        "ERROR: tritonserver never responded to /v2/health/ready within 300 seconds",
        "the same shape on Triton's readiness endpoint",
    ),
    # wrong-response: TorchServe's KServe scripts (kubernetes/kserve/tests/scripts/test_mnist.sh)
    (
        "harness.response-mismatch",
        '✘ Test failed: Prediction: {"predictions":[2]}, expected {"predictions":[1]}.',
        "pytorch/serve kubernetes/kserve/tests/scripts/test_mnist.sh (the v1 protocol)",
    ),
]

# (rule that must not answer, lines)
NEAR_MISSES = [
    pytest.param(
        "process.killed-by-signal",
        [
            "FAILED test_decomp.py::TestDecompXPU::test_comprehensive_to_sparse_xpu_int16 - worker 'gw4' crashed while running 'third_party/torch-xpu-ops/test/xpu/test_decomp.py::TestDecompXPU::test_comprehensive_to_sparse_xpu_int16'"
        ],
        id="xdist-worker-crashed-silent-death",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["13:33:50  [gw2] node down: Not properly terminated", "13:33:50  replacing crashed worker gw2"],
        id="xdist-node-down-silent-death",
    ),
    pytest.param(
        "pytest.setup-error",
        ["failed on setup with \"worker 'gwX' crashed while running 'tests/some_test.py::test_something'\""],
        id="xdist-crash-reported-as-setup",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            '  File "/u/miniconda3/lib/python3.11/site-packages/sglang/srt/managers/tp_worker.py", line 441, in forward_prefill_batch',
            "    batch.prepare_for_extend(self.model_config.vocab_size)",
            "TypeError: ScheduleBatch.prepare_for_extend() missing 1 required positional argument: 'int_token_logit_bias'",
            "",
            "Killed",
        ],
        id="sglang-kills-its-own-tree",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "*** stack smashing detected ***: /usr/bin/python2.7 terminated",
            '*** Aborted at 1536662024 (unix time) try "date -d @1536662024" if you are using GNU date ***',
            "Aborted (core dumped)",
        ],
        id="glibc-stack-smashing-abort",
    ),
    pytest.param(
        "process.signal-exit-status",
        ["double free or corruption (out)", "Process finished with exit code 134"],
        id="glibc-malloc-abort-exit-134",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["*** SIGTERM (@0x3e8) received by PID 42 (TID 0x7f1) from PID 1000; stack trace: ***"],
        id="glog-sigterm-cleanup",
    ),
    pytest.param(
        "hf.download-failed",
        ["Exception: Error while downloading: timeout after 30 s"],
        id="a-script-own-download-message",
    ),
    pytest.param(
        "container.image-pull-failed",
        ["If the pull fails with the toomanyrequests error code, log in to Docker Hub."],
        id="docs-naming-the-code",
    ),
    pytest.param(
        "ray.fatal-check-failed",
        [
            "[2023-10-10 21:22:40,289 I 5673 5673] (raylet) node_manager.cc:1449: NodeManager::DisconnectClient"
        ],
        id="ray-info-line",
    ),
    pytest.param(
        "machine.no-space-left",
        [
            'I0317 12:45:18.103283    2278 eviction_manager.go:336] "Eviction manager: attempting to reclaim" resourceName="ephemeral-storage"'
        ],
        id="kubelet-reclaim-attempt",
    ),
    pytest.param(
        "harness.server-not-ready",
        ["client did not answer /v1/completions within 30s"],
        id="request-not-a-probe",
    ),
]

# (train log, rule that must win, its evidence line)
REAL_LOGS = [
    (
        "holdout-r8/killed-by-signal/o-paddlehelix-infer-sigabrt-core-dumped.log",
        "process.killed-by-signal",
        2,
    ),
    ("holdout-r8/hub-download/m-vllm-rocm-405b-hf-416-range-not-satisfiable.log", "hf.download-failed", 1),
    ("holdout-r8/hub-download/n-hf-accelerator-hf-transfer-incomplete-body.log", "hf.download-failed", 2),
    ("holdout-r8/hub-access/o-torchtune-download-llama31-403-forbidden.log", "hf.unauthorized", 6),
    (
        "holdout-r8/container-image/n-terrifi-actions-compose-pull-toomanyrequests.log",
        "container.image-pull-failed",
        5,
    ),
    (
        "holdout-r8/container-image/n-mcloud-agent-ansible-ecr-pull-rate-exceeded.log",
        "container.image-pull-failed",
        23,
    ),
    ("holdout-r8/ray-died/n-raylet-memory-monitor-check-failed.log", "ray.fatal-check-failed", 1),
    ("holdout-r8/test-setup/n-liger-kernel-rms-norm-collect-importerror.log", "pytest.collection-error", 10),
    ("holdout-r8/disk-full/o-minikube-kubelet-diskpressure-admit.log", "machine.no-space-left", 2),
    (
        "holdout-r8/network-unreachable/o-pipenv-virtualenv-pip-ssl-verify-proxy.log",
        "network.tls-verify-failed",
        10,
    ),
    (
        "holdout-r8/server-not-ready/o-aprender-model-ladder-serve-health-90s.log",
        "harness.server-not-ready",
        1,
    ),
    (
        "holdout-r8/wrong-response/o-torchserve-kserve-v2-nightly-prediction-mismatch.log",
        "harness.response-mismatch",
        1,
    ),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
