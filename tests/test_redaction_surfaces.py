"""No planted secret leaves the process: every shape, in every surface of a real allure-pytest run, through
every output (each format, the saved report, the SQLite store, history, the dashboard, ticket comments)."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import regex
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from forensics.cli.main import main
from forensics.model import Evidence, ExcerptLine, Fingerprint, Report, Status, TestCase, Verdict
from forensics.render import RENDERERS
from forensics.report.build import analyze
from forensics.report.redact import REDACTED, Redactor, redact_report
from forensics.report.secret_shapes import SHAPES, SecretShape
from forensics.report.session import AnalyzeOptions
from forensics.rules.model import RuleSet
from tests.scenarios.scenario_secrets import PLANTED_ENVIRONMENT_SECRET

SECRETS = {**{shape.name: shape.secret for shape in SHAPES}, "environment secret": PLANTED_ENVIRONMENT_SECRET}
_LETTER_RUN = regex.compile(r"[A-Za-z]{6,}")


def leaks(secret: str, output: str) -> list[str]:
    """The secret, or a run of six or more of its letters (what survives masking of digits), in the output."""
    pieces = [secret, *(run for run in _LETTER_RUN.findall(secret) if run.lower() not in _WORDS)]
    return [piece for piece in pieces if piece in output]


# Letter runs of the secrets that are ordinary words, and may appear in output for other reasons
_WORDS = {"example", "abcdefghijklmnopqrstuvwxyz", "github", "correct"}


def rendered(report: Report) -> Iterator[tuple[str, str]]:
    """Every format's output for the report, as the CLI would print it."""
    for name, renderer in RENDERERS.items():
        output = renderer(report)
        if not isinstance(output, str):
            buffer = io.StringIO()
            Console(file=buffer, width=120, color_system=None).print(output)
            output = buffer.getvalue()
        yield name, output


@pytest.fixture(scope="module")
def planted_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios

    return run_scenarios(
        [SCENARIOS_DIRECTORY / "scenario_secrets.py"], tmp_path_factory.mktemp("planted-results")
    )


def test_the_scenario_plants_every_shape_in_every_surface(planted_results: Path) -> None:
    """The fixture is what it claims: each secret is in the raw results, in names, parameters, steps, logs."""
    raw = "\n".join(path.read_text(errors="replace") for path in planted_results.iterdir())
    for kind, secret in SECRETS.items():
        assert secret in raw, kind
    assert f'"fullName": "scenario_secrets#test_deploy_{PLANTED_ENVIRONMENT_SECRET}"' in raw


