"""The eighth round's catalogue of CI-runner and test-harness renderings: each rule reads every one.

Every rendering is quoted from the cited upstream source (its message text, with the prefixes a CI log adds), a cited
public thread or a real log (tests/corpus/train/holdout-r4, cited in SOURCES-holdout-r4a.md / -r4b.md); the near
misses are lines that look alike but must not name that cause. The real logs check the rule and line that win. See
docs/accuracy.md, "Eighth round".
"""

from __future__ import annotations

from pathlib import Path

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # runner-infrastructure: a Jenkins agent lost under the build (jenkinsci/remoting, jenkinsci/jenkins core,
    # jenkinsci/workflow-durable-task-step-plugin), with a console timestamp or Jenkins' FATAL/ERROR words
    (
        "runner.lost",
        "08:26:30 FATAL: java.io.IOException: Unexpected termination of the channel",
        "remoting SynchronousCommandTransport.java (kata-containers/ci#138)",
    ),
    (
        "runner.lost",
        "Caused: java.io.IOException: Unexpected termination of the channel",
        "remoting SynchronousCommandTransport.java (the cause line of the same stack)",
    ),
    (
        "runner.lost",
        'hudson.remoting.ChannelClosedException: Channel "hudson.remoting.Channel@6f1f6f5b:gpu-agent-3": Remote call'
        " on gpu-agent-3 failed. The channel is closing down or has closed down",
        "remoting Channel.java / UserRequest.java (ChannelClosedException)",
    ),
    (
        "runner.lost",
        "[2026-02-24T20:21:58.123Z] Agent went offline during the build",
        "jenkins core hudson/model/AbstractBuild.java (Timestamper prefix)",
    ),
    (
        "runner.lost",
        "ERROR: Connection was broken: java.nio.channels.ClosedChannelException",
        "jenkins core hudson/slaves/Messages.properties (OfflineCause.connection_was_broken_)",
    ),
    (
        "runner.lost",
        "dumbo has been removed for 15 sec; assuming it is not coming back, and terminating node step",
        "workflow-durable-task-step ExecutorStepTest.java (assertLogContains)",
    ),
    (
        "runner.lost",
        "gpu-agent-3 has been removed or offline for 5 min 0 sec; assuming it is not coming back, and terminating"
        " shell step",
        "workflow-durable-task-step DurableTaskStep.java (println)",
    ),
    (
        "runner.lost",
        "Agent k8s-agent-x7q2z was deleted; cancelling node body",
        "workflow-durable-task-step ExecutorStepExecution.java (println)",
    ),
    (
        "runner.lost",
        "Cannot contact ip-172-31-5-20: java.lang.InterruptedException",
        "workflow-durable-task-step DurableTaskStep.java before commit 69057d1",
    ),
    # runner-infrastructure: the job never got a runner (GitHub Actions, Azure Pipelines)
    (
        "runner.no-runner",
        '    {"message":"Invalid Argument - Runner group 1 has reached max limit of 10000 runners.",'
        '"documentation_url":"https://docs.github.com/rest/actions/self-hosted-runners#create-configuration-for-a-just'
        '-in-time-runner-for-a-repository","status":"422"}',
        "ggml-org/llama.cpp#7893 (GitHub's REST API 422 for a JIT runner configuration)",
    ),
    (
        "runner.no-runner",
        "The job was not acquired by Runner of type hosted even after multiple attempts",
        "spdk/spdk#3876, actions/runner#4065",
    ),
    (
        "runner.no-runner",
        "No runner matching the specified labels was found: self-hosted, linux, gpu",
        "GitHub's annotation as a troubleshooting page quotes it (open-horizon-labs/unified-hifi-control#735)",
    ),
    (
        "runner.no-runner",
        "This request was automatically failed because there were no enabled runners online to process the request"
        " for more than 1 days.",
        "boostorg/math#588",
    ),
    (
        "runner.no-runner",
        "The job was not started because recent account payments have failed or your spending limit needs to be"
        " increased. Please check the 'Billing & plans' section in your settings",
        "GitHub's billing annotation, quoted word for word in projects' CI notes",
    ),
    (
        "runner.no-runner",
        "##[error]No agent found in pool Default which satisfies the specified demands: msbuild, visualstudio, vstest,"
        " Agent.Version -gtVersion 2.163.1",
        "Azure Pipelines run error quoted in a set-up write-up",
    ),
    (
        "runner.no-runner",
        "##[error]No hosted parallelism has been purchased or granted. To request a free parallelism grant, please"
        " fill out the following form https://aka.ms/azpipelines-parallelism-request",
        "Azure Pipelines run error quoted in a set-up write-up",
    ),
    (
        "runner.no-runner",
        "This job is stuck because the project doesn't have any runners online assigned to it.",
        "GitLab's stuck-job page as CI troubleshooting notes quote it",
    ),
    (
        "runner.no-runner",
        "This job is stuck because you don't have any active runners that can run this job.",
        "GitLab's stuck-job page (older wording)",
    ),
    (
        "runner.no-runner",
        "The scheduler failed to assign job to the runner, please try again or contact system administrator",
        "gitlab-org/gitlab app/presenters/commit_status_presenter.rb (scheduler_failure)",
    ),
    (
        "runner.no-runner",
        "Your runner is outdated, please upgrade your runner",
        "gitlab-org/gitlab app/presenters/commit_status_presenter.rb (runner_unsupported)",
    ),
    # test-setup: two files with one module name (pytest-dev/pytest src/_pytest/pathlib.py, _py/path.py, python.py)
    (
        "pytest.import-path-mismatch",
        "E   _pytest.pathlib.ImportPathMismatchError: ('tests.conftest', '/Users/kennedydike/Downloads/pykale-main/"
        "tests/conftest.py', PosixPath('/Users/kennedydike/Downloads/pykale-main/pykale/pykale/tests/conftest.py'))",
        "pykale/pykale#184 (pytest >= 6.0)",
    ),
    (
        "pytest.import-path-mismatch",
        "E   _pytest.pathlib.ImportPathMismatchError: ('conftest', 'C:\\\\ci\\\\proj\\\\tests\\\\conftest.py',"
        " WindowsPath('C:/ci/proj/build/tests/conftest.py'))",
        "pytest src/_pytest/pathlib.py (ImportPathMismatchError(module_name, module_file, path) on Windows)",
    ),
    (
        "pytest.import-path-mismatch",
        "E   py._path.local.LocalPath.ImportMismatchError: ('conftest', '/build/pkg/tests/conftest.py',"
        " local('/build/pkg/build/lib/tests/conftest.py'))",
        "py.path's LocalPath.pyimport (pytest < 6.0; src/_pytest/_py/path.py since 7.2)",
    ),
    (
        "pytest.import-path-mismatch",
        "import file mismatch:",
        "pytest src/_pytest/python.py importtestmodule (pytest-dev/pytest#1421)",
    ),
    (
        "pytest.test-package-import-failed",
        "E   ImportError: cannot import name 'UIClient' from 'galaxy_ng.tests.integration.utils'"
        " (/home/runner/work/galaxy_ng/galaxy_ng/galaxy_ng/tests/integration/utils.py)",
        "ansible/galaxy_ng#1711",
    ),
    (
        "pytest.test-package-import-failed",
        "E   ImportError: cannot import name 'make_engine' from 'tests.utils' (/workspace/tests/utils.py)",
        "CPython import_from's message for a project's top-level tests package",
    ),
    (
        "pytest.conftest-import-failed",
        "E   _pytest.config.ConftestImportFailure: NameError: name 'fixture' is not defined"
        " (from /home/runner/work/proj/proj/tests/conftest.py)",
        "pytest src/_pytest/config/__init__.py ConftestImportFailure.__str__ (pytest >= 7.0)",
    ),
    (
        "pytest.conftest-import-failed",
        "Defining 'pytest_plugins' in a non-top-level conftest is no longer supported:",
        "pytest src/_pytest/config/__init__.py _check_non_top_pytest_plugins (pytest >= 4.0)",
    ),
]

