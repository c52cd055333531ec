"""Summary templates: `{name}`, `{name:.2f}` and `{name|fallback}`, filled from a finding's values.

Own parser rather than `str.format`, whose `{x.__class__}` field syntax a rule file must not reach. A
spec's width and precision are capped at MAX_SPEC_NUMBER: `{v:>2000000000}` would build a 2 GB string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from forensics.lazy_regex import LazyRegex
from forensics.model import Value

_PLACEHOLDER = LazyRegex(
    r"\{\{|\}\}|\{(?P<name>[A-Za-z_]\w*)(?::(?P<spec>[^{}|]*))?(?:\|(?P<fallback>[^{}]*))?\}"
)
MISSING = "?"
MAX_SPEC_NUMBER = 100
_SPEC_NUMBER = LazyRegex(r"\d+")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One `{name:spec|fallback}` slot."""

    name: str
    spec: str
    fallback: str | None


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed summary template."""

    source: str
    parts: tuple[str | Placeholder, ...]

    @property
    def names(self) -> frozenset[str]:
        """Every value name the template refers to."""
        return frozenset(part.name for part in self.parts if isinstance(part, Placeholder))

    @classmethod
    def parse(cls, source: str) -> Template:
        """Split the text into literal parts and placeholders; raise ValueError on a stray brace."""
        parts: list[str | Placeholder] = []
        position = 0
        for match in _PLACEHOLDER.finditer(source):
            literal = source[position : match.start()]
            _reject_stray_braces(literal)
            parts.append(literal)
            token = match.group(0)
            if token in ("{{", "}}"):
                parts.append(token[0])
            else:
                spec = match["spec"] or ""
                if not _spec_fits(spec):
                    raise ValueError(
                        f"format spec {spec[:30]!r} of {{{match['name']}}}: widths and precisions go up to "
                        f"{MAX_SPEC_NUMBER}"
                    )
                parts.append(Placeholder(match["name"], spec, match["fallback"]))
            position = match.end()
        tail = source[position:]
        _reject_stray_braces(tail)
        parts.append(tail)
        return cls(source=source, parts=tuple(part for part in parts if part != ""))

    def render(self, values: Mapping[str, Value]) -> str:
        """Fill every placeholder; a missing value prints its fallback, or `?`."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = values.get(part.name)
            if value is None or value == "":
                out.append(part.fallback if part.fallback is not None else MISSING)
            else:
                out.append(format_value(value, part.spec))
        return "".join(out)


def format_value(value: Value, spec: str = "") -> str:
    """Numbers without float noise (0.33, not 0.32999999999999829); specs applied when they fit."""
    if spec and _spec_fits(spec):
        try:
            return format(value, spec)
        except (ValueError, TypeError):
            pass
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        text = f"{value:.4f}".rstrip("0").rstrip(".")
        return text if text not in ("-0", "") else "0"
    return str(value)


def _spec_fits(spec: str) -> bool:
    """Whether every width and precision in the spec is at most MAX_SPEC_NUMBER."""
    return all(len(number) <= 3 and int(number) <= MAX_SPEC_NUMBER for number in _SPEC_NUMBER.findall(spec))


def _reject_stray_braces(literal: str) -> None:
    if "{" in literal or "}" in literal:
        raise ValueError(f"unbalanced brace in {literal!r} (write {{{{ or }}}} for a literal brace)")
