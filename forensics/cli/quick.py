"""The common forms of `ci-forensics analyze …` parsed without click (~50 M instructions of a one-line run).

`parse_analyze` reads `analyze PATH… [OPTION VALUE…]` exactly as click's parser would for the options below and
gives the values click would pass to the command; anything it is not sure of answers None, and the program hands
the whole command line to click (`forensics/cli/start.py`), so usage errors, `--help` and every rarer form
(attached short values, `--`, a repeated single option, a value that looks like an option, a path click would
refuse, the store's environment variable, shell completion) are click's own. The declarations click uses are in
`forensics/cli/options.py`; they take their defaults from `DEFAULTS` here, and tests/test_quick_start.py holds the
two equal option by option (names, which parameter, repeatable or not, flag or value) and compares both parsers'
results on every option.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, TypeVar

from forensics.cli.common import FAIL_ON_CHOICES, ReportSettings, size_in_bytes
from forensics.cli.store_settings import STORE_VARIABLE, StoreSettings
from forensics.model import RETURNING_AFTER_RUNS
from forensics.render import RENDERERS
from forensics.report.session import default_jobs

DEFAULTS: Final = {
    "output_format": "text",
    "max_log_size": "512MiB",
    "max_result_size": "16MiB",
    "summary_max_bytes": "900KiB",
    "returning_after": RETURNING_AFTER_RUNS,
}
"""The defaults of `analyze`'s options that have one (click's declarations read them from here)."""

# How an option's value is read; each is what the click type of its declaration accepts, or less.
FLAG: Final = "flag"  # is_flag=True: no value
TEXT: Final = "text"  # a str taken as given
PATH: Final = "path"  # click.Path(path_type=Path)
FILE: Final = "file"  # click.Path(dir_okay=False, path_type=Path)
FORMAT: Final = "format"  # click.Choice(sorted(RENDERERS))
FAIL_ON: Final = "fail-on"  # click.Choice(FAIL_ON_CHOICES)
JOBS: Final = "jobs"  # click.IntRange(1, 64)
AT_LEAST_ONE: Final = "at-least-one"  # click.IntRange(min=1)
SIZE: Final = "size"  # a str with the parse_size callback

OPTIONS: Final = {
    "--demo": ("demo", FLAG, False),
    "--rules": ("rule_paths", PATH, True),
    "--log-attachment": ("log_attachments", TEXT, True),
    "--format": ("output_format", FORMAT, False),
    "--output": ("output", FILE, False),
    "-o": ("output", FILE, False),
    "--fail-on": ("fail_on", FAIL_ON, True),
    "--jobs": ("jobs", JOBS, False),
    "-j": ("jobs", JOBS, False),
    "--max-log-size": ("max_log_size", SIZE, False),
    "--max-result-size": ("max_result_size", SIZE, False),
    "--summary-output": ("summary_output", FILE, False),
    "--summary-max-bytes": ("summary_max_bytes", SIZE, False),
    "--record": ("record", FLAG, False),
    "--store": ("store_location", TEXT, False),
    "--returning-after": ("returning_after", AT_LEAST_ONE, False),
}
"""Each option string of `analyze` → (the parameter it fills, how its value is read, whether it repeats)."""


def parse_analyze(
    argv: Sequence[str], environ: Mapping[str, str]
) -> tuple[tuple[str, ...], bool, ReportSettings, StoreSettings] | None:
    """`analyze`'s (paths, demo, settings, store settings) as click would give them for `argv` (the arguments
    after the program's name); None when `argv` is not a form this parser is sure of: then click parses it."""
    if not argv or argv[0] != "analyze" or os.name == "nt" or STORE_VARIABLE in environ:
        return None  # Windows: click expands wildcards in the arguments; the store's variable: click reads it
    if any(name.endswith("_COMPLETE") for name in environ):  # maybe a shell completion request for click
        return None
    paths: list[str] = []
    flags: set[str] = set()
    texts: dict[str, list[str]] = {}
    numbers: dict[str, list[int]] = {}
    files: dict[str, list[Path]] = {}
    tokens = argv[1:]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "-" or not token.startswith("-"):
            paths.append(token)
            continue
        name, equals, value = token.partition("=") if token.startswith("--") else (token, "", "")
        spec = OPTIONS.get(name)
        if spec is None:
            return None  # --help, --, an unknown or misspelt option, -oFILE, -j4: click's to parse or refuse
        parameter, kind, repeatable = spec
        if kind == FLAG:
            if equals or parameter in flags:
                return None
            flags.add(parameter)
            continue
        if not equals:
            if index == len(tokens) or tokens[index].startswith("-"):
                return None  # no value, or one that looks like an option
            value = tokens[index]
            index += 1
        if kind in (PATH, FILE):
            path = _path(value, directory_allowed=kind == PATH)
            added = path is not None and _add(files, parameter, path, repeatable=repeatable)
        elif kind in (SIZE, JOBS, AT_LEAST_ONE):
            number = _number(kind, value)
            added = number is not None and _add(numbers, parameter, number, repeatable=repeatable)
        else:
            choices = {FORMAT: RENDERERS, FAIL_ON: FAIL_ON_CHOICES}.get(kind)
            added = (choices is None or value in choices) and _add(
                texts, parameter, value, repeatable=repeatable
            )
        if not added:
            return None
    if not paths and "demo" not in flags:
        return None  # click's usage error
    sizes = {name: _number(SIZE, str(DEFAULTS[name])) for name in _SIZES}
    settings = ReportSettings(
        rule_paths=tuple(files.get("rule_paths", ())),
        log_attachments=tuple(texts.get("log_attachments", ())),
        output_format=texts.get("output_format", [str(DEFAULTS["output_format"])])[0],
        output=files.get("output", [None])[0],
        fail_on=tuple(texts.get("fail_on", ())),
        jobs=numbers.get("jobs", [default_jobs()])[0],
        max_log_size=numbers.get("max_log_size", [sizes["max_log_size"] or 0])[0],
        max_result_size=numbers.get("max_result_size", [sizes["max_result_size"] or 0])[0],
        summary_output=files.get("summary_output", [None])[0],
        summary_max_bytes=numbers.get("summary_max_bytes", [sizes["summary_max_bytes"] or 0])[0],
    )
    store = StoreSettings(
        record="record" in flags,
        location=texts.get("store_location", [None])[0],
        returning_after=numbers.get("returning_after", [RETURNING_AFTER_RUNS])[0],
    )
    return tuple(paths), "demo" in flags, settings, store


