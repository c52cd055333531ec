"""The ninth round's catalogue for the environment, the test harness and CI infrastructure: each rule reads every one.

Every rendering is quoted from the cited upstream source (its message text, with the prefixes a CI log adds), a cited
public thread or a real log (tests/corpus/train, cited in its SOURCES-*.md); the near misses are lines that look alike
but must not name that cause. The real logs check the rule and line that win, among them the collection-error
convention (docs/accuracy.md, "Labelling conventions"): the repository's own code or test layout is test-setup on
pytest's header, a missing installed package is python-environment on the exception's line. See docs/accuracy.md,
"Ninth round".
"""

from __future__ import annotations

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering or its lines, where it is quoted from)
CATALOGUE = [
    # python-environment: `python -m <module>` without the module (CPython Lib/runpy.py::_run_module_as_main prints
    # "<sys.executable>: No module named <name>", Python 2.7 and 3.x)
    (
        "python.module-not-found",
        "/home/user/.openllm/venv/608482142055440317/bin/python: No module named bentoml",
        "bentoml/OpenLLM#1053 (runpy through a venv's python)",
    ),
    (
        "python.module-not-found",
        "/usr/bin/python3: No module named pip",
        "CPython Lib/runpy.py _get_module_details ('No module named %s') under _run_module_as_main",
    ),
    (
        "python.module-not-found",
        "2024-05-02T10:11:12.1234567Z /opt/hostedtoolcache/Python/3.11.9/x64/bin/python: No module named pytest",
        "CPython Lib/runpy.py (a GitHub Actions step running `python -m pytest` before installing it)",
    ),
    # test-setup: pytest's collection header when the import under it is the project's own code or test layout
    # (src/_pytest/python.py importtestmodule; CPython import errors under it)
    (
        "pytest.test-layout-import-failed",
        [
            "__________________ ERROR collecting tests/team_7/test_food.py __________________",
            "ImportError while importing test module '/home/arg/oop-python-nycu/tests/team_7/test_food.py'.",
            "tests/team_7/test_food.py:2: in <module>",
            "    import add_path",
            "E   ModuleNotFoundError: No module named 'add_path'",
        ],
        "ARG-NCTU/oop-python-nycu#101 (a sys.path helper beside the tests)",
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "_____________ ERROR collecting tests/unit/test_client.py _____________",
            "E   ModuleNotFoundError: No module named 'tests.unit.fixtures'",
        ],
        "pytest importtestmodule over CPython's 'No module named' for the project's own tests package",
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "___________ ERROR collecting test/test_api.py ___________",
            "E   ModuleNotFoundError: No module named 'test_utils'",
        ],
        "pytest importtestmodule: a shared test helper module not on sys.path (rootdir-relative import mode)",
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "______________ ERROR collecting tests/test_api.py ______________",
            "E   ImportError: cannot import name 'build_app' from 'myproj.app' (C:\\a\\myproj\\myproj\\app.py)",
        ],
        "CPython import_from with a Windows checkout path (neither site-packages nor Lib\\)",
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "______________ ERROR collecting tests/test_py2.py ______________",
            "E   ImportError: No module named tests.helpers",
        ],
        "Python 2's ImportError wording (no quotes) under pytest's collection header",
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "ERROR: test_client (unittest.loader._FailedTest.test_client)",
            "ImportError: Failed to import test module: test_client",
            "ModuleNotFoundError: No module named 'tests.fixtures'",
        ],
        "CPython Lib/unittest/loader.py _make_failed_import_test over the project's own tests package",
    ),
    # test-setup's general rule: unittest's failed import of a test module (Lib/unittest/loader.py)
    (
        "pytest.collection-error",
        [
            "ERROR: test_engine (unittest.loader._FailedTest.test_engine)",
            "ImportError: Failed to import test module: test_engine",
        ],
        "CPython Lib/unittest/loader.py _make_failed_import_test (Python >= 3.11 test id)",
    ),
    (
        "pytest.collection-error",
        "ERROR: test_engine (unittest.loader.ModuleImportFailure)",
        "unittest2 / Python 2.7 loader (ModuleImportFailure)",
    ),
    # python-environment: a distribution's metadata missing (importlib.metadata, pkg_resources), a wheel for another
    # platform (pip), the installer refusing the target interpreter (PEP 668 in pip; uv)
    (
        "python.module-not-found",
        "[rank0]: importlib.metadata.PackageNotFoundError: No package metadata was found for bitsandbytes",
        "CPython Lib/importlib/metadata/__init__.py PackageNotFoundError.__str__ under torchrun's rank prefix",
    ),
    (
        "python.module-not-found",
        "pkg_resources.DistributionNotFound: The 'supervisor==3.3.1' distribution was not found and is required by the"
        " application",
        "setuptools pkg_resources/__init__.py DistributionNotFound._template (requirers_str 'the application')",
    ),
    (
        "python.module-not-found",
        "importlib.metadata.PackageNotFoundError: No package metadata was found for The 'sacremoses' distribution was"
        " not found and is required by this application.",
        "transformers utils/versions.py require_version (its message inside PackageNotFoundError)",
    ),
    (
        "python.version-conflict",
        "ERROR: tensorflow_macos-0.1a3-cp38-cp38-macosx_11_0_arm64.whl is not a supported wheel on this platform.",
        "pip src/pip/_internal/req/constructors.py (UnsupportedWheel)",
    ),
    (
        "python.externally-managed",
        ["error: externally-managed-environment", "", "× This environment is externally managed"],
        "pip src/pip/_internal/exceptions.py ExternallyManagedEnvironment (pip >= 23.0, Debian/Ubuntu)",
    ),
    (
        "python.externally-managed",
        "2025-01-09T08:12:01.5520000Z error: The interpreter at /usr is externally managed, and indicates the following:",
        "uv crates/uv/src/commands/pip/operations.rs on a GitHub Actions runner's system Python",
    ),
    (
        "python.externally-managed",
        "#9 0.351 error: No virtual environment found; run `uv venv` to create an environment, or pass `--system` to"
        " install into a non-virtual environment",
        "uv pip install in a BuildKit step (no virtual environment, no --system)",
    ),
    # container-image: registry refusals from GitLab Runner, containerd, the Docker daemon and podman
    (
        "container.image-pull-failed",
        'ERROR: Job failed: failed to pull image "$enterprise/$team/$repo:latest" with specified policies'
        " [if-not-present]: Error response from daemon: pull access denied for $enterprise/$team/$repo, repository does"
        " not exist or may require 'docker login': denied: requested access to the resource is denied",
        "GitLab Runner executors/docker/internal/pull/manager.go (a GitLab forum thread quotes it)",
    ),
    (
        "container.image-pull-failed",
        "ERROR: failed to solve: ubuntu:22.04: failed to authorize: failed to fetch anonymous token: unexpected status:"
        " 401 Unauthorized",
        "containerd remotes/docker/auth/fetch.go under BuildKit's solver (containerd < 1.7 'unexpected status: <code>')",
    ),
    (
        "container.image-pull-failed",
        'Error: short-name "apache/kafka:4.1.2" did not resolve to an alias and no unqualified-search registries are'
        ' defined in "/etc/containers/registries.conf"',
        "containers/image pkg/shortnames/shortnames.go (podman pull)",
    ),
    (
        "container.image-pull-failed",
        '  Warning  Failed     3s    kubelet  Failed to inspect image "maintained/tcpdump": rpc error: code = Unknown'
        ' desc = short-name "maintained/tcpdump:latest" did not resolve to an alias and no unqualified-search registries'
        ' are defined in "/etc/containers/registries.conf.d/01-unqualified.conf"',
        "CRI-O through the kubelet (ImageInspectError's message, as a Kubernetes UI test quotes it)",
    ),
    (
        "container.image-pull-failed",
        "docker: Error response from daemon: unauthorized: authentication required.",
        "moby daemon registry refusal (docker run of a private image without login)",
    ),
    # filesystem: EACCES and EROFS as Go, the JVM, .NET and libstdc++ word them
    (
        "machine.permission-denied",
        'time="2024-03-01T10:00:00Z" level=error msg="failed to clean up" error="unlinkat /var/lib/ci/cache/x: permission'
        ' denied"',
        "Go os/removeall_at.go (*PathError Op unlinkat) in a logrus line",
    ),
    (
        "machine.permission-denied",
        "Caused by: java.nio.file.AccessDeniedException: /home/jenkins/.m2/repository/org/foo/1.0/foo-1.0.jar",
        "OpenJDK sun/nio/fs/UnixException.translateToIOException",
    ),
    (
        "machine.permission-denied",
        "##[error]System.UnauthorizedAccessException: Access to the path '/home/runner/work/_temp/_github_home' is"
        " denied.",
        ".NET System.IO in the GitHub Actions runner",
    ),
    (
        "machine.permission-denied",
        "  what():  filesystem error: cannot create directories: Permission denied [/root/.cache/llama.cpp]",
        "libstdc++ std::filesystem::filesystem_error::what() (GCC >= 8)",
    ),
    (
        "machine.read-only-filesystem",
        "java.nio.file.FileSystemException: /opt/app/logs/test.log: Read-only file system",
        "OpenJDK UnixException.translateToIOException (EROFS)",
    ),
    (
        "machine.read-only-filesystem",
        "  what():  filesystem error: cannot create directory: Read-only file system [/models/.cache]",
        "libstdc++ std::filesystem::filesystem_error::what()",
    ),
    # test-timeout and runner-infrastructure
    (
        "pytest.timeout",
        "//jax/tests:lax_numpy_test_gpu                                         TIMEOUT in 3 out of 3 in 900.2s",
        "Bazel TestSummaryPrinter (a sharded or retried target: 'in <n> out of <m> in <s>s')",
    ),
    (
        "runner.cancelled",
        '##[error]The job was canceled because "build_3_9" failed.',
        "GitHub Actions matrix fail-fast annotation",
    ),
    (
        "machine.permission-denied",
        [
            "EnvironmentNotWritableError: The current user does not have write permissions to the target environment.",
            "  environment location: /opt/conda",
        ],
        "conda conda/exceptions.py EnvironmentNotWritableError (conda >= 4.4)",
    ),
    (
        "container.image-pull-failed",
        "docker: Error response from daemon: image with reference registry.cn-chengdu.aliyuncs.com/gtkj/cce-web-im:test"
        " was found but does not match the specified platform: wanted linux/amd64, actual: linux/arm64.",
        "moby daemon/images/image.go (docker run of a local image of another platform)",
    ),
    (
        "pytest.collection-error",
        "ERROR: Failure: ImportError (No module named 'numpy.testing.decorators')",
        "nose 1.x nose/failure.py (the stand-in test of a module it could not import)",
    ),
]

