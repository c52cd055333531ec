"""Renderers: pure functions of a Report. One mapping from format name to renderer."""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console, RenderableType

from forensics.model import Report
from forensics.render.github import render_github
from forensics.render.json_report import render_json
from forensics.render.markdown import render_markdown
from forensics.render.text import render_text

__all__ = ["RENDERERS", "Renderer", "render_report"]

Renderer = Callable[[Report], str | RenderableType]

RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "github": render_github,
}
"""Format name → renderer; the CLI's --format choices come from here."""


def render_report(report: Report, output_format: str = "text", *, width: int = 120) -> str:
    """The report as text in one format (`text`, `json`, `markdown`, `github`), as the CLI writes it to a file.

    The text format is a rich renderable; it is laid out `width` columns wide, without colour.
    """
    try:
        renderer = RENDERERS[output_format]
    except KeyError:
        raise ValueError(f"unknown format {output_format!r}: one of {', '.join(sorted(RENDERERS))}") from None
    rendered = renderer(report)
    if isinstance(rendered, str):
        return rendered
    buffer = io.StringIO()
    Console(file=buffer, width=width, no_color=True, highlight=False).print(rendered)
    return buffer.getvalue()
