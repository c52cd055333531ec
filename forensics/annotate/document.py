"""A small document model for ticket comments, rendered to Markdown (GitHub, Linear) or ADF (Jira).

The composer builds blocks once; each tracker gets its own syntax from the same content. Markdown
escapes every plain span, so text from a log cannot open a link, a heading, HTML, or a cross-reference,
and fences are longer than any backtick run inside (a log line cannot close them early).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import regex

_BACKTICKS = regex.compile(r"`+")
_MARKDOWN_SPECIAL = regex.compile(r"([\\`*_\[\]<>#|~&!])")


SpanStyle = Literal["plain", "strong", "code", "link"]


@dataclass(frozen=True, slots=True)
class Span:
    """A run of inline text: plain, strong, code, or a link."""

    text: str
    style: SpanStyle = "plain"
    href: str = ""


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading line."""

    level: int
    spans: tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A paragraph of inline spans."""

    spans: tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class BulletList:
    """A bulleted list; each item is a line of inline spans."""

    items: tuple[tuple[Span, ...], ...]


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """Preformatted lines (a log excerpt)."""

    text: str
    language: str = "text"


Block = Heading | Paragraph | BulletList | CodeBlock


def plain(text: str) -> Span:
    """Plain text."""
    return Span(text)


def strong(text: str) -> Span:
    """Bold text."""
    return Span(text, "strong")


def code(text: str) -> Span:
    """Inline code."""
    return Span(text, "code")


def link(text: str, href: str) -> Span:
    """A link; anything but http(s) stays plain text."""
    return Span(text, "link", href) if href.startswith(("https://", "http://")) else Span(text)


# Markdown


def to_markdown(blocks: Sequence[Block]) -> str:
    """The blocks as CommonMark/GFM, blank line between blocks."""
    return "\n\n".join(_markdown_block(block) for block in blocks) + "\n"


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside the text."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def _markdown_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {_markdown_inline(block.spans)}"
    if isinstance(block, Paragraph):
        return _markdown_inline(block.spans)
    if isinstance(block, BulletList):
        return "\n".join(f"- {_markdown_inline(item)}" for item in block.items)
    fence = fence_for(block.text)
    return f"{fence}{block.language}\n{block.text}\n{fence}"


def _markdown_inline(spans: Sequence[Span]) -> str:
    return "".join(_markdown_span(span) for span in spans)


def _markdown_span(span: Span) -> str:
    if span.style == "code":
        return _inline_code(span.text)
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", span.text)
    if span.style == "strong":
        return f"**{escaped}**"
    if span.style == "link":
        return f"[{escaped}]({quote(span.href, safe=':/?#=&%+,;@.~-_')})"
    return escaped


def _inline_code(text: str) -> str:
    text = " ".join(text.splitlines())  # a blank line would end the code span and free the rest
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


# Atlassian Document Format


def to_adf(blocks: Sequence[Block]) -> list[dict[str, Any]]:
    """The blocks as ADF block nodes (the `content` of a `doc`)."""
    return [_adf_block(block) for block in blocks]


def adf_document(content: list[dict[str, Any]]) -> dict[str, Any]:
    """An ADF `doc` around block nodes."""
    return {"type": "doc", "version": 1, "content": content}


def _adf_block(block: Block) -> dict[str, Any]:
    if isinstance(block, Heading):
        return {"type": "heading", "attrs": {"level": block.level}, "content": _adf_inline(block.spans)}
    if isinstance(block, Paragraph):
        return {"type": "paragraph", "content": _adf_inline(block.spans)}
    if isinstance(block, BulletList):
        return {
            "type": "bulletList",
            "content": [
                {"type": "listItem", "content": [{"type": "paragraph", "content": _adf_inline(item)}]}
                for item in block.items
            ],
        }
    content = [{"type": "text", "text": block.text}] if block.text else []
    return {"type": "codeBlock", "attrs": {"language": block.language}, "content": content}


def _adf_inline(spans: Sequence[Span]) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = []
    for span in spans:
        if not span.text:
            continue  # ADF rejects empty text nodes
        node: dict[str, Any] = {"type": "text", "text": span.text}
        if span.style == "strong":
            node["marks"] = [{"type": "strong"}]
        elif span.style == "code":
            node["marks"] = [{"type": "code"}]
        elif span.style == "link":
            node["marks"] = [{"type": "link", "attrs": {"href": span.href}}]
        nodes.append(node)
    return nodes
