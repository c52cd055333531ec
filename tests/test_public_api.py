"""The public Python API: `forensics.__all__` as promised, each name importable, cheap to import, paths as
strings or `os.PathLike`, and the Python example of docs/python.md running as written."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import forensics
from forensics.render import RENDERERS
from forensics.samples import SAMPLE

ROOT = Path(__file__).resolve().parents[1]
PYTHON_DOC = ROOT / "docs" / "python.md"

PUBLIC = [
    "AnalyzeOptions",
    "AnnotateOptions",
    "AnnotateResult",
    "ArtifactSource",
    "AuthenticationError",
    "Category",
    "CauseStats",
    "ConfigError",
    "DownloadCache",
    "Evidence",
    "ExcerptLine",
    "FetchResult",
    "Finding",
    "Fingerprint",
    "ForensicsError",
    "GitHubActionsSource",
    "GitHubActionsTarget",
    "GitHubClient",
    "GitHubCommentSink",
    "Group",
    "History",
    "InputInfo",
    "JiraClient",
    "JiraCommentSink",
    "JobContext",
    "LinearClient",
    "LinearCommentSink",
    "Link",
    "LogRef",
    "NotFoundError",
    "PathArgument",
    "Problem",
    "RateLimitedError",
    "RecordResult",
    "Redactor",
    "Report",
    "ResultsError",
    "Rule",
    "RuleKind",
    "RuleSet",
    "RulesError",
    "RunContext",
    "ServiceError",
    "SinkUnavailable",
    "Status",
    "Store",
    "StoreError",
    "StoreNotFoundError",
    "TestCase",
    "Ticket",
    "TicketOutcome",
    "UnavailableError",
    "Verdict",
    "__version__",
    "analyze",
    "analyze_source",
    "annotate_report",
    "build_site",
    "cause_stats",
    "dashboard_data",
    "default_cache_directory",
    "history",
    "load_report",
    "load_rules",
    "open_store",
    "record_report",
    "redact_report",
    "render_report",
    "write_dashboard",
]


def test_the_public_names_are_exactly_these() -> None:
    assert sorted(forensics.__all__) == sorted(PUBLIC)
    assert len(set(forensics.__all__)) == len(forensics.__all__)


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_name_imports_from_the_package(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from forensics import {name}", namespace)  # the form users write
    value = namespace[name]
    assert value is getattr(forensics, name)
    if name not in {"__version__", "PathArgument"}:
        assert getattr(value, "__module__", "").startswith("forensics."), name
    assert name in dir(forensics)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'forensics' has no attribute 'analyse'"):
        _ = forensics.analyse  # type: ignore[attr-defined]


def test_the_package_ships_type_information() -> None:
    assert (ROOT / "forensics" / "py.typed").is_file()


def test_import_forensics_loads_no_module_it_does_not_need() -> None:
    code = (
        "import sys, forensics\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('forensics', 'rich', 'click', 'requests', 'regex', 're2', 'hyperscan', 'psycopg', 'platformdirs')))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert loaded.stdout.strip() == "['forensics', 'forensics.version']", loaded.stderr


# --- paths as str or os.PathLike ------------------------------------------------------------------------


def test_a_report_from_a_path_object_records_into_a_store(tmp_path: Path) -> None:
    """It used to fail: "Error binding parameter 5: type 'PosixPath' is not supported"."""
    report = forensics.analyze([SAMPLE], rules=forensics.load_rules())
    assert [item.path for item in report.inputs] == [str(SAMPLE)]
    with forensics.open_store(tmp_path / "history.sqlite3", default_dir=str(tmp_path)) as store:
        recorded = forensics.record_report(store, report)
    assert recorded.new_run and recorded.failing == 7
    with forensics.open_store(None, default_dir=tmp_path / "default", mode="create") as store:
        assert forensics.record_report(store, report).new_run
    assert (tmp_path / "default" / "history.sqlite3").is_file()


def test_one_path_alone_is_one_input_not_a_sequence_of_characters() -> None:
    rules = forensics.load_rules()
    as_list = forensics.analyze([str(SAMPLE)], rules=rules)
    assert forensics.analyze(SAMPLE, rules=rules) == as_list
    assert forensics.analyze(str(SAMPLE), rules=rules) == as_list


def test_rules_reports_and_dashboards_take_path_objects_and_strings(tmp_path: Path) -> None:
    rule_file = ROOT / "rules" / "vllm"
    assert len(forensics.load_rules(rule_file, include_shipped=False)) == len(
        forensics.load_rules([str(rule_file)], include_shipped=False)
    )
    report = forensics.analyze([SAMPLE], rules=forensics.load_rules())
    saved = tmp_path / "report.json"
    saved.write_text(forensics.render_report(report, "json"))
    assert forensics.load_report(saved) == forensics.load_report(str(saved))
    with forensics.open_store(tmp_path / "h.sqlite3", default_dir=tmp_path) as store:
        forensics.record_report(store, report)
        data = forensics.dashboard_data(store, days=3650)
    written = forensics.write_dashboard(data, str(tmp_path / "site"))
    assert written[0] == tmp_path / "site" / "index.html"


# --- render_report ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", sorted(RENDERERS))
def test_render_report_gives_the_text_of_every_format(output_format: str) -> None:
    report = forensics.analyze([SAMPLE], rules=forensics.load_rules())
    text = forensics.render_report(report, output_format)
    assert isinstance(text, str)
    if output_format in {"text", "markdown"}:
        assert "7 failing tests: 6 explained (86%), 1 unexplained" in text
    if output_format == "github":
        assert text.startswith("::error title=")
    if output_format == "json":
        assert json.loads(text)["summary"]["failing"] == 7
    if output_format == "text":
        assert "\x1b[" not in text and max(len(line) for line in text.splitlines()) <= 120


def test_render_report_names_the_formats_for_an_unknown_one() -> None:
    report = forensics.analyze([SAMPLE], rules=forensics.load_rules())
    with pytest.raises(ValueError, match="unknown format 'html': one of github, json, markdown, text"):
        forensics.render_report(report, "html")


# --- docs/python.md ---------------------------------------------------------------------------------------


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PYTHON_DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_docs_python_examples_import_only_the_public_api() -> None:
    blocks = _python_blocks()
    assert len(blocks) >= 3
    for block in blocks:
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("forensics"):
                assert node.module == "forensics", node.module
                assert {alias.name for alias in node.names} <= set(PUBLIC)
            elif isinstance(node, ast.Import):
                assert not any(alias.name.startswith("forensics") for alias in node.names)


def test_the_docs_first_python_example_runs_as_written(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SAMPLE, workdir / "allure-results.zip")
    assert zipfile.is_zipfile(workdir / "allure-results.zip")
    exec(compile(_python_blocks()[0], str(PYTHON_DOC), "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out.splitlines()
    assert "test_serve_deployment[mm_e_pd_qwen3-vl-2b] vLLM wanted 0.9 × 22.03 GiB" in printed[0]
    assert printed[-1] == "True 7 6 3 1.1"
    assert (workdir / "summary.md").read_text().startswith("## ci-forensics: 7 failing tests")
    assert (workdir / "history.sqlite3").is_file()


def test_type_checkers_see_every_public_name_and_the_docs_example_checks(tmp_path: Path) -> None:
    """The lazy names are typed (the `if TYPE_CHECKING` imports): none is Any to mypy, an IDE or a user's CI."""
    from mypy import api

    snippet = tmp_path / "uses_forensics.py"
    reveals = "".join(f"reveal_type(forensics.{name})\n" for name in PUBLIC if name != "PathArgument")
    snippet.write_text(f"import forensics\n{reveals}\n{_python_blocks()[0]}")
    # the cache `make lint` (mypy over forensics/) leaves: without it this takes ~20 s instead of ~1 s
    stdout, stderr, _ = api.run(
        ["--strict", "--cache-dir", str(ROOT / ".mypy_cache"), "--no-error-summary", str(snippet)]
    )
    revealed = [line for line in stdout.splitlines() if "Revealed type is" in line]
    assert len(revealed) == len(PUBLIC) - 1, stdout + stderr
    assert [line for line in revealed if '"Any"' in line] == []
    assert [line for line in stdout.splitlines() if ": error:" in line] == []
