"""The fifteenth round's catalogue for signals, memory, networks, the Hub, disks, the harness and Ray (killed-by-signal,
segfault, host-oom, ray-died, network-unreachable, hub-download, hub-access, disk-full, server-not-ready,
wrong-response): the emitters the eleventh holdout showed the pack had not read (text-generation-inference's launcher
on a signalled shard; TensorFlow's TSL stack-trace handler; the kernel's own segfault and memory-cgroup OOM reports;
the raylet's worker-exit field list; CPython's and libcurl's TLS handshake failures; huggingface_hub's multi-line
HTTP error; faster-whisper's download warning; a Windows console's hard wrap of ENOSPC; chectl; Hurl) in each
rendering their source prints, and ggml's abort, the program's own, after which a crash is no signal cause.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r11, cited in SOURCES-holdout-r11a.md / -r11b.md / -r11c.md); the near misses
are lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Fifteenth round".
"""

from __future__ import annotations

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import TRAIN, catalogue_tests
from tests.support.rulebook import root_cause_of

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # killed-by-signal and segfault: text-generation-inference's launcher, TSL's handler
    (
        "process.killed-by-signal",
        "2023-08-11T06:42:43.498333Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
        "shutdown with signal 7 rank=1",
        "huggingface/text-generation-inference launcher/src/main.rs (holdout-r11/killed-by-signal/v-tgi-4shard-…)",
    ),
    (
        "process.killed-by-signal",
        "2024-08-11T08:31:20.364603Z ERROR download: text_generation_launcher: Download process was signaled to "
        "shutdown with signal 9: ",
        "huggingface/text-generation-inference launcher/src/main.rs (download_convert_model)",
    ),
    (
        "process.killed-by-signal",
        "*** Received signal 7 ***",
        "tensorflow/tsl tsl/platform/default/stacktrace_handler.cc (StacktraceHandler)",
    ),
    (
        "machine.segfault",
        "2024-04-24T15:37:33.0398851Z *** Received signal 11 ***",
        "tensorflow/tsl stacktrace_handler.cc through torch_xla (holdout-r11/segfault/w-torch-xla-grad-checkpoint-…)",
    ),
    (
        "machine.segfault",
        "2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
        "shutdown with signal 11 rank=0",
        "huggingface/text-generation-inference launcher/src/main.rs (a shard's SIGSEGV)",
    ),
    (
        "machine.segfault",
        "[Mon Mar  3 10:12:44 2025] python3[48213]: segfault at 0 ip 00007f3a2b1c4d5e sp 00007ffd8c0e1a20 error 4 "
        "in libc.so.6[7f3a2b000000+195000] likely on CPU 3 (core 3, socket 0)",
        "torvalds/linux arch/x86/mm/fault.c (show_signal_msg, as dmesg -T prints it)",
    ),
    (
        "machine.segfault",
        "Mar 01 14:58:06 python[489815]:  segfault at ffffffffffffffff in libc.so.6[...+188000] error 5 likely on "
        "CPU 10 (core 20)",
        "journalctl -k, a blog post-mortem (holdout-r11/segfault/x-wavepy-scipy-griddata-openblas-segfault-journal)",
    ),
    (
        "machine.segfault",
        "kernel: traps: python[2211] general protection fault ip:7f0c1d2e3f40 sp:7ffc9a8b7c60 error:0 in "
        "libtorch_cpu.so[7f0c10000000+1e000000]",
        "torvalds/linux arch/x86/kernel/traps.c (the general-protection report, a SIGSEGV)",
    ),
    # host-oom: the memory cgroup's report
    (
        "machine.oom-killed",
        "> [Thu Aug 16 09:05:19 2018] memory: usage 184320000kB, limit 184320000kB, failcnt 2316326",
        "torvalds/linux mm/memcontrol.c (holdout-r11/host-oom/x-openpai-docker-bootstrap-killed-cgroup-limit)",
    ),
    (
        "machine.oom-killed",
        "[12345.678901] Task in /docker/3f2a1b killed as a result of limit of /docker/3f2a1b",
        "torvalds/linux mm/memcontrol.c before 5.0 (mem_cgroup_print_oom_info)",
    ),
    # ray-died: the raylet's field list without its first sentence
    (
        "ray.worker-died-system-error",
        "ID: fffffffffffffffffd5f641d1e7ed592e00f065c01000000 Worker ID: 20556ec92d7abbb0b2bf7fb0d363e865ab7587196b608cb3"
        "605c3f2f Node ID: 75d7f57c65e988cab741a0c5412548fb08f8fcb7e118eb82fc38fc4d Worker IP address: 172.17.0.2 "
        "Worker port: 37185 Worker PID: 1224 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly "
        "exits with a connection error code 2. End of file.",
        "ray-project/ray src/ray/raylet/node_manager.cc (holdout-r11/ray-died/w-flingbot-simenv-worker-exit)",
    ),
    # network-unreachable: TLS handshakes that ended before any certificate
    (
        "network.tls-handshake-failed",
        "13:15:51 13:15:51 Could not fetch URL https://pypi.python.org/simple/pip/: connection error: EOF occurred in "
        "violation of protocol (_ssl.c:590) - skipping",
        "CPython Modules/_ssl.c through pip 9 (holdout-r11/network-unreachable/w-jenkins-win-pip-ssl-eof-protocol)",
    ),
    (
        "network.tls-handshake-failed",
        "Could not fetch URL https://pypi.python.org/simple/pip/: There was a problem confirming the ssl certificate: "
        "[SSL: TLSV1_ALERT_PROTOCOL_VERSION] tlsv1 alert protocol version (_ssl.c:590) - skipping",
        "CPython Modules/_ssl.c (an alert from PyPI's TLS 1.2 minimum) through pip",
    ),
    (
        "network.tls-handshake-failed",
        "fatal: unable to access 'https://github.com/org/repo.git/': OpenSSL SSL_connect: SSL_ERROR_SYSCALL in "
        "connection to github.com:443 ",
        "curl lib/vtls/openssl.c (ossl_connect_step2) through git",
    ),
    (
        "network.tls-handshake-failed",
        "Error: Client network socket disconnected before secure TLS connection was established",
        "nodejs/node lib/_tls_wrap.js (onSocketClose before the handshake)",
    ),
    (
        "network.tls-handshake-failed",
        'go: downloading github.com/x/y v1.2.3: Get "https://proxy.golang.org/github.com/x/y/@v/v1.2.3.zip": '
        "net/http: TLS handshake timeout",
        "golang/go net/http/transport.go (the dial's TLS deadline) through go mod download",
    ),
    (
        "network.tls-handshake-failed",
        "ssl.SSLZeroReturnError: TLS/SSL connection has been closed (EOF) (_ssl.c:1131)",
        "CPython Modules/_ssl.c (SSL_ERROR_ZERO_RETURN)",
    ),
    # hub-access: huggingface_hub's multi-line error, its first line
    (
        "hf.client-error-first-line",
        [
            "FAILED tests/test_llm.py::test_validate_credentials - CredentialsValidateFailedError: 401 Client Error. "
            "(Request ID: Root=1-679ee6d5-7d9879f266d23da12f01f984;7a15fcea-c754-4d97-b725-f98de628",
            "",
            "Repository Not Found for url: https://huggingface.co/api/models/HuggingFaceH4/zephyr-7b-beta.",
        ],
        "huggingface_hub utils/_http.py hf_raise_for_status (holdout-r11/hub-access/x-dify-ci-hf-validate-…)",
    ),
    # hub-download: faster-whisper's warning, when no rule reads the exception under it
    (
        "hf.model-sync-failed",
        [
            "An error occured while synchronizing the model Systran/faster-whisper-small from the Hugging Face Hub:",
            "('Connection aborted.', ConnectionResetError(10054, 'An existing connection was forcibly closed by the "
            "remote host', None, 10054, None))",
        ],
        "SYSTRAN/faster-whisper faster_whisper/utils.py download_model (requests' ConnectionError under it, Windows)",
    ),
    # disk-full: ENOSPC cut by a console's hard wrap
    (
        "machine.no-space-left",
        "OSError: [Errno 28] No space left on devi",
        "a Windows console at 80 columns (holdout-r11/disk-full/w-a1111-win-torch-download-errno28)",
    ),
    # server-not-ready: chectl
    (
        "harness.server-not-ready",
        "        → ERR_TIMEOUT: Timeout set to pod ready timeout 130000",
        "che-incubator/chectl src/api/kube.ts waitForPodReady (holdout-r11/server-not-ready/x-chectl-postgres-…)",
    ),
    (
        "harness.server-not-ready",
        "    → ERR_TIMEOUT: Timeout set to pod wait timeout 300000",
        "che-incubator/chectl src/api/kube.ts waitForPodPhase",
    ),
    # wrong-response: Hurl and the status check harnesses word alike
    (
        "harness.response-mismatch",
        ["error: Assert status code", "  --> submit.hurl:6:8", "   |", " 6 | HTTP/* 200"],
        "Orange-OpenSource/hurl packages/hurl/src/runner/error.rs (holdout-r11/wrong-response/x-advent-of-spin-…)",
    ),
    (
        "harness.response-mismatch",
        "   ⚠️ Unexpected error during device liveness check: Expected status 200, got 404",
        "tenstorrent/tt-inference-server's spec tests (holdout-r11/wrong-response/v-tt-inference-liveness-…)",
    ),
    (
        "harness.response-mismatch",
        "    api_test.go:41: expected status code 200 but got 500",
        "a Go test's t.Errorf, the common wording",
    ),
]

