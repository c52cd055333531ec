"""Markdown text from logs, results and names: code spans and fences a log cannot close, prose that starts
no markup. Every Markdown output (the step summary and its "since the last run" part) writes through these."""

from __future__ import annotations

import regex

__all__ = ["fence_for", "inline_code", "plain", "prose"]

_BACKTICKS = regex.compile(r"`+")
_MARKDOWN_SPECIAL = regex.compile(r"([\\`*_\[\]<>|#])")
# In prose from logs and results: what could start markup (HTML, links, images, emphasis, tables, headings)
# (an underscore only where it could open or close emphasis: `HF_HUB_OFFLINE` stays as written)
_PROSE_SPECIAL = regex.compile(r"([\\`*\[\]<>|#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_LINE_BREAKS = regex.compile(r"\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]\s*")


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside the text, so a log cannot close it early."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def inline_code(text: str) -> str:
    """Inline code that survives backticks and line breaks in the text (a blank line would end it)."""
    text = _LINE_BREAKS.sub(" ", text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


def prose(text: str) -> str:
    """Text from a log or a result (a summary's values, a message, a step name) inside a Markdown sentence:
    one line, and nothing in it starts markup."""
    return _PROSE_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def plain(text: str) -> str:
    """Text from elsewhere (a job or workflow name) shown as itself, not as Markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))
