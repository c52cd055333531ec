"""The tenth round's catalogue of processes, networks, containers, distributed runtimes, the harness and the
environment (rules-l): each rule reads every rendering.

Every rendering is quoted from the cited upstream source (its message text, with the prefixes a CI log adds: torch's
`[rank1]:[W… socket.cpp:485]`, logrus' `time=… level=warning msg=…`, a `[SGLang LOG] ` tag, a Python logging header), a
cited public thread or a real train log; the near misses are lines that look alike but must not name that cause (the
retried try a later one may survive, a warning of an optional import, the source line that formats a message, a stop
on purpose). The real logs check the rule and line that win. See docs/accuracy.md, "Tenth round".
"""

from __future__ import annotations

import pytest

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # filesystem: Rust's io::Error Debug (library/std/src/io/error.rs, impl Debug for Repr) under a panic's unwrap
    (
        "machine.too-many-open-files",
        '[SGLang LOG] called `Result::unwrap()` on an `Err` value: Os { code: 24, kind: Uncategorized, message: "Too'
        ' many open files" }',
        "actix-server 2.5 worker.rs under SGLang's Rust router (tests/corpus/train/holdout-r6, Arbor's log)",
    ),
    (
        "machine.too-many-open-files",
        "thread 'tokio-runtime-worker' panicked at 'called `Result::unwrap()` on an `Err` value: Os { code: 24, kind:"
        ' Other, message: "Too many open files" }\', src/main.rs:10:5',
        "rust library/std/src/io/error.rs before 1.55 (kind Other) and the pre-1.73 panic format",
    ),
    (
        "machine.permission-denied",
        'called `Result::unwrap()` on an `Err` value: Os { code: 13, kind: PermissionDenied, message: "Permission'
        ' denied" }',
        "rust library/std/src/io/error.rs (ErrorKind::PermissionDenied for EACCES)",
    ),
    (
        "machine.permission-denied",
        "PermissionError: [WinError 5] Access is denied: 'C:\\\\hostedtoolcache\\\\windows\\\\Python\\\\3.11.9\\\\x64"
        "\\\\Scripts\\\\pip.exe'",
        "CPython PC/errmap.h (winerror 5 -> EACCES) on a Windows runner",
    ),
    (
        "machine.read-only-filesystem",
        'failed to create cache dir: Os { code: 30, kind: ReadOnlyFilesystem, message: "Read-only file system" }',
        "rust library/std/src/io/error.rs (ErrorKind::ReadOnlyFilesystem, Rust >= 1.83)",
    ),
    (
        "hf.cache-not-writable",
        "There was a problem when trying to write in your cache folder (/.cache/huggingface/hub). You should set the"
        " environment variable TRANSFORMERS_CACHE to a writable directory.",
        "huggingface/transformers src/transformers/utils/hub.py (tests/corpus/train/holdout-r6, KServe on OpenShift)",
    ),
    (
        "hf.cache-not-writable",
        "There was a problem when trying to write in your cache folder (/home/sbx_user1051/.cache/huggingface/hub)."
        " Please, ensure the directory exists and can be written to.",
        "huggingface/diffusers src/diffusers/utils/hub_utils.py (the cache version check)",
    ),
    # disk-full: huggingface_hub's free-space check before a download
    (
        "machine.no-space-left",
        "/venv/lib/python3.9/site-packages/huggingface_hub/file_download.py:983: UserWarning: Not enough free disk space"
        " to download the file. The expected file size is: 0.05 MB. The target location /data/model-files only has"
        " 0.00 MB free disk space.",
        "huggingface/huggingface_hub src/huggingface_hub/file_download.py _check_disk_space (>= 0.21)",
    ),
    # killed-by-signal: the runners' own report of a signal, Flyte's pod status, the shell's notice before a counter
    (
        "process.killed-by-signal",
        "Killed(282 / 283)",
        "fastllm's int8 conversion (tests/corpus/train/holdout-r6)",
    ),
    (
        "process.killed-by-signal",
        "make: *** [Makefile:12: test] Killed",
        "GNU make src/job.c child_error (>= 4.0)",
    ),
    (
        "process.killed-by-signal",
        "make[1]: *** [all] Aborted (core dumped)",
        "GNU make 3.x src/job.c child_error",
    ),
    ("process.killed-by-signal", "npm ERR! signal SIGKILL", "npm/cli lib/utils/error-message.js (npm <= 9)"),
    (
        "process.killed-by-signal",
        "npm error signal SIGKILL",
        "npm/cli lib/utils/error-message.js (npm >= 10)",
    ),
    (
        "process.killed-by-signal",
        'error Command failed with signal "SIGKILL".',
        "yarnpkg/yarn src/reporters/lang/en.js commandFailedWithSignal",
    ),
    (
        "process.signal-exit-status",
        "[f8107735c673549d7acd-n0-0] terminated with exit code (137). Reason [Error]. Message: ",
        "flyteorg/flyteplugins go/tasks/pluginmachinery/flytek8s pod_helper.go (tests/corpus/train/holdout-r6)",
    ),
    # ray-died: the death cause the GCS records (gcs_actor_manager.cc), as the state API and RayActorError print it
    (
        "ray.actor-died",
        "            error_message: The actor is dead because it was killed by `ray.kill`.",
        "ray src/ray/gcs/gcs_server/gcs_actor_manager.cc GenKilledByApplicationCause, `ray list actors --detail`",
    ),
    (
        "ray.actor-died",
        "The actor is dead because its owner has died. Owner Id: 01000000ffffffffffffffffffffffffffffffffffffffffffffffff"
        " Owner Ip address: 172.17.0.8 Owner worker exit type: SYSTEM_ERROR",
        "ray src/ray/gcs/gcs_server/gcs_actor_manager.cc GenOwnerDiedCause (Ray 2.x)",
    ),
    # rendezvous-failure: TCPStore's socket timeout and the store errors under torchelastic's wrapper
    (
        "distributed.store-failure",
        "[rank1]:[W623 15:37:01.824135523 socket.cpp:485] [c10d] waitForInput: socket SocketImpl(fd=100,"
        " addr=[node-0.company.net]:43590, remote=[node-0.company.net]:20000) timed out after 1800000ms",
        "pytorch torch/csrc/distributed/c10d/socket.cpp SocketImpl::waitForInput (tests/corpus/train/holdout-r6)",
    ),
    (
        "distributed.store-connection-lost",
        [
            "RuntimeError: Connection reset by peer",
            "The above exception was the direct cause of the following exception:",
            "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has"
            " failed. See inner exception for details.",
        ],
        "pytorch torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py _call_store (torch <= 2.1)",
    ),
    (
        "distributed.store-connection-lost",
        [
            "torch.distributed.DistNetworkError: failed to recv, got 0 bytes",
            "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has"
            " failed. See inner exception for details.",
        ],
        "pytorch torch/csrc/distributed/c10d/TCPStore.cpp (torch >= 2.2) under c10d_rendezvous_backend.py",
    ),
    # collective-timeout: the watchdog's desync report
    (
        "distributed.watchdog-timeout",
        "[rank1]:[E1003 18:37:01.833621509 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank 1] Timeout at NCCL work:"
        " 6463, last enqueued NCCL work: 6463, last completed NCCL work: 6462.",
        "pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (torch >= 2.2)",
    ),
    # network-unreachable: TLS verification in a wrapped console line and OpenSSL's own error string
    (
        "network.tls-verify-failed",
        "CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired",
        "llama-stack's rich console, wrapped after '[SSL:' (tests/corpus/train/holdout-r6)",
    ),
    (
        "network.tls-verify-failed",
        "SSL_connect failed: error:0A000086:SSL routines::certificate verify failed",
        "openssl crypto/err/openssl.txt SSL_R_CERTIFICATE_VERIFY_FAILED (OpenSSL 3.x)",
    ),
    (
        "network.tls-verify-failed",
        "error:14090086:SSL routines:ssl3_get_server_certificate:certificate verify failed",
        "openssl ssl/ssl_err.c (OpenSSL 1.0.x)",
    ),
    # connection-refused: database servers that are not running
    (
        "network.connection-refused",
        "> Error: P1001: Can't reach database server at `127.0.0.1`:`5432`",
        "prisma/prisma-engines libs/user-facing-errors (P1001), LiteLLM's proxy (tests/corpus/train/holdout-r6)",
    ),
    (
        "network.connection-refused",
        'psycopg2.OperationalError: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such'
        " file or directory",
        "postgres src/interfaces/libpq/fe-connect.c (PostgreSQL >= 14)",
    ),
    (
        "network.connection-refused",
        "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)",
        "mysql-server libmysql/errmsg.cc CR_SOCKET_CREATE_ERROR",
    ),
    (
        "network.connection-refused",
        "ERROR 2003 (HY000): Can't connect to MySQL server on '127.0.0.1:3306' (111)",
        "mysql-server libmysql/errmsg.cc CR_CONN_HOST_ERROR",
    ),
    # hub-access: the datasets library's renderings of a Hub refusal
    (
        "hf.repository-not-found",
        "datasets.exceptions.DatasetNotFoundError: Dataset 'MeliDC/MeLiDC' doesn't exist on the Hub or cannot be"
        " accessed.",
        "huggingface/datasets src/datasets/load.py dataset_module_factory (>= 2.15)",
    ),
    (
        "hf.gated-repo",
        "datasets.exceptions.DatasetNotFoundError: Dataset 'Idavidrein/gpqa' is a gated dataset on the Hub. You must be"
        " authenticated to access it.",
        "huggingface/datasets src/datasets/load.py (a gated dataset)",
    ),
    # container-image: docker-modem's rendering and containers/common's retried refusals
    (
        "container.image-pull-failed",
        "Something went wrong while pulling quay.io/ramalama/ramalama-llama-server@sha256:cbadb36fbbc2abf9867a33e6dfe3f2"
        "df4a76774259b5d4d24d50f4fc7e525406: Error: (HTTP code 404) unexpected - manifest unknown: manifest unknown",
        "apocas/docker-modem lib/modem.js under Podman AI Lab (tests/corpus/train/holdout-r6)",
    ),
    (
        "container.image-pull-retried",
        'time="2025-10-15T16:09:35+03:00" level=warning msg="Failed, retrying in 1s ... (1/3). Error: initializing'
        " source docker://fsouza/fake-gcs-server:1.52.3: reading manifest 1.52.3 in docker.io/fsouza/fake-gcs-server:"
        " toomanyrequests: You have reached your pull rate limit as 'scylladbjenkins'.\"",
        "containers/common pkg/retry/retry.go under podman (tests/corpus/train/holdout-r6, ScyllaDB's Jenkins)",
    ),
    # python-environment: an import failure an application logs at ERROR
    (
        "python.module-not-found",
        "20:48:54 - LiteLLM Proxy:ERROR: utils.py:2873 - Failed to import Prisma client: No module named 'prisma'",
        "BerriAI/litellm litellm/proxy/utils.py (tests/corpus/train/holdout-r6)",
    ),
    # test-setup: a collection report whose excerpt starts below the header
    (
        "pytest.collection-exception",
        [
            "E   AttributeError: attribute '__isabstractmethod__' of 'property' objects is not writable",
            "!!!!!!!!!!!!!!!!!! Interrupted: 160 errors during collection !!!!!!!!!!!!!!!!!!!",
        ],
        "pytest src/_pytest/terminal.py, Cirq's Travis job (tests/corpus/train/holdout-r6)",
    ),
]