_SIZES = ("max_log_size", "max_result_size", "summary_max_bytes")
_T = TypeVar("_T")


def _add(values: dict[str, list[_T]], parameter: str, value: _T, *, repeatable: bool) -> bool:
    """Note an option's value; False for a second value of a single option (click keeps the last: left to it)."""
    seen = values.setdefault(parameter, [])
    if seen and not repeatable:
        return False
    seen.append(value)
    return True


def _number(kind: str, value: str) -> int | None:
    """What click's IntRange (or parse_size) makes of `value`; None where click might refuse or read it otherwise."""
    if kind == SIZE:
        return size_in_bytes(value)
    if not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number >= 1 and (kind == AT_LEAST_ONE or number <= 64) else None


def _path(value: str, *, directory_allowed: bool) -> Path | None:
    """click.Path's checks without `exists`: a path that exists must be readable (and not a folder for FILE)."""
    try:
        mode = os.stat(value).st_mode
    except OSError:
        return Path(value)
    except ValueError:  # a NUL in the path: click's own error
        return None
    if (not directory_allowed and stat.S_ISDIR(mode)) or not os.access(value, os.R_OK):
        return None
    return Path(value)


def run_analyze(
    paths: tuple[str, ...], *, demo: bool, settings: ReportSettings, store_settings: StoreSettings
) -> None:
    """`analyze`'s work once its options are read (by click or `parse_analyze`): the report, then its follow-up."""
    from forensics.cli.followups import finish_report
    from forensics.report.build import analyze

    inputs = list(paths)
    if demo:
        from forensics.samples import SAMPLE

        inputs.append(str(SAMPLE))
    options = settings.analyze_options(read_evidence=store_settings.record)
    report = analyze(inputs, rules=settings.rules(), options=options)
    finish_report(report, settings=settings, store=store_settings, redactor=options.redactor)


def run_quick(argv: Sequence[str]) -> bool:
    """Run `analyze` for `argv` without click when `parse_analyze` is sure of it, exiting as click's standalone
    mode would; False when it is not sure, and nothing was done."""
    parsed = parse_analyze(argv, os.environ)
    if parsed is None:
        return False
    from forensics.cli import command_started
    from forensics.cli.common import silence_stdout, translate_errors

    command_started()
    paths, demo, settings, store = parsed
    try:
        translate_errors(run_analyze)(paths, demo=demo, settings=settings, store_settings=store)
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write(
            "\nAborted!\n"
        )  # as click's standalone mode: a blank line after ^C, "Aborted!", exit 1
        sys.stderr.flush()
        sys.exit(1)
    except OSError as err:
        if err.errno != errno.EPIPE:
            raise
        silence_stdout()  # click's standalone mode: no traceback for a closed pipe, exit 1
        sys.exit(1)
    return True
