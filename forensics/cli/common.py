"""What every `ci-forensics` command shares: error translation, the report options, output, exit codes."""

from __future__ import annotations

import functools
import io
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
import regex
from rich.console import Console

from forensics.engine.scanner import ScanLimits
from forensics.errors import ConfigError, ForensicsError
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS
from forensics.model import Report
from forensics.render import RENDERERS
from forensics.render.escape import defuse_workflow_commands
from forensics.report.redact import Redactor, redact_report
from forensics.report.session import AnalyzeOptions, default_jobs
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet

EXIT_ERROR = 1
EXIT_FAIL_ON = 3
FAIL_ON_CHOICES = ("unexplained", "failures", "problems")
_SIZE = regex.compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*")
_F = TypeVar("_F", bound=Callable[..., Any])


def translate_errors(command: _F) -> _F:
    """The one place that turns the error hierarchy into `Error:`/`Hint:` and exit code 1."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ForensicsError as err:
            show_error(err)
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def show_error(err: ForensicsError) -> None:
    """`Error: …` and `Hint: …` on stderr."""
    console = Console(stderr=True, highlight=False)
    redactor = Redactor.from_environment(os.environ)  # a message may quote a URL, a header or a log line
    console.out(f"Error: {redactor.text(err.message)}", highlight=False)
    if err.hint:
        console.out(f"Hint: {redactor.text(err.hint)}", highlight=False)


def parse_size(_ctx: click.Context, _param: click.Parameter, value: str) -> int:
    """`512MiB`, `2G`, `100k` → bytes."""
    match = _SIZE.fullmatch(value)
    if match is None:
        raise click.BadParameter(f"{value!r} is not a size like 512MiB or 2G")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[match[2].lower()]
    return int(float(match[1]) * scale)


@dataclass(frozen=True, slots=True)
class ReportSettings:
    """The report options `analyze` and `fetch` share, as the user gave them."""

    rule_paths: tuple[Path, ...]
    log_attachments: tuple[str, ...]
    output_format: str
    output: Path | None
    fail_on: tuple[str, ...]
    jobs: int
    max_log_size: int

    def rules(self) -> RuleSet:
        """The shipped pack plus the user's rule files."""
        return load_rules(self.rule_paths)

    def analyze_options(self) -> AnalyzeOptions:
        """Options for `analyze()`; the redactor learns this environment's secret values."""
        return AnalyzeOptions(
            log_attachments=self.log_attachments or DEFAULT_LOG_ATTACHMENTS,
            limits=ScanLimits(max_bytes=self.max_log_size),
            jobs=self.jobs,
            redactor=Redactor.from_environment(os.environ),
        )

    def finish(self, report: Report) -> None:
        """Write the report, then exit 3 when a --fail-on condition holds."""
        self.emit(report)
        if code := self.exit_code(report):
            sys.exit(code)

    def emit(self, report: Report) -> None:
        """Write the report in the chosen format to --output or stdout."""
        emit(report, self.output_format, self.output)

    def exit_code(self, report: Report) -> int:
        """3 when a --fail-on condition holds, else 0."""
        return EXIT_FAIL_ON if should_fail(report, self.fail_on) else 0


def option_group(
    options: Sequence[Callable[[Any], Any]],
    *,
    into: str,
    build: Callable[..., Any],
    keep: Sequence[str] = (),
) -> Callable[[_F], _F]:
    """A decorator adding `options`; their values reach the command as one object, `into=build(**values)`.

    `keep` names values of other options that `build` also reads and the command still receives.
    """

    def decorate(command: _F) -> _F:
        decorated: Any = command
        for option in reversed(options):
            decorated = option(decorated)
        names = [param.name for param in decorated.__click_params__[-len(options) :]]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            values.update({name: kwargs.get(name) for name in keep})
            return command(*args, **{into: build(**values)}, **kwargs)

        wrapper.__click_params__ = decorated.__click_params__  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


_REPORT_OPTIONS = (
    click.option(
        "--rules",
        "rule_paths",
        multiple=True,
        type=click.Path(path_type=Path),
        help="Extra rule file or folder; a rule with a shipped id replaces it. Repeatable.",
    ),
    click.option(
        "--log-attachment",
        "log_attachments",
        multiple=True,
        metavar="GLOB",
        help="Which attachments are logs, in order of preference "
        f"(default: {', '.join(DEFAULT_LOG_ATTACHMENTS)}). Repeatable.",
    ),
    click.option(
        "--format",
        "output_format",
        type=click.Choice(sorted(RENDERERS)),
        default="text",
        show_default=True,
    ),
    click.option(
        "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
    ),
    click.option(
        "--fail-on",
        "fail_on",
        multiple=True,
        type=click.Choice(FAIL_ON_CHOICES),
        help="Exit 3 when the report has unexplained failures / any failure / problems. Repeatable.",
    ),
    click.option(
        "--jobs",
        "-j",
        type=click.IntRange(1, 64),
        default=default_jobs(),
        show_default=True,
        help="Worker processes for scanning logs (used when there is enough to scan).",
    ),
    click.option(
        "--max-log-size",
        default="512MiB",
        show_default=True,
        callback=parse_size,
        help="Analyse at most this much of each log.",
    ),
)


report_options = option_group(_REPORT_OPTIONS, into="settings", build=ReportSettings)
"""Add the shared report options; the command receives them as one `settings: ReportSettings`."""


def emit(report: Report, output_format: str, output: Path | None) -> None:
    """Render the report in one format to a file or stdout, redacted once more (a saved report may be older)."""
    rendered = RENDERERS[output_format](redact_report(report, Redactor.from_environment(os.environ)))
    if output is None:
        console = Console(highlight=False)
        if isinstance(rendered, str):
            console.out(rendered, end="", highlight=False)
        else:  # rendered with this terminal's colours and width, then kept from reading as workflow commands
            with console.capture() as captured:
                console.print(rendered)
            sys.stdout.write(defuse_workflow_commands(captured.get()))
        return
    if not isinstance(rendered, str):
        buffer = io.StringIO()
        Console(file=buffer, width=120, no_color=True, highlight=False).print(rendered)
        rendered = defuse_workflow_commands(buffer.getvalue())
    write_text(output, rendered)


def write_text(path: Path, text: str) -> None:
    """Write an output file; a path that cannot be written is a ConfigError naming it."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise ConfigError(
            f"cannot write '{path}': {err.strerror or err}",
            hint="give a file in a folder that exists and you can write to",
        ) from err


def should_fail(report: Report, fail_on: tuple[str, ...]) -> bool:
    """Whether a --fail-on condition holds for this report."""
    return (
        ("unexplained" in fail_on and report.unexplained_count > 0)
        or ("failures" in fail_on and len(report.failing) > 0)
        or ("problems" in fail_on and len(report.problems) > 0)
    )
