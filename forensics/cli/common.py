"""What every `ci-forensics` command shares: error translation, the report options, output, exit codes."""

from __future__ import annotations

import errno
import functools
import io
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from forensics.engine.scanner import ScanLimits
from forensics.errors import ConfigError, ForensicsError
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS
from forensics.lazy_regex import LazyRegex
from forensics.model import Report
from forensics.render import RENDERERS
from forensics.render.common import plural
from forensics.render.escape import defuse_workflow_commands
from forensics.report.redact import Redactor, redact_model, redact_report
from forensics.report.session import AnalyzeOptions
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from forensics.usecases.exit_code import ExitCode, exit_code

if TYPE_CHECKING:  # rich is imported where a report is printed: `--format json --output F` never loads it
    from rich.console import Console, RenderableType

    from forensics.store.since_last_run import SinceLastRun

EXIT_ERROR = ExitCode.ERROR
EXIT_FAIL_ON = ExitCode.CHECK_FAILED
EXIT_NOTHING_READ = ExitCode.NOTHING_READ  # inputs were given, but not one test could be read
FAIL_ON_CHOICES = ("unexplained", "failures", "problems")
_SIZE = LazyRegex(r"(?i)\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*")
_F = TypeVar("_F", bound=Callable[..., Any])
MINIMUM_WIDTH = 80
_UNWRAPPED = 100_000  # "no limit" for measuring: a rich Console needs some width
_PROBLEMS_SHOWN = 10
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EPIPE, errno.EDQUOT, errno.EFBIG})


def translate_errors(command: _F) -> _F:
    """The one place that turns the error hierarchy into `Error:`/`Hint:` and exit code 1."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ForensicsError as err:
            show_error(err)
            sys.exit(EXIT_ERROR)
        except OSError as err:
            if err.errno not in _WRITE_FAILURES:
                raise
            silence_stdout()  # stdout is the usual victim (`> /dev/full`, a closed pipe)
            show_error(
                ConfigError(
                    f"a write failed: {err.strerror or err}",
                    hint="free space where the output goes (stdout, --output, the store), or keep the pipe open",
                )
            )
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def show_error(err: ForensicsError) -> None:
    """`Error: …` and `Hint: …` on stderr."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    redactor = Redactor.from_environment(os.environ)  # a message may quote a URL, a header or a log line
    console.out(f"Error: {redactor.text(err.message)}", highlight=False)
    if err.hint:
        console.out(f"Hint: {redactor.text(err.hint)}", highlight=False)


