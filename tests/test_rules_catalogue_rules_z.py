"""The sixteenth round's catalogue for the machine, network, runner and harness families (hub-access, killed-by-signal,
segfault, port-in-use, network-unreachable, runner-infrastructure, disk-full, connection-refused, filesystem, host-oom,
server-not-ready, test-setup, rust-panic): the emitters the twelfth holdout showed the pack had not read in all their
renderings (huggingface_hub's hf_raise_for_status under a cut traceback, Go's runtime signal dump, torchrun's
ChildFailedError table reflowed, Dynamo's and Apache's bind failures, requests' SSLError wrapped by a console, Jenkins'
FATAL on a closed remoting channel, the GitHub Actions runner's .NET IOException, Node's inspected error object, Rust's
io::Error Debug before 1.17 inside a panic, UCX's and nginx's EMFILE, the kernel's OOM summary, Testcontainers' bare
timeout, pytest's JUnit XML messages through colcon) in each rendering their source prints.

Every rendering is quoted from the cited upstream source (its format string with the prefixes a CI log adds) or a real
train log (tests/corpus/train/holdout-r12, cited in SOURCES-holdout-r12a.md / -r12b.md / -r12c.md); the near misses
are lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Sixteenth round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE: list[tuple[str, str | list[str], str]] = [
    # hub-access: a 401/403 whose line lost the Hub URL, read under huggingface_hub's own frame
    (
        "hf.hub-traceback-client-error",
        [
            "requests.exceptions.HTTPError: 401 Client Error:",
            "",
            "The above exception was the direct cause of the following exception:",
            "",
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3.10/site-packages/huggingface_hub/utils/_errors.py", line 304, in '
            "hf_raise_for_status",
        ],
        "requests/models.py raise_for_status under huggingface_hub utils/_errors.py hf_raise_for_status (0.12-0.22)",
    ),
    (
        "hf.hub-traceback-client-error",
        [
            "huggingface_hub.utils._errors.HfHubHTTPError: 403 Client Error. (Request ID: Root=1-65a1b2c3-0123456789ab)",
            '  File "/opt/conda/lib/python3.11/site-packages/huggingface_hub/utils/_http.py", line 409, in '
            "hf_raise_for_status",
        ],
        "huggingface_hub utils/_http.py hf_raise_for_status (>= 0.23) and _format_error_message's Request ID",
    ),
    (
        "hf.unauthorized",
        "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: "
        "https://cas-bridge.xethub.hf.co/xet-bridge-us/6650a1b2/abc123?X-Amz-Expires=3600",
        "requests/models.py raise_for_status on the Hub's Xet CAS bridge (huggingface_hub >= 0.30)",
    ),
    (
        "hf.unauthorized",
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
        "https://hf-mirror.com/meta-llama/Llama-2-7b-hf/resolve/main/config.json",
        "requests/models.py raise_for_status through the HF_ENDPOINT mirror",
    ),
    # killed-by-signal and segfault: Go's runtime signal dump (runtime/signal_unix.go sighandler, sigtab_*.go)
    (
        "process.killed-by-signal",
        ["failed unexpectedly reached end of fileSIGILL: illegal instruction", "PC=0xa893c4 m=5 sigcode=2"],
        "holdout-r12/killed-by-signal/y-localai-gpt4all-load-sigill-illegal-instruction.log (glued to a cut line)",
    ),
    (
        "process.killed-by-signal",
        [
            "SIGBUS: bus error",
            "PC=0x7f3a2c11d2e4 m=4 sigcode=2 addr=0x7f39e0000000",
            "signal arrived during cgo execution",
        ],
        "golang/go runtime/signal_unix.go sighandler (sigtable name, then PC= m= sigcode= addr=)",
    ),
    (
        "process.killed-by-signal",
        ["[signal SIGBUS: bus error code=0x2 addr=0x7f3a2c000000 pc=0x4b6f2e]", "", "goroutine 1 [running]:"],
        "golang/go runtime/panic.go fatalpanic's '[signal <name> code= addr= pc=]' under 'fatal error: fault'",
    ),
    (
        "process.killed-by-signal",
        "traceback : signal 9 (SIGKILL) received by PID 36071",
        "torch/distributed/elastic/multiprocessing/errors ChildFailedError table, as an issue tracker reflowed it",
    ),
    (
        "machine.segfault",
        [
            "llama_model_load: loading model from /models/q4SIGSEGV: segmentation violation",
            "PC=0x0 m=7 sigcode=1 addr=0x0",
        ],
        "golang/go runtime/signal_unix.go sighandler after an unterminated line (ollama's cgo into llama.cpp)",
    ),
    # port-in-use: bind failures worded by the server itself
    (
        "network.address-in-use",
        "could not bind to address: 0.0.0.0:8000",
        "ai-dynamo/dynamo lib/llm/src/http/service/service_v2.rs (the panic's message line, Rust >= 1.73)",
    ),
    (
        "network.address-in-use",
        'Error: task 20 panicked with message "could not bind to address: 0.0.0.0:8000"',
        "tokio tokio/src/runtime/task/error.rs JoinError Display ('task {id} panicked with message {msg:?}')",
    ),
    (
        "network.address-in-use",
        "(98)Address already in use: AH00072: make_sock: could not bind to address [::]:80",
        "apache/httpd server/listen.c make_sock (APLOGNO 00072) after APR's '(errno)strerror: '",
    ),
    # network-unreachable: requests' SSLError wrapped by a console before its reason
    (
        "network.tls-verify-failed",
        [
            "requests.exceptions.SSLError: HTTPSConnectionPool(host='dl.fbaipublicfiles.com', port=443): Max retries "
            "exceeded with url: /fairseq/gpt2_bpe/vocab.bpe",
            "(Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
            "failed: unable to get local issuer certificate",
            "(_ssl.c:1007)')))",
        ],
        "requests/adapters.py HTTPAdapter.send (raise SSLError) over urllib3's MaxRetryError, a wrapped console copy",
    ),
    # runner-infrastructure: Jenkins' fatal build problem when the agent's channel is gone
    (
        "runner.lost",
        [
            "12:22:32 FATAL: java.nio.channels.ClosedChannelException",
            "12:22:32 java.nio.channels.ClosedChannelException",
            "12:22:32 Also:   hudson.remoting.Channel$CallSiteStackTrace: Remote call to JNLP4-connect connection from "
            "207.254.58.162/207.254.58.162:61948",
        ],
        "jenkinsci/jenkins core/src/main/java/hudson/model/Run.java handleFatalBuildProblem ('FATAL: ' + message)",
    ),
    (
        "runner.lost",
        'FATAL: hudson.remoting.ChannelClosedException: Channel "hudson.remoting.Channel@5c3e2f1a:agent-07": '
        "channel is already closed",
        "jenkinsci/remoting src/main/java/hudson/remoting/Channel.java (ChannelClosedException) under Run.java's FATAL",
    ),
    # disk-full: the tool's line before the runner's own IOException
    (
        "machine.no-space-left",
        [
            "rustc-LLVM ERROR: IO failure on output stream: No space left on device",
            "error: could not compile `trusty-memory` (lib test)",
            "System.IO.IOException: No space left on device",
        ],
        "holdout-r12/disk-full/aa-trusty-tools-cargo-linker-sigbus.log (LLVM's raw_fd_ostream report, then the runner)",
    ),
    (
        "machine.runner-diag-no-space-left",
        "Unhandled exception. System.IO.IOException: No space left on device : "
        "'/home/runner/actions-runner/cached/_diag/Worker_20251117-080311-utc.log'",
        "actions/runner's trace writer through dotnet/runtime Interop.IOErrors.cs ('<strerror> : '<path>'')",
    ),
    # connection-refused: Rust's io::Error before 1.17 inside an old panic, and Node's thrown error
    (
        "network.connection-refused",
        "    thread 'post_backend' panicked at 'called `Result::unwrap()` on an `Err` value: Io(Error { repr: Os { "
        'code: 61, message: "Connection refused" } })\', ../src/libcore/result.rs:785',
        "rust-lang/rust src/libstd/io/error.rs Repr::Os Debug (< 1.17) in a panic's quoted message (< 1.73)",
    ),
    (
        "network.connection-refused",
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Os { code: 10061, kind: "
        'ConnectionRefused, message: "No connection could be made because the target machine actively refused it." '
        "}', src\\main.rs:9:52",
        "rust-lang/rust library/std/src/io/error.rs Debug with the kind, Windows' WSAECONNREFUSED text",
    ),
    # filesystem: EMFILE through C's %m / perror and nginx's "(errno: strerror)"
    (
        "machine.too-many-open-files",
        "[1538506296.549718] [softiron-pasha:31199:0]            sys.c:620  UCX  ERROR socket create failed: Too many "
        "open files",
        "openucx/ucx src/ucs/sys/sys.c ucs_socket_create (ucs_error with %m)",
    ),
    (
        "machine.too-many-open-files",
        "2024/03/01 10:12:44 [alert] 31#31: *8812 accept4() failed (24: Too many open files)",
        "nginx src/core/ngx_log.c ngx_log_errno (' (%d: %s)') from src/event/ngx_event_accept.c",
    ),
    (
        "machine.too-many-open-files",
        "socket: Too many open files",
        "C's perror(\"socket\") over glibc's strerror(EMFILE)",
    ),
    # host-oom: the kernel's summary line where the kill line was not kept
    (
        "machine.oom-kill-summary",
        "[12802.008861] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
        "task_memcg=/,task=ruby.ruby2.5,pid=28148,uid=0",
        "torvalds/linux mm/oom_kill.c dump_oom_summary (>= 4.19)",
    ),
    (
        "machine.oom-kill-summary",
        "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=kubepods-burstable-pod3f2.slice,mems_allowed=0,"
        "oom_memcg=/kubepods.slice/kubepods-burstable.slice,task_memcg=/kubepods.slice/x,task=node,pid=4121,uid=1000",
        "torvalds/linux mm/oom_kill.c dump_oom_summary, a pod's memory limit (oom_memcg=)",
    ),
    # server-not-ready: the containers a JVM test starts, timing out bare
    (
        "harness.container-start-timeout",
        [
            "[info]   java.lang.RuntimeException: java.util.concurrent.TimeoutException",
            "[info]   at akka.kafka.testkit.internal.KafkaContainerCluster.start(KafkaContainerCluster.java:170)",
        ],
        "akka/alpakka-kafka testkit KafkaContainerCluster.start (ScalaTest under sbt)",
    ),
    (
        "harness.container-start-timeout",
        [
            "org.rnorth.ducttape.TimeoutException: Timeout waiting for result with exception",
            "\tat org.rnorth.ducttape.unreliables.Unreliables.retryUntilSuccess(Unreliables.java:54)",
            "\tat org.testcontainers.containers.GenericContainer.doStart(GenericContainer.java:344)",
        ],
        "testcontainers-java GenericContainer.doStart through ducttape's Unreliables.retryUntilSuccess",
    ),
    # test-setup: pytest's JUnit XML messages, as the readers of the XML print them
    (
        "pytest.collection-error",
        '<testcase classname="" name="tests.test_node" time="0.000"><error message="collection failure">'
        "ImportError while importing test module '/ws/src/pkg/tests/test_node.py'.",
        "pytest-dev/pytest src/_pytest/junitxml.py append_collect_error",
    ),
    (
        "pytest.setup-error",
        '<testcase classname="tests.test_api" name="test_get" time="0.002"><error message="test setup failure">'
        "def server():",
        "pytest-dev/pytest src/_pytest/junitxml.py append_error (pytest 3.x-5.3)",
    ),
    # the next set: the JVM's, .NET's, Ruby's and PHP's renderings of three of these families
    (
        "pytest.timeout",
        "org.junit.runners.model.TestTimedOutException: test timed out after 1000 milliseconds",
        "junit-team/junit4 src/main/java/org/junit/runners/model/TestTimedOutException.java",
    ),
    (
        "pytest.timeout",
        "java.util.concurrent.TimeoutException: streamsLargeResponse() timed out after 30 seconds (see thread dump "
        "printed to System.out)",
        "junit-team/junit5 junit-jupiter-engine .../extension/TimeoutExceptionFactory.java (5.12+)",
    ),
    (
        "pytest.timeout",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on "
        "project core: There was a timeout in the fork -> [Help 1]",
        "apache/maven-surefire maven-surefire-common .../booterclient/ForkStarter.java",
    ),
    (
        "pytest.timeout",
        "   Test exceeded Timeout value of 2000ms",
        "nunit/nunit src/NUnitFramework/framework/Internal/Commands/TimeoutCommand.cs",
    ),
    (
        "process.signal-exit-status",
        "> Process 'Gradle Test Executor 3' finished with non-zero exit value 137",
        "gradle/gradle DefaultExecHandle (ExecHandleResult.assertNormalExitValue)",
    ),
    (
        "process.signal-exit-status",
        "[error] java.lang.RuntimeException: Nonzero exit code returned from runner: 137",
        "sbt run/src/main/scala/sbt/Run.scala",
    ),
    (
        "process.killed-by-signal",
        "Gradle build daemon disappeared unexpectedly (it may have been killed or may have crashed)",
        "gradle/gradle launcher .../client/DaemonDisappearedException.java",
    ),
    (
        "network.connection-refused",
        'Failed to open TCP connection to localhost:3000 (Connection refused - connect(2) for "localhost" port 3000) '
        "(Errno::ECONNREFUSED)",
        "ruby/ruby ext/socket/init.c rsock_syserr_fail_host_port, under Net::HTTP",
    ),
    (
        "network.connection-refused",
        "PDOException: SQLSTATE[HY000] [2002] Connection refused",
        "php-src ext/mysqlnd through PDO",
    ),
    (
        "network.connection-refused",
        "org.apache.http.conn.HttpHostConnectException: Connect to localhost:8080 [localhost/127.0.0.1] failed: "
        "Connection refused (Connection refused)",
        "apache/httpcomponents-client HttpHostConnectException (4.x)",
    ),
    (
        "fatal-line.filesystem",
        [
            "Error: ENOSPC: System limit for number of file watchers reached, watch '/home/runner/work/app/src'",
            "    at FSWatcher.<computed> [as _handle] (node:internal/fs/watchers:247:19)",
        ],
        "nodejs/node lib/internal/errors.js uvException (fs.watch over inotify's ENOSPC: the watch limit)",
    ),
]

# (rule that must not answer, lines that look alike)
NEAR_MISSES = [
    pytest.param(
        "hf.hub-traceback-client-error",
        [
            '  File "/usr/lib/python3/dist-packages/requests/models.py", line 1021, in raise_for_status',
            "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.github.com/repos/o/r",
        ],
        id="another-service-401-without-the-hub-frame",
    ),
    pytest.param(
        "process.killed-by-signal",
        [
            "panic: runtime error: integer divide by zero",
            "[signal SIGFPE: floating-point exception code=0x1 addr=0x4a1b2c pc=0x4a1b2c]",
        ],
        id="go-integer-division-is-the-program-s-bug",
    ),
    pytest.param(
        "process.killed-by-signal",
        ["expected handler for SIGILL: illegal instruction to be installed"],
        id="a-sentence-naming-the-signal",
    ),
    pytest.param(
        "network.address-in-use",
        ["(99)Cannot assign requested address: AH00072: make_sock: could not bind to address 10.0.0.5:80"],
        id="apache-address-not-on-this-host",
    ),
    pytest.param(
        "network.address-in-use",
        ["could not bind to address 0.0.0.0:80: Permission denied"],
        id="privileged-port-is-not-a-clash",
    ),
    pytest.param(
        "network.tls-verify-failed",
        [
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='dl.fbaipublicfiles.com', port=443): Max "
            "retries exceeded with url: /fairseq/gpt2_bpe/vocab.bpe",
        ],
        id="wrapped-connection-error-is-not-tls",
    ),
    pytest.param(
        "runner.lost",
        [
            "java.nio.channels.ClosedChannelException",
            "\tat io.netty.channel.AbstractChannel$AbstractUnsafe.newClosedChannelException(AbstractChannel.java:957)",
        ],
        id="a-java-test-s-own-closed-socket",
    ),
    pytest.param(
        "machine.runner-diag-no-space-left",
        ["System.IO.IOException: The process cannot access the file '/home/runner/work/_temp/x.sh'"],
        id="another-dotnet-io-error",
    ),
    pytest.param(
        "network.connection-refused",
        [
            "{ Error: connect ECONNREFUSED 127.0.0.1:42778",
            "    at TCPConnectWrap.afterConnect [as oncomplete] (net.js:1161:14)",
            "  errno: 'ECONNREFUSED',",
            "  port: 42778 }",
        ],
        id="node-inspected-error-object-the-program-logged",
    ),
    pytest.param(
        "rust.panic",
        [
            "thread 'main' panicked at src/main.rs:14:61:",
            "called `Result::unwrap()` on an `Err` value: reqwest::Error { kind: Request, source: "
            'ConnectError("tcp connect error", Os { code: 111, kind: ConnectionRefused, message: "Connection refused" '
            "}) }",
        ],
        id="panic-whose-message-is-a-refused-connection",
    ),
    pytest.param(
        "machine.too-many-open-files",
        ["ulimit: max open files raised to 1048576"],
        id="a-limit-raised-not-reached",
    ),
    pytest.param(
        "harness.container-start-timeout",
        [
            "java.util.concurrent.TimeoutException",
            "\tat java.base/java.util.concurrent.CompletableFuture.timedGet(CompletableFuture.java:1960)",
            "\tat com.example.ClientSpec.sendsRequest(ClientSpec.java:42)",
        ],
        id="a-test-s-own-future-timing-out",
    ),
    pytest.param(
        "pytest.collection-error",
        ["Retrying after a garbage collection failure in the allocator"],
        id="a-sentence-about-garbage-collection",
    ),
    pytest.param(
        "pytest.timeout",
        ["org.opentest4j.AssertionFailedError: execution timed out after 100 ms"],
        id="junit5-assert-timeout-is-the-test-s-own-assertion",
    ),
    pytest.param(
        "process.signal-exit-status",
        ["> Process 'command 'npm'' finished with non-zero exit value 1"],
        id="gradle-exec-ordinary-exit",
    ),
    pytest.param(
        "fatal-line.disk-full",
        [
            "Error: ENOSPC: System limit for number of file watchers reached, watch '/home/runner/work/app/src'"
        ],
        id="inotify-watch-limit-is-not-the-disk",
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r12/hub-access/y-vllm-offline-chat-example-llama3-401.log", "hf.hub-traceback-client-error", 7),
    (
        "holdout-r12/killed-by-signal/y-localai-gpt4all-load-sigill-illegal-instruction.log",
        "process.killed-by-signal",
        11,
    ),
    ("holdout-r12/killed-by-signal/z-amvur-childfailed-sigkill.log", "process.killed-by-signal", 12),
    ("holdout-r12/port-in-use/y-dynamo-frontend-could-not-bind-8000-panic.log", "network.address-in-use", 2),
    ("holdout-r12/network-unreachable/z-marie-ai-fairseq-cert-verify.log", "network.tls-verify-failed", 6),
    ("holdout-r12/runner-infrastructure/z-nodejs-jenkins-macos-closed-channel.log", "runner.lost", 2),
    ("holdout-r12/disk-full/aa-trusty-tools-cargo-linker-sigbus.log", "machine.no-space-left", 3),
    ("holdout-r12/disk-full/aa-mithril-runner-diag-log-enospc.log", "machine.runner-diag-no-space-left", 1),
    ("holdout-r12/connection-refused/aa-etcher-homepage-chrome-9222.log", "network.connection-refused", 16),
    (
        "holdout-r12/connection-refused/aa-httptest-cargo-test-backend-refused.log",
        "network.connection-refused",
        8,
    ),
    ("holdout-r12/filesystem/aa-ucx-gtest-socket-emfile.log", "machine.too-many-open-files", 2),
    ("holdout-r12/host-oom/aa-susemanager-cucumber-ruby-oom.log", "machine.oom-killed", 2),
    (
        "holdout-r12/server-not-ready/aa-alpakka-kafka-cluster-start-timeout.log",
        "harness.container-start-timeout",
        1,
    ),
    ("holdout-r12/test-setup/aa-depth-anything-ros2-collection-failure.log", "pytest.collection-error", 12),
]

(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


# (rule that must answer, lines, the line it answers on, where they are quoted from): renderings whose cause is not on
# their first line, because what precedes it is the wrapper this round taught to step aside
LATER_LINE = [
    pytest.param(
        "network.address-in-use",
        [
            "thread 'tokio-runtime-worker' panicked at /workspace/lib/llm/src/http/service/service_v2.rs:69:33:",
            "could not bind to address: 0.0.0.0:8000",
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        ],
        2,
        id="dynamo-frontend-panic-message-line",
    ),
    pytest.param(
        "network.connection-refused",
        [
            "thread 'main' panicked at src/main.rs:14:61:",
            "called `Result::unwrap()` on an `Err` value: reqwest::Error { kind: Request, source: "
            'ConnectError("tcp connect error", Os { code: 111, kind: ConnectionRefused, message: "Connection refused" '
            "}) }",
        ],
        2,
        id="rust-1-73-panic-over-a-refused-connect",
    ),
    pytest.param(
        "network.connection-refused",
        [
            "{ Error: connect ECONNREFUSED 127.0.0.1:42778",
            "  errno: 'ECONNREFUSED',",
            "  port: 42778 }",
            "events.js:167",
            "      throw er; // Unhandled 'error' event",
            "      ^",
            "Error: connect ECONNREFUSED 127.0.0.1:9222",
        ],
        7,
        id="node-thrown-error-after-the-logged-object",
    ),
    pytest.param(
        "machine.oom-killed",
        [
            "[12802.008861] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
            "task_memcg=/,task=ruby.ruby2.5,pid=28148,uid=0",
            "[12802.008925] Out of memory: Killed process 28148 (ruby.ruby2.5) total-vm:16689288kB, anon-rss:16089632kB",
        ],
        2,
        id="kill-line-after-the-oom-summary",
    ),
    pytest.param(
        "pytest.collection-error",
        [
            "build/depth_anything_3_ros2/pytest.xml: 1 test, 1 error, 0 failures, 0 skipped",
            "- depth_anything_3_ros2",
            "  <<< error message",
            "    collection failure",
            "  >>>",
        ],
        4,
        id="colcon-test-result-verbose-block",
    ),
]


@pytest.mark.parametrize(("rule_id", "lines", "line"), LATER_LINE)
def test_the_cause_under_a_wrapper_answers_on_its_own_line(
    rule_id: str, lines: list[str], line: int, rule_pack: RuleSet, tmp_path: Path
) -> None:
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == (rule_id, line)