# (rule that must not answer, lines)
NEAR_MISSES = [
    (
        "runner.lost",
        ["gpu-agent-3 seems to be removed or offline; will wait for 5 min 0 sec for it to come back online"],
    ),
    ("runner.lost", ["Agent successfully connected and online"]),
    (
        "runner.lost",
        ["E   ConnectionError: Connection was broken: remote end closed connection without response"],
    ),
    (
        "runner.no-runner",
        [
            "Requested labels: macos-latest",
            "Waiting for a runner to pick up this job...",
            "Job is waiting for a hosted runner to come online.",
        ],
    ),
    ("runner.no-runner", ["Runner group name: 'gpu-runners'"]),
    (
        "runner.no-runner",
        [
            "    scheduler_failure: 'The scheduler failed to assign job to the runner, please try again or contact"
            " system administrator',"
        ],
    ),
    ("pytest.import-path-mismatch", ["    raise ImportPathMismatchError(module_name, module_file, path)"]),
    ("pytest.import-path-mismatch", ["    except ImportPathMismatchError as e:"]),
    (
        "pytest.test-package-import-failed",
        [
            "ImportError: cannot import name 'assert_allclose' from 'torch.testing'"
            " (/usr/local/lib/python3.10/dist-packages/torch/testing/__init__.py)"
        ],
    ),
    (
        "pytest.test-package-import-failed",
        [
            "ImportError: cannot import name 'is_timm_config_dict' from 'transformers.utils.generic'"
            " (/usr/local/lib/python3.10/dist-packages/transformers/utils/generic.py)"
        ],
    ),
    (
        "pytest.conftest-import-failed",
        ["Defining ``pytest_plugins`` in a non-top-level conftest is no longer supported"],
    ),
]