def size_in_bytes(value: str) -> int | None:
    """`512MiB`, `2G`, `100k` → bytes; None for text that is not a size."""
    match = _SIZE.fullmatch(value)
    if match is None:
        return None
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
    max_result_size: int
    summary_output: Path | None
    summary_max_bytes: int

    def rules(self) -> RuleSet:
        """The shipped pack plus the user's rule files."""
        return load_rules(self.rule_paths)

    def analyze_options(self, *, read_evidence: bool) -> AnalyzeOptions:
        """Options for `analyze()`; the redactor learns this environment's secret values. `read_evidence`
        (with --record) cuts the evidence windows and reads the GPU facts the store keeps."""
        return AnalyzeOptions(
            read_evidence=read_evidence,
            log_attachments=self.log_attachments or DEFAULT_LOG_ATTACHMENTS,
            limits=ScanLimits(max_bytes=self.max_log_size),
            max_result_bytes=self.max_result_size,
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
        emit(report, self.output_format, self.output, summary_max_bytes=self.summary_max_bytes)

    def write_summary(self, report: Report, since: SinceLastRun | None) -> None:
        """Write the Markdown step summary to --summary-output, with what changed since the last run."""
        from forensics.render.markdown import render_markdown

        assert self.summary_output is not None
        redactor = Redactor.from_environment(os.environ)
        markdown = render_markdown(
            redact_report(report, redactor),
            max_bytes=self.summary_max_bytes,
            since=redact_model(since, redactor),
        )
        write_text(self.summary_output, markdown)

    def exit_code(self, report: Report) -> ExitCode:
        """5 when nothing could be read (said on stderr), 3 when a --fail-on condition holds, else 0."""
        empty = nothing_read(report)
        if empty:
            say_nothing_read(report)
        return exit_code(nothing_read=empty, fail_on_met=not empty and should_fail(report, self.fail_on))


def nothing_read(report: Report) -> bool:
    """Inputs were given and read, but not one test came out of them: never a silent pass."""
    return bool(report.inputs) and not report.verdicts


def say_nothing_read(report: Report) -> None:
    """`Error: no test could be read …` naming the first problems, on stderr."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    labels = ", ".join(f"'{item.label}'" for item in report.inputs[:5])
    more = f" and {len(report.inputs) - 5} more" if len(report.inputs) > 5 else ""
    console.out(f"Error: no test could be read from {labels}{more}", highlight=False)
    for problem in report.problems[:_PROBLEMS_SHOWN]:
        console.out(f"  {problem.object}: {problem.message}", highlight=False)
    if len(report.problems) > _PROBLEMS_SHOWN:
        console.out(f"  … and {len(report.problems) - _PROBLEMS_SHOWN} more problems (see the report)")
    console.out(
        "Hint: download the artifact again, or check that the test step wrote and uploaded its results",
        highlight=False,
    )


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


def emit(
    report: Report, output_format: str, output: Path | None, *, summary_max_bytes: int | None = None
) -> None:
    """Render the report in one format to a file or stdout, redacted once more (a saved report may be older).

    `summary_max_bytes` caps the Markdown format (a step summary); None keeps the renderer's default."""
    renderer = RENDERERS[output_format]
    if output_format == "markdown" and summary_max_bytes is not None:
        from forensics.render.markdown import render_markdown

        renderer = functools.partial(render_markdown, max_bytes=summary_max_bytes)
    rendered = renderer(redact_report(report, Redactor.from_environment(os.environ)))
    if output is None:
        from rich.console import Console

        try:
            console = Console(highlight=False)
            if isinstance(rendered, str):
                console.out(rendered, end="", highlight=False)
            else:  # rendered with this terminal's colours and width, then kept from reading as workflow commands
                with console.capture() as captured:
                    print_renderable(rendered, console=console)
                sys.stdout.write(defuse_workflow_commands(captured.get()))
            sys.stdout.flush()
        except OSError as err:  # stdout on a full disk (/dev/full), a closed pipe
            silence_stdout()
            raise ConfigError(
                f"cannot write the report to standard output: {err.strerror or err}",
                hint="write it to a file with --output, or free space where stdout goes",
            ) from err
        return
    if not isinstance(rendered, str):
        from rich.console import Console

        buffer = io.StringIO()
        print_renderable(rendered, console=Console(file=buffer, no_color=True, highlight=False), minimum=120)
        rendered = defuse_workflow_commands(buffer.getvalue())
    write_text(output, rendered)


def print_renderable(
    renderable: RenderableType, *, console: Console | None = None, minimum: int = MINIMUM_WIDTH
) -> None:
    """Print a rich renderable: a terminal's own width; elsewhere COLUMNS, or wide enough to wrap nothing.

    A CI log is not a terminal: wrapped at 80 columns, log lines, links and box titles break. There each
    part (a box, a line) is printed as wide as its own longest line, never narrower than `minimum`.
    """
    from rich.console import Console
    from rich.console import Group as RichGroup

    console = console or Console(highlight=False)
    if console.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        console.print(renderable)
        return
    for part in renderable.renderables if isinstance(renderable, RichGroup) else [renderable]:
        console.width = natural_width(console, part, minimum=minimum)
        console.print(part)


def natural_width(console: Console, renderable: RenderableType, *, minimum: int = MINIMUM_WIDTH) -> int:
    """The width at which none of the renderable's lines wraps (a rule: its title's)."""
    from rich.cells import cell_len
    from rich.measure import Measurement
    from rich.rule import Rule
    from rich.text import Text

    if isinstance(renderable, Rule):
        title = renderable.title
        return max(minimum, (title.cell_len if isinstance(title, Text) else cell_len(title)) + 8)
    if not isinstance(renderable, str) and not hasattr(renderable, "__rich_measure__"):
        return minimum
    options = console.options.update_width(_UNWRAPPED)
    return max(minimum, Measurement.get(console, options, renderable).maximum)


def silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush at exit cannot fail a second time."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # stdout without a file descriptor (a test's captured stream)
        pass


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
    """Whether a --fail-on condition holds for this report; each one that holds is named on stderr."""
    reasons = fail_on_reasons(report, fail_on)
    if reasons:
        import click  # only when a condition holds: a plain `analyze` runs without click (forensics/cli/start.py)

        for reason in reasons:
            click.echo(reason, err=True)
    return bool(reasons)


def fail_on_reasons(report: Report, fail_on: tuple[str, ...]) -> tuple[str, ...]:
    """One line per --fail-on condition that holds: which one, and the count that tripped it."""
    failing = len(report.failing)
    counts = {
        "unexplained": (
            report.unexplained_count,
            f"{report.unexplained_count} of {plural(failing, 'failing test')} unexplained",
        ),
        "failures": (failing, plural(failing, "failing test")),
        "problems": (len(report.problems), plural(len(report.problems), "problem")),
    }
    return tuple(
        f"--fail-on {condition} tripped: {wording}"
        for condition, (count, wording) in counts.items()
        if condition in fail_on and count > 0
    )