# (rule that must not answer, lines)
NEAR_MISSES = [
    (
        "python.module-not-found",
        [
            "/usr/bin/python3: No module named vllm.__main__; 'vllm' is a package and cannot be directly executed"
        ],
    ),
    ("python.module-not-found", ["$ python -m bentoml serve gemma:2b --port 33009"]),
    (
        "pytest.test-layout-import-failed",
        [
            "______________ ERROR collecting tests/test_backends.py ______________",
            "E   ModuleNotFoundError: No module named 'tensorflow'",
        ],
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "______________ ERROR collecting tests/test_compile.py ______________",
            "E   ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler'"
            " (/opt/conda/lib/python3.10/site-packages/triton/compiler/compiler.py)",
        ],
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "______________ ERROR collecting tests/test_ns.py ______________",
            "E   ImportError: cannot import name 'x' from 'nspkg' (unknown location)",
        ],
    ),
    (
        "pytest.test-layout-import-failed",
        [
            "______________ ERROR collecting tests/test_mocks.py ______________",
            "E   ModuleNotFoundError: No module named 'pytest_mock'",
        ],
    ),
    # the helper names alone, outside a collection report, are no test-setup cause
    ("pytest.test-layout-import-failed", ["ModuleNotFoundError: No module named 'utils'"]),
    ("python.module-not-found", ["    except importlib.metadata.PackageNotFoundError:"]),
    ("python.externally-managed", ["$ pip install --break-system-packages -r requirements.txt"]),
    (
        "python.externally-managed",
        [
            "  # PEP 668: the system interpreter is externally-managed on ubuntu-24.04; we use setup-python instead"
        ],
    ),
    (
        "container.image-pull-failed",
        [
            'failed to authorize: failed to fetch oauth token: Post "https://auth.docker.io/token": read tcp'
            " 192.168.168.193:58099->98.85.153.80:443: wsarecv: An existing connection was forcibly closed by the remote"
            " host."
        ],
    ),
    (
        "container.image-pull-failed",
        ["Login Succeeded", "Error response from daemon: No such container: ci-db"],
    ),
    ("machine.permission-denied", ["git@github.com: Permission denied (publickey)."]),
    (
        "machine.permission-denied",
        [
            "java.io.FileNotFoundException: /var/lib/jenkins/workspace/ci/build/report.xml (No such file or directory)"
        ],
    ),
    ("pytest.timeout", ["//tensorflow/python:array_ops_test                     PASSED in 41.2s"]),
    ("pytest.collection-error", ['        message = "Failed to import test module: %s" % name']),
    (
        "runner.cancelled",
        ["The job was canceled because the workflow was cancelled by a maintainer at 10:02"],
    ),
    (
        "container.image-pull-failed",
        [
            "WARNING: image with reference ubuntu was found but does not match the specified platform: wanted"
            " linux/amd64, actual: linux/arm64/v8"
        ],
    ),
    ("pytest.collection-error", ["test_failure_summary (tests.test_report.ReportTest) ... ok"]),
]