# (train log, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r4/runner-infrastructure/e-ggml-ci-jit-runner-group-limit.log", "runner.no-runner", 2),
    ("holdout-r4/runner-infrastructure/f-kata-metrics-jenkins-channel-terminated.log", "runner.lost", 1),
    ("holdout-r4/runner-infrastructure/f-yadp-agent-went-offline-backticked.log", "runner.lost", 1),
    (
        "holdout-r4/test-setup/f-galaxy-ng-integration-cannot-import-uiclient.log",
        "pytest.test-layout-import-failed",
        8,
    ),
    ("holdout-r4/test-setup/f-pykale-conftest-import-path-mismatch.log", "pytest.import-path-mismatch", 7),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_a_path_mismatch_outranks_the_conftest_and_collection_reports_it_explains(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """pytest >= 7 wraps the mismatch in the conftest failure and the collection header: the mismatch is the cause."""
    log = write_log(
        tmp_path,
        [
            "______________________ ERROR collecting test session ______________________",
            "ImportError while loading conftest '/src/proj/build/lib/tests/conftest.py'.",
            "E   _pytest.pathlib.ImportPathMismatchError: ('tests.conftest', '/src/proj/tests/conftest.py',"
            " PosixPath('/src/proj/build/lib/tests/conftest.py'))",
            "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("pytest.import-path-mismatch", 3)


def test_a_lost_jenkins_agent_outranks_the_test_that_was_running(rule_pack: RuleSet, tmp_path: Path) -> None:
    """The agent's loss names the cause even when a Python test was running and failed with it."""
    log = write_log(
        tmp_path,
        [
            "tests/test_serve.py::test_completion FAILED",
            "E   ConnectionResetError: [Errno 104] Connection reset by peer",
            "FATAL: java.io.IOException: Unexpected termination of the channel",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("runner.lost", 3)
