"""The thirteenth round's catalogue for processes, networks, the Hub, rendezvous and the harness (test-timeout,
killed-by-signal, host-oom, rendezvous-failure, hub-download, hub-access, connection-refused, filesystem,
server-not-ready, wrong-response): the emitters the pack had not read (the Kubernetes-native CI systems, torchrun's
elastic agent, supervisord, Gloo and Horovod stores, xet-core, wget/curl/llama.cpp downloads, the NATS clients,
Node/JVM heaps, the JavaScript test runners, Open Liberty's FAT tests) in each rendering their source prints.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r9, cited in SOURCES-holdout-r9a.md / -r9b.md / -r9c.md); the near misses are lines
that look alike but must not name that cause. The real logs check the rule and line that win. See docs/accuracy.md,
"Thirteenth round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # test-timeout: the CI systems' own notices of a step or job limit
    (
        "runner.step-timeout",
        "Error: The action 'Run E2E tests' has timed out after 60 minut",
        "actions/runner StepsRunner.cs, as kserve/kserve#4774 quotes it cut (holdout-r9/test-timeout/p-kserve-…)",
    ),
    (
        "runner.step-timeout",
        '{"component":"entrypoint","level":"error","msg":"Process did not finish before 2h0m0s timeout","time":"2025-01-01T00:00:00Z"}',
        "kubernetes-sigs/prow pkg/entrypoint/run.go (logrus JSON in build-log.txt)",
    ),
    (
        "runner.step-timeout",
        'level=error msg="Process did not finish before 1s timeout"',
        "kubernetes-sigs/prow pkg/entrypoint/run_test.go (logrus text)",
    ),
    (
        "runner.step-timeout",
        'PipelineRun "llm-e2e-7x2k" failed to finish within "1h0m0s"',
        "tektoncd/pipeline pkg/apis/pipeline/v1/pipelinerun_types.go (PipelineRun %q failed to finish within %q)",
    ),
    (
        "runner.step-timeout",
        'TaskRun "gpu-tests-r2d2" failed to finish within "30m0s"',
        "tektoncd/pipeline pkg/reconciler/taskrun/taskrun.go (TaskRun %q failed to finish within %q)",
    ),
    (
        "runner.step-timeout",
        "  Warning  DeadlineExceeded  2m  job-controller  Job was active longer than specified deadline",
        "kubernetes pkg/controller/job/job_controller.go (the Job's DeadlineExceeded condition)",
    ),
    (
        "runner.step-timeout",
        "Step exceeded its deadline",
        "argoproj/argo-workflows workflow/controller/operator.go (a step's activeDeadlineSeconds)",
    ),
    # test-timeout: the JavaScript test runners' per-test limits
    (
        "pytest.timeout",
        'thrown: "Exceeded timeout of 5000 ms for a test.',
        "jestjs/jest packages/jest-circus/src/utils.ts getTimeoutError",
    ),
    (
        "pytest.timeout",
        'Error: Timeout of 2000ms exceeded. For async tests and hooks, ensure "done()" is called; if returning a Promise, ensure it resolves.',
        "mochajs/mocha lib/runnable.js",
    ),
    ("pytest.timeout", "Error: Test timed out in 5000ms.", "vitest-dev/vitest @vitest/runner"),
    # killed-by-signal: torchrun's agent stopped from outside, supervisord's report
    (
        "process.killed-by-signal",
        "W1130 12:13:49.388000 124326 torch/distributed/elastic/agent/server/api.py:723] Received 15 death signal, shutting down workers",
        "torch/distributed/elastic/agent/server/api.py (holdout-r9/killed-by-signal/r-prime-rl-…)",
    ),
    (
        "process.killed-by-signal",
        "WARNING:torch.distributed.elastic.agent.server.api:Received Signals.SIGTERM death signal, shutting down workers",
        "torch/distributed/elastic/agent/server/api.py on Python < 3.11 (the enum's repr)",
    ),
    (
        "process.killed-by-signal",
        "2025-11-12 05:35:51,843 WARN exited: vllm (terminated by SIGKILL; not expected)",
        "Supervisor/supervisor supervisor/process.py Subprocess.finish",
    ),
    # host-oom: the managed runtimes' heaps
    (
        "machine.host-alloc-failed",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        "nodejs/node src/node_errors.cc OOMErrorHandler (Node >= 12)",
    ),
    (
        "machine.host-alloc-failed",
        'Exception in thread "main" java.lang.OutOfMemoryError: GC overhead limit exceeded',
        "OpenJDK (the GC's overhead limit, an uncaught OutOfMemoryError)",
    ),
    # rendezvous-failure: Gloo's and Horovod's stores
    (
        "distributed.store-failure",
        "  what():  [/tmp/pip-install/horovod/common/gloo/http_store.cc:57] Wait timeout after 30 seconds for key(s): 0. You may want to increase the timeout via HOROVOD_GLOO_TIMEOUT_SECONDS",
        "horovod/common/gloo/http_store.cc (holdout-r9/rendezvous-failure/q-ray-release-horovod-…)",
    ),
    (
        "distributed.store-failure",
        'RuntimeError: [/opt/gloo/gloo/rendezvous/file_store.cc:132] Wait timeout for key(s): ["rank_1"]',
        "facebookincubator/gloo gloo/rendezvous/file_store.cc FileStore::wait",
    ),
    # rendezvous-failure and collective-timeout: XLA's coordination service (JAX, TensorFlow multi-worker)
    (
        "distributed.store-failure",
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: PjRT_Client_Connect. This usually happens because a task triggered the barrier too early or too slowly.",
        "openxla/xla xla/pjrt/distributed/client.cc (jax.distributed.initialize's start-up barrier)",
    ),
    (
        "distributed.watchdog-timeout",
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: 0_async_write_complete.0.1. This usually happens because a task triggered the barrier too early or too slowly.",
        "openxla/xla coordination_service.cc through orbax's checkpoint barrier",
    ),
    # hub-download: huggingface_hub's resumable download, xet-core's reqwest errors
    (
        "hf.retried-request",
        "Error while downloading from https://huggingface.co/unsloth/x-GGUF/resolve/6d05/UD-Q8_K_XL/x-00003-of-00020.gguf: The read operation timed out",
        "huggingface_hub src/huggingface_hub/file_download.py http_get",
    ),
    (
        "hf.download-failed",
        '2025-05-02T10:11:12.123456Z ERROR cas_client::remote_client: error fetching 1 term, error: ReqwestError(reqwest::Error { kind: Status(503), url: "https://cas-server.xethub.hf.co/reconstruction/2b1c4f" })',
        "huggingface/xet-core cas_client/src/remote_client.rs (tracing's text format), reqwest src/error.rs Debug",
    ),
    # hub-access: the download tools refused by the Hub
    (
        "hf.download-tool-refused",
        [
            "wget: server returned error: HTTP/1.1 404 Not Found",
            "Connecting to huggingface.co (3.165.190.15:443)",
        ],
        "BusyBox networking/wget.c (holdout-r9/hub-access/r-orpheus-fastapi-…, the connect line after for the test)",
    ),
    (
        "hf.download-tool-refused",
        [
            "2024-05-01 10:00:00 ERROR 403: Forbidden.",
            "--2024-05-01 10:00:00--  https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json",
        ],
        "GNU wget src/http.c ('%s ERROR %d: %s.')",
    ),
    (
        "hf.download-tool-refused",
        [
            "curl: (22) The requested URL returned error: 401",
            "+ curl -fL -o model.gguf https://huggingface.co/org/gated-GGUF/resolve/main/model.gguf",
        ],
        "curl lib/http.c (failf 'The requested URL returned error: %d')",
    ),
    (
        "hf.download-tool-refused",
        [
            "common_download_file: invalid http status code received: 404",
            "common_download_file: trying to download model from https://huggingface.co/ggml-org/models/resolve/main/x.gguf to /tmp/x.gguf (server_etag:, server_last_modified:)...",
        ],
        "ggml-org/llama.cpp common/common.cpp common_download_file",
    ),
    # connection-refused: the NATS clients
    (
        "network.connection-refused",
        "error creating node: failed to create NATS transport layer: nats: no servers available for connection",
        "nats-io/nats.go ErrNoServers, bacalhau's wrapper (holdout-r9/connection-refused/r-bacalhau-…)",
    ),
    (
        "network.connection-refused",
        "nats.errors.NoServersError: nats: no servers available for connection",
        "nats-io/nats.py nats/errors.py NoServersError",
    ),
    # filesystem: EACCES as a shell and a program's own handler print it
    (
        "machine.permission-denied",
        "model-download-1  | /models/download-ggml-model.sh: Permission denied",
        "a compose service's entrypoint (holdout-r9/filesystem/r-wyoming-whisper-…)",
    ),
    (
        "machine.permission-denied",
        "/entrypoint.sh: line 12: /opt/app/start-server.sh: Permission denied",
        "bash execute_cmd.c shell_execve (EACCES, the running script's name first)",
    ),
    (
        "machine.permission-denied",
        "  [Errno 13] Permission denied: '/home/container_app_user/cache_root/huggingface'",
        "CPython OSError.__str__ printed by a handler (holdout-r9/filesystem/r-tt-inference-server-…)",
    ),
    (
        "machine.permission-denied",
        "api.service: Failed at step EXEC spawning /var/lib/yeet/services/api/bin/api-20260718.1: Permission denied",
        "systemd src/core/execute.c (ExecStart not executable)",
    ),
    # server-not-ready: Open Liberty's FAT tests
    (
        "harness.server-not-ready",
        "junit.framework.AssertionFailedError: 2024-03-07-23:37:13:525 The CWWKZ0001I Application started message did not appear in messages.log",
        "OpenLiberty/open-liberty microprofile health FAT tests",
    ),
    # wrong-response: vllm-omni's keyword check
    (
        "harness.response-mismatch",
        "E       AssertionError: The output does not contain any of the keywords.",
        "vllm-project/vllm-omni tests/e2e/online_serving (holdout-r9/wrong-response/p-vllm-omni-…)",
    ),
]

NEAR_MISSES = [
    pytest.param(
        "runner.step-timeout",
        ["If the log says 'Process did not finish before 2h0m0s timeout', raise the decoration timeout."],
        id="prow-notice-quoted-in-docs",
    ),
    pytest.param(
        "runner.step-timeout",
        ["  Warning  BackoffLimitExceeded  2m  job-controller  Job has reached the specified backoff limit"],
        id="k8s-job-backoff-not-deadline",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "W1130 12:13:49.389000 124326 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 124533 closing signal SIGTERM"
        ],
        id="torchrun-cleanup-of-its-workers",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "2025-11-12 05:35:51,843 WARN exited: mailserver (exit status 1; not expected)",
            "2025-11-12 05:35:52,101 INFO stopped: postfix (terminated by SIGTERM)",
        ],
        id="supervisord-exit-status-and-own-stop",
    ),
    pytest.param(
        "machine.host-alloc-failed",
        [
            "## Might help to avoid FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory"
        ],
        id="node-oom-quoted-in-a-script-comment",
    ),
    pytest.param(
        "distributed.store-failure",
        ["Set HOROVOD_GLOO_TIMEOUT_SECONDS to wait longer for the Gloo rendezvous on large clusters."],
        id="horovod-knob-in-docs",
    ),
    pytest.param(
        "hf.retried-request",
        [
            "Error while downloading from https://download.pytorch.org/whl/cu121/torch.whl: The read operation timed out"
        ],
        id="resume-warning-for-another-host",
    ),
    pytest.param(
        "hf.download-failed",
        ['Error: reqwest::Error { kind: Status(503), url: "http://localhost:8080/v1/completions" }'],
        id="reqwest-error-of-the-test-server",
    ),
    pytest.param(
        "hf.download-tool-refused",
        [
            "Connecting to github.com (140.82.112.3:443)",
            "wget: server returned error: HTTP/1.1 404 Not Found",
        ],
        id="wget-404-not-the-hub",
    ),
    pytest.param(
        "hf.download-tool-refused",
        [
            "Connecting to huggingface.co (3.165.190.15:443)",
            "wget: server returned error: HTTP/1.1 503 Service Unavailable",
        ],
        id="wget-hub-503-is-a-download-failure",
    ),
    pytest.param(
        "machine.permission-denied",
        [
            "Could not cache non-existence of file. Will ignore error and continue. Error: [Errno 13] Permission denied: '/data/hf/.no_exist'"
        ],
        id="hub-cache-notice-it-ignores",
    ),
    pytest.param(
        "machine.permission-denied",
        ["git@github.com: Permission denied (publickey)."],
        id="ssh-publickey-not-a-path",
    ),
    pytest.param(
        "harness.server-not-ready",
        [
            "[3/7/24 23:37:13:525 UTC] 0000002a com.ibm.ws.app.manager.AppMessageHelper A CWWKZ0001I: Application MultiWarApps started in 1.203 seconds."
        ],
        id="liberty-app-started-message-itself",
    ),
    pytest.param(
        "pytest.timeout",
        ['Mocha issues: if you see "Timeout of X ms exceeded", raise this.timeout().'],
        id="mocha-timeout-quoted-in-docs",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r9/test-timeout/p-kserve-llmisvc-e2e-action-timed-out-60-min.log", "runner.step-timeout", 4),
    (
        "holdout-r9/wrong-response/p-vllm-omni-mimo-audio-text-to-text-missing-keywords.log",
        "harness.response-mismatch",
        5,
    ),
    (
        "holdout-r9/rendezvous-failure/p-vllm-ray-torchrun-tcpstore-client-timeout.log",
        "distributed.store-unreachable",
        2,
    ),
    (
        "holdout-r9/test-setup/q-myst-parser-fedora-collect-tests-conftest.log",
        "pytest.test-layout-import-failed",
        1,
    ),
    (
        "holdout-r9/rendezvous-failure/q-ray-release-horovod-gloo-http-store-timeout.log",
        "distributed.store-failure",
        12,
    ),
    ("holdout-r9/hub-download/q-hfhub-snapshot-download-read-timeout-resume.log", "hf.retried-request", 4),
    ("holdout-r9/hub-download/q-xet-llama4-consolidated-term-403-json.log", "hf.download-failed", 5),
    ("holdout-r9/killed-by-signal/r-prime-rl-trainer-death-signal-15.log", "process.killed-by-signal", 6),
    ("holdout-r9/hub-access/r-orpheus-fastapi-model-init-wget-404.log", "hf.download-tool-refused", 3),
    (
        "holdout-r9/connection-refused/r-bacalhau-serve-nats-no-servers-available.log",
        "network.connection-refused",
        7,
    ),
    (
        "holdout-r9/server-not-ready/r-open-liberty-health31-app-started-message-missing.log",
        "harness.server-not-ready",
        1,
    ),
    (
        "holdout-r9/filesystem/r-tt-inference-server-hf-cache-permission-denied.log",
        "machine.permission-denied",
        2,
    ),
    (
        "holdout-r9/filesystem/r-wyoming-whisper-compose-model-download-permission.log",
        "machine.permission-denied",
        2,
    ),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
