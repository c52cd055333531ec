"""`rules suggest`: draft a rule for each group of unexplained failures in a saved JSON report.

The draft's pattern is the group's likely cause (schema 1.2), else its last error line, masked: literal text escaped, each masked part (numbers,
hex, paths, …) turned into a bounded named capture, so the draft matches the real line and its siblings.
Every draft is checked against its own example before it is offered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from forensics.engine.fingerprint import mask
from forensics.engine.normalize import normalize_line
from forensics.rules.loader import parse_rules
from forensics.rules.model import RuleProblem
from forensics.usecases.selftest import check_rule

_PLACEHOLDER = regex.compile(r"<(num|hex|uuid|path|url|ip|duration|port)>")
_CAPTURE = {
    "num": r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?",
    "hex": r"0x[0-9a-fA-F]{1,32}|[0-9a-f]{8,64}",
    "uuid": r"[0-9a-fA-F-]{36}",
    "path": r"[^\s'\"]{1,300}",
    "url": r"[^\s'\"<>]{1,500}",
    "ip": r"\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?",
    "duration": r"\d+(?:\.\d+)?\s?[a-zµ]{1,7}",
    "port": r"\d{2,5}",
}
_NAMES = {"num": "number", "ip": "address"}


@dataclass(frozen=True, slots=True)
class DraftRule:
    """A rule file's text, ready to save and edit."""

    rule_id: str
    file_name: str
    text: str
    tests: tuple[str, ...]


def suggest(document: dict[str, Any]) -> list[DraftRule]:
    """One checked draft per unexplained group, biggest group first."""
    tests = {
        test["id"]: test for test in document.get("tests", []) if isinstance(test, dict) and "id" in test
    }
    drafts = []
    for group in document.get("groups", []):
        if group.get("kind") != "unexplained":
            continue
        members = [tests[uuid] for uuid in group.get("tests", []) if uuid in tests]
        line_source = _line_source(members)
        if line_source is None:
            continue
        draft = draft_rule(line_source, [member["name"] for member in members])
        if draft is not None:
            drafts.append(draft)
    return drafts


def _line_source(members: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The line to draft from: the first likely cause (the line a person would blame), else the fingerprint."""
    fingerprint = next((m["fingerprint"] for m in members if isinstance(m.get("fingerprint"), dict)), None)
    for member in members:
        likely = member.get("likely_cause")
        if isinstance(likely, dict) and isinstance(likely.get("evidence"), dict):
            line = str(likely["evidence"].get("text", ""))
            if normalize_line(line).text:
                return {
                    "key": (fingerprint or {}).get("key", ""),
                    "line": line,
                    "masked": mask(normalize_line(line).text),
                    "origin": f"the likely cause ({likely.get('reason', '')}) of fingerprint",
                }
    return fingerprint


def draft_rule(fingerprint: dict[str, Any], test_names: list[str]) -> DraftRule | None:
    """A rule whose pattern generalises the masked line; None if even the fallback cannot match the line."""
    line = str(fingerprint.get("line", ""))
    masked = str(fingerprint.get("masked", ""))
    message = normalize_line(line).text
    pattern, names = _pattern_from_masked(masked)
    if not pattern or regex.search(pattern, message) is None:
        pattern, names = regex.escape(message), []
    if not message or regex.search(pattern, message) is None:
        return None
    key = str(fingerprint.get("key", ""))[:6]
    slug = "-".join(regex.findall(r"[a-z0-9]+", regex.sub(r"<\w+>", " ", masked.lower()))[:6])[:48].strip("-")
    rule_id = f"draft.{slug or 'unexplained'}-{key}"
    summary = _PLACEHOLDER.sub(lambda _m: "{" + names.pop(0) + "}", masked) if names else masked
    shown = ", ".join(test_names[:5]) + (f" and {len(test_names) - 5} more" if len(test_names) > 5 else "")
    text = "\n".join(
        [
            f"# Drafted by `ci-forensics rules suggest` from {fingerprint.get('origin', 'fingerprint')} "
            f"{fingerprint.get('key', '')}",
            f"# seen in {len(test_names)} unexplained failing test(s): {shown}",
            "# Review before shipping: title, category, kind, priority, advice, and add near misses.",
            "[[rule]]",
            f"id = {_toml_string(rule_id)}",
            f"title = {_toml_string(masked[:100])}",
            'category = "product"  # infrastructure | dependency | product | test | external-service',
            'kind = "cause"',
            "priority = 50",
            f"patterns = [{_toml_literal(pattern)}]",
            f"summary = {_toml_string(_escape_braces_outside_placeholders(summary))}",
            f"advice = {_toml_string('Drafted from unexplained failures: ' + shown + '. Say what a triager should do.')}",
            "",
            "[[rule.examples]]",
            f"source = {_toml_string('the last error line of ' + (test_names[0] if test_names else 'a failing test'))}",
            f"text = {_toml_literal(line)}",
            "",
        ]
    )
    if not _passes(text):
        return None
    return DraftRule(
        rule_id=rule_id,
        file_name=rule_id.removeprefix("draft.") + ".toml",
        text=text,
        tests=tuple(test_names),
    )


def _pattern_from_masked(masked: str) -> tuple[str, list[str]]:
    parts: list[str] = []
    names: list[str] = []
    counts: dict[str, int] = {}
    position = 0
    for match in _PLACEHOLDER.finditer(masked):
        parts.append(_literal(masked[position : match.start()]))
        kind = match.group(1)
        counts[kind] = counts.get(kind, 0) + 1
        name = f"{_NAMES.get(kind, kind)}_{counts[kind]}"
        names.append(name)
        parts.append(f"(?P<{name}>{_CAPTURE[kind]})")
        position = match.end()
    parts.append(_literal(masked[position:]))
    return "".join(parts), names


def _literal(text: str) -> str:
    return r"\s+".join(regex.escape(word) for word in text.split(" "))


def _escape_braces_outside_placeholders(summary: str) -> str:
    return regex.sub(r"\{(?![A-Za-z_]\w*\})|(?<!\{[A-Za-z_]\w*)\}", lambda m: m.group(0) * 2, summary)


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _toml_literal(text: str) -> str:
    if "'''" not in text and not text.endswith("'"):
        return "'''" + text + "'''"
    return json.dumps(text, ensure_ascii=False)


def _passes(text: str) -> bool:
    errors: list[RuleProblem] = []
    rules = parse_rules(text, Path("draft.toml"), errors)
    return not errors and bool(rules) and check_rule(rules[0]).passed