# (rule that must not answer, lines)
NEAR_MISSES = [
    pytest.param(
        "container.image-pull-retried",
        [
            'time="2025-02-04T15:51:23-05:00" level=warning msg="Failed, retrying in 2s ... (1/3). Error: initializing'
            " source docker://debian:bookworm: pinging container registry registry-1.docker.io: Get"
            ' \\"https://registry-1.docker.io/v2/\\": dial tcp: lookup registry-1.docker.io: i/o timeout"'
        ],
        id="podman-retry-over-a-network-failure",
    ),
    pytest.param(
        "container.image-pull-failed",
        [
            'Error: (HTTP code 409) unexpected - Conflict. The container name "/deployer-ingress-forwarder" is already'
            ' in use by container "cdae110e"'
        ],
        id="docker-modem-name-conflict",
    ),
    pytest.param(
        "python.module-not-found",
        [
            "20:48:54 - LiteLLM Proxy:WARNING: utils.py:2873 - Failed to import Prisma client: No module named 'prisma'"
        ],
        id="optional-import-logged-as-warning",
    ),
    pytest.param(
        "ray.actor-died",
        ["            error_message: The actor is dead because all references to the actor were removed."],
        id="ray-actor-out-of-scope",
    ),
    pytest.param(
        "ray.actor-died",
        ['            assert "The actor is dead because it was killed by `ray.kill`" in str('],
        id="ray-test-asserting-on-the-cause",
    ),
    pytest.param(
        "distributed.store-failure",
        [
            "[rank1]:[W623 15:37:01.823833318 socket.cpp:460] [c10d] waitForInput: poll for socket SocketImpl(fd=100,"
            " addr=[node-0]:43590, remote=[node-0]:20000) returned 0, likely a timeout"
        ],
        id="c10d-poll-retried",
    ),
    pytest.param(
        "distributed.store-connection-lost",
        ["RuntimeError: Connection reset by peer"],
        id="errno-text-without-rendezvous",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            'error Command failed with signal "SIGINT".',
            "npm error signal SIGTERM",
            "make: *** [Makefile:3: all] Error 2",
        ],
        id="runner-stopped-on-purpose",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "terminate called after throwing an instance of 'std::runtime_error'",
            "  what():  model file not found",
            "Aborted (core dumped)",
        ],
        id="uncaught-cpp-exception-aborts",
    ),
    pytest.param(
        "process.signal-exit-status",
        ["[a8x2-n0-0] terminated with exit code (1). Reason [Error]. Message: "],
        id="flyte-task-failed-on-its-own",
    ),
    pytest.param(
        "machine.no-space-left",
        [
            '                "Not enough free disk space to download the file. "',
            '                f"The expected file size is: {expected_size / 1e6:.2f} MB. "',
        ],
        id="hub-disk-check-source-lines",
    ),
    pytest.param(
        "hf.repository-not-found",
        [
            "    raise DatasetNotFoundError(f\"Dataset '{path}' doesn't exist on the Hub or cannot be accessed.\") from e"
        ],
        id="datasets-source-line",
    ),
    pytest.param(
        "hf.repository-not-found",
        [
            "FileNotFoundError: Couldn't find a dataset script at /content/tsv/tsv.py or any data file in the same"
            " directory. Couldn't find 'tsv' on the Hugging Face Hub either: FileNotFoundError: Dataset 'tsv' doesn't"
            " exist on the Hub"
        ],
        id="datasets-2x-builder-name-typo",
    ),
    pytest.param(
        "hf.cache-not-writable",
        ['Otherwise you may see warnings like "problem when trying to write in your cache folder".'],
        id="cache-warning-quoted-in-docs",
    ),
    pytest.param(
        "machine.permission-denied",
        [
            "PermissionError: [WinError 32] The process cannot access the file because it is being used by another"
            " process: 'C:\\\\tmp\\\\x.log'"
        ],
        id="windows-file-in-use",
    ),
    pytest.param(
        "network.connection-refused",
        [
            "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
            "Error: P1002: The database server at `127.0.0.1`:`5432` was reached but timed out.",
        ],
        id="database-answered",
    ),
    pytest.param(
        "pytest.collection-exception",
        [
            "E   AttributeError: 'NoneType' object has no attribute 'shape'",
            "FAILED tests/test_model.py::test_forward - AttributeError: 'NoneType' object has no attribute 'shape'",
        ],
        id="test-failure-in-a-run-that-collected",
    ),
    pytest.param(
        "network.tls-verify-failed",
        ["error:0A000126:SSL routines::unexpected eof while reading"],
        id="openssl-other-reason",
    ),
]

