"""The likely cause of a failure no rule explains: the single line a person would look at first.

Read in log order, the first fatal event wins: the deepest exception of the earliest fatal Python traceback
(the first traceback of a chain is the deepest), a Rust panic, `Fatal Python error`, a failed C/C++ assertion, a
fatal signal. Without one, the first ERROR/FATAL/CRITICAL line, then the first line that words a failure. Wrappers
(lines a symptom rule names, `RayTaskError(…)`, "see root cause above") only count when nothing else is there, or
when what else is there comes after a wrapper that points above itself. Tracebacks are followed per process tag,
since multi-process logs interleave them. It never explains a failure: it is a pointer, kept apart from root
causes (docs/likely-cause.md lists every refinement).

This module is the picker: `LikelyCausePicker` takes lines in order, `pick_likely_cause` feeds it every line
and is the reference a test holds the fast reader to. How a log is read (`pick_likely_cause_in_blocks`: RE2
finds the lines that can matter and only those reach the picker) is engine/likely_reader.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from forensics.engine.gated_regex import AnyOf, GatedRegex
from forensics.engine.normalize import Level, NormalizedLine, normalize_line, visible_line
from forensics.engine.scanner import EVIDENCE_TEXT_LIMIT, EXCERPT_TEXT_LIMIT, kept_text
from forensics.lazy_regex import LazyRegex
from forensics.model import ExcerptLine, LikelyReason
from forensics.regex_code import IGNORECASE, VERBOSE

# unittest's report of a failed test, between its `====` and `----` rules (`FAIL: test_x (mod.Case)`, `ERROR: test_y
# (mod.Case.test_y)` since Python 3.11, a subtest's parameters after it): it names the test, and the traceback below it
# says what failed, so the traceback's exception beats it, bare or not; when the excerpt cut the traceback before its
# exception line, the header is what is left (sixteenth round)
UNITTEST_REPORT = r"^(?:FAIL|ERROR): \w+ \([\w.]+\)(?: \(.*\))?$"
# How test runners report a failed test, kept as data so that a new runner is one entry: the runner, the marker
# line (matched on the line as shown, stripped), and where the failure's message follows the marker within
# EXCERPT_AFTER lines, a pattern for that message line, which is then the answer. Each is an error line: the runner
# says in so many words that a test failed. End-of-run totals (`FAIL! -- 17 Passed | 2 Failed`) come later.
TEST_RUNNER_FAILURES: tuple[tuple[str, str, str | None], ...] = (
    # Ginkgo's spec failure and its summary: v2 `[FAIL]`/`[FAILED]`/`[PANICKED!]`, v1 `[Fail]`/`[Panic!]`; a message
    # that goes on with the error it wraps (`[FAILED] Error occurred while checking FeatureStore … or not.` then `Error:
    # kubectl get featurestore command returned empty output`): that error, the deepest (fourteenth round)
    (
        "Ginkgo",
        r"^\[(?:FAIL|Fail|FAILED|Panic!|PANICKED!|TIMEDOUT|INTERRUPTED)\] (?!\[[\d.]+ seconds\])",
        r"^Error: \S",
    ),
    # Bazel: `FAIL: //pkg:target (see /…/test.log)`, before its `//pkg:target   FAILED in 0.1s` summary
    ("Bazel", r"^FAIL: //\S", None),
    # CTest: `1/3 Test #2: structure-test ......***Failed    0.47 sec`, before `The following tests FAILED:`
    ("CTest", r"^\d+/\d+ Test +#\d+: \S+ \.*\*{3}(?:Failed|Exception|Timeout)", None),
    # ... and its summary's list, all a log may keep of the run (`The following tests FAILED:` then each failed test as
    # `  25 - test-arg-parser (Failed)`, `7 - test-x (SEGFAULT)`, with its labels after it)
    (
        "CTest",
        r"^\d+ - \S+ \((?:Failed|SEGFAULT|Timeout|Subprocess aborted|Child aborted|Exception|ILLEGAL|BAD_COMMAND"
        r"|OTHER_FAULT|INTERRUPT|NUMERICAL|Subprocess killed|cygwin_exception|Not Run)\)(?:\s+[\w:;-]+)*$",
        None,
    ),
    # Go's testing: `--- FAIL: TestAdd (0.00s)` then, without -v, the test's `    add_test.go:9: …` message
    ("Go testing", r"^--- FAIL: \S", r"^[\w.-]+_test\.go:\d+: \S"),
    # googletest: `file.cc:91: Failure` (then `Value of: …`), `[  FAILED  ] Suite.Test (0 ms)`
    ("googletest", r"^\S+?(?::\d+|\(\d+\)): Failure$|^\[  FAILED  \] \w", None),
    # Jest: `● Suite › test`, a blank line, then the assertion's message (`expect(received).toBe(expected) …`)
    ("Jest", r"^● \S", r"\S"),
    ("unittest", UNITTEST_REPORT, None),
    # Maven Surefire's summary before 3.0 (`Results :`): `Failed tests:   test(pkg.Class): message` with the first entry
    # on the header's line, `Tests in error: ` alone with its entries below (`  test(pkg.Class): message`, 2.19's
    # `  Class.test:12 » NullPointer`); Maven's `Failed to execute goal …: There are test failures.` is the epilogue
    ("Maven Surefire", r"^(?:Failed tests|Tests in error): +\S", None),
    (
        "Maven Surefire",
        r"^(?:Failed tests|Tests in error):$",
        r"^(?:\w[\w$]*\([\w.$]+\)|[\w$]+(?:\.[\w$]+)+:\d+ )",
    ),
    # ... and since 3.0, at ERROR (`[ERROR] Failures: `, GitHub Actions' `Error:  Errors: `): each entry below it (`  Class.
    # test:109 expected:<…>`), or a rerun test's name alone, then its runs (`  Run 1: Class.test:109 » …`, `  Run 2: PASS`),
    # where the first failed run says what failed; `Failures:` at no level (torchrun's ChildFailedError field) is no marker
    (
        "Maven Surefire",
        r"^(?:\[ERROR\]|Error:) +(?:Failures|Errors):$",
        r"^(?:\[ERROR\]|Error:) +(?:[\w$]+\.)+[\w$]+(?::\d+)?(?: |$)",
    ),
    (
        "Maven Surefire",
        r"^(?:\[ERROR\]|Error:) +(?:[a-z_][\w$]*\.)+[A-Z][\w$]*\.[\w$]+$",
        r"^(?:\[ERROR\]|Error:) +Run \d+: (?!PASS$)\S",
    ),
    # colcon test-result --verbose: `- test case`, `  <<< failure message` (or `error message`), the message indented
    # below it, `  >>>`: the message the JUnit XML holds for the failed test
    ("colcon test-result", r"^<<< (?:error|failure) message$", r"^(?!>>>$)\S"),
    # a test's own line ending in its verdict: ggml's test-opt (`  test_x(a=1): FAIL`), test-backend-ops behind its
    # error (`[MUL_MAT] NMSE = 0.47 > 0.0005   MUL_MAT(type_a=f32,…): FAIL`), unittest's verbose `test_x (mod.Case)
    # ... FAIL` (its traceback below beats it); the suite's `Backend CPU: FAIL` comes after the first one
    (
        "test verdict",
        r"(?:^|\s)\w[\w.]*(?:\([^()]*\))?(?: \([\w.]+\))?(?::| \.\.\.) (?:FAIL|FAILED)$",
        None,
    ),
)
EXCERPT_BEFORE = 3
EXCERPT_AFTER = 2
TRACEBACK_SPAN = 400  # lines a traceback may take before it is given up as cut


FATAL_REASONS = frozenset(
    {
        LikelyReason.EXCEPTION,
        LikelyReason.EXCEPTION_LINE,
        LikelyReason.CPP_EXCEPTION,
        LikelyReason.PANIC,
        LikelyReason.FATAL_PYTHON,
        LikelyReason.ASSERTION,
        LikelyReason.SIGNAL,
    }
)
# The answers that only stand when nothing better is found, weakest last: when a test has several logs, a log's
# stronger answer beats another's weaker one (engine/../report/session.py).
FALLBACK_RANK = {LikelyReason.WRAPPER: 1, LikelyReason.QUIET_FAILURE: 2, LikelyReason.LAST_LINE: 3}

_Log = TypeVar("_Log")


def choose_among_logs(picks: Iterable[tuple[_Log, LikelyLine | None]]) -> tuple[_Log, LikelyLine] | None:
    """A test's likely cause among its logs' (in rank order; read lazily): the first log whose line is a fatal
    event, else the strongest of the others' (a log's error line beats another's wrapper, a wrapper beats a quiet
    failure or a last line; the earlier log on a tie). `analyze` (report/session.py) and `reanalyze` both choose so."""
    chosen: tuple[_Log, LikelyLine] | None = None
    for log, picked in picks:
        if picked is None:
            continue
        if picked.reason in FATAL_REASONS:
            return log, picked
        if chosen is None or FALLBACK_RANK.get(picked.reason, 0) < FALLBACK_RANK.get(chosen[1].reason, 0):
            chosen = (log, picked)
    return chosen


@dataclass(frozen=True, slots=True)
class LikelyLine:
    """The chosen line, why, and the lines around it."""

    line: int
    text: str
    reason: LikelyReason
    excerpt: tuple[ExcerptLine, ...]


_PROCESS_TAG = LazyRegex(
    r"\((?P<name>[A-Za-z_][\w-]*(?:\s+(?:rank|pid)=\d+)*)\s+pid=(?P<pid>\d+)(?:,\s*ip=[\d.]+)?\)|\[rank(?P<rank>\d+)\]"
    r"|\[(?:\d{4}-)?\d\d-\d\d[T ][\d:.,]+(?P<sglang>(?:\s+[A-Z]{1,4}\d+)+)\]"
)
_EXCEPTION = LazyRegex(r"^(?P<name>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:\([\w.]+\))?)(?: ?\[\w+\])?(?::\s|:$|$)")
# The standard library's exception classes named in lower case (`socket.timeout: timed out`, `socket.gaierror: [Errno
# -2] Name or service not known`), where a traceback ends; by name, as a line of quoted source reads the same way
# (`self.timeout: int = 5`)
_LOWER_CASE_EXCEPTION = LazyRegex(
    r"^(?:socket\.(?:timeout|gaierror|herror|error)|select\.error|os\.error): \S"
)
# The base class named alone (pip's `ERROR: Exception:`, then the traceback of its internal error): it sums up any
# exception the traceback below it ends in
_BASE_CLASS_ALONE = LazyRegex(r"^(?:ERROR: )?(?:Base)?Exception:\s*$")
_CHAIN = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
_FRAME_NOISE = LazyRegex(r"^(?:File \"|\^+$|~+|\.\.\.|\[Previous line repeated|[-~^ ]+$)")
# A Rust panic; pasted without its `thread '…'` prefix it still starts `panicked at 'msg', file.rs:L:C` (Rust < 1.73)
# or `panicked at file.rs:L:C:` (>= 1.73). A Go panic (`panic: …`) or runtime throw, and a panic gin's Recovery
# middleware caught (`[Recovery] 2023/11/08 - 22:20:36 panic recovered:`, its value on the next line).
_PANIC = GatedRegex(
    r"thread '[^']*' (?:\(\d+\) )?panicked at|^panic: |^panicked at (?:'|[\w./\\-]+\.rs:\d+:\d+)"
    r"|^fatal error: |\bpanic recovered:$"  # Go's runtime throw (`fatal error: concurrent map writes`); gin's Recovery
)
# A panic whose value is printed on the lines below its header (gin's `[Recovery] … panic recovered:`): the value is
# the answer, not the header; a request dump (`GET /x HTTP/1.1`, `Host: …`) may come first in gin's debug mode.
_PANIC_HEADER_ONLY = LazyRegex(r"panic recovered:$|^panic:\s*$")
_REQUEST_DUMP = LazyRegex(r"^(?:[A-Z]+ /\S* HTTP/\d|[\w-]+: )")
_FATAL_PYTHON = GatedRegex(r"Fatal Python error: ")
# A C/C++ assertion that failed: the process aborts on its own (glibc's `file.c:10: f: Assertion `x' failed.`,
# llama.cpp's `GGML_ASSERT(x) failed`); the `Aborted` / `zsh: abort` that follows is its consequence.
_NATIVE_ASSERT = GatedRegex(
    r"\bAssertion `.*' failed\.|\bGGML_ASSERT\(.*\) failed\b"
    # llama.cpp before mid-2023 printed its assertion as `GGML_ASSERT: /src/ggml-opencl.cpp:1524: false`
    r"|^GGML_ASSERT: \S+:\d+: \S"
    # glog's and TVM's CHECK: `file.cc:2650: Check failed: (x == 22) is false: …`, `F… file.cc:120] Check failed: r == 0`
    r"|^Check failed: |\.(?:cc|cpp|cxx|c|h|hpp|cu):\d+:?\]? Check failed: "
)
_SIGNAL = AnyOf(  # only asked whether it matches
    r"""
      \bKilled\b(?!\s+(?:off|by\ the\ user))
    | Segmentation\ fault | \bSegfault\b | \(core\ dumped\) | ^Aborted$
    | \bterminated\ by\ signal\b | \bkilled\ by\ signal\b | \bdied\ with\ <Signals\.SIG\w+
    | \bSignal\ \d+\ \(SIG\w+\)\ received | \*\*\*\ Received\ signal\ \d+\ \*\*\* | \bsegfault\ at\ [0-9a-f]+\s
    | \b(?i:exit)(?:ed)?(?:\ with)?[\ _]?(?i:code|status)\s*[=:]?\s*\(?(?:-\d+|13[47]|139)\b
    | \bexitcode\s*[=:]\s*-\d+ | \bOOMKilled\b | \breceived\ signal\ SIG\w+ | \bSIG(?:KILL|SEGV|ABRT|BUS)\b
    | ^Terminated$ | \bnode\ down:\ Not\ properly\ terminated | \b[Ww]orker\ '?gw\d+'?\ crashed\ while\ running\b
    | \bsignal:\ (?:killed|terminated|segmentation\ fault|aborted|bus\ error|quit|hangup)\b
    | \*\*\*\ (?:stack\ smashing|buffer\ overflow|glibc)\ detected\ \*\*\* | \*\*\*\ Error\ in\ `
    | ^(?:double\ free\ or\ corruption\b|corrupted\ size\ vs\.\ prev_size\b|free\(\):\ invalid\ |malloc\(\):\ |munmap_chunk\(\):\ invalid\ pointer)
    | ^\[\d+\]\s+\d+\s+(?:killed|segmentation\ fault|abort|terminated|bus\ error)\b | \bline\ \d+:\s+\d+\s+(?:Killed|Aborted|Terminated|Segmentation\ fault|Bus\ error|Hangup|Quit)\b
    """,
    VERBOSE,
)
# A CI runner's epilogue: the step's exit status, whatever failed in it (GitHub Actions' `Process completed with exit
# code 1`, GitLab's `Job failed: exit code 1`, Buildkite's `The command exited with status 1`). A wrapper that even
# a line that only words a failure beats; a status that is a signal (137, 139, 134) is a fatal signal instead.
_EPILOGUE = GatedRegex(
    r"\b(?:Process completed with|Job failed:|The command exited with) (?:exit code|status) (?!13[479]\b)-?\d+"
    # a command's exit status as its runner reports it (docker's legacy builder `executor failed running [/bin/sh -c
    # pip install …]: exit code: 1`, a retrying runner's `command failed after 1/3 attempt(s), exit code: 1`)
    r"|\b(?:command|executor) failed\b.{0,300}\bexit code:? (?!13[479]\b)-?\d+$"
    # pyxis (Slurm's container plugin) on the child that imports the image: `pyxis: child 129103 failed with error code:
    # 1`, its own error on the next line (`pyxis: failed to import docker image`)
    r"|\bchild(?: process)?(?: \d+)? (?:failed|exited) with (?:exit |error |return )?(?:code|status):? (?!13[479]\b)-?\d+$"
    # Node's child_process (`execSync`): `Error: Command failed: <command>`, what the command printed is above it
    r"|^Error: Command failed: ",
    IGNORECASE,
)
_WRAPPER = GatedRegex(
    r"See (?:the )?root cause above|See stack trace \(above\)|for the root cause|^(?:\w+\.)*RayTaskError\("
    r"|" + _EPILOGUE.pattern,
    IGNORECASE,
)
# An exception named anywhere in a line that no traceback header announced (excerpts often lose it).
_EXCEPTION_ANYWHERE = GatedRegex(
    r"(?:^|[\s|:\]>(])(?P<name>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception)|OutOfResources))"
    # Node's `AssertionError [ERR_ASSERTION]: …`; TensorFlow 1's session summary, first when the excerpt starts there
    # (`ResourceExhaustedError (see above for traceback): OOM when allocating …`)
    r"(?:\([\w.]+\))?(?: \[[A-Z_]+\])?(?: \(see above for traceback\))?(?:: \S| - \S|\(['\"])"
    # asyncio's `future: <Task finished … exception=AttributeError("'State' object has no attribute …")>`
    r"|\bexception=(?P<name>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))\("
    # JUnit 4's `org.junit.ComparisonFailure: expected:<439[63]> but was:<439[72]>` above its `\tat …` frames: a Java
    # class named with its package that ends in Failure (bare, `Failure: x` is a report's field, sixteenth round)
    r"|(?:^|[\s|:\]>(])(?P<name>(?:[a-z_]\w*\.)+[A-Z]\w*Failure): \S"
    # Gradle's test report: `    java.lang.AssertionError at GreeterTest.java:9`
    r"|^(?:[a-z_]\w*\.)+(?P<name>[A-Z]\w*(?:Error|Exception|Failure)) at [\w$]+\.(?:java|kt|groovy|scala):\d+$"
)
# ONNX Runtime's status, its class in brackets (`[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions …`,
# behind the Python class or alone): an exception named outside a traceback, searched in the line as shown, since the
# normaliser takes a bracketed word at a line's start for a tag
_BRACKETED_EXCEPTION = GatedRegex(r"\[(?P<name>[A-Z]\w*(?:Error|Exception))\] : \S")
# The Ascend CANN runtime's error type and code (`Memory_Allocation_Failure(EL0004): Failed to allocate memory.`): an
# exception named outside a traceback; searched only in a line holding `): ` (no literal of it gates a search).
_CODED_ERROR = LazyRegex(r"(?:^|[\s\]])[A-Z][a-z]+(?:_[A-Z][a-z]+)+\([A-Z]{2}\d{4}\): \S")
_CPP_WHAT = LazyRegex(r"^what\(\):\s+\S")
_CPP_TERMINATE = GatedRegex(r"terminate called after throwing an instance of")
# The C++ runtime's own abort, with no exception to name: a virtual call on an object being destroyed (`pure virtual
# method called`), `std::terminate` with nothing thrown (a joinable `std::thread` destroyed) or inside a handler; the
# process aborts right there, so the `Aborted` / `exitcode: -6` after it is its consequence (fourteenth round)
_CPP_ABORT = GatedRegex(
    r"^(?:pure virtual method called|terminate called (?:without an active exception|recursively))$"
)
# Errors from the transport under a library call: a chained, more specific exception says more
# (`requests…HTTPError: 401` under `GatedRepoError`).
_GENERIC_EXCEPTIONS = frozenset(
    {
        "HTTPError",
        "ConnectionError",
        "MaxRetryError",
        "NewConnectionError",
        "ConnectTimeout",
        "ReadTimeout",
        "ProtocolError",
        "RemoteDisconnected",
        "ClientConnectorError",
        "ClientResponseError",
        "SSLError",
        "KeyError",  # a lookup under a library call (`KeyError: 'qwen9_moe'` under "does not recognize")
        "EOFError",  # an input() prompt with no terminal, under the error that explains it
    }
)
# An exception whose message only names another exception's class (Julia's `ERROR: LoadError: TaskFailedException`,
# its `nested task error: ArgumentError: …` below): it wraps that one, which says what failed
_WRAPS_ANOTHER = LazyRegex(r"^(?:[\w.]+\.)?[A-Z]\w*: (?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)$")
# Julia's failed task (`ERROR: TaskFailedException`, its stack, then `    nested task error: some error`, nested again
# while the inner one is a task's failure too): the innermost nested error is the deepest exception
_JULIA_NESTED = LazyRegex(r"^nested task error: (?!(?:[\w.]+\.)?TaskFailedException$)\S")
# IPython's traceback header: the exception's class, padded, then the header (`ValueError      Traceback (most …`)
_IPYTHON_HEADER = LazyRegex(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*\s{2,}Traceback \(most recent call last\)")
_PYDANTIC_SUMMARY = GatedRegex(r"ValidationError: \d+ validation errors? for ")
_PYDANTIC_DETAIL = LazyRegex(r"^(?:Value error|Assertion failed), ")
OOM_WINDOW = 40  # lines after a bare `Killed` in which the kernel's OOM-killer report may follow
_KILLED = GatedRegex(r"\bKilled\b|\bkilled\b|SIGKILL|exit code 137|exitcode=-9")
_OOM_KILLER = GatedRegex(
    r"invoked oom-killer|Out of memory: Kill(?:ed)? process|Memory cgroup out of memory|\boom-kill:|OOMKilled"
)
_EXCEPTION_WITH_MESSAGE = GatedRegex(r"(?:^|[\s\]>|])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): \S")
CHAIN_WINDOW = 60  # lines in which a chained, more specific exception may replace a generic one
SUMMARY_WINDOW = (
    6  # lines below an exception named outside a traceback in which the traceback it sums up may open
)
INTRODUCED_WINDOW = (
    3  # lines below a failure line ending in `:` in which what it introduces may follow (blanks between)
)
PANIC_VALUE_WINDOW = 8  # lines below a panic header (`panic recovered:`) in which its value may be printed
# A line naming a fatal CUDA/NCCL error outside an exception line (`… terminated with exception: CUDA error: …`).
_FATAL_PHRASE = GatedRegex(
    r"\bCUDA (?:driver )?[Ee]rror: |\bcudaError[A-Z]\w+|\bNCCL error\b|\bncclInternalError\b|\bncclSystemError\b"
    r"|\bncclUnhandledCudaError\b|\bncclInvalidUsage\b|\bncclRemoteError\b"
)
# PyTorch < 1.0's CUDA check (`THCudaCheck FAIL file=… error=46 : all CUDA-capable devices are busy`), printed
# before the traceback whose `RuntimeError: cuda runtime error (46)` restates it: an error line, which that
# exception beats, and the answer when the excerpt lost it.
_ERROR_PHRASE = GatedRegex(
    r"\bTHCudaCheck FAIL\b"
    # a CUDA kernel's device-side assertion (``Indexing.cu:1422: indexSelectLargeIndex: block: [31,0,0], thread: [0,0,0]
    # Assertion `srcIndex < srcSelectDimSize` failed.``, its `failed.` wrapped onto the next line by a narrow console):
    # printed before the traceback whose `RuntimeError: CUDA error: device-side assert triggered` names it
    r"|\bAssertion `[^`]*`(?: failed\.|\s*$)"
    # an Ascend C kernel's assertion (`[ASSERT] …/gather_v3_base.h:137: Assertion `(0 <= val && …)' Index … out of
    # range[0 203136)!`; asc-devkit's `[ASSERT] file:137:func Assertion 'x' `): the kernel traps, and the host's error
    # below restates it, as CUDA's does (sixteenth round)
    r"|^\S+\.(?:h|hh|hpp|c|cc|cpp|cxx|cu):\d+:\S*\s+Assertion [`'][^`']*'"
    # a line that starts with the word error (docker's `Error response from daemon: …`, cargo's `error: could not
    # compile`, rustc's `error[E0425]: …`), also behind the program's name (`docker: Error response from daemon`)
    # (llama.cpp's tests print the colon spaced: `main : error: token 3 detokenizes to …`)
    r"|^(?:[\w.-]+ ?: )?(?:[Ee]rror|ERROR)(?:\[[\w-]+\])?(?::\s|\s+response from daemon\b)"
    # a program's own `name: error <what>: …` (llama.cpp's `llama_model_load: error loading model: failed to open …`),
    # also without the name (Go's wrapped error `error starting llama runner: llama runner process has terminated`)
    r"|^(?:[\w.-]+: )?[Ee]rror(?: [a-z]+){1,6}: \S"
    # a compiler's diagnostic: MSVC and nvcc `file.c(123): error C2059: …`, gcc and clang `file.c:12:5: error: …`
    r"|^\S.{0,300}?(?:\(\d+(?:,\d+)?\)|:\d+(?::\d+)?): (?:fatal )?error(?: [A-Z]+\d+)?: "
    # gRPC's status error (`rpc error: code = Unavailable desc = error reading from server: EOF`), at any level, also
    # with an empty description (LocalAI's `Fails: could not load model: rpc error: code = Canceled desc =`)
    r"|\brpc error: code = \w+ desc =(?: |$)"
)
# pip's and uv's diagnostic (`× pip subprocess to install build dependencies did not run successfully.`): an error
# line; a prefix test, since a pattern holding `×` cannot be gated by its ASCII literals and would run on every line
_DIAGNOSTIC_MARK = "× "
# ... and its ASCII rendering (miette's ASCII theme, a terminal without UTF-8: `  x No solution found when resolving
# dependencies:` then `` `-> Because … ``): the mark, then a capitalised sentence
_ASCII_DIAGNOSTIC = LazyRegex(r"^x [A-Z][a-z]+ ")
# Matched on the line as shown (the normaliser takes `[FAIL]` for a tag): a test runner's report of a failed test.
# Asked runner by runner: `regex` searches the joined alternation at every position of a line (~0.7 ms on a line of
# 850 characters, the picker's costliest call on the benchmark's JSON request lines), each runner's pattern alone in
# a few microseconds (most are anchored at the line's start)
_TEST_RUNNER_FAILURE = AnyOf.of_branches([pattern for _runner, pattern, _message in TEST_RUNNER_FAILURES])
_TEST_RUNNER_MARKERS = tuple(
    (LazyRegex(pattern), LazyRegex(message) if message else None)
    for _runner, pattern, message in TEST_RUNNER_FAILURES
)
# Go's testing with -v: `=== RUN   TestX/sub` opens a test, its `    x_test.go:9: msg` lines follow, and its
# `--- FAIL: TestX` comes after them (after other tests' lines too): the failing test's first message is the answer.
_GO_RUN = LazyRegex(r"^=== (?:RUN|CONT)\s+(?P<name>\S+)")
_GO_MESSAGE = LazyRegex(r"^[\w.-]+_test\.go:\d+: \S")
_GO_FAIL = LazyRegex(r"^--- FAIL: (?P<name>\S+)")
# Lines that accompany an error without being it: CUDA's boilerplate, announcements of a traceback.
_NOT_A_CAUSE = GatedRegex(
    r"CUDA kernel errors might be asynchronously reported|For debugging consider passing CUDA_LAUNCH_BLOCKING"
    r"|Compile with `TORCH_USE_CUDA_DSA`|Exception in (?:ASGI application|callback|thread|worker)"
    r"|Task exception was never retrieved|^Process [\w-]+:$"
    # advice printed with an error, at its level (the Ascend runtime's `ERROR … Note: ASCEND_LAUNCH_BLOCKING=1 will
    # force ops to run in synchronous mode`, pip's `note: This error originates from a subprocess`, TensorFlow's
    # `Hint: If you want to see a list of allocated tensors when OOM happens`, uv's and rustc's `help: …`): it tells what
    # to do, not what failed
    r"|^(?:[Nn]ote|NOTE|[Hh]int|HINT|[Hh]elp|HELP|[Tt]ip|TIP|Solution|Suggestion|Possible [Cc]ause):\s"
)
# An announcement that may go on with the error itself (`Exception in worker … init_device: NCCL error: …`).
_ANNOUNCEMENT = GatedRegex(r"Exception in (?:thread|worker)\b[^:]*:")
# A traceback flattened into a JSON string: `\n  File \"/x.py\"` (`\\n`, `\\\"` in one nested in another).
_ESCAPES = LazyRegex(r'\\+[n"]')
_RAISE = LazyRegex(r"^raise\s+[\w.]+\(")
# Source code a traceback or pytest quotes outside a traceback the picker saw open (an excerpt that starts inside
# one, a traceback logged line by line under ERROR headers): pytest's `>` marker (indented: a Markdown quote's
# single-space `> ` is a log someone quoted), a raise/return/await statement,
# an assignment from a call. Never the failure, whatever level its header shows.
_QUOTED_SOURCE = LazyRegex(
    r"^(?:>\s{2,}|(?:raise|return|await|yield)\s)|^[\w.\[\]'\"]+(?:\s*,\s*[\w.]+)*\s=\s(?:await\s+)?[\w.]+\("
    r"|^-+>\s*\d+\s+\S|^\d+\s{2,}\S"  # IPython's numbered source (`    592    raise …`, `--> 594    raise …`)
)
# pytest's short test summary (`FAILED path::test - AssertionError: …`) recaps an exception shown in full
# elsewhere: when the same exception line follows, that one (with its excerpt) is the answer.
_PYTEST_RECAP = LazyRegex(r"^(?:FAILED|ERROR) (?P<test>\S+::\S*)(?: \S+)? - (?P<exception>\S.*)$")
RECAP_WINDOW = TRACEBACK_SPAN
# pytest's rewritten assertion with the values it compared (`assert 8 <= 7.9981`, `assert 0 == 1`): only literals
# on either side, so it is the failure's explanation, not the quoted source line (`assert x <= limit`).
_SCALAR = r"(?:-?[\d.]+(?:e[-+]?\d+)?|'[^']*'|\"[^\"]*\"|True|False|None)"
# ... a list, tuple or set of values as pytest shows them, cut short with `...` (`[1, 3, 22177,... 2662, 4, ...]`)
_VALUES = rf"(?:\s*+(?:{_SCALAR}|\.\.\.)\s*+,?+)*+"
_LITERAL = rf"(?:{_SCALAR}|\[{_VALUES}\]|\({_VALUES}\)|\{{{_VALUES}\}})"
_ASSERT_EXPLANATION = LazyRegex(
    rf"^(?:>\s+)?assert\s+(?:not\s+)?{_LITERAL}(?:\s*(?:==|!=|<=|>=|<|>|\bin\b|\bnot in\b|\bis\b|\bis not\b)\s*{_LITERAL})*\s*$"
)
# pytest's crash location (`tests/test_x.py:56: AssertionError`): the last line of a `--tb=long` traceback, alone
# when only the locations were kept. An exception line.
_PYTEST_LOCATION = LazyRegex(
    r"^[\w./\\-]+\.py:\d+: (?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failed|Interrupt|Exit)$"
)
# pytest's header of a test that errored outside its body (`____ ERROR at setup of test_x[a] ____`): a failure
# line, chosen only when the log holds no error line (the `E   …` lines under it say more).
_PYTEST_ERROR_HEADER = LazyRegex(r"^_+ ERROR (?:at (?:setup|teardown) of|collecting) \S.* _+$")
# pytest's totals that count errors (`==== 33 passed, 2 deselected, 18 warnings, 1 error in 4366.92s (1:12:46) ====`):
# a line that words a failure (`N failed` says it in the failure words), after every test's own report, and more than
# the CI runner's epilogue below it says
_PYTEST_ERROR_TOTALS = LazyRegex(
    r"^=*\s*(?:\d+ [a-z]+, )*[1-9]\d* errors?(?:, \d+ [a-z]+)* in [\d.]+s\b"
    r"|^!+ Interrupted: [1-9]\d* errors? during collection !+$"  # collection stopped the run: nothing ran
)
# A line that ends quoting a command's stderr with no failure in what it quoted so far (docker's `… error running
# hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'`): the command's own error is the next line.
_QUOTES_OUTPUT = GatedRegex(r"\bstderr: (?:(?!error|fail)[^:])*$", IGNORECASE)
# A wrapper that points above itself for the cause: lines after it are not that cause, unless pytest's report put
# the process's captured output after it (`----- Captured stderr call -----`): what came first is printed below.
_POINTS_ABOVE = GatedRegex(r"root cause above|stack trace \(above\)", IGNORECASE)
_PYTEST_CAPTURED = LazyRegex(r"^-+ Captured (?:stdout|stderr|log) (?:setup|call|teardown) -+$")
_RAW_ERROR_HINT = GatedRegex(r"\[(?:E|F|ERROR|FATAL|Error|Fatal|error|fatal)\][\s:]")
_RAW_WARNING_HINT = GatedRegex(r"\[(?:W|WARN|WARNING|Warn|Warning|warn|warning)\][\s:]")
# A warning a compiler or package manager words without a header (cargo, gcc, uv: `warning: …`, `pip: warning: …`).
_WARNING_WORD = LazyRegex(r"^(?:[\w.-]+: )?(?:warning|Warning|WARNING)(?:\[[\w-]+\])?:\s")
# NCCL reports a failure it returns at WARN (`host:12:34 [0] bootstrap.cc:37 NCCL WARN Bootstrap : no socket interface
# found`, then `NCCL INFO init.cc:128 -> 3` as the error code climbs its stack): an error line.
_NCCL_WARN = GatedRegex(r"\bNCCL WARN\b")
# A JSON record printed over several lines: its level field alone on a line (`"level": "ERROR",`), then its message
# field within JSON_RECORD_SPAN lines (`"message": "error fetching 1 term, …",`, after a nested `"fields": {`).
_JSON_FIELD_LEVEL = LazyRegex(r'^"(?:level|severity|lvl)"\s*:\s*"(?P<level>[A-Za-z]+)",?$')
_JSON_FIELD_MESSAGE = LazyRegex(r'^"(?:message|msg|error|err)"\s*:\s*"\S')
JSON_RECORD_SPAN = 8
# JSON log lines (`{"level":"fatal","error":…}`): their level field.
_JSON_LEVEL = GatedRegex(r'^\{.*"(?:level|severity|lvl)"\s*:\s*"(?P<level>[A-Za-z]+)"')
# logfmt lines (Go's slog `time=… level=ERROR source=… msg=…`, logrus `level=error`, log15 `lvl=eror`): their level.
_LOGFMT_LEVEL = GatedRegex(r'^(?:(?:time|ts|t)=(?:"[^"]*"|\S+)\s+)?(?:level|lvl)="?(?P<level>[A-Za-z]+)\b')
# Source code quoted by a traceback or pytest (`self.timeout,`, `> raise X(`): never a failure report.
_CODE = AnyOf(r"[,(\[{\\]$|^(?:>|def |return |raise |if |elif |except |try:|assert |self\.)|\s=\s")
# The last resort: a line without a level that still reports a failure in words.
_FAILURE_WORDS = GatedRegex(
    r"\b(?:failed|failure|cannot|can't|could not|couldn't|unable to|not found|no such|refused|denied"
    # `timeout` as a setting's name (`Waiting for pods to be Running (timeout=900s)`) says no failure
    r"|out of memory|oom-killer|killed|marked (?:as )?dead|died|crashed|timed out|timeout(?!\s*=)|exceeded|fatal|aborted"
    r"|not enough"
    # every stack's wording of a failure in progress (huggingface_hub's `Error while downloading from …`, ld.so's `error
    # while loading shared libraries`), TensorFlow's status for an allocator out of memory (`Resource exhausted: OOM
    # when allocating tensor …`), torch elastic's agent on the signal it got (`Received 15 death signal`)
    r"|errors? while [a-z]+ing|resource exhausted|OOM when allocating|death signal"
    r"|already in use|no space left|exited with (?:exit )?(?:code|status) [1-9]\d*"
    # NVSHMEM's error macro: `ibgda.cpp:1345: non-zero status: 121 Error in mlx5dv_devx_obj_modify …`
    r"|non-zero status: [1-9]\d*"
    # systemd's `ollama.service: Main process exited, code=exited, status=2/INVALIDARGUMENT`
    r"|code=exited, status=[1-9]\d*"
    # a count that misses what was expected (`0 active driver(s) found (expected 1)`)
    r"|0 (?:[\w()-]+ ){0,3}found \(expected [1-9]"
    # no device where one was expected (`Found 0 GPUs`, `Detected 0 CUDA devices`, `No CUDA devices found`, vLLM's `No
    # platform detected, vLLM is running on UnspecifiedPlatform`: no accelerator at all)
    r"|\b(?:found|detected) 0 (?:[\w-]+ )?(?:devices?|GPUs?)\b"
    r"|\bno (?:[\w-]+ )?(?:devices?|GPUs?|platforms?) (?:were )?(?:found|detected|available|discovered)\b"
    # huggingface_hub's `There was a problem when trying to write …`, GitHub's `The self-hosted runner: x lost
    # communication with the server.`
    r"|there (?:was|has been) an? (?:problem|error)|lost (?:communication|connection) with"
    r"|not running|no route to host|unreachable|connection reset|broken pipe"
    r"|did not (?:run|complete|finish) successfully)\b",  # pip's `× … did not run successfully.`, its mark cut
    IGNORECASE,
)
# A guess at a failure (`poll … returned 0, likely a timeout`, `may be out of memory`): the words that precede a
# failure word when the line only supposes it; the line that states it (`timed out after 1800000ms`) reports it.
_GUESS = LazyRegex(
    r"\b(?:likely|probably|possibly|perhaps|maybe|may|might)(?: be| have| have been)?(?: an?| the)?\s+$"
)
GUESS_REACH = 40  # characters before a failure word searched for the guess that qualifies it
# A verdict alone on its line, and a check's line that states measured values against their limit (vllm-omni's
# `SSIM: value=0.941089, threshold>=0.970000, …`, `SSIM: avg=0.929366, min=0.914918, threshold>=0.940000`,
# `got 27.8, expected >= 30`): the values are the `name=number`s (or `got number`) before the limit.
_BARE_VERDICT = LazyRegex(r"(?:FAILED|FAIL|FAILURE|Failed|Failure)[.!]*")
_NUMBER = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_LIMIT = GatedRegex(
    rf"\b(?:threshold|limit|expected)\s*(?P<operator>>=|<=|>|<)\s*(?P<limit>{_NUMBER})", IGNORECASE
)
_MEASURED = LazyRegex(rf"(?:\bgot\s+|\b[A-Za-z_]\w*\s*=\s*)(?P<value>{_NUMBER})\b")
# A runner's echo of the command it is about to run (`Run command: [timeout --verbose 300 docker pull …]`): the words
# in it are arguments, not a failure (`set -x`'s `+ echo '… does not match …'` is not one: it prints a message).
# A line that reports what went well (pytest's `33 passed`, `Done.`, `Successfully installed …`): no command's last word
# on why it failed
_SUCCESS = GatedRegex(r"\b(?:passed|succeeded|success(?:ful(?:ly)?)?|done|ok|completed)\b", IGNORECASE)
_COMMAND_ECHO = LazyRegex(r"^(?:Run|Running|Executing)(?: command)?: ")
# A check that words what it found against what it expected (`Content does not match the expected result`): a
# failure, unless a warning says it (uv's `warning: VIRTUAL_ENV=… does not match the project environment path`).
_MISMATCH = GatedRegex(r"\b(?:does|do|did) not match\b", IGNORECASE)
# hamcrest's mismatch (JUnit, Maven surefire): `Expected: Text with "xyz456"` then ` but was: Text is "abc123"`; the
# pair is the failed check, pytest's `approx` and googletest print `Expected:` alone
_HAMCREST_EXPECTED = LazyRegex(r"^Expected: \S")
_BUT_WAS = LazyRegex(r"^but was:(?:\s|$)")
# A failure the line says it recovered from (`Couldn't find '/root/.ollama/id_ed25519'. Generating new private key.`)
_RECOVERED = LazyRegex(
    r"[.;,]\s+(?:[Gg]enerating|[Uu]sing|[Ff]alling back|[Rr]etrying|[Tt]rying|[Ss]kipping|[Ii]gnoring|[Cc]reating)\b"
)
# The program a syslog or journald line names (`Mar 27 15:49:20 host ollama[18437]: `): lines of two programs are two
# processes' (a journal read newest first puts systemd's `Failed with result` above the service's own error)
_SYSLOG_PROGRAM = LazyRegex(
    r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ (?P<program>[\w.@/-]+?)(?:\[\d+\])?: "
)
_ERROR_WORD = GatedRegex(r"\b(?:[Ee]rror|ERROR)\b")
# A line that names a failure without saying it in the failure words (`curl: (52) Empty reply from server`, kubectl's
# `ErrImagePull` / `ImagePullBackOff` status column, `invalid JIT response code: 422`, `Error creating pod: …` in a
# dict; the word error alone is too common in prose and status lines: `500 Internal Server Error`): a quiet failure, which still says more than the last line printed.
_WEAK_FAILURE = GatedRegex(
    r"\b(?:[Ff]ault|[Ii]nvalid|INVALID)\b|\b[Ee]rror [a-z]+ing\b|\bErr[A-Z][a-z]\w*|[a-z]BackOff\b|\bEmpty reply\b"
    # Kubernetes' eviction and node conditions (`Evicted`, `The node had condition: [DiskPressure]`)
    r"|\bEvicted\b|\b(?:Disk|Memory|PID)Pressure\b|\bThe node was low on resource\b"
)
# A line that starts with an upper-case level word and no colon (Kaldi's `ERROR (nnet3-train[5.5]:AddMatMat():
# cu-matrix.cc:1329) cublasStatus_t 13 …`, `WARNING (…)`): at that level.
_BARE_LEVEL_WORD = LazyRegex(r"^(?P<level>ERROR|FATAL|CRITICAL|WARNING|WARN)\s+(?=[(\[\w])")
_ERROR_LIKE = GatedRegex(
    r"[Ee]rror|Exception|[Ff]ailed|denied|refused|not found|No such|[Ii]nvalid|[Uu]nable"
)
_NOT_EXCEPTION_NAMES = frozenset(
    {"Traceback", "Warning", "INFO", "DEBUG", "Note", "Hint", "Usage", "During", "The"}
)


def _is_exception_line(message: str) -> bool:
    match = _EXCEPTION.match(message)
    if match is None:
        return False
    name = match["name"].rsplit(".", 1)[-1]
    if name in _NOT_EXCEPTION_NAMES or name.endswith("Warning"):
        return False
    return ":" in message[match.end("name") :][:3] or name.endswith(
        ("Error", "Exception", "Interrupt", "Exit")
    )


@dataclass
class _Traceback:
    """A traceback found in the log: where it starts, whether it is fatal, the error it raised."""

    start: int
    fatal: bool
    raised: _Candidate | None = None  # its last `raise …(` source line, for an exception line cut off
    named: bool = False  # `raised` is the error its header line named (`…: NCCL error: …, Traceback (most …`)


@dataclass
class _Candidate:
    """A line that could be the likely cause, with why and the lines around it."""

    line: int
    text: str
    reason: LikelyReason
    wrapper: bool
    before: list[ExcerptLine]
    after: list[ExcerptLine] = field(default_factory=list)
    announces: bool = False  # an error line right above a traceback of its process: `logger.exception(msg)`
    quotes_output: bool = False  # it ends quoting a command's stderr, which goes on below it
    introduces: bool = (
        False  # a line that words a failure ends in `:`: its detail follows (`Failed to start:`)
    )
    cut_short: bool = False  # a console cut it to its width (`consolid… …`): a whole line says more
    locates_only: bool = False  # a runner's marker that only says where (`[FAILED] in [It] - x_test.go:161`)
    cascade: _Candidate | None = (
        None  # the first of the unbroken run of failure lines that ends in this error line
    )


@dataclass
class _Provisional:
    """A fatal exception that a nearby line may still refine (a chained specific error, a pydantic detail)."""

    candidate: _Candidate
    until: int  # the last line number that may replace it
    accepts: Callable[[str], bool]
    chained: bool = False  # a chain marker followed it: the next exception was raised from it
    reason: LikelyReason = LikelyReason.EXCEPTION  # what a line it accepts is
    name: str = ""  # the exception's class name
    summarizes: bool = (
        False  # a traceback opened right below it: that traceback's exception of this class is it
    )
    every_line: bool = (
        False  # it wants each line that follows, keywords or not (a panic's value below its header)
    )
    wraps: bool = False  # its message only names another exception (`LoadError: TaskFailedException`)
    goes_on: bool = False  # its message goes on below it (`… raised:`, `… because of the following error …:`)


class LikelyCausePicker:
    """Feed lines in order; `result()` is the likely cause. Stops wanting lines once a fatal event is known."""

    def __init__(self, *, is_wrapper: Callable[[str], bool] = lambda _text: False) -> None:
        self._is_wrapper = is_wrapper
        self._tracebacks: dict[str, _Traceback] = {}
        self._recent: list[ExcerptLine] = []
        self._fatal: _Candidate | None = None  # the first non-wrapper fatal event
        self._provisional: _Provisional | None = None
        self._fallback: list[_Candidate] = []  # the first error line, the first wrapper
        self._open: list[_Candidate] = []  # candidates still collecting their following lines
        self._terminate: int | None = None  # line of a C++ "terminate called …" waiting for its what()
        self._captured: list[int] = []  # lines of pytest's `--- Captured stderr call ---` headers
        self._marker: tuple[_Candidate, LazyRegex] | None = (
            None  # a runner's failure marker, its message below
        )
        self._go_test = ""  # the Go test that `=== RUN` opened last
        self._go_messages: dict[str, _Candidate] = {}  # each Go test's first `x_test.go:9: …` line
        # the last line with something on it: where a silent process stopped
        self._last: _Candidate | None = None
        self._run: _Candidate | None = (
            None  # the first line of the run of failure lines that ends at `_run_end`
        )
        self._run_end = 0
        # the first line of the unbroken run of error and failure lines of one program that ends at `_reports_end`
        self._reports: _Candidate | None = None
        self._reports_end = 0
        # a JSON record printed over several lines: the line of its level field, and that level
        self._record_level: tuple[int, Level] | None = None

    @property
    def done(self) -> bool:
        """A fatal event is chosen and its excerpt is complete: later lines cannot change the answer."""
        return self._fatal is not None and not self._open

    @property
    def collecting(self) -> bool:
        """A chosen line still wants the lines right after it for its excerpt."""
        return bool(self._open) or (self._provisional is not None and self._provisional.every_line)

    def feed(self, number: int, raw: str, *, before: list[ExcerptLine] | None = None) -> None:
        """One log line (its 1-based number and raw text). `before`: the lines just above it, when the
        lines in between were not fed (`pick_likely_cause_in_blocks` feeds only lines that can matter)."""
        if before is not None:
            self._recent = before[-EXCERPT_BEFORE:]
        visible = visible_line(raw)  # a terminal's view: no escapes, a CR-overwritten line in its last state
        shown = kept_text(visible, EVIDENCE_TEXT_LIMIT)  # cut to what reports show only after redaction
        excerpt_line = ExcerptLine(number, kept_text(visible, EXCERPT_TEXT_LIMIT))
        if self._fatal is None and says_something(shown):
            self._last = _Candidate(number, shown, LikelyReason.LAST_LINE, False, self._recent[:])
        for candidate in self._open:
            candidate.after.append(excerpt_line)
        self._open = [c for c in self._open if len(c.after) < EXCERPT_AFTER]
        if self._provisional is not None and number > self._provisional.until:
            self._settle()
        if self._fatal is None:
            self._consider(number, raw, shown)
        self._recent.append(excerpt_line)
        del self._recent[:-EXCERPT_BEFORE]

    def last_line(self, number: int, raw: str, *, before: list[ExcerptLine]) -> None:
        """The last line with something on it so far (`before`: the lines above it): the answer when nothing in
        the log reports a failure, since a process that died silently stopped there (a reader that feeds only the
        lines that can matter tells the picker the log's last line at its end)."""
        if self._last is None or number > self._last.line:
            shown = kept_text(visible_line(raw), EVIDENCE_TEXT_LIMIT)
            self._last = _Candidate(
                number, shown, LikelyReason.LAST_LINE, False, list(before[-EXCERPT_BEFORE:])
            )

    def _consider(self, number: int, raw: str, shown: str) -> None:
        normalized = _normalize(raw)
        message = normalized.text
        if not message:
            return
        quiet = normalized.level in (Level.WARNING, Level.INFO)
        if (
            self._provisional is not None
            and self._provisional.accepts(message)
            and not self._wrapper(message)
        ):
            reason = self._provisional.reason
            goes_on = self._provisional.goes_on and message.endswith(":")
            self._provisional = None
            candidate = self._candidate(number, shown, reason, wrapper=False)
            if goes_on:
                # the message below introduces another in turn (transformers' nested `Failed to import x because of the
                # following error (look up to see its traceback):`): the innermost, printed right below, is the answer
                self._provisional = _Provisional(
                    candidate, number + 1, says_something, reason=reason, goes_on=True, every_line=True
                )
                return
            self._fatal = candidate
            return
        if _NOT_A_CAUSE.search(message) and not _carries_its_error(message):
            return
        if self._json_record(number, shown, message):
            return
        if self._runner_line(number, shown.strip()):
            return
        if _BUT_WAS.match(message) and self._recent and self._recent[-1].number == number - 1:
            above = self._recent[-1]
            if _HAMCREST_EXPECTED.match(above.text.strip()):  # hamcrest's `Expected: …` then ` but was: …`
                self._fallback_candidate(
                    above.number, above.text, above.text.strip(), LikelyReason.ERROR_LINE
                )
                return
        if _PYTEST_CAPTURED.match(message):
            self._captured.append(number)
            return
        if self._never_a_frame(number, shown, message):
            return
        if self._in_traceback(number, raw, shown, normalized):
            return
        if not quiet and _JULIA_NESTED.match(message):
            self._exception(number, shown, message, LikelyReason.EXCEPTION_LINE)
            return
        if not quiet and _ASSERT_EXPLANATION.match(message):
            if self._provisional is None:  # pytest's `+  where 1 = <Result TypeError(…)>` detail says more
                self._provisional = _Provisional(
                    self._candidate(number, shown, LikelyReason.EXCEPTION_LINE, wrapper=False),
                    number + 3,
                    lambda text: text.startswith("+") and bool(_ERROR_LIKE.search(text)),
                    reason=LikelyReason.EXCEPTION_LINE,
                )
            return
        if _QUOTED_SOURCE.search(message):
            return
        if _SIGNAL.found(message) and not quiet and not message.startswith("+ "):  # `set -x` echoes commands
            self._event(number, shown, message, LikelyReason.SIGNAL)
        elif not quiet and (
            _EXCEPTION_ANYWHERE.search(message)
            or ("): " in message and _CODED_ERROR.search(message))
            or _FATAL_PHRASE.search(message)
            or _BRACKETED_EXCEPTION.search(shown)
            or (_PYTEST_LOCATION.match(message) and not self._restates(message))
            or _PYTEST_RECAP.match(
                message
            )  # `FAILED t.py::test_x - assert 0 == 4`: the test's failure, any message
            or (
                message.endswith(":") and _names_an_exception_class(message)
            )  # `AssertionError:` then its message
        ):
            self._exception(number, shown, message, LikelyReason.EXCEPTION_LINE)
        elif (reported := _runner_report(shown, message)) is not None:
            self._runner_marker(number, shown, message, reported)
        elif (
            (normalized.level is Level.ERROR and not _FRAME_NOISE.match(message))
            or _ERROR_PHRASE.search(message)
            or message.startswith(_DIAGNOSTIC_MARK)
            or (message.startswith("x ") and _ASCII_DIAGNOSTIC.match(message) is not None)
        ):
            self._fallback_candidate(number, shown, message, LikelyReason.ERROR_LINE)
        elif _COMMAND_ECHO.match(message):
            return  # a command about to run (`Run command: [timeout 300 docker pull …]`): its words are arguments
        elif normalized.level is not Level.INFO and (
            (_words_a_failure(message) and not _CODE.found(message))
            or (not quiet and _MISMATCH.search(message) and not _CODE.found(message))
            or _PYTEST_ERROR_HEADER.match(message)
            or _PYTEST_ERROR_TOTALS.match(message)
        ):
            self._fallback_candidate(number, shown, message, LikelyReason.FAILURE_LINE)
        elif (
            _words_a_failure(message)
            or (normalized.level is Level.WARNING and _ERROR_WORD.search(message))
            or (normalized.level is Level.PLAIN and _WEAK_FAILURE.search(message))
        ) and not _CODE.found(message):
            # a warning that reports an error (`WARNING huggingface_hub…:_http.py:446 HTTP Error 429 thrown while …`);
            # logged at INFO (LocalAI's `INF [backend] Fails: failed to load model …`): said quietly, still a failure
            self._fallback_candidate(number, shown, message, LikelyReason.QUIET_FAILURE)

    def _json_record(self, number: int, shown: str, message: str) -> bool:
        """A JSON log record printed over several lines (hf-xet's `{`, `"level": "ERROR",`, `"fields": {`, `"message":
        "error fetching 1 term, …"`): its level on a line of its own, then its message field below it, which is an error
        line at the record's level. True when the line was one of the two."""
        level = _JSON_FIELD_LEVEL.match(message)
        if level is not None:
            self._record_level = (number, _LEVELS.get(level["level"].upper(), Level.PLAIN))
            return True
        if self._record_level is None or number - self._record_level[0] > JSON_RECORD_SPAN:
            return False
        if _JSON_FIELD_MESSAGE.match(message) is None:
            return False
        if self._record_level[1] is Level.ERROR:
            self._fallback_candidate(number, shown, message, LikelyReason.ERROR_LINE)
        self._record_level = None
        return True

    def _in_traceback(self, number: int, raw: str, shown: str, normalized: NormalizedLine) -> bool:
        """A traceback's header, frame, source line or exception (followed per process tag). True when handled."""
        message = normalized.text
        quiet = normalized.level in (Level.WARNING, Level.INFO)
        tag = _process_tag(raw)
        traceback = self._tracebacks.get(tag)
        if "Traceback (most recent call last)" in message:
            if _flattened_traceback(message) and not quiet:
                # a traceback flattened onto one line (a JSON field, a response body): it ends in its exception
                self._exception(number, shown, message, LikelyReason.EXCEPTION)
            else:
                self._open_traceback(number, tag, traceback, fatal=not quiet)
                self._header_names_its_error(number, shown, message, tag, quiet=quiet)
            return True
        if message in _CHAIN:
            if self._provisional is not None:
                self._provisional.chained = True
            return True
        if traceback is None and message.startswith('File "'):  # an excerpt that starts inside a traceback
            traceback = self._tracebacks[tag] = _Traceback(number, fatal=not quiet)
        if traceback is None:
            return False
        if not traceback.fatal and normalized.level is Level.INFO and message.startswith('File "'):
            # its frames carry an INFO header too: a parent relays a child's output line by line at the level it
            # gives all of it (olmocr's `… - __main__ - INFO -   File "…"`), not an exception logged and handled
            # (`logger.info(…, exc_info=True)` heads only the first line; a WARNING traceback stays handled)
            traceback.fatal = True
        if number - traceback.start > TRACEBACK_SPAN:
            del self._tracebacks[tag]
            return False
        if (
            _is_exception_line(message)
            or _prefixed_exception(message)
            or _LOWER_CASE_EXCEPTION.match(message)
        ):
            del self._tracebacks[tag]
            if traceback.fatal:
                self._exception(number, shown, message, LikelyReason.EXCEPTION)
            return True
        if _RAISE.match(message) and not traceback.named:
            traceback.raised = _Candidate(number, shown, LikelyReason.EXCEPTION, False, list(self._recent))
        return True  # a frame, a source line, a caret line: part of the traceback

    def _header_names_its_error(
        self, number: int, shown: str, message: str, tag: str, *, quiet: bool
    ) -> None:
        """A traceback's header behind the error it ends in (vLLM's `logger.exception("Exception in worker … while
        processing method init_device: %s, %s", e, tb)`): the answer when the traceback's own exception line is cut."""
        opened = self._tracebacks.get(tag)
        named = message.partition("Traceback (most recent call last)")[0]
        if (
            opened is not None
            and opened.start == number
            and not quiet
            and (
                _FATAL_PHRASE.search(named)
                or _EXCEPTION_WITH_MESSAGE.search(named)
                # IPython's header names the exception's class (`AssertionError      Traceback (most recent call last)`)
                or (_IPYTHON_HEADER.match(message) is not None and _names_an_exception_class(named.strip()))
            )
        ):
            opened.raised = _Candidate(number, shown, LikelyReason.EXCEPTION_LINE, False, list(self._recent))
            opened.named = True

    def _runner_line(self, number: int, text: str) -> bool:
        """A test runner's line: Go's `=== RUN` and test messages, a marker's message below it. True when handled."""
        marker = self._marker
        if marker is not None:
            self._marker = None
            if (
                number - marker[0].line <= EXCERPT_AFTER
                and marker[1].search(text)
                and marker[0] in self._fallback
            ):
                replaced = self._candidate(number, text, LikelyReason.ERROR_LINE, wrapper=False)
                self._fallback[self._fallback.index(marker[0])] = replaced
                # a message that is a marker in turn (Surefire's rerun test named below `Errors:`, its runs below it)
                self._marker = next(
                    (
                        (replaced, below)
                        for found, below in _TEST_RUNNER_MARKERS
                        if below and found.search(text)
                    ),
                    None,
                )
                return True
        run = _GO_RUN.match(text)
        if run is not None:
            self._go_test = run["name"]
            return True
        if _GO_MESSAGE.match(text) and self._go_test:
            if self._go_test not in self._go_messages:
                self._go_messages[self._go_test] = self._candidate(
                    number, text, LikelyReason.ERROR_LINE, wrapper=False
                )
            return True
        failed = _GO_FAIL.match(text)
        if failed is not None:  # the failing test's (or its subtests') first message, printed above
            name = failed["name"]
            said = [c for test, c in self._go_messages.items() if test == name or test.startswith(name + "/")]
            first_error = next((c for c in self._fallback if c.reason is LikelyReason.ERROR_LINE), None)
            if said and (first_error is None or first_error.line > min(c.line for c in said)):
                if first_error is not None:
                    self._fallback.remove(first_error)
                self._fallback.append(min(said, key=lambda c: c.line))
                return True
        return False

    def _open_traceback(self, number: int, tag: str, previous: _Traceback | None, *, fatal: bool) -> None:
        if previous is not None and previous.raised is not None and previous.fatal:
            self._settle_raised(previous)  # the earlier traceback's exception line was cut off
            if self._fatal is not None:
                return
        self._tracebacks[tag] = _Traceback(number, fatal=fatal)
        summary = self._provisional
        if (
            summary is not None
            and summary.candidate.reason is LikelyReason.EXCEPTION_LINE
            and summary.name
            and number - summary.candidate.line <= SUMMARY_WINDOW
        ):  # ducktape's report: `KeyError('samples')`, then the traceback that ends in it
            summary.summarizes = True
            summary.until = max(summary.until, number + TRACEBACK_SPAN)
        for candidate in self._fallback:
            if candidate.line == number - 1 and _process_tag(candidate.text) == tag:
                candidate.announces = True

    def _restates(self, location: str) -> bool:
        """pytest's crash location restates an exception its `E   …` lines named above (a wrapper kept aside)."""
        name = location.rsplit(": ", 1)[-1].rsplit(".", 1)[-1]
        return any(name in candidate.text for candidate in self._fallback)

    def _never_a_frame(self, number: int, shown: str, message: str) -> bool:
        """Lines no traceback holds (a panic, a C++ terminate, a fatal Python error): handled first."""
        if _CPP_TERMINATE.search(message):
            self._terminate = number
            self._fallback_candidate(number, shown, message, LikelyReason.ERROR_LINE)
        elif _CPP_WHAT.match(message) and self._terminate is not None and number - self._terminate <= 3:
            self._event(number, shown, message, LikelyReason.CPP_EXCEPTION)
        elif _PANIC.search(message):
            if _PANIC_HEADER_ONLY.search(message) and self._provisional is None:
                self._provisional = _Provisional(
                    self._candidate(number, shown, LikelyReason.PANIC, wrapper=False),
                    number + PANIC_VALUE_WINDOW,
                    _is_panic_value,
                    reason=LikelyReason.PANIC,
                    every_line=True,
                )
            elif (
                message.startswith("panic: ")
                and self._reports is not None
                and self._reports_end == number - 1
                and _program(self._reports.text) == _program(shown)
            ):
                # a Go program gives up (its own `panic(err)`) on what the run of error and failure lines right above it
                # reported (ollama's `panic: unable to load model: …` after llama.cpp's `failed to allocate buffer …` …
                # `failed to load model`): the run's first line says what failed, as for an error line that ends a
                # cascade (fourteenth round); a Rust panic's message holds the error itself (`called `Result::unwrap()`
                # on an `Err` value: …`) and stays the answer
                if self._provisional is None:
                    self._fatal = self._reports
            else:
                self._event(number, shown, message, LikelyReason.PANIC)
        elif _FATAL_PYTHON.search(message):
            self._event(number, shown, message, LikelyReason.FATAL_PYTHON)
        elif _CPP_ABORT.search(message):
            self._event(number, shown, message, LikelyReason.CPP_EXCEPTION)
        elif _NATIVE_ASSERT.search(message):
            self._event(number, shown, message, LikelyReason.ASSERTION)
        else:
            return False
        return True

    def _exception(self, number: int, shown: str, message: str, reason: LikelyReason) -> None:
        """An exception: final, unless a generic transport error or a pydantic summary may be refined."""
        if self._wrapper(message):
            self._fallback_candidate(number, shown, message, LikelyReason.WRAPPER)
            return
        if self._provisional is not None and (
            self._provisional.wraps or _whole_recap_after_cut(self._provisional.candidate.text, message)
        ):
            # `LoadError: TaskFailedException` only named the exception below (Julia's `nested task error: ArgumentError:
            # …`); a recap cut to the terminal's width (`- BrokenPipeError...`) lost what a whole one says
            self._provisional = None
        elif self._provisional is not None and _cut_recaps(self._provisional.candidate.text, message):
            return  # the next recap cut short too: the first stays, waiting for a whole one
        if self._provisional is not None:  # a more specific exception chained on the generic one replaces it
            if self._provisional.summarizes and (
                self._provisional.name in (_exception_name(message), *_named(message))
                # the base class alone (pip's `ERROR: Exception:` above the traceback of its internal error) is any
                or _BASE_CLASS_ALONE.match(self._provisional.candidate.text) is not None
            ):
                # the traceback below a summary line (ducktape's `KeyError('samples')`) ends in the same exception
                self._provisional = None
                self._fatal = self._candidate(number, shown, reason, wrapper=False)
                return
            if not self._provisional.chained or self._provisional.name not in _GENERIC_EXCEPTIONS:
                # a chain's first exception is its deepest: only a generic transport error yields to the next one
                self._settle()
                return
            if _exception_name(message) in _GENERIC_EXCEPTIONS:
                return
            self._provisional = None
            self._fatal = self._candidate(number, shown, reason, wrapper=False)
            return
        candidate = self._candidate(number, shown, reason, wrapper=False)
        # the shown line for ONNX Runtime's `[ONNXRuntimeError] : …`, which the normaliser took for a tag
        name = _exception_name(message) or next(iter(_named(shown)), "")
        recap = _PYTEST_RECAP.match(message)
        if recap is not None:  # the same exception, shown in full below, says more
            shown_in_full = recap["exception"].strip()
            self._provisional = _Provisional(
                candidate, number + RECAP_WINDOW, lambda text: text.strip() == shown_in_full, reason=reason
            )
        elif message.endswith(":") and _EXCEPTION.fullmatch(message) is not None:
            # no message on its line (numpy's `AssertionError: ` then `Arrays are not …`): the exception line is the
            # answer, its message is the excerpt below it; the convention names the exception, not its detail. Named
            # outside a traceback, unless its message holds a traceback of its own that ends in the same class (CuPy's
            # repeated test: `AssertionError: ` then `Fail: 3, Success: 2`, `The first error message:` and the first
            # failing run's traceback): that traceback's exception is the one it was raised from
            if reason is LikelyReason.EXCEPTION_LINE and name:
                self._provisional = _Provisional(
                    candidate, number + SUMMARY_WINDOW, lambda _text: False, reason=reason
                )
            else:
                self._fatal = candidate
        elif message.endswith(("raised:", ":")) and not _PYDANTIC_SUMMARY.search(message):
            # the message goes on below (`BackendCompilerFailed: backend='inductor' raised:`)
            self._provisional = _Provisional(
                candidate,
                number + 3,
                lambda text: bool(_ERROR_LIKE.search(text)),
                reason=reason,
                goes_on=True,
            )
        elif _PYDANTIC_SUMMARY.search(message):
            self._provisional = _Provisional(
                candidate, number + 4, lambda text: bool(_PYDANTIC_DETAIL.match(text))
            )
        elif _exception_name(message) in _GENERIC_EXCEPTIONS:
            self._provisional = _Provisional(candidate, number + CHAIN_WINDOW, lambda _text: False)
        elif _WRAPS_ANOTHER.match(message.strip()):
            self._provisional = _Provisional(
                candidate, number + CHAIN_WINDOW, lambda _text: False, reason=reason, wraps=True
            )
        elif reason is LikelyReason.EXCEPTION_LINE and name:
            # named outside a traceback: a summary, when a traceback opens right below it, of that traceback's end
            self._provisional = _Provisional(
                candidate, number + SUMMARY_WINDOW, lambda _text: False, reason=reason
            )
        else:
            self._fatal = candidate
        if self._provisional is not None and self._provisional.candidate is candidate:
            self._provisional.name = name

    def _event(self, number: int, shown: str, message: str, reason: LikelyReason) -> None:
        if self._wrapper(message):
            self._fallback_candidate(number, shown, message, LikelyReason.WRAPPER)
            return
        if self._provisional is not None:  # an exception came first: it stays the answer
            self._settle()
            return
        candidate = self._candidate(number, shown, reason, wrapper=False)
        if reason is LikelyReason.SIGNAL and _KILLED.search(message) and not _OOM_KILLER.search(message):
            # a bare `Killed`: the kernel's OOM-killer report, when the log has it, says why
            self._provisional = _Provisional(
                candidate, number + OOM_WINDOW, lambda text: bool(_OOM_KILLER.search(text)), reason=reason
            )
            return
        self._fatal = candidate

    def _settle_raised(self, traceback: _Traceback) -> None:
        raised = traceback.raised
        if raised is None or self._fatal is not None or self._provisional is not None:
            return
        self._fatal = raised
        if len(raised.after) < EXCERPT_AFTER:
            self._open.append(raised)

    def _settle(self) -> None:
        if self._provisional is not None:
            self._fatal = self._fatal or self._provisional.candidate
            self._provisional = None

    def _runner_marker(self, number: int, shown: str, message: str, text: str) -> None:
        """A runner's failure marker (`text`, as matched): an error line, whose message, when the runner prints one
        below, replaces it."""
        self._fallback_candidate(number, shown, message, LikelyReason.ERROR_LINE)
        added = self._fallback[-1] if self._fallback else None
        if added is None or added.line != number:
            return
        for marker, message_below in _TEST_RUNNER_MARKERS:
            if message_below is not None and marker.search(text):
                self._marker = (added, message_below)
                return

    def _fallback_candidate(self, number: int, shown: str, message: str, reason: LikelyReason) -> None:
        wrapper = reason is LikelyReason.WRAPPER or self._wrapper(message)
        kind = LikelyReason.WRAPPER if wrapper else reason
        continued = ExcerptLine(number, kept_text(shown, EXCERPT_TEXT_LIMIT))
        above = self._sentence_above(number, message) if kind is LikelyReason.FAILURE_LINE else None
        if (
            above is not None
        ):  # `Primary job terminated normally, but 1 process returned` / `a non-zero exit code.`
            number, shown = above.number, above.text
        run = self._failure_run(number, shown, kind)
        self._reporting_run(number, shown, kind)
        quoting = next((c for c in self._fallback if c.quotes_output and c.line == number - 1), None)
        introducing = next(
            (
                c
                for c in self._fallback
                if c.introduces
                and c.reason is kind
                and 0 < number - c.line <= INTRODUCED_WINDOW
                and not any(line.text.strip() for line in c.after if line.number < number)  # right below it
            ),
            None,
        )
        if quoting is not None and not wrapper:  # the failure the line above quotes: deeper than its report
            self._fallback.remove(quoting)
        elif (
            introducing is not None
        ):  # `Failed to start, getting 404:` then what failed: the detail says more
            self._fallback.remove(introducing)
        elif (cut := next((c for c in self._fallback if c.reason is kind), None)) is not None:
            if not (
                (cut.cut_short and kind is LikelyReason.FAILURE_LINE and not _cut_short(message))
                or (cut.locates_only and kind is LikelyReason.ERROR_LINE and _states_a_runners_failure(shown))
            ):
                return
            # `Failed: /home/u/.llama/checkpoints/consolid… …` lost its words: the whole line says more
            self._fallback.remove(cut)
        candidate = self._candidate(number, shown, kind, wrapper=wrapper)
        if (
            above is not None
        ):  # the sentence's first line: the line above is no longer before it, this one after
            candidate.before = [line for line in candidate.before if line.number < number]
            candidate.after.append(continued)
        if kind is LikelyReason.ERROR_LINE and run is not None and run.line < number:
            candidate.cascade = run
        candidate.quotes_output = _QUOTES_OUTPUT.search(message) is not None
        candidate.introduces = kind is LikelyReason.FAILURE_LINE and message.endswith(":")
        candidate.cut_short = _cut_short(message)
        candidate.locates_only = (
            kind is LikelyReason.ERROR_LINE and _RUNNER_LOCATION.match(shown.strip()) is not None
        )
        self._fallback.append(candidate)

    def _sentence_above(self, number: int, message: str) -> ExcerptLine | None:
        """The line a failure line continues (a console or a program wrapped one sentence: mpirun's `Primary job
        terminated normally, but 1 process returned` then `a non-zero exit code. Per user-direction, the job has been
        aborted.`): a line that starts in lower case right below a plain line that starts a sentence and does not end
        one. The sentence is answered at its first line."""
        if not message[:1].islower() or not self._recent or self._recent[-1].number != number - 1:
            return None
        above = self._recent[-1]
        text = _normalize(above.text)
        if (
            text.level is not Level.PLAIN
            or text.text != above.text.strip()  # a log record's header (a time, a level): a line of its own
            or not text.text[:1].isupper()
            or not text.text[-1:].islower()  # `Step 2/35 : FROM $PARENT_IMAGE` ends a line, not a sentence
            # it stops on a plain word (`… but 1 process returned`): a line that ends on an address, a path or a name
            # (PBS's `Job deleted at request of root@mskcc-fe1.local` above `job preempted (node failure)`) is whole
            or not text.text.rsplit(None, 1)[-1].isalpha()
            or _CODE.found(text.text)
            # a progress display's status row (`Container translation-tgi-service  Error`) is no sentence's start
            or _STATUS_ROW.match(text.text) is not None
            or any(candidate.line == above.number for candidate in self._fallback)
        ):
            return None
        return above

    def _reporting_run(self, number: int, shown: str, kind: LikelyReason) -> None:
        """Follows the unbroken run of one program's error and failure lines (llama.cpp's `llama_model_load: error loading
        model: missing tensor …` then `failed to load model`), whatever came first in the log: a panic right below it
        gives up on what its first line reported."""
        if kind not in (LikelyReason.ERROR_LINE, LikelyReason.FAILURE_LINE):
            self._reports = None
            return
        if (
            self._reports is None
            or self._reports_end != number - 1
            or _program(self._reports.text) != _program(shown)
        ):
            self._reports = _Candidate(number, shown, kind, False, list(self._recent))
            self._open.append(self._reports)
        self._reports_end = number

    def _failure_run(self, number: int, shown: str, kind: LikelyReason) -> _Candidate | None:
        """The first line of the unbroken run of plain failure lines this one ends (llama.cpp's cascade: `gguf_init_from_
        file: failed to open GGUF file '…'`, then `llama_model_load: error loading model: …`): the first says what
        failed, the error line after it says what could not go on."""
        if self._run is None or self._run_end != number - 1 or _program(self._run.text) != _program(shown):
            self._run = None
            if (
                kind is LikelyReason.FAILURE_LINE
                and not shown.rstrip().endswith(
                    (":", "FAILED")
                )  # what it introduces, a test verdict: said below
                and not _RECOVERED.search(shown)
                and not _PYTEST_ERROR_HEADER.match(
                    _normalize(shown).text
                )  # the `E   …` lines under it say more
            ):
                self._run = _Candidate(number, shown, kind, False, list(self._recent))
                self._open.append(self._run)
        self._run_end = number
        return self._run

    def _candidate(self, number: int, shown: str, reason: LikelyReason, *, wrapper: bool) -> _Candidate:
        candidate = _Candidate(number, shown, reason, wrapper, list(self._recent))
        self._open.append(candidate)
        return candidate

    def _wrapper(self, message: str) -> bool:
        return bool(_WRAPPER.search(message)) or self._is_wrapper(message)

    def _above(self, first_error: _Candidate | None, wrapper: _Candidate | None) -> bool:
        """A wrapper that says its cause is above it (`See root cause above.`) before the first error line: that
        line came after it, so it is aftermath (the Ascend runtime's `ERR99999 UNKNOWN applicaiton exception`)."""
        return (
            first_error is not None
            and wrapper is not None
            and wrapper.line < first_error.line
            and _POINTS_ABOVE.search(wrapper.text) is not None
            and not any(wrapper.line < captured < first_error.line for captured in self._captured)
        )

    def result(self) -> LikelyLine | None:
        """The chosen line: the first fatal event, else the first error line, else the first wrapper."""
        self._settle()
        if self._fatal is None:
            for traceback in sorted(self._tracebacks.values(), key=lambda t: t.start):
                if traceback.fatal and traceback.raised is not None:
                    self._fatal = traceback.raised
                    break
        first_error = next((c for c in self._fallback if c.reason is LikelyReason.ERROR_LINE), None)
        wrapper = next((c for c in self._fallback if c.reason is LikelyReason.WRAPPER), None)
        if (
            first_error is not None
            and first_error.announces
            and wrapper is not None
            and wrapper.line > first_error.line
        ) or self._above(first_error, wrapper):
            # "AsyncLLM output_handler failed." announced the traceback the wrapper ended: the wrapper says more
            first_error = None
        failure = next((c for c in self._fallback if c.reason is LikelyReason.FAILURE_LINE), None)
        fatal_text = _normalize(self._fatal.text).text.strip() if self._fatal is not None else ""
        if self._fatal is not None and _EXCEPTION.fullmatch(fatal_text) is not None:
            # a bare `AssertionError` says less than the error line before it, and, with not even a colon that
            # its message follows, than a line before it that words the failure (TensorRT's `Error Code 1: …`)
            heads_it = (
                first_error is not None
                and _UNITTEST_REPORT.match(_normalize(first_error.text).text.strip()) is not None
            )
            said = (None if heads_it else first_error) or (failure if not fatal_text.endswith(":") else None)
            if said is not None and said.line < self._fatal.line:
                self._fatal = said
        elif self._fatal is not None and _IPYTHON_HEADER.match(fatal_text):
            # only the class IPython's header named, its traceback cut: any line before it that words a failure,
            # even quietly (Ray's `WARNING … A worker died or was killed …` above `RayActorError   Traceback …`)
            quiet = next((c for c in self._fallback if c.reason is LikelyReason.QUIET_FAILURE), None)
            said = min(
                (c for c in (first_error, failure, quiet) if c is not None and c.line < self._fatal.line),
                key=lambda c: c.line,
                default=None,
            )
            self._fatal = said or self._fatal
        if wrapper is not None and failure is not None and _EPILOGUE.search(wrapper.text):
            wrapper = None  # the runner's epilogue says less than any line that words the failure
        if first_error is not None and first_error.cascade is not None:
            first_error = first_error.cascade  # the run of failure lines began above the error line
        if wrapper is not None and _other_tests_recap(wrapper, self._fatal or first_error):
            # pytest's short summary recaps each failed test: a later test's failure is no cause of the first one's
            # wrapper (`FAILED t.py::test_a - RuntimeError: Server exited unexpectedly.` above `FAILED t.py::test_c -
            # AssertionError: …`), so the first test's recap stays the answer
            self._fatal, first_error = wrapper, None
        chosen = self._fatal or first_error  # then a wrapper, then a line that only words a failure
        chosen = chosen or (wrapper and _last_words(wrapper)) or wrapper
        for kind in (LikelyReason.FAILURE_LINE, LikelyReason.QUIET_FAILURE):
            chosen = chosen or next((c for c in self._fallback if c.reason is kind), None)
        chosen = chosen or (self._last and _introduced(self._last)) or self._last
        if chosen is None:
            return None
        if chosen.reason is LikelyReason.FAILURE_LINE:
            chosen = _measured_check(chosen) or chosen
        excerpt = (
            *chosen.before,
            ExcerptLine(chosen.line, kept_text(chosen.text, EXCERPT_TEXT_LIMIT)),
            *chosen.after,
        )
        return LikelyLine(chosen.line, chosen.text, chosen.reason, excerpt)


def _other_tests_recap(wrapper: _Candidate, later: _Candidate | None) -> bool:
    """Both lines recap pytest's failed tests, the wrapper's first, and they name two different tests."""
    if later is None or later.line < wrapper.line:
        return False
    first = _PYTEST_RECAP.match(_normalize(wrapper.text).text)
    second = _PYTEST_RECAP.match(_normalize(later.text).text)
    return first is not None and second is not None and first["test"] != second["test"]


def _last_words(epilogue: _Candidate) -> _Candidate | None:
    """A runner's epilogue (`Error: Process completed with exit code 1.`) with nothing in the log that words a
    failure: the command's last line, right above it, is the command's last word before it exited (docker compose's
    `toomanyrequests: retry-after: …`), unless that is the runner's echo of the command (GitHub's step header `Run docker
    compose pull`)."""
    if not _EPILOGUE.search(epilogue.text):
        return None
    above = [line for line in epilogue.before if line.number < epilogue.line and says_something(line.text)]
    if not above or above[-1].number != epilogue.line - 1:
        return None
    last = above[-1]
    text = _normalize(last.text).text
    if (
        _COMMAND_ECHO.match(text)
        or text.startswith("Run ")
        or _EPILOGUE.search(text)
        or _SUCCESS.search(text)
    ):
        return None  # the runner's echo, a line that says what went well (`=== 33 passed in 12.00s ===`)
    before = [line for line in epilogue.before if line.number < last.number]
    after = [ExcerptLine(epilogue.line, kept_text(epilogue.text, EXCERPT_TEXT_LIMIT)), *epilogue.after]
    return _Candidate(last.number, last.text, LikelyReason.LAST_LINE, False, before, after[:EXCERPT_AFTER])


def _introduced(last: _Candidate) -> _Candidate | None:
    """The last line printed, with nothing in the log that reports a failure, when the line right above it introduces
    it (RAYX's test: `[ setupTests.cpp:227] rayx.m_position != correct.m_position:` then the two positions): the
    statement is the answer and the values below it are its detail, as an exception's line is over its message
    printed below it (fourteenth round)."""
    above = [line for line in last.before if line.number < last.line and says_something(line.text)]
    if not above or above[-1].number != last.line - 1:
        return None
    statement = above[-1]
    text = _normalize(statement.text).text.rstrip()
    if (
        not text.endswith(":")
        # a cut traceback's header: its frames are no detail of it; `Exception in thread Thread-1:` only announces
        or "Traceback (most recent call last)" in text
        or _ANNOUNCEMENT.search(text)
        or _CODE.found(text)
        or _COMMAND_ECHO.match(text)
    ):
        return None
    before = [line for line in last.before if line.number < statement.number]
    after = [ExcerptLine(last.line, kept_text(last.text, EXCERPT_TEXT_LIMIT)), *last.after]
    return _Candidate(
        statement.number, statement.text, LikelyReason.LAST_LINE, False, before, after[:EXCERPT_AFTER]
    )


def _measured_check(verdict: _Candidate) -> _Candidate | None:
    """A bare verdict (`FAILED` alone on its line) concludes the checks printed right above it: the first of them that
    states measured values that miss its limit (`SSIM: value=0.94, threshold>=0.97`) says what failed."""
    if _BARE_VERDICT.fullmatch(_normalize(verdict.text).text.strip()) is None:
        return None
    block = list(verdict.before)
    while block and not all(says_something(line.text) for line in block):
        block = block[1 + next(i for i, line in enumerate(block) if not says_something(line.text)) :]
    for index, line in enumerate(block):
        if _fails_its_limit(_normalize(line.text).text):
            after = [
                *block[index + 1 :],
                ExcerptLine(verdict.line, kept_text(verdict.text, EXCERPT_TEXT_LIMIT)),
            ]
            return _Candidate(
                line.number, line.text, verdict.reason, False, block[:index], after[:EXCERPT_AFTER]
            )
    return None


def _program(text: str) -> str:
    """The process a line is from, as far as its header says: its syslog program and its process tag."""
    program = _SYSLOG_PROGRAM.match(text.strip())
    return (program["program"] if program is not None else "") + "|" + _process_tag(text)


def _cut_recaps(recap: str, message: str) -> bool:
    """Two recaps of pytest's short summary, both cut to the terminal's width."""
    return _recap_cuts(recap, message) == (True, True)


def _whole_recap_after_cut(recap: str, message: str) -> bool:
    """pytest's short summary cut to the terminal's width (`FAILED t.py::test_vae - BrokenPipeError...`) lost its
    message: a later recap shown whole (`FAILED t.py::test_from_pretrained - MemoryError`) says more."""
    return _recap_cuts(recap, message) == (True, False)


def _recap_cuts(recap: str, message: str) -> tuple[bool, bool] | None:
    """Whether each of two recaps of pytest's short summary was cut to the terminal's width (its exception ends in
    `...`); None unless both lines are such recaps."""
    first = _PYTEST_RECAP.match(_normalize(recap).text)
    later = _PYTEST_RECAP.match(message)
    if first is None or later is None:
        return None
    return _lost_its_message(first["exception"]), _lost_its_message(later["exception"])


def _lost_its_message(exception: str) -> bool:
    """A recap's exception cut to the terminal's width in its words (`BrokenPipeError...`, `ConnectionResetError: [Errno
    104] Connection r...`); one cut inside the values its message goes on to list, its words whole before them
    (`AssertionError: Lists differ: [[12, 67, 46, 29], …, [12, 67, 46, ...`), still says what failed (fourteenth round)."""
    shown = exception.rstrip()
    if not shown.endswith("..."):
        return False
    words = _WORDS_THEN_VALUES.match(shown)
    if words is None:
        return True
    values = shown[words.end() - 1 :]
    # the cut fell inside a value still open
    return sum(values.count(c) for c in "[({") <= sum(values.count(c) for c in "])}")


# the class, its message's words (a word of letters, no bracket yet), then the first bracket of a value
_WORDS_THEN_VALUES = LazyRegex(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*: [^\[\](){}]*?[A-Za-z]{2,}[^\[\](){}]*?[\[({]")


def _runner_report(shown: str, message: str) -> str | None:
    """The text in which a test runner reports a failed test: the line as shown (the normaliser takes Ginkgo's `[FAIL]`
    for a tag), else the line after its headers (a console's time of day: `18:54:32 FAIL: test_x (mod.Case)`)."""
    text = shown.strip()
    if _TEST_RUNNER_FAILURE.found(text):
        return text
    message = message.strip()
    return message if message != text and _TEST_RUNNER_FAILURE.found(message) else None


def _states_a_runners_failure(shown: str) -> bool:
    """Ginkgo's failure marker that says what failed, not only where (its report's `[FAILED] Timed out after 61.060s.`
    after its timeline's `[FAILED] in [It] - networking.go:288 @ 12/07/25 12:10:43.531`); another runner's verdict
    (`--- FAIL: TestE2E`, the Go test that runs the suite) says no more than the location."""
    text = shown.strip()
    return _GINKGO_FAILURE.search(text) is not None and _RUNNER_LOCATION.match(text) is None


# unittest's header only names the test: a bare `AssertionError:` of the traceback it heads still says what failed
_UNITTEST_REPORT = LazyRegex(UNITTEST_REPORT)
# Ginkgo v2's timeline marks where a spec failed (`[FAILED] in [It] - /src/e2e_test.go:161 @ 01/21/25 21:59:21.129`);
# the report below it prints the failure's message behind the same marker, which says more (fourteenth round)
_GINKGO_FAILURE = LazyRegex(
    next(pattern for runner, pattern, _message in TEST_RUNNER_FAILURES if runner == "Ginkgo")
)
_RUNNER_LOCATION = LazyRegex(
    r"^\[(?:FAILED|PANICKED!|TIMEDOUT|INTERRUPTED)\] in \[[\w ]+\] - \S+:\d+(?: @ .*)?$"
)


def _cut_short(text: str) -> bool:
    """A line a console cut to its width (rich's progress column: `Failed: /home/u/.llama/checkpoints/consolid… …`): it
    lost the words after the ellipsis, so a later line that words the failure whole says more. So does a progress
    display's status row (docker compose's `✘ Container app-db-1  Error dependency db failed to start  1.0s`): the
    command's own error, printed below the display, says why."""
    stripped = text.rstrip()
    return stripped.endswith("…") or _STATUS_ROW.match(stripped) is not None


# docker compose's status rows: the terminal's (`✘ Container app-db-1  Error  1.0s`) and the plain progress a pipe gets
# (`Container translation-tgi-service  Error`), whose error is printed below the display
_STATUS_ROW = LazyRegex(r"^(?:[✘✗]\s+\S.*\s\d+(?:\.\d+)?s|Container [\w.-]+\s{2,}Error)$")


def _carries_its_error(message: str) -> bool:
    """An announcement that goes on with the error itself (vLLM's `Exception in worker VllmWorkerProcess while
    processing method init_device: NCCL error: unhandled system error …`): the error, not only its announcement."""
    announced = _ANNOUNCEMENT.search(message)
    if announced is None:
        return False
    rest = message[announced.end() :]
    return _FATAL_PHRASE.search(rest) is not None or _EXCEPTION_WITH_MESSAGE.search(rest) is not None


def _words_a_failure(message: str) -> bool:
    """A failure word that the line states, not one it only guesses (`likely a timeout`)."""
    return any(
        _GUESS.search(message[max(0, found.start() - GUESS_REACH) : found.start()]) is None
        for found in _FAILURE_WORDS.finditer(message)
    )


def _fails_its_limit(text: str) -> bool:
    """A check's line whose measured values (`value=0.94`) do not meet the limit it states (`threshold>=0.97`)."""
    limit = _LIMIT.search(text)
    if limit is None:
        return False
    bound = float(limit["limit"])
    operator = limit["operator"]
    values = [float(match["value"]) for match in _MEASURED.finditer(text[: limit.start()])]
    return any(not _meets(value, operator, bound) for value in values)


def _meets(value: float, operator: str, bound: float) -> bool:
    """`value operator bound` for a check's stated limit (`>=`, `<=`, `>`, `<`)."""
    if operator == ">=":
        return value >= bound
    if operator == "<=":
        return value <= bound
    if operator == ">":
        return value > bound
    return value < bound


def _is_message_line(text: str) -> bool:
    """A line that can be the message of an exception printed without one: words, not a traceback's next part,
    not a heading of the details below it (numpy's `Items are not equal:` then `Error 1.1 exceeds tolerance …`)."""
    return (
        any(character.isalpha() for character in text)
        and not text.endswith(":")
        and "Traceback (most recent call last)" not in text
        and text not in _CHAIN
        and not text.startswith('File "')
    )


def says_something(text: str) -> bool:
    """A line that can be the last one printed: a letter or digit, not a blank, a Markdown fence or a rule line."""
    return any(character.isalnum() for character in text)


def _is_panic_value(text: str) -> bool:
    """The value a panic header announced (`runtime error: invalid memory address …`), not gin's request dump."""
    return _is_message_line(text) and _REQUEST_DUMP.match(text) is None


def _names_an_exception_class(message: str) -> bool:
    """`AssertionError:` / `…errors.ChildFailedError:` is an exception whose message follows; `Failures:`,
    `Command:` (a report's field names) are not: outside a traceback, the name must read as an exception class."""
    return _is_exception_line(message) and _exception_name(message).endswith(
        ("Error", "Exception", "Interrupt", "Exit", "Failure", "Failed")
    )


def _flattened_traceback(message: str) -> bool:
    """A whole traceback on one line (`traceback: Traceback (most recent call last): File "/src/handler.py", line 206,
    in generate results = await … KeyError: 'api'}`): an exception with its message after the last frame."""
    frames = message.partition("Traceback (most recent call last)")[2]
    frames = _ESCAPES.sub(lambda escape: "\n" if escape[0][-1] == "n" else '"', frames)  # JSON's, even nested
    last_frame = frames.rfind('File "')
    return last_frame >= 0 and _EXCEPTION_WITH_MESSAGE.search(frames, last_frame) is not None


def _prefixed_exception(message: str) -> bool:
    """An exception line behind a prefix the normaliser does not know (`[177/train (pid 2)] OSError: …`)."""
    return (
        not message.startswith('File "')
        and not _CODE.found(message)
        and _EXCEPTION_WITH_MESSAGE.search(message) is not None
    )


def _named(message: str) -> tuple[str, ...]:
    """The exception classes a line names in brackets (ONNX Runtime's `InvalidArgument: [ONNXRuntimeError] : 2 : …`)."""
    return tuple(found["name"] for found in _BRACKETED_EXCEPTION.finditer(message))


def _exception_name(message: str) -> str:
    """The class name of the exception a line names (without its module), or ""."""
    match = (
        _EXCEPTION.match(message)
        or _EXCEPTION_ANYWHERE.search(message)
        or _BRACKETED_EXCEPTION.search(message)
    )
    if match is None:
        return ""
    return match["name"].split("(", 1)[0].rsplit(".", 1)[-1]


# Headers the shared normaliser (engine/normalize.py) leaves on, each with the level it shows: vLLM <0.7
# (`ERROR 12-05 20:24:46 engine.py:366] `), a cut vLLM header (`[core.py:515] `), FastChat
# (`2023-10-26 18:11:35 | ERROR | stderr | `), glog and c10 error lines, whose `E` the normaliser leaves for
# the picker (`E0205 09:51:38.047 18628 file.py:810] `, `[E626 23:10:17.92 ProcessGroupNCCL.cpp:1896] `,
# `[E socket.cpp:793] `, `[E]` with no space after), docker compose (`service  | `), a bare time of day,
# Ray's Python and C++ logs.
# The normaliser strips the rest (TensorRT, pip's `ERROR: `, `| `, Google Cloud Logging) before and after each.
_MORE_PREFIXES = LazyRegex(
    r"(?P<level>INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+[\w.]+:\d+\]\s"
    r"|\[[\w./-]+\.(?:py|cpp|cc|h|hpp|rs|go):\d+\]\s"
    r"|\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d\s\|\s(?P<fastchat>[A-Z]+)\s\|\s(?P<logger>\w+)\s\|\s"
    # loguru's default (`2025-03-17 17:21:07.953 | ERROR    | app.llm:ask_tool:426 - …`)
    r"|\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d\.\d+\s\|\s(?P<loguru>[A-Z]+)\s*\|\s[\w.<>-]+:[\w.<>-]+:\d+\s-\s"
    r"|\[?(?P<glog>[EWIF])\d{3,4}\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+(?:\d+\s+)?[^\s\]]+:\d+\]\s*"
    r"|\[(?P<glog_short>[EWIF])(?:\s+[\w.]+:\d+)?\]\s*"
    r"|[\w.-]+\s+\|\s+"  # docker compose: `service  | `
    # a time of day (`08:12:40  ##[error]…`, a job log quoted by hand), with the record's level when one follows (SD.Next's
    # rich handler: `16:26:52-725979 ERROR    Triton: InductorError`)
    r"|\d\d:\d\d:\d\d(?:[.-]\d+)?\s+(?:(?P<timed>ERROR|WARNING|INFO|DEBUG|CRITICAL)\s+)?(?=\S)"
    # logging's `[%(levelname)s %(asctime)s] %(filename)s: %(lineno)d  %(message)s` (Ray's release tooling: `[ERROR
    # 2023-03-29 08:44:58,216] glue.py: 420  Command returned non-success status: 137`)
    r"|\[(?P<bracketed>ERROR|WARNING|INFO|DEBUG|CRITICAL)\s+\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d(?:[.,]\d+)?\]\s+(?:[\w.-]+:\s*\d+\s+)?"
    r"|\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d,\d+\s+(?P<ray>INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+[\w.]+:\d+\s+--\s+"
    r"|(?:\([\w:-]+\)\s+)?\[\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d,\d+\s+(?P<ray_cpp>[EWIFCDT])\s+\d+\s+\d+\]\s+(?:\([\w:-]+\)\s+)?"
    r"|\d{1,2}:\d\d(?::\d\d)?(?:[AP]M)?\s+(?P<zerolog>TRC|DBG|INF|WRN|ERR|FTL|PNC)\s+"  # zerolog's console: `7:25AM INF`
    r"|-\s+[\w.]+\s+-\s+(?P<dashed>INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+-\s+"  # logging's `… - name - LEVEL - msg`
    # journald (`Dec 24 23:48:35 host ollama[3974]: `), Go's log package (`2023/12/24 23:48:35 llama.go:459: `)
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ [\w.@/-]+(?:\[\d+\])?: "
    r"|\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? (?:[\w.-]+\.go:\d+: )?"
    # the Ascend CANN runtime's `[PID: 5393] 2026-01-16-10:20:15.729.456 `, BuildKit's plain progress `#9 7.312 `
    r"|\[PID: \d+\] \d{4}-\d\d-\d\d-\d\d:\d\d:\d\d(?:\.\d+)* |\#\d+ \d+\.\d+ (?=\S)"
    # log4j's `[%-5p] %t %c - ` (TorchServe's `[WARN ] W-9000-mymodel_1.0-stderr MODEL_LOG - `): a worker's stream
    # relayed at one level when its thread names the stream
    r"|\[(?P<log4j>ERROR|WARN|INFO|DEBUG|FATAL|TRACE)\s*\]\s+(?P<thread>[\w.-]+)\s+[\w.$]+\s+-\s+"
    # Android's logcat, as Android Studio shows it (`2025-12-09 13:58:40.093 32362-10922 onnxruntime  com.example.app  E  `)
    # and as `adb logcat -v threadtime` prints it (`12-09 13:58:40.093 32362 10922 E onnxruntime: `): a level letter
    r"|\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d\.\d{3}\s+\d+-\d+\s+\S+\s+\S+\s+(?P<logcat>[VDIWEFA])\s+(?=\S)"
    r"|\d\d-\d\d\s\d\d:\d\d:\d\d\.\d{3}\s+\d+\s+\d+\s+(?P<threadtime>[VDIWEFA])\s+(?=\S)"
    # Maven's level as GitHub Actions shows it (`[ERROR] ` becomes `Error:  `, `[WARNING] ` `Warning:  `): two spaces, where
    # an error's own `Error: message` has one, and no tab after them (testify pads its `Error:` label with spaces, then a
    # tab: `Error:      \tReceived unexpected error:`)
    r"|(?P<github_maven>Error|Warning): {2}(?! *\t)"
    # a date and time only (`2024-06-25 12:27:29.905   File "…"`): last, so that a header it begins keeps its level
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+(?=\S)"
)
_LEVELS = {
    "ERROR": Level.ERROR,
    "CRITICAL": Level.ERROR,
    "FATAL": Level.ERROR,
    "PANIC": Level.ERROR,
    "E": Level.ERROR,
    "F": Level.ERROR,
    "C": Level.ERROR,  # spdlog's critical (Ray's C++ `[… C 149 149] node_manager.cc:170: …`)
    "D": Level.INFO,
    "T": Level.INFO,
    "WARNING": Level.WARNING,
    "WARN": Level.WARNING,
    "W": Level.WARNING,
    "INFO": Level.INFO,
    "I": Level.INFO,
    "DEBUG": Level.INFO,
    "EROR": Level.ERROR,  # log15's four-letter levels
    "CRIT": Level.ERROR,
    "DBUG": Level.INFO,
    "TRACE": Level.INFO,
    "ERR": Level.ERROR,  # zerolog's console levels
    "FTL": Level.ERROR,
    "PNC": Level.ERROR,
    "WRN": Level.WARNING,
    "INF": Level.INFO,
    "DBG": Level.INFO,
    "TRC": Level.INFO,
}

# logcat's priorities: verbose, debug, info, warning, error, fatal and assert
_LOGCAT_LEVELS = {"V": "D", "D": "D", "I": "I", "W": "W", "E": "E", "F": "F", "A": "F"}

# An exception's line with its message, as `unmarked` tells a quoted block's indented line from pytest's `>` marker
_QUOTED_EXCEPTION = LazyRegex(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): \S")


def unmarked(raw: str) -> str:
    """A log line pasted with Markdown's marks as the line itself: a line wrapped in backticks
    (`` `09:43:04 ERROR: …` ``), a bold start (`**RuntimeError: CUDA out of memory.** Tried …`), a blockquote's
    `> ` (`> Error: P1001: Can't reach database server …`; pytest's `>` marker is followed by the source's indent)."""
    text = raw.strip()
    if text.startswith("> ") and len(text) > 2 and not text[2].isspace():
        text = text[2:]
        raw = text
    elif text.startswith("> ") and _QUOTED_EXCEPTION.match(text[2:].lstrip()) is not None:
        # an exception's line is never a line of source: a quoted block's indented line (`>   java.lang.AssertionError:
        # arrays differ …` inside a quoted code block), not pytest's marker
        text = text[2:].lstrip()
        raw = text
    if len(text) > 2 and text[0] == "`" and text[-1] == "`" and text.count("`") == 2:
        return text[1:-1]
    if text.startswith("**") and not text.startswith("***"):
        end = text.find("**", 2)
        if end > 2 and not text[2].isspace() and not text[end - 1].isspace():
            return text[2:end] + text[end + 2 :]
    return raw


def _normalize(raw: str) -> NormalizedLine:
    """The shared normaliser, then the headers it does not know (the level they show is kept)."""
    raw = unmarked(raw)
    normalized = normalize_line(raw)
    if normalized.level is not Level.ERROR and _RAW_ERROR_HINT.search(raw[:160]):  # TensorRT's `[TRT] [E] `
        normalized = NormalizedLine(normalized.text, Level.ERROR)
    elif normalized.level is Level.PLAIN and (
        _RAW_WARNING_HINT.search(raw[:160]) or _WARNING_WORD.match(normalized.text)
    ):
        normalized = NormalizedLine(normalized.text, Level.WARNING)
    if normalized.level is Level.PLAIN and (bare := _BARE_LEVEL_WORD.match(normalized.text)) is not None:
        normalized = NormalizedLine(normalized.text, _LEVELS[bare["level"]])
    if normalized.level is not Level.ERROR and _NCCL_WARN.search(normalized.text[:300]):
        normalized = NormalizedLine(normalized.text, Level.ERROR)
    json_level = _JSON_LEVEL.match(normalized.text) or _LOGFMT_LEVEL.match(normalized.text)
    if json_level is not None:
        normalized = NormalizedLine(normalized.text, _LEVELS.get(json_level["level"].upper(), Level.PLAIN))
    for _ in range(4):
        match = _MORE_PREFIXES.match(normalized.text)
        if match is None or match.end() == 0:
            return normalized
        inner = normalize_line(normalized.text[match.end() :])
        word = (
            match["level"]
            or match["fastchat"]
            or match["loguru"]
            or match["glog"]
            or match["glog_short"]
            or match["ray"]
            or match["ray_cpp"]
            or match["zerolog"]
            or match["dashed"]
            or match["log4j"]
            or match["timed"]
            or match["bracketed"]
            or (match["github_maven"] or "").upper()
            or _LOGCAT_LEVELS.get(match["logcat"] or match["threadtime"] or "", "")
        )
        if match["logger"] in ("stdout", "stderr") or (match["thread"] or "").endswith(
            ("-stdout", "-stderr")
        ):
            word = ""  # a process's stream relayed at one level (FastChat's `| INFO | stdout |`): not the line's own
        shown = _LEVELS.get(word, Level.PLAIN) if word else normalized.level
        level = shown if inner.level is Level.PLAIN else Level(min(inner.level, shown))
        normalized = NormalizedLine(inner.text, level)
    return normalized


def _process_tag(raw: str) -> str:
    match = _PROCESS_TAG.search(raw[:300])
    if match is None:
        return ""
    if match["pid"]:
        return f"pid={match['pid']}"
    if match["rank"]:
        return f"rank={match['rank']}"
    return (match["sglang"] or "").strip()


def pick_likely_cause(
    lines: Iterable[str], *, is_wrapper: Callable[[str], bool] = lambda _text: False
) -> LikelyLine | None:
    """The likely cause among lines (numbered from 1), reading no further than needed."""
    picker = LikelyCausePicker(is_wrapper=is_wrapper)
    for number, raw in enumerate(lines, 1):
        picker.feed(number, raw)
        if picker.done:
            break
    return picker.result()


def tier_candidates(
    picked: LikelyLine, *, is_wrapper: Callable[[str], bool] = lambda _text: False
) -> tuple[ExcerptLine, ...]:
    """The lines of the likely cause's excerpt the fatal-line tier is also tried on when it has no words for the
    chosen line, best first (engine/fatal_line.py). Only lines that report a failure of the process themselves (an
    error or fatal line, an exception, a signal, a line that words a failure), never a warning, a line the picker
    passes over (CUDA's boilerplate, advice, quoted source, a traceback's frames), a wrapper, nor a failure the line
    says it recovered from. Below a fatal event comes its aftermath (the launcher's `Killed`, the `Aborted` after an
    assertion, a Go panic's `[signal SIGSEGV …]`): only the lines above it, which it beat, root first. Below a line
    that only reports a failure (an error line, a wrapper, the last line printed) comes what it reports (`nvidia-smi
    failed with return code 18` then nvidia-smi's own `Failed to initialize NVML: …`): those first, nearest first,
    then the lines above, root first. A line above that ends in `:` introduces the chosen one: never tried."""
    above = [
        line
        for line in picked.excerpt
        if line.number < picked.line
        and not line.text.rstrip().endswith(":")  # `…: the following error:` heads it
    ]
    below = [line for line in picked.excerpt if line.number > picked.line]
    ranked = above if picked.reason in FATAL_REASONS else [*below, *above]
    return tuple(line for line in ranked if _reports_a_failure(line.text, is_wrapper))


def _reports_a_failure(text: str, is_wrapper: Callable[[str], bool]) -> bool:
    """A line that reports a failure itself: the picker's own reading, asked of the line alone (it chooses the line for
    a failure it reports: an exception, a fatal event, an error line, a line that words a failure; never a wrapper, a
    quiet failure or only the last line printed). A line alone has lost its context, so what only the context makes
    harmless in the log is passed over first: a warning or an info line, and what the picker passes over inside a
    traceback, a quote or a recovery (a frame, quoted source, a chain marker, a header, `… Retrying`)."""
    if _passed_over_alone(text, is_wrapper):
        return False
    alone = pick_likely_cause([text], is_wrapper=is_wrapper)
    return alone is not None and alone.reason not in _NO_FAILURE_OF_ITS_OWN


# The picker's reasons for a line that does not itself report a failure of the process
_NO_FAILURE_OF_ITS_OWN = frozenset({LikelyReason.WRAPPER, LikelyReason.QUIET_FAILURE, LikelyReason.LAST_LINE})


def _passed_over_alone(text: str, is_wrapper: Callable[[str], bool]) -> bool:
    """What the picker passes over in the log for the lines around it (a traceback's frame or source, quoted code, a
    chain marker, a traceback's header), for its level, or as a wrapper, which the line alone cannot show it."""
    normalized = _normalize(text)
    message = normalized.text
    return bool(
        not message
        or normalized.level in (Level.WARNING, Level.INFO)
        or (_NOT_A_CAUSE.search(message) and not _carries_its_error(message))
        or _QUOTED_SOURCE.search(message)
        or _CODE.found(message)
        or _FRAME_NOISE.match(message)
        or message in _CHAIN
        or "Traceback (most recent call last)" in message
        or _RECOVERED.search(message)
        or _WRAPPER.search(message)
        or is_wrapper(message)
    )


def compile_patterns() -> None:
    """Compile every pattern of this module now, with the literals each `GatedRegex` looks for first: before
    forking the workers that re-read logs for their likely cause, so that each inherits them instead of
    compiling the same ~70 patterns on its own (~30 ms of `regex`'s compiler in every worker)."""
    pending: list[object] = list(globals().values())
    while pending:
        value = pending.pop()
        if isinstance(value, AnyOf):
            pending.extend(value.branches)
        elif isinstance(value, LazyRegex):
            _ = value.compiled
            if isinstance(value, GatedRegex):
                value.possible("")
        elif isinstance(value, tuple):
            pending.extend(value)
