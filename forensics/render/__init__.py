"""Renderers: pure functions of a Report. One mapping from format name to renderer."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType

from forensics.model import Report
from forensics.render.github import render_github
from forensics.render.json_report import render_json
from forensics.render.markdown import render_markdown
from forensics.render.text import render_text

Renderer = Callable[[Report], str | RenderableType]

RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "github": render_github,
}
"""Format name → renderer; the CLI's --format choices come from here."""
