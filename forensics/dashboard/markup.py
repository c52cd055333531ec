"""HTML built from escaped parts: data is text unless it was made by `tag`, so no log line can become markup."""

from __future__ import annotations

import html
from collections.abc import Iterable
from urllib.parse import urlsplit

_VOID = frozenset({"meta", "link", "br", "hr", "img", "input", "col", "wbr"})
_SAFE_SCHEMES = frozenset({"http", "https"})


class Html(str):
    """Markup that is already safe: inserted as is, never escaped again."""

    __slots__ = ()


Content = Html | str | int | float | None | Iterable["Content"]
"""What a tag holds: markup, text (escaped), numbers, nothing, or a sequence of those."""

Attribute = str | int | float | bool | None


def escape(value: object) -> Html:
    """Text as HTML text (quotes too, so it is safe in attributes)."""
    if isinstance(value, Html):
        return value
    return Html(html.escape(str(value), quote=True))


def render(content: Content) -> Html:
    """Content as markup: text escaped, markup kept, sequences joined, None dropped."""
    if content is None:
        return Html("")
    if isinstance(content, Html):
        return content
    if isinstance(content, str | int | float):
        return escape(content)
    return Html("".join(render(part) for part in content))


def tag(element: str, /, *children: Content, **attributes: Attribute) -> Html:
    """`<element attributes>children</element>`; `class_="x"` → `class`, `aria_sort` → `aria-sort`, True → bare."""
    parts = [element]
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        attribute = key.rstrip("_").replace("_", "-")
        parts.append(attribute if value is True else f'{attribute}="{escape(value)}"')
    opening = f"<{' '.join(parts)}>"
    if element in _VOID:
        return Html(opening)
    return Html(f"{opening}{render(children)}</{element}>")


def external_url(url: str) -> str | None:
    """The URL when it is a plain http(s) link, else None: a `javascript:` ticket link must not be clickable."""
    if not url or any(character.isspace() or ord(character) < 0x20 for character in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in _SAFE_SCHEMES and parts.netloc else None


def link(text: Content, url: str, **attributes: Attribute) -> Html:
    """An external link when the URL is safe, else the text alone."""
    target = external_url(url)
    if target is None:
        return render(text)
    return tag("a", text, href=target, rel="noreferrer", **attributes)
