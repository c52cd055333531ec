"""Keep text printed on a CI runner from being read as workflow commands (outside `--format github`).

The Actions runner reads every line a step prints: a line that starts with `::` (after leading whitespace)
is a workflow command (`::warning::`, `::add-mask::`, `::stop-commands::`), and the older form `##[command]`
is recognised anywhere in a line. A log excerpt or a test name in a Markdown report must not become one.
"""

from __future__ import annotations

from forensics.lazy_regex import LazyRegex

_LINE_START_COMMAND = LazyRegex(r"(?m)^([ \t]*)(?=::)")


def defuse_workflow_commands(text: str) -> str:
    """The text with a backslash before a line-start `::` and inside every `##[`: Markdown shows the same
    characters, the runner sees no command."""
    # functions and `str.replace`, not templates (`r"\1\\"`): `regex` compiles a template with its Python parser,
    # which a run that found its patterns compiled (forensics/regex_code.py) would import only for this
    text = _LINE_START_COMMAND.sub(lambda match: match.group(1) + "\\", text)
    return text.replace("##[", "##\\[")


def defuse_json_commands(text: str) -> str:
    """Serialised JSON with `##[` written as `##\\u005b`: the same string to a parser, no command to the runner
    (`##` only occurs inside JSON strings, where `\\u005b` is a valid escape)."""
    return text.replace("##[", "##\\u005b")