# (train log, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r5/python-environment/g-openllm-hello-no-module-bentoml.log", "python.module-not-found", 15),
    (
        "holdout-r5/test-setup/h-error-tracker-django-collect-no-module-util.log",
        "pytest.test-layout-import-failed",
        2,
    ),
    (
        "holdout-r5/test-setup/h-aqua-gha-collect-cannot-import-name.log",
        "pytest.test-layout-import-failed",
        1,
    ),
    ("holdout-r3/test-setup/d-oop-nycu-collect-add-path-helper.log", "pytest.test-layout-import-failed", 2),
    (
        "holdout-r1/test-setup/rpm-build-pytest-cannot-import-conftest.log",
        "pytest.test-layout-import-failed",
        11,
    ),
    (
        "holdout-r2/test-setup/b-construct-pytest-no-module-named-tests.log",
        "pytest.test-layout-import-failed",
        1,
    ),
    # a missing installed package under the same header stays python-environment, on the exception's line
    ("holdout-r1/python-environment/pytest-collect-missing-gitpython.log", "python.module-not-found", 8),
    ("holdout-r4/python-environment/f-returnn-pytest9-ci-no-tensorflow.log", "python.module-not-found", 10),
    ("holdout-r5/python-environment/g-dynamo-sglang-image-no-module-vllm.log", "python.module-not-found", 13),
    ("python-env/module-not-found-collection-swarms-373.log", "python.module-not-found", 13),
    (
        "holdout-r3/python-environment/d-bugsinpy-ansible-collection-missing-mock-pytz.log",
        "python.module-not-found",
        6,
    ),
]

test_reads, test_near_misses, test_real_logs = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
