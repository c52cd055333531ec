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