# (train log, rule that wins, its line)
REAL_LOGS = [
    (
        "holdout-r6/filesystem/i-arbor-sglang-router-panic-too-many-open-files.log",
        "machine.too-many-open-files",
        3,
    ),
    ("holdout-r6/filesystem/i-kserve-hf-server-openshift-cache-not-writable.log", "hf.cache-not-writable", 1),
    ("holdout-r6/killed-by-signal/i-fastllm-convert-int8-killed.log", "process.killed-by-signal", 1),
    (
        "holdout-r6/killed-by-signal/j-flyte-demo-task-exit-137-reason-error.log",
        "process.signal-exit-status",
        2,
    ),
    ("holdout-r6/ray-died/i-ray-llm-aviary-replica-dead-ray-kill.log", "ray.actor-died", 15),
    (
        "holdout-r6/rendezvous-failure/i-sglang-multihost-ipv6-store-timeout.log",
        "distributed.store-failure",
        2,
    ),
    (
        "holdout-r6/rendezvous-failure/j-chinese-llama-alpaca-multinode-store-reset.log",
        "distributed.store-connection-lost",
        12,
    ),
    (
        "holdout-r6/network-unreachable/i-llama-stack-download-cert-expired.log",
        "network.tls-verify-failed",
        9,
    ),
    (
        "holdout-r6/connection-refused/i-litellm-prisma-p1001-cant-reach-db.log",
        "network.connection-refused",
        13,
    ),
    ("holdout-r6/python-environment/i-litellm-proxy-no-module-prisma.log", "python.module-not-found", 3),
    (
        "holdout-r6/container-image/i-podman-ai-lab-llama-server-manifest-unknown.log",
        "container.image-pull-failed",
        1,
    ),
    (
        "holdout-r6/container-image/j-scylladb-jenkins-podman-pull-rate-limit.log",
        "container.image-pull-retried",
        2,
    ),
    # the final try of a retried pull still wins over the earlier tries
    (
        "holdout-r3/container-image/d-bitcoin-podman-dockerhub-rate-limit.log",
        "container.image-pull-failed",
        5,
    ),
    ("holdout-r6/test-setup/j-cirq-travis-160-collection-errors.log", "pytest.collection-exception", 4),
    # an uncaught C++ exception's abort is the program's own, not a kill: the CUDA error above it answers
    ("holdout-r6/cuda-error/i-torchchat-aoti-runner-invalid-argument.log", "cuda.error", 7),
    # with the header in the excerpt, the header's rule answers there (the convention)
    ("holdout-r6/test-setup/j-pytest-523-collects-init-importerror.log", "pytest.collection-error", 2),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
