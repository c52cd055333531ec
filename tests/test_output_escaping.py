"""Each output format escapes what it quotes: Markdown that cannot be broken out of, no workflow command outside
`--format github`, no terminal control sequence in text or Markdown; logs read in their own encoding."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from rich.console import Console

from forensics.cli.common import emit
from forensics.cli.main import main
from forensics.model import (
    Evidence,
    ExcerptLine,
    Fingerprint,
    Problem,
    Report,
    Status,
    TestCase,
    Verdict,
)
from forensics.render import RENDERERS
from forensics.render.github import render_github
from forensics.render.markdown import inline_code, prose, render_markdown
from forensics.report.build import analyze
from forensics.report.grouping import group_verdicts
from forensics.report.redact import Redactor, redact_report
from forensics.rules.model import RuleSet

HOSTILE_NAME = "test_x[`a``b`\n\n# Heading\n<img src=x onerror=alert(1)>\n[click](https://evil.example)\n::warning::pwned]"
OSC_LINK = "\x1b]8;;https://evil.example\x1b\\click here\x1b]8;;\x1b\\"
HOSTILE_LINE = f"RuntimeError: boom {OSC_LINK} \x1b[2J\x07\x08 ::add-mask::x ##[error]fake"


def _hostile_report() -> Report:
    """A report whose every free text is hostile, redacted as every report is when built."""
    excerpt = (
        ExcerptLine(1, "::stop-commands::token123"),
        ExcerptLine(2, "```\n<img src=y>"),
        ExcerptLine(3, HOSTILE_LINE),
    )
    evidence = Evidence(attachment="a\n\n# b <img src=z>", line=3, text=HOSTILE_LINE, excerpt=excerpt)
    test = TestCase(
        uuid="u1",
        name=HOSTILE_NAME,
        full_name=HOSTILE_NAME,
        status=Status.FAILED,
        input_label="in",
        message=HOSTILE_LINE,
    )
    fingerprint = Fingerprint(key="k", masked="k", line=HOSTILE_LINE, evidence=evidence)
    verdicts = (Verdict(test=test, fingerprint=fingerprint),)
    problem = Problem(object="x\n::error::obj", message="bad <img src=q> [l](https://evil.example)\n\n# h")
    report = Report(inputs=(), verdicts=verdicts, groups=group_verdicts(verdicts), problems=(problem,))
    return redact_report(report, Redactor())


def _text(report: Report, *, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=100, color_system="truecolor" if color else None, force_terminal=color
    )
    console.print(RENDERERS["text"](report))
    return buffer.getvalue()


def _outputs(report: Report, tmp_path: Path) -> dict[str, str]:
    """Every format as the CLI writes it."""
    written = {}
    for name in RENDERERS:
        emit(report, name, tmp_path / name)
        written[name] = (tmp_path / name).read_text(encoding="utf-8")
    return written


def test_markdown_from_hostile_names_and_logs_stays_inert() -> None:
    markdown = render_markdown(_hostile_report())
    tokens = MarkdownIt("commonmark").parse(markdown)
    everything = [*tokens, *(child for token in tokens for child in token.children or ())]
    kinds = {token.type for token in everything}
    assert not kinds & {"html_inline", "link_open", "image"}, kinds
    # the only HTML is the report's own collapsible sections; what they quote is escaped
    blocks = [token.content for token in tokens if token.type == "html_block"]
    assert [block.split("\n")[0] for block in blocks] == ["<details>", "</details>"]
    summary = blocks[0].split("\n")[1]
    assert summary.startswith("<summary><b>Unexplained</b> — 1 test: <code>")
    assert summary.endswith("</code></summary>")
    inner = summary.removeprefix("<summary><b>Unexplained</b> — 1 test: <code>").removesuffix(
        "</code></summary>"
    )
    assert "<" not in inner and ">" not in inner and "boom" in inner
    headings = [token for token in tokens if token.type == "heading_open"]
    assert len(headings) == 3  # the report's own: title, overview, problems
    assert HOSTILE_NAME.replace("\n", " ").split("`")[0] in markdown


def test_inline_code_cannot_be_closed_or_ended_by_its_text() -> None:
    span = inline_code("a``b`\n\nc")
    assert "\n" not in span
    tokens = MarkdownIt("commonmark").parseInline(span)[0].children or []
    assert [token.type for token in tokens] == ["code_inline"]
    assert tokens[0].content == "a``b` c"


@pytest.mark.parametrize("output_format", sorted(set(RENDERERS) - {"github"}))
def test_no_workflow_command_starts_a_line_outside_the_github_format(
    output_format: str, tmp_path: Path
) -> None:
    output = _outputs(_hostile_report(), tmp_path)[output_format]
    starts = [line for line in output.splitlines() if line.lstrip().startswith("::")]
    assert not starts
    assert "##[" not in output  # the runner finds this older form anywhere in a line


def test_the_github_format_escapes_values_as_the_runner_unescapes_them() -> None:
    output = render_github(_hostile_report())
    lines = output.splitlines()
    assert len(lines) == 2  # one warning for the group, one for the problem: nothing broke out
    assert all(line.startswith("::warning title=") for line in lines)
    title, message = lines[1][len("::warning title=") :].split("::", 1)
    assert "%0A" in title and "%3A" in title and "\n" not in title
    assert "%0A" in message
    assert "%25" in render_github(redact_report(_percent_report(), Redactor()))


def _percent_report() -> Report:
    test = TestCase(uuid="p", name="p", full_name="p", status=Status.FAILED, input_label="in")
    fingerprint = Fingerprint(key="k", masked="k", line="RuntimeError: 100%0A::error::x")
    verdicts = (Verdict(test=test, fingerprint=fingerprint),)
    return Report(inputs=(), verdicts=verdicts, groups=group_verdicts(verdicts), problems=())


@pytest.mark.parametrize("output_format", ["text", "markdown", "json", "github"])
def test_terminal_control_sequences_are_stripped(output_format: str, tmp_path: Path) -> None:
    output = _outputs(_hostile_report(), tmp_path)[output_format]
    assert "\x1b" not in output and "\x07" not in output and "\x08" not in output
    assert "]8;;" not in output and "[2J" not in output
    assert "click here" in output or output_format == "github"


def test_bidirectional_overrides_are_stripped() -> None:
    assert Redactor().text("test_\u202eexe.txt\u202c and \u2066isolated\u2069") == "test_exe.txt and isolated"


def test_the_rich_renderer_keeps_its_own_styling() -> None:
    output = _text(_hostile_report(), color=True)
    assert "\x1b[" in output  # rich's colours
    assert "]8;;" not in output and "[2J" not in output and "\x07" not in output


def test_a_carriage_return_overwritten_line_shows_its_last_state(tmp_path: Path, rule_pack: RuleSet) -> None:
    progress = "\r".join(f"progress {percent}%" for percent in range(1, 400))
    log = tmp_path / "bar.log"
    log.write_bytes(f"starting\n{progress}\rRuntimeError: x\nafter\n".encode())
    report = analyze([str(log)], rules=rule_pack)
    fingerprint = report.failing[0].fingerprint
    assert fingerprint is not None and fingerprint.evidence is not None
    assert fingerprint.evidence.text == "RuntimeError: x"
    assert fingerprint.masked == "RuntimeError: x"
    for output in _outputs(report, tmp_path).values():
        assert "progress" not in output


def test_an_excerpt_line_overwritten_thousands_of_times_shows_its_last_state(
    tmp_path: Path, rule_pack: RuleSet
) -> None:
    downloads = "\r".join(f"downloading {percent / 100:.2f}%" for percent in range(10_000))
    log = tmp_path / "download.log"
    log.write_bytes(f"{downloads}\rdownload done\r\n{IMPORT_ERROR}".encode())
    cause = analyze([str(log)], rules=rule_pack).failing[0].root_cause
    assert cause is not None
    assert cause.evidence.excerpt[0].text == "download done"


IMPORT_ERROR = (
    "[BASH] ImportError: cannot import name 'AutoModelForVision2Seq' from 'transformers' (/x/y.py)\n"
)


@pytest.mark.parametrize(
    ("encoding", "mark"),
    [
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-8", b"\xef\xbb\xbf"),
        ("utf-16-le", b""),  # no mark: told by every other byte of an ASCII start being NUL
        ("utf-16-be", b""),
    ],
)
def test_logs_with_a_byte_order_mark_are_read_in_their_encoding(
    tmp_path: Path, rule_pack: RuleSet, encoding: str, mark: bytes
) -> None:
    log = tmp_path / "windows.log"
    log.write_bytes(mark + f"Collecting vllm\r\n{IMPORT_ERROR}".encode(encoding))
    report = analyze([str(log)], rules=rule_pack)
    cause = report.failing[0].root_cause
    assert cause is not None and cause.rule_id == "python.cannot-import-name"
    assert cause.evidence.line == 2
    assert "AutoModelForVision2Seq" in cause.evidence.text and "\x00" not in cause.evidence.text


def test_the_issue_reproducer_prints_no_token_in_a_github_warning(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("RuntimeError: bad credentials ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n")
    result = CliRunner().invoke(main, ["analyze", str(log), "--format", "github"])
    assert result.exit_code == 0
    assert "::warning" in result.output and "[REDACTED]" in result.output
    assert "A1b2C3d4" not in result.output


def test_errors_are_redacted_before_they_are_printed(tmp_path: Path) -> None:
    missing = tmp_path / "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8.log"
    result = CliRunner().invoke(main, ["analyze", str(missing)])
    assert result.exit_code == 1
    assert "Error:" in result.output and "A1b2C3d4" not in result.output


_MARKDOWN_TEXT = st.text(alphabet=st.sampled_from("ab1 `\n\r#<>[]()!*_|\\:-&;~=."), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(_MARKDOWN_TEXT.filter(lambda text: text.strip()))
def test_inline_code_of_any_text_is_one_code_span(text: str) -> None:
    children = MarkdownIt("commonmark").parseInline(inline_code(text))[0].children or []
    assert [token.type for token in children] == ["code_inline"]


@settings(max_examples=300, deadline=None)
@given(_MARKDOWN_TEXT)
def test_prose_of_any_text_starts_no_markup(text: str) -> None:
    tokens = MarkdownIt("commonmark").parse(f"Summary: {prose(text)}")
    kinds = {token.type for token in tokens} | {
        child.type for token in tokens for child in token.children or ()
    }
    assert kinds <= {"paragraph_open", "inline", "paragraph_close", "text", "softbreak"}, kinds
