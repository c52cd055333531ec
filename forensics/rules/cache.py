"""A content-keyed cache of validated rule packs, so TOML parsing and validation happen once per pack change.

The key is a hash of the tool version, this file's format number, and every rule file's path and bytes: any
edit, an added or removed file, or another ci-forensics version misses, and a miss validates the pack in full
(a bad rule is still an error naming file, rule id and field). An entry holds the validated rules as JSON
(never pickle: a cache file is data, not code) with each pattern's required literals and each summary
template already split into its parts, so a hit parses no pattern or template either (a hit's cost is reading
the files, one JSON parse and building the rule objects). A cache that cannot be read or does not parse is
ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from forensics.model import Category, RuleKind
from forensics.rules.expressions import Expression
from forensics.rules.literals import Literals, remember_literals, required_literals
from forensics.rules.model import Example, Rule, RulePattern
from forensics.rules.template import Placeholder, Template
from forensics.version import __version__

CACHE_FORMAT = 3  # 2: summaries are kept parsed, so a hit runs no template pattern either; 3: literals joined
# across adjacent exact parts (rules/literals.py)
MAX_ENTRIES = 32  # packs kept (shipped pack per version, each user rule folder); least recently used go first
_ROLES = ("patterns", "requires", "excludes", "context")


def default_cache_dir() -> Path:
    """The per-user cache folder for rule packs (platformdirs': `~/.cache/ci-forensics/rules` on Linux)."""
    home = _linux_cache_home()
    if home is not None:
        return Path(home, "ci-forensics", "rules")
    import platformdirs  # only when a pack is cached: keeps it out of `--help`

    return Path(platformdirs.user_cache_dir("ci-forensics")) / "rules"


def _linux_cache_home() -> str | None:
    """platformdirs' user cache folder on Linux in the usual case, without importing it (it loads tempfile, shutil,
    bz2 and lzma: ~24 M instructions, a fifth of a one-line analyze's budget): an absolute `$XDG_CACHE_HOME`, else
    `~/.cache` under an absolute `$HOME`. None (platformdirs decides) on another system, Android, or without an
    absolute home; tests/test_rule_cache.py holds the two answers equal."""
    if (
        sys.platform != "linux"
        or hasattr(sys, "getandroidapilevel")
        or os.environ.get("ANDROID_DATA") == "/data"
    ):
        return None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if posixpath.isabs(xdg):
        return xdg
    if posixpath.isabs(os.environ.get("HOME", "")):
        return os.path.expanduser("~/.cache")
    return None


def pack_key(files: Sequence[tuple[str | Path, bytes]]) -> str:
    """The hash naming one pack: tool version, cache format, each file's path and bytes (lengths delimit)."""
    digest = hashlib.sha256(f"ci-forensics {__version__} rules-cache {CACHE_FORMAT}\n".encode())
    for path, content in files:
        name = os.fsencode(str(path))
        digest.update(b"%d:%s%d:" % (len(name), name, len(content)))
        digest.update(content)
    return digest.hexdigest()


class PackCache:
    """Validated rule packs in one folder, one JSON file per pack key."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, key: str) -> list[Rule] | None:
        """The cached rules for this key, or None (missing, unreadable or corrupt: the caller validates)."""
        path = self.directory / f"{key}.json"
        try:
            text = path.read_text(encoding="utf-8")
            os.utime(path)  # recently used: kept when older packs are pruned
        except (OSError, UnicodeDecodeError):
            return None
        try:
            document = json.loads(text)
            if document.get("key") != key or document.get("format") != CACHE_FORMAT:
                return None
            return [_rule_from_json(entry) for entry in document["rules"]]
        except (ValueError, KeyError, TypeError, AttributeError):
            return None  # a torn or hand-edited file: rebuilt by the caller

    def store(self, key: str, rules: Iterable[Rule]) -> None:
        """Write the pack atomically (a temporary file renamed); a read-only or full disk is no error."""
        import tempfile  # only on a miss: a hit never writes

        document = {"key": key, "format": CACHE_FORMAT, "rules": [_rule_to_json(rule) for rule in rules]}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".pack-", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(
                    handle, "w", encoding="utf-8"
                ) as stream:  # dumps: json.dump never uses the C encoder
                    stream.write(json.dumps(document, separators=(",", ":")))
                os.replace(temporary, self.directory / f"{key}.json")
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except OSError:
            return

    def _prune(self) -> None:
        """Remove the least recently used packs beyond MAX_ENTRIES (every pack edit writes a new entry)."""
        entries = sorted(self.directory.glob("*.json"), key=lambda path: path.stat().st_mtime, reverse=True)
        for stale in entries[MAX_ENTRIES:]:
            stale.unlink(missing_ok=True)


def _rule_to_json(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "title": rule.title,
        "category": rule.category.value,
        "kind": rule.kind.value,
        "summary": _template_to_json(rule.summary),
        "advice": rule.advice,
        "priority": rule.priority,
        "general": rule.general,
        "specifics": list(rule.specifics),
        "tags": list(rule.tags),
        "ignore_case": rule.ignore_case,
        **{role: [_pattern_to_json(p, rule.ignore_case) for p in getattr(rule, role)] for role in _ROLES},
        "derive": [[name, expression.source] for name, expression in rule.derive],
        "tickets": list(rule.tickets),
        "examples": [_example_to_json(example) for example in rule.examples],
        "near_misses": [_example_to_json(example) for example in rule.near_misses],
        "path": rule.path,
    }


def _pattern_to_json(pattern: RulePattern, ignore_case: bool) -> dict[str, Any]:
    literals = required_literals(pattern.pattern, ignore_case=ignore_case)
    return {
        "source": pattern.pattern,
        "flags": pattern.flags,
        "groups": dict(pattern.groupindex),
        "literals": None
        if literals is None
        else {"alternatives": list(literals.alternatives), "ignore_case": literals.ignore_case},
    }


def _template_to_json(template: Template) -> dict[str, Any]:
    parts = [
        part if isinstance(part, str) else [part.name, part.spec, part.fallback] for part in template.parts
    ]
    return {"source": template.source, "parts": parts}


def _template_from_json(item: dict[str, Any]) -> Template:
    parts = [
        part if isinstance(part, str) else Placeholder(part[0], part[1], part[2]) for part in item["parts"]
    ]
    return Template(source=item["source"], parts=tuple(parts))


def _example_to_json(example: Example) -> dict[str, Any]:
    return {"text": example.text, "source": example.source, "fields": [list(item) for item in example.fields]}


# Building the rules is most of a hit's cost (~30 µs a rule): list comprehensions, not generators, and the JSON
# values as they are (a corrupt entry fails on the first wrong type and the pack is validated again). The enums by
# value from a dict: calling a StrEnum costs ~4 µs (an unknown value is a KeyError: a corrupt entry).
_CATEGORIES = {category.value: category for category in Category}
_KINDS = {kind.value: kind for kind in RuleKind}


def _rule_from_json(entry: dict[str, Any]) -> Rule:
    ignore_case = bool(entry["ignore_case"])
    return Rule(
        id=entry["id"],
        title=entry["title"],
        category=_CATEGORIES[entry["category"]],
        kind=_KINDS[entry["kind"]],
        patterns=_patterns_from_json(entry["patterns"], ignore_case),
        summary=_template_from_json(entry["summary"]),
        advice=entry["advice"],
        priority=int(entry["priority"]),
        general=bool(entry["general"]),
        specifics=tuple(entry["specifics"]),
        tags=tuple(entry["tags"]),
        ignore_case=ignore_case,
        requires=_patterns_from_json(entry["requires"], ignore_case),
        context=_patterns_from_json(entry["context"], ignore_case),
        excludes=_patterns_from_json(entry["excludes"], ignore_case),
        derive=tuple([(name, Expression.parse(source)) for name, source in entry["derive"]]),
        tickets=tuple(entry["tickets"]),
        examples=tuple([_example_from_json(item) for item in entry["examples"]]),
        near_misses=tuple([_example_from_json(item) for item in entry["near_misses"]]),
        path=entry["path"],
    )


def _patterns_from_json(items: list[dict[str, Any]], ignore_case: bool) -> tuple[RulePattern, ...]:
    return tuple([_pattern_from_json(item, ignore_case) for item in items])


def _pattern_from_json(item: dict[str, Any], ignore_case: bool) -> RulePattern:
    source = item["source"]
    if not isinstance(source, str):
        raise TypeError("pattern source is not text")
    literals = item["literals"]
    remember_literals(
        source,
        ignore_case=ignore_case,
        literals=None
        if literals is None
        else Literals(alternatives=tuple(literals["alternatives"]), ignore_case=literals["ignore_case"]),
    )
    return RulePattern(source, item["flags"], groupindex=item["groups"])


def _example_from_json(item: dict[str, Any]) -> Example:
    fields = item["fields"]
    return Example(
        text=item["text"],
        source=item["source"],
        fields=tuple([(name, value) for name, value in fields]) if fields else (),
    )