# (rule that must not answer, lines that look alike)
NEAR_MISSES = [
    pytest.param(
        "machine.segfault",
        [
            "llama_model_load: vocab only - skipping tensors",
            "llama.cpp:11968: The current context does not support K-shift",
            "SIGSEGV: segmentation violation",
            "PC=0x7f87e284d1d7 m=0 sigcode=1 addr=0x206403fd8",
            "signal arrived during cgo execution",
        ],
        id="ggml-abort-then-go-sigsegv",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "/src/llama.cpp/src/llama-kv-cache.cpp:412: The current KV cache / model configuration does not support "
            "K-shift",
            "Aborted (core dumped)",
        ],
        id="ggml-abort-then-aborted",
    ),
    pytest.param(
        "process.signal-exit-status",
        [
            "GGML_ASSERT: /src/ggml-opencl.cpp:1524: false",
            "Process completed with exit code 134.",
        ],
        id="old-ggml-assert-then-134",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "2023-08-11T06:50:01.000000Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
            "shutdown with signal 15 rank=0"
        ],
        id="tgi-shard-sigterm-at-shutdown",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["*** Received signal 6 ***", "*** BEGIN MANGLED STACK TRACE ***"],
        id="tsl-sigabrt-after-a-check",
    ),
    pytest.param(
        "machine.oom-killed",
        ["[Thu Aug 16 09:05:19 2018] memory: usage 1024000kB, limit 184320000kB, failcnt 0"],
        id="memcg-counters-under-the-limit",
    ),
    pytest.param(
        "ray.worker-died-system-error",
        [
            "The actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT Worker exit "
            "detail: Worker exits by an user request.",
        ],
        id="ray-intended-exit",
    ),
    pytest.param(
        "network.tls-handshake-failed",
        [
            "  WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after "
            "connection broken by 'SSLError(SSLEOFError(8, 'EOF occurred in violation of protocol (_ssl.c:1129)'))': "
            "/simple/pip/"
        ],
        id="pip-retry-warning",
    ),
    pytest.param(
        "network.tls-handshake-failed",
        [
            'docker: Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: TLS handshake timeout.'
        ],
        id="registry-pull-through-the-daemon",
    ),
    pytest.param(
        "harness.response-mismatch",
        ['    assert response.status_code == 200, f"Expected status 200, got {response.status_code}"'],
        id="status-check-source-line",
    ),
    pytest.param(
        "harness.response-mismatch",
        ["error: Assert status code failed to compile", "rust error: expected status"],
        id="hurl-words-in-another-sentence",
    ),
    pytest.param(
        "machine.no-space-left",
        ["OSError: [Errno 2] No such file or directory: 'devi'"],
        id="another-errno",
    ),
    pytest.param(
        "hf.client-error-first-line",
        ["requests.exceptions.HTTPError: 401 Client Error. (Request ID: Root=1-65f1c2a3-1a2b3c4d)"],
        id="client-error-without-a-hub-refusal",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r11/killed-by-signal/v-tgi-4shard-signal-7-sigbus.log", "process.killed-by-signal", 1),
    ("holdout-r11/segfault/w-torch-xla-grad-checkpoint-signal11.log", "machine.segfault", 5),
    ("holdout-r11/segfault/x-wavepy-scipy-griddata-openblas-segfault-journal.log", "machine.segfault", 3),
    ("holdout-r11/host-oom/x-openpai-docker-bootstrap-killed-cgroup-limit.log", "machine.oom-killed", 9),
    ("holdout-r11/ray-died/w-flingbot-simenv-worker-exit.log", "ray.worker-died-system-error", 1),
    (
        "holdout-r11/network-unreachable/w-jenkins-win-pip-ssl-eof-protocol.log",
        "network.tls-handshake-failed",
        6,
    ),
    ("holdout-r11/hub-access/x-dify-ci-hf-validate-credentials-401.log", "hf.client-error-first-line", 2),
    ("holdout-r11/disk-full/w-a1111-win-torch-download-errno28.log", "machine.no-space-left", 28),
    (
        "holdout-r11/server-not-ready/x-chectl-postgres-pod-ready-timeout-kind.log",
        "harness.server-not-ready",
        6,
    ),
    (
        "holdout-r11/wrong-response/v-tt-inference-liveness-expected-200-got-404.log",
        "harness.response-mismatch",
        7,
    ),
    (
        "holdout-r11/wrong-response/x-advent-of-spin-hurl-assert-status-500.log",
        "harness.response-mismatch",
        16,
    ),
    ("holdout-r11/unexplained/v-tgi-chatglm2-warmup-infer-dtype-panic.log", "rust.panic", 2),
    # the faster-whisper warning stays below the rules that read the exception under it (the tenth set's label)
    ("holdout-r10/hub-download/u-faster-whisper-xxl-hub-self-signed-cert.log", "hf.connect-errno", 5),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_ggml_s_own_abort_names_no_cause(rule_pack: RuleSet) -> None:
    """The eleventh set's false cause: llama.cpp's GGML_ABORT (K-shift unsupported), then Go's SIGSEGV in ollama's
    runner. No ordinary rule names the crash (ggml_abort is excluded as an assertion is), and the fatal-line tier does
    not name Go's signal line the scan left on purpose."""
    log = TRAIN / "holdout-r11/unexplained/v-ollama-deepseek-v2-kshift-unsupported.log"
    assert root_cause_of(log, rule_pack) == (None, None)
