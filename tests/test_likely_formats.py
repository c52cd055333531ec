"""The likely cause on the failure formats of the field's test runners and languages, each on a real rendering
quoted from a public issue, pull request or the runner's own repository (the source is named above each), so that
a format the corpus has not met yet still gets the line a person would look at first.

Each case names the runner, the lines as printed (last lines cut where the source cut them), the expected line and
why. Both readers (every line, and RE2's candidate lines only) must agree on each."""

from __future__ import annotations

import pytest

from forensics.engine.likely import TEST_RUNNER_FAILURES, pick_likely_cause
from forensics.engine.likely_reader import pick_likely_cause_in_blocks
from forensics.model import LikelyReason

# (case id, what the rendering shows, source, lines, expected line, reason)
RENDERINGS: tuple[tuple[str, str, str, tuple[str, ...], int, LikelyReason], ...] = (
    (
        "go-v",
        "Go testing -v (Go >= 1.14): a test's message above its `--- FAIL`, other tests' lines between",
        "https://github.com/stretchr/testify/pull/1201",
        (
            "=== RUN   TestFailfastSuite/Test_A_Fails",
            "    suite_test.go:600: Test A meant to fail",
            "=== RUN   TestFailfastSuite/Test_B_Passes",
            "--- FAIL: TestFailfastSuite (0.01s)",
            "    --- FAIL: TestFailfastSuite/Test_A_Fails (0.00s)",
            "    --- PASS: TestFailfastSuite/Test_B_Passes (0.00s)",
        ),
        2,
        LikelyReason.ERROR_LINE,
    ),
    (
        "go-old-v",
        "Go testing (Go < 1.14 -v, and without -v): the message under `--- FAIL`",
        "https://github.com/java-aodeng/golang-examples/blob/HEAD/go-32/function_test.go",
        (
            "=== RUN   TestErrorInCode",
            "Start",
            "End",
            "--- FAIL: TestErrorInCode (0.00s)",
            "    function_test.go:17: Error",
            "=== RUN   TestFailInCode",
            "Start",
            "--- FAIL: TestFailInCode (0.00s)",
            "    function_test.go:23: Error",
            "FAIL",
        ),
        5,
        LikelyReason.ERROR_LINE,
    ),
    (
        "ginkgo1",
        "Ginkgo v1's failure summary (`[Panic!]`), before the totals and go test's `--- FAIL`",
        "https://github.com/onsi/ginkgo/issues/973",
        (
            "Summarizing 4 Failures:",
            "",
            "[Panic!] MDCTestsForAuthorizationAndPermission [It] DatasetListAndGetAccessWithOwnerQualifier ",
            "/go/src/cd.splunkdev.com/integration-tests/search/lib/common/common.go:554",
            "",
            "Ran 45 of 236 Specs in 694.678 seconds",
            "FAIL! -- 43 Passed | 2 Failed | 0 Flaked | 0 Pending | 191 Skipped",
            "--- FAIL: TestTest (694.70s)",
            "FAIL",
        ),
        3,
        LikelyReason.ERROR_LINE,
    ),
    (
        "ginkgo2",
        "Ginkgo v2: the spec's header (`• [FAILED] [0.000 seconds]`) is no marker; the `[FAILED] …` message is",
        "a Ginkgo v2 run quoted in a public GitHub file (the stored index's id 17448348031)",
        (
            "Will run 5 of 5 specs",
            "------------------------------",
            "• [FAILED] [0.000 seconds]",
            "Using helper functions in tests Ginkgo when assertions are used in the helper function [It] prints USELESS"
            " line number in colorized text and summaries",
            "/ginkgo-test-helper/main_test.go:11",
            "",
            "  [FAILED] Something is failing",
            "  In [It] at: /ginkgo-test-helper/helpers.go:11 @ 06/06/23 15:15:48.594",
            "------------------------------",
        ),
        7,
        LikelyReason.ERROR_LINE,
    ),
    (
        "gtest",
        "googletest: `file.cc:91: Failure`, then its values, then `[  FAILED  ]`",
        "https://github.com/google/googletest/issues/251",
        (
            "[ RUN      ] XBASIC.strtod",
            "xbasic_gtest.cc:91: Failure",
            "Value of: errno != 0",
            "  Actual: false",
            "Expected: true",
            "[  FAILED  ] XBASIC.strtod (0 ms)",
            "[----------] 7 tests from XBASIC (1 ms total)",
        ),
        2,
        LikelyReason.ERROR_LINE,
    ),
    (
        "gtest-msvc",
        "googletest built with MSVC: `file.cpp(6862): error: Value of: …`",
        "https://github.com/DronMDF/2out/issues/56",
        (
            "[ RUN      ] SquareRootTest.PositiveNos",
            "..\\user_sqrt.cpp(6862): error: Value of: sqrt (2533.310224)",
            "  Actual: 50.332",
            "Expected: 50.3321",
            "[  FAILED  ] SquareRootTest.PositiveNos (9 ms)",
        ),
        2,
        LikelyReason.ERROR_LINE,
    ),
    (
        "rust-new",
        "Rust's test harness (Rust >= 1.73): the panic line, its message below it",
        "https://github.com/rust-lang/rust/pull/122565",
        (
            "---- t1 stdout ----",
            "thread 't1' panicked at src/lib.rs:8:21:",
            "assertion `left == right` failed: doit assert failure",
            "  left: 2",
            " right: 1",
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
            "",
            "failures:",
            "    t1",
            "",
            "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        ),
        2,
        LikelyReason.PANIC,
    ),
    (
        "rust-old",
        "Rust's test harness (Rust < 1.73): the panic and its message on one tab-indented line",
        "https://github.com/rust-lang/rust/issues/46536",
        (
            "failures:",
            "",
            "---- toxcore_tests::network_tests::networking_core_new_test stdout ----",
            "\tthread 'toxcore_tests::network_tests::networking_core_new_test' panicked at 'called `Result::unwrap()` on an `Err` value: Error { repr: Os { code: 24, message: \"Too many open files\" } }', /checkout/src/libcore/result.rs:906:4",
            "",
            "failures:",
            "    toxcore_tests::network_tests::networking_core_new_test",
            "",
            "test result: FAILED. 248 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out",
            "",
            "error: test failed, to rerun pass '--lib'",
        ),
        4,
        LikelyReason.PANIC,
    ),
    (
        "jest",
        "Jest: `● Suite › test`, a blank line, the assertion's message",
        "https://github.com/JeanPaiva42/jest-an-issue/issues/47",
        (
            "  ● example tests › test that always fails",
            "",
            "    expect(received).toBe(expected) // Object.is equality",
            "",
            "    Expected: true",
            "    Received: false",
            "",
            "      2 | ",
            "      3 |     test('test that always fails', ()=>{",
            "    > 4 |         expect(false).toBe(true);",
            "        |                       ^",
            "      5 |     });",
        ),
        3,
        LikelyReason.ERROR_LINE,
    ),
    (
        "jest-error",
        "Jest's error as a reporter prints it (`Error: expect(received)…`)",
        "https://github.com/postlight/ci-failed-test-reporter/pull/3",
        (
            "Error: expect(received).toBe(expected) // Object.is equality",
            "",
            "Expected: 1000",
            "Received: 100",
            "    at Object.toBe (/home/circleci/ci-test-failure-reporter/src/index.test.js:2:21)",
        ),
        1,
        LikelyReason.ERROR_LINE,
    ),
    (
        "mocha",
        "Mocha: the numbered failure, then `AssertionError: …` (the progress list above names the test only)",
        "https://github.com/jonathanfmills/TestingNodeWithMocha/issues/3",
        (
            "  AuthController",
            "    isAuthorized",
            "      1) Should return false if not authorized",
            "",
            "  Basic Mocha Test",
            "    √ should throw errors",
            "",
            "",
            "  1 passing (15ms)",
            "  1 failing",
            "",
            "  1) AuthController isAuthorized Should return false if not authorized:",
            "     AssertionError: false == -1",
            "      at Context.<anonymous> (test\\controllers\\auth.controller.spec.js:7:20)",
        ),
        13,
        LikelyReason.EXCEPTION_LINE,
    ),
    (
        "mocha-node",
        "Node's assert under Mocha: `AssertionError [ERR_ASSERTION]: …`",
        "https://github.com/postlight/ci-failed-test-reporter/pull/8",
        (
            "AssertionError [ERR_ASSERTION]: '<details><summary><b>1failedtest</b></summary>' == ''",
            "    at Context.it (src/tests/mocha/getTestReport.test.js:21:12)",
        ),
        1,
        LikelyReason.EXCEPTION_LINE,
    ),
    (
        "mocha-uncaught",
        "Mocha's uncaught error: `Uncaught Error: Exited with code 1`",
        "https://github.com/sindresorhus/open/pull/11",
        (
            "  2 passing (89ms)",
            "  2 failing",
            "",
            "  1)  should open url in specified app:",
            "     Uncaught Error: Exited with code 1",
            "      at maybeClose (child_process.js:766:16)",
        ),
        5,
        LikelyReason.FAILURE_LINE,
    ),
    (
        "surefire",
        "Maven Surefire (JUnit 4): `<<< FAILURE!` headers, then the exception",
        "https://github.com/apache/maven-surefire/issues/2294",
        (
            "Tests run: 13, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 10.211 s <<< FAILURE! - in io.sf.carte.doc.html.DOMNodeTest",
            "compareDocumentPosition1(io.sf.carte.doc.html.DOMNodeTest)  Time elapsed: 0.047 s  <<< FAILURE!",
            "java.lang.AssertionError: expected:<10> but was:<10>",
            "\tat io.sf.carte.doc.html.DOMNodeTest.compareDocumentPosition1(DOMNodeTest.java:56)",
        ),
        3,
        LikelyReason.EXCEPTION_LINE,
    ),
    (
        "surefire-bare",
        "Maven Surefire with Hamcrest: a bare `java.lang.AssertionError:`, its message below",
        "https://github.com/DataDog/jmxfetch/pull/508",
        (
            "Tests run: 1, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.492 sec <<< FAILURE!",
            "testTelemetryTags(org.datadog.jmxfetch.TestApp)  Time elapsed: 0.415 sec  <<< FAILURE!",
            "java.lang.AssertionError:",
            'Expected: a collection containing "instance:jmx_telemetry_instance"',
            "        at org.hamcrest.MatcherAssert.assertThat(MatcherAssert.java:20)",
        ),
        3,
        LikelyReason.EXCEPTION_LINE,
    ),
    (
        "gradle",
        "Gradle's test report: `X > test FAILED`, then `java.lang.AssertionError at GreeterTest.java:9`",
        "https://github.com/exercism/cli/issues/915",
        (
            "Task :test FAILED",
            "GreeterTest > testThatGreeterReturnsTheCorrectGreeting FAILED",
            "    java.lang.AssertionError at GreeterTest.java:9",
            "1 test completed, 1 failed",
            "FAILURE: Build failed with an exception.",
        ),
        3,
        LikelyReason.EXCEPTION_LINE,
    ),
    (
        "gradle-junit3",
        "Gradle with JUnit 3: `junit.framework.AssertionFailedError at …java:43`",
        "https://github.com/athkalia/Just-Another-Android-App/issues/55",
        (
            "com.example.lint.detectors.AndroidLogDetectorTest > test_detector_triggering FAILED",
            "    junit.framework.AssertionFailedError at AndroidLogDetectorTest.java:43",
            "",
            "com.example.lint.detectors.AndroidLogDetectorTest > test_detector_not_triggering FAILED",
            "    junit.framework.AssertionFailedError at AndroidLogDetectorTest.java:33",
            "",
            "4 tests completed, 2 failed",
            ":lint:test FAILED",
        ),
        2,
        LikelyReason.EXCEPTION_LINE,
    ),
    (
        "gradle-comparison",
        "Gradle with JUnit 4's `org.junit.ComparisonFailure: …`",
        "https://github.com/redhat-developer/intellij-quarkus/pull/908",
        (
            "com.redhat.devtools.intellij.qute.psi.template.TemplateGetDataModelProjectTest > testquteQuickStart FAILED",
            "    org.junit.ComparisonFailure: Expect io.quarkus.qute.runtime.extensions.TimeTemplateExtension but was io.quark",
        ),
        2,
        LikelyReason.EXCEPTION_LINE,  # a Java class ending in Failure, named with its package (sixteenth round)
    ),
    (
        "ctest",
        "CTest: the first `***Failed` test, before `The following tests FAILED:`",
        "https://github.com/PDB-REDO/libcifpp/issues/11",
        (
            "    Start 1: rename-compound-test",
            "    Start 2: structure-test",
            "    Start 3: unit-test",
            "1/3 Test #2: structure-test ...................***Failed    0.47 sec",
            "2/3 Test #3: unit-test ........................   Passed    0.64 sec",
            "3/3 Test #1: rename-compound-test .............   Passed    1.42 sec",
            "",
            "67% tests passed, 1 tests failed out of 3",
            "",
            "Total Test time (real) =   1.42 sec",
            "",
            "The following tests FAILED:",
            "\t  2 - structure-test (Failed)",
            "Errors while running CTest",
        ),
        4,
        LikelyReason.ERROR_LINE,
    ),
    (
        "bazel",
        "Bazel: `FAIL: //pkg:target (see …/test.log)`, before the `FAILED in 0.1s` summary",
        "https://github.com/googlearchive/graphd/issues/1",
        (
            "INFO: Analysed target //test/unit:value (0 packages loaded).",
            "INFO: Found 1 test target...",
            "FAIL: //test/unit:value (see /usr/local/google/home/rtp/.cache/bazel/_bazel_rtp/46d938b2ea1222dbadb6d3433c0c4d9a/execroot/__main__/bazel-out/k8-fastbuild/testlogs/test/unit/value/test.log)",
            "Target //test/unit:value up-to-date:",
            "  bazel-bin/test/unit/value",
            "INFO: Elapsed time: 0.350s, Critical Path: 0.09s",
            "INFO: Build completed, 1 test FAILED, 2 total actions",
            "//test/unit:value                                                        FAILED in 0.1s",
            "",
            "Executed 1 out of 1 test: 1 fails locally.",
        ),
        3,
        LikelyReason.ERROR_LINE,
    ),
    (
        "verdict-ggml",
        "ggml's test-backend-ops: the first `OP(params): FAIL`, behind the error it measured",
        "https://github.com/ggml-org/llama.cpp/pull/15236",
        (
            "ggml_cuda_init: found 1 MUSA devices:",
            "  Device 0: MTT S80, compute capability 2.1, VMM: yes",
            "[MUL_MAT_ID] NMSE = 0.473073968 > 0.000500000   MUL_MAT_ID(type_a=f32,type_b=f32,n_mats=4,n_used=1,b=0,m=512,n=32,k=256): FAIL",
            "[MUL_MAT_ID] NMSE = 0.602911949 > 0.000500000   MUL_MAT_ID(type_a=f32,type_b=f32,n_mats=4,n_used=1,b=1,m=512,n=32,k=256): FAIL",
        ),
        3,
        LikelyReason.ERROR_LINE,
    ),
    (
        "verdict-unittest",
        "unittest's verbose run (-v): `test_x (module.Case) ... FAIL` (its traceback, when printed, beats it)",
        "https://docs.python.org/3/library/unittest.html",
        (
            "test_isupper (__main__.TestStringMethods) ... ok",
            "test_split (__main__.TestStringMethods) ... FAIL",
            "test_upper (__main__.TestStringMethods) ... ok",
        ),
        2,
        LikelyReason.ERROR_LINE,
    ),
    (
        "unittest-report",
        "unittest's report between its rules (`printErrorList`: `FAIL: test_x (mod.Case)`), its traceback cut",
        "https://github.com/python/cpython/blob/main/Lib/unittest/runner.py",
        (
            "======================================================================",
            "FAIL: test_split (__main__.TestStringMethods.test_split)",
            "----------------------------------------------------------------------",
            "Traceback (most recent call last):",
            '  File "test.py", line 14, in test_split',
        ),
        2,
        LikelyReason.ERROR_LINE,
    ),
    (
        "surefire-summary",
        "Maven Surefire < 2.19's `Results :` summary: `Tests in error: ` then each `  test(pkg.Class): message`",
        "https://github.com/apache/maven-surefire",  # DefaultReporterFactory: `Tests in error: `, `"  " + source`
        (
            "Results :",
            "",
            "Tests in error: ",
            "  testConnect(org.example.ClientTest): Connection refused",
            "",
            "Tests run: 12, Failures: 0, Errors: 1, Skipped: 0",
        ),
        4,
        LikelyReason.ERROR_LINE,
    ),
    (
        "surefire3-summary",
        "Maven Surefire 3's summary at ERROR (`Failures: `, a rerun test's name then `  Run 1: …`, `  Run 2: PASS`)",
        "https://github.com/apache/maven-surefire",  # DefaultReporterFactory.printTestFailures, TestResultType
        (
            "[INFO] Results:",
            "[INFO] ",
            "[ERROR] Failures: ",
            "[ERROR] org.example.ClientIT.testConnect",
            "[ERROR]   Run 1: ClientIT.testConnect:42 expected:<200> but was:<503>",
            "[INFO]   Run 2: PASS",
            "[INFO] ",
            "[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0",
        ),
        5,
        LikelyReason.ERROR_LINE,
    ),
    (
        "colcon-test-result",
        "colcon test-result --verbose: `  <<< failure message`, the JUnit XML's message indented below, `  >>>`",
        "https://github.com/colcon/colcon-test-result/blob/master/colcon_test_result/verb/test_result.py",
        (
            "build/pkg/test_results/pkg/test_node.xunit.xml: 3 tests, 0 errors, 1 failure, 0 skipped",
            "- pkg.test_node TestNode.test_publish",
            "  <<< failure message",
            "    AssertionError: no message received within 5 s",
            "  >>>",
        ),
        4,
        LikelyReason.ERROR_LINE,
    ),
    (
        "xdist",
        "pytest-xdist's progress lines: the first `[gw1] [ 66%] FAILED …`",
        "https://github.com/huggingface/Repo2RLEnv/issues/150",
        (
            "[gw0] [ 33%] PASSED test_calc.py::test_divides",
            "[gw1] [ 66%] FAILED test_calc.py::test_rejects_zero[pair0]",
            "[gw0] [100%] FAILED test_calc.py::",
        ),
        2,
        LikelyReason.FAILURE_LINE,
    ),
)


@pytest.mark.parametrize(
    ("what", "lines", "line", "reason"),
    [
        pytest.param(what, lines, line, reason, id=case)
        for case, what, _source, lines, line, reason in RENDERINGS
    ],
)
def test_each_runners_failure_points_at_its_line(
    what: str, lines: tuple[str, ...], line: int, reason: LikelyReason
) -> None:
    picked = pick_likely_cause(list(lines))
    assert picked is not None, what
    assert (picked.line, picked.reason) == (line, reason), what
    fast = pick_likely_cause_in_blocks(["\n".join(lines).encode()])
    assert fast is not None and (fast.line, fast.excerpt) == (picked.line, picked.excerpt), what


def test_the_runners_table_is_data_each_marker_matching_its_own_rendering() -> None:
    # every runner the table names has a rendering above that reaches the picker through its marker
    runners = {runner for runner, _marker, _message in TEST_RUNNER_FAILURES}
    assert runners == {
        "Ginkgo",
        "Bazel",
        "CTest",
        "Go testing",
        "googletest",
        "Jest",
        "unittest",
        "Maven Surefire",
        "colcon test-result",
        "test verdict",
    }
    shown = {case.split("-")[0] for case, *_rest in RENDERINGS}
    assert {
        "ginkgo1",
        "ginkgo2",
        "bazel",
        "ctest",
        "go",
        "gtest",
        "jest",
        "unittest",
        "surefire",
        "colcon",
        "verdict",
    } <= shown


def test_a_runners_totals_and_passing_tests_are_not_its_failure() -> None:
    # Ginkgo's totals and go test's package line are no marker: with nothing before them, only a failure line
    totals = ["FAIL! -- 17 Passed | 2 Failed | 0 Pending | 0 Skipped", "--- PASS: TestOther (0.00s)"]
    picked = pick_likely_cause(totals)
    assert picked is not None and (picked.line, picked.reason) == (1, LikelyReason.FAILURE_LINE)
    # a Go test's log line with -v is no failure while its test passes
    passing = [
        "=== RUN   TestA",
        "    a_test.go:9: connecting",
        "--- PASS: TestA (0.00s)",
        "ok  \tpkg\t0.01s",
    ]
    picked = pick_likely_cause(passing)
    assert picked is not None and picked.reason is LikelyReason.LAST_LINE
    # Jest's marker keeps the answer when no message follows within the excerpt
    bare = ["  ● suite › test", "", "", "", "Tests: 1 failed"]
    picked = pick_likely_cause(bare)
    assert picked is not None and (picked.line, picked.reason) == (1, LikelyReason.ERROR_LINE)
