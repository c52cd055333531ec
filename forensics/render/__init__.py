"""Renderers: pure functions of a Report. One mapping from format name to renderer."""

from __future__ import annotations

import importlib
import io
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeAlias

from forensics.model import Report

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["RENDERERS", "Renderer", "render_report"]

Renderer: TypeAlias = "Callable[[Report], str | RenderableType]"


class _Renderers(Mapping[str, Renderer]):
    """Format name → renderer, each module imported when its format is first asked for: writing JSON never
    loads the terminal library, and the CLI lists the formats without importing any of them."""

    def __init__(self, targets: Mapping[str, str]) -> None:
        self._targets = dict(targets)  # format name → "module:function"
        self._loaded: dict[str, Renderer] = {}

    def __getitem__(self, name: str) -> Renderer:
        if name not in self._loaded:
            module, function = self._targets[name].split(":")
            self._loaded[name] = getattr(importlib.import_module(module), function)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)


RENDERERS: Mapping[str, Renderer] = _Renderers(
    {
        "text": "forensics.render.text:render_text",
        "json": "forensics.render.json_report:render_json",
        "markdown": "forensics.render.markdown:render_markdown",
        "github": "forensics.render.github:render_github",
    }
)
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
    from rich.console import Console  # only the text format needs the terminal library

    buffer = io.StringIO()
    Console(file=buffer, width=width, no_color=True, highlight=False).print(rendered)
    return buffer.getvalue()
