"""`--format github`: workflow commands, escaped as the runner unescapes them, capped as it caps them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from forensics.cli.main import main
from forensics.model import (
    Category,
    Evidence,
    Finding,
    Fingerprint,
    Group,
    InputInfo,
    JobContext,
    Problem,
    Report,
    RuleKind,
    RunContext,
    Status,
    TestCase,
    Verdict,
)
from forensics.render.github import escape_data, escape_property, render_github
from forensics.report.build import analyze
from tests.support.rulebook import rules_from
from tests.test_renderers import RULE

_COMMANDS = ("error", "warning", "notice")


def parse_workflow_command(line: str) -> tuple[str, dict[str, str], str]:
    """Read one line as the runner does (actions/runner `ActionCommand.TryParseV2`): command, properties, data."""
    line = line.removesuffix("\n")  # the runner reads the output line by line
    assert "\n" not in line and "\r" not in line, line
    assert line.lstrip().startswith("::"), line
    body = line.lstrip()[2:]
    head, separator, data = body.partition("::")
    assert separator, line
    command, _, properties_text = head.partition(" ")
    properties = {}
    for pair in filter(None, properties_text.split(",")):
        name, _, value = pair.partition("=")
        properties[name] = _unescape(value, property_value=True)
    return command, properties, _unescape(data, property_value=False)


def _unescape(text: str, *, property_value: bool) -> str:
    # The runner's mapping order: CR, LF, (':' and ',' for properties), then '%' last.
    mappings = [("%0D", "\r"), ("%0A", "\n")]
    if property_value:
        mappings += [("%3A", ":"), ("%2C", ",")]
    for escaped, plain in [*mappings, ("%25", "%")]:
        text = text.replace(escaped, plain)
    return text


def _two_log_report(tmp_path: Path) -> Report:
    (tmp_path / "gpu.log").write_text(
        "INFO start\n"
        "\x1b[31m[BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB)\x1b[0m\n"
        "RuntimeError: Engine core initialization failed. See root cause above.\n"
    )
    (tmp_path / "net.log").write_text(
        "INFO start\nRuntimeError: connect to 10.0.0.7:8080 refused, 50% done\n"
    )
    paths = [str(tmp_path / "gpu.log"), str(tmp_path / "net.log")]
    return analyze(paths, rules=rules_from(tmp_path, RULE))


def test_one_error_per_cause_and_one_warning_per_unexplained_group(tmp_path: Path) -> None:
    output = render_github(_two_log_report(tmp_path))
    fingerprint = output.rsplit("fingerprint ", 1)[1][:12]
    assert output == (
        "::error title=GPU already in use (1 test)::only 19.5 of 22.03 GiB free on cuda:0"
        "%0ATests: gpu.log (failed)"
        "%0AEvidence (gpu.log line 2): [BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB)"
        "%0AAdvice: cap gpu_memory_utilization"
        "%0ARule: demo.free-memory (infrastructure)\n"
        "::warning title=Unexplained failure (1 test)::RuntimeError: connect to <ip> refused, <num>%25 done"
        "%0ATests: net.log (failed)"
        "%0ANo rule explains it; likely cause (no rule): first exception line at net.log line 2: "
        f"RuntimeError: connect to 10.0.0.7:8080 refused, 50%25 done (fingerprint {fingerprint}).\n"
    )


def test_escaping_follows_the_runner() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_data("literal %0A stays literal") == "literal %250A stays literal"
    assert escape_property("GPU: cuda:0, cuda:1 (100%)") == "GPU%3A cuda%3A0%2C cuda%3A1 (100%25)"
    for text in ("a%0Ab", "%%0D%", "x:y,z\r\n::error::w", "100%25"):
        assert _unescape(escape_data(text), property_value=False) == text
        assert _unescape(escape_property(text), property_value=True) == text


def _test(uuid: str, name: str, status: Status = Status.FAILED, *, input_label: str = "results") -> TestCase:
    return TestCase(uuid=uuid, name=name, full_name=name, status=status, input_label=input_label)


def _cause(rule_id: str, title: str, summary: str, evidence_text: str) -> Finding:
    return Finding(
        rule_id=rule_id,
        title=title,
        category=Category.PRODUCT,
        kind=RuleKind.CAUSE,
        summary=summary,
        advice="",
        fields=(),
        evidence=Evidence(attachment="bash.log.txt", line=7, text=evidence_text),
    )


def test_log_text_cannot_inject_workflow_commands() -> None:
    hostile = "x\n::add-mask::ghp_notreal\r::stop-commands::pwned\n::error title=fake::injected"
    verdicts = (
        Verdict(
            test=_test("a", "test_a[::warning::x]"),
            root_cause=_cause(
                "r.one", "Title: with, colons::error::", f"summary {hostile}", f"::error::{hostile}"
            ),
        ),
        Verdict(
            test=_test("b", "test_b"),
            fingerprint=Fingerprint(key="abc", masked=f"masked {hostile}", line=hostile),
        ),
    )
    report = Report(
        inputs=(),
        verdicts=verdicts,
        groups=(
            Group(kind="cause", key="r.one", title="Title", category=Category.PRODUCT, test_uuids=("a",)),
            Group(kind="unexplained", key="abc", title=f"masked {hostile}", category=None, test_uuids=("b",)),
        ),
        problems=(Problem(object="results/x::y", message=f"cannot read {hostile}", hint="fix %0A it"),),
    )
    lines = render_github(report).splitlines()
    assert len(lines) == 3  # one per annotation: nothing hostile started a line of its own
    parsed = [parse_workflow_command(line) for line in lines]
    assert [command for command, _, _ in parsed] == ["error", "warning", "warning"]
    assert [properties for _, properties, _ in parsed] == [
        {"title": "Title: with, colons::error:: (1 test)"},
        {"title": "Unexplained failure (1 test)"},
        {"title": "ci-forensics warning: results/x::y"},
    ]
    assert parsed[0][2].startswith(f"summary {hostile}\nTests: test_a[::warning::x] (failed)\n")
    assert f"Evidence (bash.log.txt line 7): ::error::{hostile}" in parsed[0][2]
    assert parsed[1][2].startswith(f"masked {hostile}\n")
    assert parsed[2][2] == f"cannot read {hostile}\nHint: fix %0A it"


def test_annotations_are_capped_at_ten_per_level_with_a_closing_notice() -> None:
    verdicts = []
    groups = []
    for index in range(12):
        uuid = f"c{index}"
        verdicts.append(
            Verdict(
                test=_test(uuid, f"test_c{index}"),
                root_cause=_cause(f"r.{index}", f"cause {index}", "s", "e"),
            )
        )
        groups.append(
            Group(kind="cause", key=f"r.{index}", title="", category=Category.PRODUCT, test_uuids=(uuid,))
        )
    for index in range(11):
        uuid = f"u{index}"
        verdicts.append(
            Verdict(
                test=_test(uuid, f"test_u{index}"), fingerprint=Fingerprint(key=uuid, masked="m", line="l")
            )
        )
        groups.append(
            Group(kind="unexplained", key=uuid, title=f"m{index}", category=None, test_uuids=(uuid,))
        )
    problems = tuple(Problem(object=f"file{index}", message="unreadable") for index in range(2))
    report = Report(inputs=(), verdicts=tuple(verdicts), groups=tuple(groups), problems=problems)

    lines = render_github(report).splitlines()
    commands = [parse_workflow_command(line)[0] for line in lines]
    assert commands == ["error"] * 10 + ["warning"] * 10 + ["notice"]
    assert "cause 9 (1 test)" in lines[9]
    assert "m9%0A" in lines[19]
    assert lines[-1] == (
        "::notice title=ci-forensics%3A more in the step summary::2 more root-cause groups, "
        "1 more unexplained group and 2 more problems left out here (GitHub shows at most 10 error and "
        "10 warning annotations per step): see the step summary or the JSON report."
    )


def test_a_group_names_at_most_ten_tests_and_counts_summaries_that_differ() -> None:
    verdicts = tuple(
        Verdict(
            test=_test(f"t{index}", f"test_{index}", Status.BROKEN),
            root_cause=_cause("r.one", "one cause", f"only {index % 2} GiB free", "e"),
        )
        for index in range(12)
    )
    group = Group(
        kind="cause",
        key="r.one",
        title="one cause",
        category=Category.PRODUCT,
        test_uuids=tuple(v.test.uuid for v in verdicts),
    )
    report = Report(inputs=(), verdicts=verdicts, groups=(group,), problems=())
    _, properties, message = parse_workflow_command(render_github(report))
    assert properties == {"title": "one cause (12 tests)"}
    assert message.splitlines()[:3] == [
        "(6 of 12) only 0 GiB free",
        "(6 of 12) only 1 GiB free",
        "Tests: " + ", ".join(f"test_{index} (broken)" for index in range(10)) + ", … and 2 more",
    ]


def test_titles_and_messages_are_cut_where_github_cuts_them() -> None:
    finding = _cause("r.long", "t" * 300, "s" * 5000, "e")
    verdict = Verdict(test=_test("a", "test_a"), root_cause=finding)
    group = Group(kind="cause", key="r.long", title="", category=Category.PRODUCT, test_uuids=("a",))
    report = Report(inputs=(), verdicts=(verdict,), groups=(group,), problems=())
    _, properties, message = parse_workflow_command(render_github(report))
    assert len(properties["title"]) == 255 and properties["title"].endswith("t…")
    assert len(message) == 4096 and message.endswith("s…")


def test_a_report_from_ci_names_the_jobs_of_a_group() -> None:
    jobs = (
        JobContext(job_id=5, name="vllm / Test cuda13.0 (amd64)"),
        JobContext(job_id=6, name="sglang / Test"),
    )
    inputs = (
        InputInfo(path="a.zip", kind="zip", label="results", job_id=5),
        InputInfo(path="b.zip", kind="zip", label="other", job_id=6),
    )
    verdicts = (
        Verdict(test=_test("a", "test_a"), fingerprint=Fingerprint(key="k", masked="m", line="l")),
        Verdict(test=_test("b", "test_b"), fingerprint=Fingerprint(key="k", masked="m", line="l")),
        Verdict(
            test=_test("c", "test_c", input_label="other"),
            fingerprint=Fingerprint(key="k", masked="m", line="l"),
        ),
    )
    group = Group(kind="unexplained", key="k", title="boom", category=None, test_uuids=("a", "b", "c"))
    report = Report(
        inputs=inputs,
        verdicts=verdicts,
        groups=(group,),
        problems=(),
        context=RunContext(provider="github", repository="o/r", run_id=1, jobs=jobs),
    )
    _, _, message = parse_workflow_command(render_github(report))
    assert message.splitlines() == [
        "boom",
        "Tests: test_a (failed), test_b (failed), test_c (failed)",
        "Jobs: vllm / Test cuda13.0 (amd64), sglang / Test",
        "No rule explains it; last error line (fingerprint k).",
    ]


def test_nothing_failing_renders_nothing() -> None:
    report = Report(
        inputs=(), verdicts=(Verdict(test=_test("p", "test_p", Status.PASSED)),), groups=(), problems=()
    )
    assert render_github(report) == ""


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_render_turns_a_saved_report_into_every_format(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    report = _two_log_report(logs)
    paths = [str(logs / "gpu.log"), str(logs / "net.log")]
    saved = tmp_path / "report.json"
    rules = tmp_path / "rules.toml"
    rules.write_text(RULE)
    common = ["--rules", str(rules)]
    assert _run("analyze", *paths, *common, "--format", "json", "-o", str(saved)).exit_code == 0
    for output_format in ("text", "markdown", "github", "json"):
        direct = _run("analyze", *paths, *common, "--format", output_format)
        rendered = _run("render", str(saved), "--format", output_format)
        assert rendered.exit_code == 0
        assert rendered.output == direct.output != ""
    assert _run("render", str(saved), "--format", "github").output == render_github(report)
    out = tmp_path / "annotations.txt"
    assert _run("render", str(saved), "--format", "github", "-o", str(out)).output == ""
    assert out.read_text() == render_github(report)
    assert json.loads(_run("render", str(saved), "--format", "json").output)["summary"]["unexplained"] == 1


def test_render_fail_on_and_errors(tmp_path: Path) -> None:
    saved = tmp_path / "report.json"
    assert _run("analyze", "--demo", "--format", "json", "-o", str(saved)).exit_code == 0
    assert _run("render", str(saved), "--format", "github", "--fail-on", "problems").exit_code == 0
    failed = _run("render", str(saved), "--format", "github", "--fail-on", "unexplained")
    assert failed.exit_code == 3
    assert failed.output.startswith(
        "::error title=GPU already in use%3A vLLM's startup free-memory check failed"
    )
    missing = CliRunner().invoke(main, ["render", str(tmp_path / "nope.json")])
    assert missing.exit_code == 1
    assert "Error: cannot read report" in missing.output and "Hint: pass a file written by" in missing.output
    not_a_report = tmp_path / "other.json"
    not_a_report.write_text("[]")
    assert CliRunner().invoke(main, ["render", str(not_a_report)]).exit_code == 1
    assert CliRunner().invoke(main, ["render", str(saved), "--format", "html"]).exit_code == 2