def test_every_output_of_a_planted_run_holds_no_secret(
    planted_results: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_SECRET", PLANTED_ENVIRONMENT_SECRET)
    out = tmp_path / "out"
    out.mkdir()
    store = str(out / "history.sqlite3")
    results = str(planted_results)
    printed: list[str] = []

    def run(*arguments: str, expect: int = 0) -> None:
        result = CliRunner().invoke(main, list(arguments))
        assert result.exit_code == expect, (arguments, result.output, result.exception)
        printed.append(result.output)

    run("analyze", results, "--format", "json", "-o", str(out / "report.json"), "--record", "--store", store)
    for output_format in sorted(RENDERERS):
        run("analyze", results, "--format", output_format)
        run("analyze", results, "--format", output_format, "-o", str(out / f"analyze.{output_format}"))
        run("render", str(out / "report.json"), "--format", output_format)
    run("history", "--store", store)
    run("history", "--store", store, "--format", "json")
    run("dashboard", "--store", store, "--out", str(out / "site"))
    run("rules", "suggest", str(out / "report.json"))
    run("rules", "suggest", str(out / "report.json"), "--out", str(out / "drafts"))
    run("rules", "backtest", results, str(out / "report.json"))
    run("rules", "backtest", results, "--format", "json")
    tickets = ["--ticket", "OPS-1", "--ticket", "acme/widgets#7", "--ticket", "CORE-9"]
    jira = ["--jira-url", "https://acme.atlassian.net", "--jira-project", "CORE"]
    for output_format in ("text", "json"):
        run("annotate", str(out / "report.json"), "--dry-run", *tickets, *jira, "--format", output_format)

    written = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    assert {"report.json", "history.sqlite3", "index.html", "data.json", "analyze.github"} <= {
        path.name for path in written
    }
    assert any(path.parent.name == "causes" for path in written)
    assert any(path.parent.name == "drafts" for path in written)
    surfaces = {str(path): data.decode("utf-8", "replace") for path, data in written.items()}
    surfaces.update({f"printed #{number}": text for number, text in enumerate(printed)})
    assert "## ci-forensics" in "".join(printed) and "::warning" in "".join(printed)
    found = {
        (kind, where, piece)
        for kind, secret in SECRETS.items()
        for where, text in surfaces.items()
        for piece in leaks(secret, text)
    }
    assert not found
    assert REDACTED in surfaces[str(out / "report.json")]


def test_each_surface_of_the_report_model_is_redacted(
    planted_results: Path, rule_pack: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names, full names, parameters, labels, steps (locations), attachments, excerpts, fingerprints, titles."""
    report = analyze(
        [str(planted_results)],
        rules=rule_pack,
        options=_options(Redactor.from_environment({"DEPLOY_SECRET": PLANTED_ENVIRONMENT_SECRET})),
    )
    assert len(report.failing) == len(SECRETS) + 1
    fields: list[tuple[str, str]] = []
    for verdict in report.verdicts:
        test = verdict.test
        fields += [("name", test.name), ("full_name", test.full_name), ("message", test.message)]
        fields += [("parameter", value) for _, value in test.parameters]
        fields += [("label", value) for _, value in test.labels]
        fields += [("location", ref.location) for ref in test.logs]
        fields += [("attachment", ref.attachment) for ref in test.logs]
        if verdict.fingerprint is not None:
            fields += [("fingerprint", verdict.fingerprint.masked), ("line", verdict.fingerprint.line)]
        for finding in (verdict.root_cause, *verdict.symptoms):
            if finding is not None:
                fields += [("summary", finding.summary), ("evidence", finding.evidence.text)]
                fields += [("excerpt", line.text) for line in finding.evidence.excerpt]
    fields += [("group title", group.title) for group in report.groups]
    leaked = {
        (kind, field) for kind, secret in SECRETS.items() for field, text in fields if leaks(secret, text)
    }
    assert not leaked
    assert any(field == "fingerprint" and REDACTED in text for field, text in fields)
    assert any(field == "attachment" and REDACTED in text for field, text in fields)
    assert any(field == "location" and REDACTED in text for field, text in fields)


def _options(redactor: Redactor) -> AnalyzeOptions:
    return AnalyzeOptions(redactor=redactor)


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_every_shape_is_redacted_by_its_own_pattern(shape: SecretShape) -> None:
    """Each shape's example proves the shape (not another shape that happens to catch it too)."""
    start = shape.example.index(shape.secret)
    end = start + len(shape.secret)
    assert shape.applies(shape.example.lower())
    assert any(m.start() <= start and m.end() >= end for m in shape.pattern.finditer(shape.example))


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_every_shape_is_redacted_in_every_format(
    shape: SecretShape, tmp_path: Path, rule_pack: RuleSet
) -> None:
    log = tmp_path / "bash.log"
    log.write_text(f"starting\n{shape.example}\nRuntimeError: failed after {shape.example}\n")
    report = analyze([str(log)], rules=rule_pack)
    for name, output in rendered(report):
        assert not leaks(shape.secret, output), name
    assert Redactor().text(Redactor().text(shape.example)) == Redactor().text(shape.example)  # idempotent


ORDINARY = (
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Downloading model weights: 5d41402abc4b2a76b9719d911017c592 (md5)",
    "HEAD is now at a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 Merge pull request #8443",
    "git checkout 0123456789abcdef0123456789abcdef01234567 && AKIA-free text",
    "test uuid 123e4567-e89b-12d3-a456-426614174000 started",
    "/home/runner/work/dynamo/dynamo/components/backends/vllm/src/dynamo/vllm/very_long_module_name_for_tests.py:123",
    'File "/opt/venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 4812',
    "docker pull nvcr.io/nvidia/pytorch:24.05-py3@sha256:abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
    "max_tokens=8192 num_tokens: 4096 tokens/s: 12.3 --max-tokens 8192 --token-file /run/t --password-stdin",
    "Basic test suite passed; bypass: enabled; compass=north; PASSED tests/test_x.py::test_y[param-1]",
    "scikit-learn sk-learn task-queue-worker-abcdefghijklmnopqrstuvwxyz disk-usage",
    "ValueError: token_type_ids not supported; Key 'model.layers.0.self_attn.q_proj.weight' missing",
    "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json",
    "MIIEvQIBADANBgkqhkiG9w0 appears inside a sentence, not as a key line",
)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_log_text_survives(text: str) -> None:
    assert Redactor().text(text) == text


def test_a_secret_is_whole_when_redacted_and_cut_only_after(tmp_path: Path, rule_pack: RuleSet) -> None:
    """A 2,000-character cut used to leave `ghp_` and 18 characters, too short to look like a token."""
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    for padding in range(1985, 2001):
        log = tmp_path / f"padded-{padding}.log"
        log.write_text("RuntimeError: " + "x" * (padding - len("RuntimeError: ")) + token + " tail\n")
        report = analyze([str(log)], rules=rule_pack)
        fingerprint = report.failing[0].fingerprint
        assert fingerprint is not None and fingerprint.evidence is not None
        assert len(fingerprint.evidence.text) <= 2000
        for _, output in rendered(report):
            assert "ghp_A1b2C3d4E5f6" not in output and "A1b2C3d4E5f6G7h8" not in output, padding


def test_fingerprints_are_computed_from_the_redacted_line() -> None:
    """Masking first kept parts of a token (`github_pat_<num>ABCDEFG…`) in the key, title and store."""
    line = "RuntimeError: denied for github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
    test = TestCase(uuid="u", name="t", full_name="t", status=Status.FAILED, input_label="in")
    evidence = Evidence(attachment="a.log", line=1, text=line, excerpt=(ExcerptLine(1, line),))
    fingerprint = Fingerprint(key="stale", masked="stale", line=line, evidence=evidence)
    report = Report(
        inputs=(), verdicts=(Verdict(test=test, fingerprint=fingerprint),), groups=(), problems=()
    )
    redacted = redact_report(report, Redactor())
    again = redacted.verdicts[0].fingerprint
    assert again is not None
    assert again.masked == "RuntimeError: denied for [REDACTED]"
    assert redacted.groups[0].title == again.masked and redacted.groups[0].key == again.key
    assert redact_report(redacted, Redactor()) == redacted  # idempotent: every output path may run it again


def test_environment_secret_in_names_and_parameters_is_redacted(planted_results: Path) -> None:
    names: Callable[[Report], list[str]] = lambda report: [  # noqa: E731
        text for verdict in report.verdicts for text in (verdict.test.name, verdict.test.full_name)
    ]
    from forensics.rules.loader import load_rules

    report = analyze(
        [str(planted_results)],
        rules=load_rules(),
        options=_options(Redactor.from_environment({"DEPLOY_SECRET": PLANTED_ENVIRONMENT_SECRET})),
    )
    assert not [name for name in names(report) if PLANTED_ENVIRONMENT_SECRET in name]
    assert "scenario_secrets#test_deploy_[REDACTED]" in names(report)


def test_comments_posted_to_a_tracker_hold_no_secret(planted_results: Path, rule_pack: RuleSet) -> None:
    """The report is built without the environment's secrets; annotate's own pass must still remove them."""
    from forensics.annotate import AnnotateOptions, annotate_report
    from forensics.services.http import RetryPolicy
    from forensics.sinks.github import GitHubCommentSink
    from tests.fakes.github_comments import TOKEN, running_github_comments

    report = analyze([str(planted_results)], rules=rule_pack)
    assert any(PLANTED_ENVIRONMENT_SECRET in verdict.test.full_name for verdict in report.verdicts)
    redactor = Redactor.from_environment({"DEPLOY_SECRET": PLANTED_ENVIRONMENT_SECRET})
    with running_github_comments() as fake:
        fake.add_issue("acme/widgets", 7)
        sink = GitHubCommentSink.connect(
            token=TOKEN, base_url=fake.url, timeout=5, retry=RetryPolicy(attempts=1, backoff=0.01)
        )
        try:
            result = annotate_report(
                report,
                sinks={"github": sink},
                extra_tickets=("acme/widgets#7",),
                options=AnnotateOptions(redactor=redactor),
            )
        finally:
            sink.close()
        posted = [request.body.decode() + request.json()["body"] for request in fake.writes()]
    assert not result.failed and posted
    assert "test_deploy_[REDACTED]" in posted[0]  # the environment secret in a test name
    leaked = {
        (kind, piece) for kind, secret in SECRETS.items() for text in posted for piece in leaks(secret, text)
    }
    assert not leaked, sorted(leaked)


def test_a_report_is_walked_again_only_for_other_secrets(planted_results: Path, rule_pack: RuleSet) -> None:
    """`analyze` redacts with the run's secrets and each output again: the second walk with the same secrets is
    skipped (the report is returned as it is), one with another secret still redacts it."""
    first = Redactor.from_environment({"DEPLOY_SECRET": PLANTED_ENVIRONMENT_SECRET})
    report = analyze([str(planted_results)], rules=rule_pack, options=_options(first))
    same = Redactor.from_environment({"OTHER_SECRET": PLANTED_ENVIRONMENT_SECRET})
    assert report.redacted and redact_report(report, same) is report
    kept = next(v.test.name for v in report.failing if len(v.test.name) > 12)
    other = Redactor.from_environment({"NAME_TOKEN": kept})
    again = redact_report(report, other)
    assert again is not report and again.redacted and redact_report(again, other) is again
    assert kept not in {v.test.name for v in again.verdicts} and REDACTED in {
        v.test.name for v in again.verdicts
    }
    assert "key" not in repr(first) and first.key not in repr(report)
    # a copy may carry new text: it is not marked, so the next output walks it again
    copy = dataclasses.replace(report, problems=report.problems)
    assert not copy.redacted and redact_report(copy, same) is not copy and redact_report(copy, same).redacted


def test_a_report_saved_unredacted_by_an_older_version_is_redacted_on_the_way_out(
    planted_results: Path, tmp_path: Path
) -> None:
    token = SECRETS["github token"]
    saved = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["analyze", str(planted_results), "--format", "json", "-o", str(saved)])
    assert result.exit_code == 0
    saved.write_text(saved.read_text().replace("[REDACTED]", f" {token} "))  # as an older version kept it
    outputs = []
    for arguments in (
        *(["render", str(saved), "--format", output_format] for output_format in sorted(RENDERERS)),
        ["rules", "suggest", str(saved)],
        ["annotate", str(saved), "--dry-run", "--ticket", "OPS-1"],
    ):
        result = CliRunner().invoke(main, arguments)
        assert result.exit_code == 0, (arguments, result.output)
        outputs.append(result.output)
    assert [leaks(token, output) for output in outputs] == [[]] * len(outputs)
    assert all(REDACTED in output for output in outputs)


def test_rows_an_older_version_stored_unredacted_are_redacted_when_read_or_rewritten(tmp_path: Path) -> None:
    """history, the dashboard and `reanalyze --apply` over a store whose rows hold a token."""
    import time

    from forensics.store import open_store
    from tests.store.old_stores import build_version_1, record_version_1_failure

    token = SECRETS["github token"]
    location = str(tmp_path / "old.sqlite3")
    log = tmp_path / "gone.log"  # no longer on disk: reanalyze reads the stored evidence
    text = f"ImportError: cannot import name 'AutoModel' from 'transformers' (auth {token})"
    build_version_1(location)
    record_version_1_failure(location, log=log, text=text, at=int(time.time()) - 3600)
    with open_store(location, default_dir=tmp_path, mode="write"):
        pass  # migrated to the current schema, rows as they were
    printed = []
    for arguments in (
        ["history", "--store", location, "--days", "30"],
        ["history", "--store", location, "--days", "30", "--format", "json"],
        ["dashboard", "--store", location, "--out", str(tmp_path / "site")],
        ["reanalyze", "--store", location, "--apply"],
    ):
        result = CliRunner().invoke(main, arguments)
        assert result.exit_code == 0, (arguments, result.output)
        printed.append(result.output)
    assert "AutoModel" in printed[0] and "explained" in printed[3]
    site = [path.read_text() for path in (tmp_path / "site").rglob("*") if path.is_file()]
    assert [output for output in [*printed, *site] if token in output] == []
    import sqlite3

    with sqlite3.connect(location) as connection:
        rewritten = connection.execute("SELECT kind, text, summary FROM findings").fetchall()
    assert rewritten[0][0] == "cause" and token not in rewritten[0][1] and REDACTED in rewritten[0][1]


_LOG_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60
)  # any characters, controls and escapes included


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(SHAPES),
    _LOG_TEXT.filter(lambda text: "\n" not in text),
    _LOG_TEXT.filter(lambda text: "\n" not in text),
)
def test_a_shape_is_redacted_between_any_other_lines(shape: SecretShape, before: str, after: str) -> None:
    redacted = Redactor().text(f"{before}\n{shape.example}\n{after}")
    assert shape.secret not in redacted


@settings(max_examples=300, deadline=None)
@given(st.one_of(_LOG_TEXT, st.sampled_from(SHAPES).map(lambda shape: shape.example)), _LOG_TEXT)
def test_redaction_is_idempotent(first: str, second: str) -> None:
    text = first + second
    once = Redactor().text(text)
    assert Redactor().text(once) == once
