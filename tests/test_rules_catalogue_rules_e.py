"""The eighth round's catalogue for networks, the Hub, processes, timeouts and GPU visibility (rules-e).

Each rendering is quoted from a real log in tests/corpus/train (cited in SOURCES-holdout-r4a.md / -r4b.md) or from
public repository text that quotes what the tool printed, and has the format the rule's comment cites from the
emitting source (Go's crypto/x509 and net, anyio/httpcore/httpx, urllib3, GCC's driver and collect2, Clang's
driver, nvcc, torch's common_distributed and cpp_extension). The near misses look alike but must not name that
cause; the real logs check the line and rule that win. See docs/accuracy.md, "Eighth round".
"""

from __future__ import annotations

from pathlib import Path

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # network-unreachable: Go's crypto/x509 verify errors, with and without Go >= 1.20's crypto/tls prefix, cut short
    (
        "network.tls-verify-failed",
        'Error: pull model manifest: Get "https://registry.ollama.ai/v2/library/llama2/manifests/latest": tls: failed'
        " to verify certificate: x509: certificate signed by unknown",
        "train holdout-r4/network-unreachable/e-ollama-docker-pull-manifest-x509-unknown-authority.log",
    ),
    (
        "network.tls-verify-failed",
        "tls: failed to verify certificate: x509: cannot validate certificate for 10.42.0.184 because it doesn't"
        " contain any IP SANs",
        "a Traefik ingress note (public repository text)",
    ),
    (
        "network.tls-verify-failed",
        'E0707 05:06:26.395852   1 scraper.go:140] "Failed to scrape node" err="Get'
        ' \\"https://192.168.64.50:10250/metrics/resource\\": x509: cannot validate certificate for 192.168.64.50'
        " because it doesn't contain any IP SANs\"",
        "metrics-server's klog line (public repository text)",
    ),
    # network-unreachable: a connect attempt that timed out, in each runtime's rendering of ETIMEDOUT
    (
        "network.unreachable",
        "urllib3.exceptions.NewConnectionError: <urllib3.connection.HTTPConnection object at 0x7f72e278e6d0>: Failed"
        " to establish a new connection: [Errno 110] Connection timed out",
        "a requests/urllib3 traceback (public repository text)",
    ),
    (
        "network.unreachable",
        "   head http://www.google.com failed ,err: Head http://www.google.com: dial tcp 31.13.69.86:80: connect:"
        " connection timed out",
        "a Go HTTP client's output (public repository text)",
    ),
    (
        "network.unreachable",
        "curl: (28) Connection timed out after 8012 milliseconds",
        "a curl probe (public repository text)",
    ),
    (
        "network.unreachable",
        "cURL error 28: Failed to connect to uppclmis.pdsdevice.com port 443: Connection timed out (see"
        " https://curl.haxx.se/libcurl/c/libcurl-errors.html)",
        "apioo/fusio#383 (Guzzle over libcurl)",
    ),
    # connection-refused: anyio's connect_tcp as httpcore and httpx re-raise it
    (
        "network.connection-refused",
        "llm-api-1         | httpx.ConnectError: All connection attempts failed",
        "train holdout-r4/connection-refused/e-litellm-compose-httpx-connecterror.log (docker compose prefix)",
    ),
    (
        "network.connection-refused",
        "E   httpx.ConnectError: All connection attempts failed",
        "a pytest failure summary (public repository text)",
    ),
    (
        "network.connection-refused",
        "httpcore.ConnectError: All connection attempts failed",
        "an MCP server's test note (public repository text)",
    ),
    # hub-download: urllib3's ConnectTimeoutError naming the Hub, whole and cut after "timed"
    (
        "hf.cannot-connect",
        "urllib3.exceptions.ConnectTimeoutError: (<urllib3.connection.HTTPSConnection object at 0x7fd5cfa11430>,"
        " 'Connection to huggingface.co timed",
        "train holdout-r4/hub-download/f-diad-urllib3-socket-timeout.log",
    ),
    (
        "hf.cannot-connect",
        "urllib3.exceptions.ConnectTimeoutError: (<urllib3.connection.HTTPSConnection object at 0x7f84de1481f0>,"
        " 'Connection to huggingface.co timed out. (connect timeout=10)')",
        "a Llama2 setup note (public repository text)",
    ),
    # killed-by-signal: compiler drivers whose child was killed
    (
        "process.killed-by-signal",
        "c++: fatal error: Killed signal terminated program cc1plus",
        "train holdout-r4/killed-by-signal/e-llamacpp-build-cc1plus-killed-j8.log (GCC >= 9)",
    ),
    (
        "process.killed-by-signal",
        "c++: internal compiler error: Killed (program cc1plus)",
        "an Ethereum build log (GCC 7; public repository text)",
    ),
    (
        "process.killed-by-signal",
        "collect2: fatal error: ld terminated with signal 9 [Killed]",
        "a gem5 build note (public repository text)",
    ),
    (
        "process.killed-by-signal",
        "clang-11: error: unable to execute command: Killed: 9",
        "a gtest-fail reproduction README (Clang 11, macOS; public repository text)",
    ),
    (
        "process.killed-by-signal",
        "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
        "a PyTorch-from-source build note (public repository text)",
    ),
    # host-oom: Go's runtime refused memory by the OS
    (
        "machine.host-alloc-failed",
        "Aug 31 16:24:36 invader11 goes.vnetd[3516]: fatal error: runtime: out of memory",
        "a goes.vnetd journal (public repository text)",
    ),
    # test-timeout: torch's MultiProcessTestCase giving up on a rank
    (
        "pytest.timeout",
        "RuntimeError: Process 0 terminated or timed out after 300.0761675834656 seconds",
        "train holdout-r4/test-timeout/f-xccl-test-abort-pg-timed-out-300s.log",
    ),
]

# (rule that must not answer, lines)
NEAR_MISSES = [
    (
        "network.tls-verify-failed",
        [
            "WARNING: server certificate had error: x509: cannot validate certificate for 127.0.0.1 because it"
            " doesn't contain any IP SANs. Proceed insecurely (y/n)? y"
        ],
    ),
    (
        "network.unreachable",
        [
            "  WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection"
            " broken by 'ConnectTimeoutError(<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>,"
            " 'Connection to pypi.org timed out. (connect timeout=15)')': /simple/torch/"
        ],
    ),
    (
        "network.unreachable",
        ["curl: (28) Operation timed out after 30000 milliseconds with 0 bytes received"],
    ),
    (
        "process.killed-by-signal",
        ["c++: internal compiler error: Segmentation fault signal terminated program cc1plus"],
    ),
    ("process.killed-by-signal", ["nvcc error   : 'ptxas' died due to signal 11 (Invalid memory reference)"]),
    ("process.killed-by-signal", ["c++: fatal error: no input files", "compilation terminated."]),
    (
        "network.connection-refused",
        ["ERROR - Unexpected error in authentication: All connection attempts failed"],
    ),
    (
        "cuda.no-runtime-found",
        [
            "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
            "/opt/conda/lib/python3.7/site-packages/mmcv/cnn/bricks/transformer.py:33: UserWarning: Fail to import"
            " ``MultiScaleDeformableAttention`` from ``mmcv.ops.multi_scale_deform_attn``, You should install"
            " ``mmcv-full`` if you need this module.",
        ],
    ),
    ("pytest.timeout", ["RuntimeError: Process 1 exited with error code 10 and exception:"]),
]

# (train log, the rule that must win, its line)
REAL_LOGS = [
    (
        "holdout-r4/network-unreachable/e-ollama-docker-pull-manifest-x509-unknown-authority.log",
        "network.tls-verify-failed",
        12,
    ),
    (
        "holdout-r4/connection-refused/e-litellm-compose-httpx-connecterror.log",
        "network.connection-refused",
        1,
    ),
    ("holdout-r4/hub-download/f-diad-urllib3-socket-timeout.log", "hf.cannot-connect", 23),
    ("holdout-r4/killed-by-signal/e-llamacpp-build-cc1plus-killed-j8.log", "process.killed-by-signal", 2),
    ("holdout-r4/test-timeout/f-xccl-test-abort-pg-timed-out-300s.log", "pytest.timeout", 8),
    ("holdout-r4/no-gpu/f-d-align-docker-no-cuda-runtime-setup.log", "cuda.no-runtime-found", 1),
    (
        "holdout-r4/rendezvous-failure/e-vllm-tcpstore-client-timeout-600s.log",
        "distributed.store-unreachable",
        1,
    ),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_a_hub_connect_timeout_is_the_hubs_not_the_networks(rule_pack: RuleSet, tmp_path: Path) -> None:
    """urllib3's ConnectTimeoutError to huggingface.co is read by both; hf.cannot-connect (55) outranks it (50)."""
    log = write_log(
        tmp_path,
        [
            "urllib3.exceptions.ConnectTimeoutError: (<urllib3.connection.HTTPSConnection object at 0x7f84de1481f0>,"
            " 'Connection to huggingface.co timed out. (connect timeout=10)')"
        ],
    )
    assert root_cause_of(log, rule_pack) == ("hf.cannot-connect", 1)


def test_the_no_runtime_warning_yields_to_torchs_own_no_gpu_error(rule_pack: RuleSet, tmp_path: Path) -> None:
    """With torch's "No CUDA GPUs are available" in the log, cuda.no-gpus (65) names it over the warning (60)."""
    log = write_log(
        tmp_path,
        [
            "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
            "RuntimeError: No CUDA GPUs are available",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("cuda.no-gpus", 2)


def test_an_oom_kill_line_outranks_the_compilers_killed_child(rule_pack: RuleSet, tmp_path: Path) -> None:
    """When the kernel's OOM-killer line is there, the compiler's killed child is host-oom's (40 over 35)."""
    log = write_log(
        tmp_path,
        [
            "c++: fatal error: Killed signal terminated program cc1plus",
            "[12345.678901] Out of memory: Killed process 4242 (cc1plus) total-vm:4194304kB, anon-rss:3900000kB,"
            " file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:8000kB oom_score_adj:0",
        ],
    )
    assert root_cause_of(log, rule_pack)[0] == "machine.oom-killed"
