"""A content-keyed cache of validated rule packs, so TOML parsing and validation happen once per pack change.

The key is a hash of the tool version, this file's format number, and every rule file's path and bytes: any
edit, an added or removed file, or another ci-forensics version misses, and a miss validates the pack in full
(a bad rule is still an error naming file, rule id and field). An entry holds the validated rules as JSON
(never pickle: a cache file is data, not code) in two parts: a first line with what the scanner needs of every
rule (id, kind, each pattern's source and required literals), then one line per rule with the rest (title,
summary template already split into its parts, advice, examples, …), parsed only when that rule is first read
(`CachedPack`): a run whose logs hold none of a rule's literals never builds it, so a hit costs about the same
whatever the pack's size. A cache that cannot be read or does not parse is ignored and rewritten; a rule line
that does not parse when read has the pack validated again from its files.

Finding the key means reading every rule file; a second small file per list of rule files (`*.stat`) maps the
files' sizes, times and inodes to the key, so an unchanged pack is found with one `stat` per file. It is written
only when every file is older than `RACY_SECONDS` (a file changed within its timestamps' granularity could keep
them: git's "racily clean" case), and any change of a file changes its `st_ctime_ns`.
"""

from __future__ import annotations

import json
import os
import posixpath
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from forensics.model import Category, RuleKind, RuleScope
from forensics.rules.cache_files import prune_oldest, write_atomically
from forensics.rules.expressions import Expression
from forensics.rules.literals import Literals, remember_literals, required_literal_ways, required_literals
from forensics.rules.model import PATTERN_FIELDS, Example, Rule, RulePattern
from forensics.rules.template import Placeholder, Template
from forensics.version import __version__

CACHE_FORMAT = 6  # 2: summaries are kept parsed, so a hit runs no template pattern either; 3: literals joined
# across adjacent exact parts (rules/literals.py); 5: a first line for the pre-filter, a line per rule read lazily;
# 6: each rule's scope on the first line (a fatal-line rule stays out of the scan without being built)
MAX_ENTRIES = 32  # packs kept (shipped pack per version, each user rule folder); least recently used go first
RACY_SECONDS = 2.0  # a file changed more recently than this is read and hashed, not trusted by its stat


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
    import hashlib  # ~11 M instructions: only when the files are read (a pack whose stat is known is not)

    digest = hashlib.sha256(f"ci-forensics {__version__} rules-cache {CACHE_FORMAT}\n".encode())
    for path, content in files:
        name = os.fsencode(str(path))
        digest.update(b"%d:%s%d:" % (len(name), name, len(content)))
        digest.update(content)
    return digest.hexdigest()


class PackCache:
    """Validated rule packs in one folder, one JSON file per pack key (and a `.stat` file per list of files)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, key: str, rebuild: Callable[[], Mapping[str, Rule]] | None = None) -> CachedPack | None:
        """The cached pack for this key, or None (missing, unreadable or corrupt: the caller validates).

        `rebuild` validates the pack from its files: used if a rule's line turns out damaged when it is read."""
        path = self.directory / f"{key}.json"
        try:
            with open(path, "rb") as stream:
                data = stream.read()
            os.utime(path)  # recently used: kept when older packs are pruned
        except OSError:
            return None
        try:
            return CachedPack.parse(key, data, rebuild)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            return None  # a torn or hand-edited file: rebuilt by the caller

    def store(self, key: str, rules: Iterable[Rule]) -> None:
        """Write the pack atomically (a temporary file renamed); a read-only or full disk is no error."""
        heads: list[Any] = []
        bodies: list[bytes] = []
        for rule in rules:
            heads.append(_head_to_json(rule))
            bodies.append(json.dumps(_body_to_json(rule), separators=(",", ":")).encode("ascii"))
        ends = []
        offset = 0
        for body in bodies:
            offset += len(body)
            ends.append(offset)
            offset += 1  # the line break
        header = {"key": key, "format": CACHE_FORMAT, "rules": heads, "ends": ends}
        document = json.dumps(header, separators=(",", ":")).encode("ascii") + b"\n" + b"\n".join(bodies)
        if write_atomically(self.directory, f"{key}.json", document):
            prune_oldest(self.directory, "*.json", MAX_ENTRIES)  # every pack edit writes a new entry

    def key_from_stats(self, files: Sequence[str]) -> str | None:
        """The pack key recorded for these files when none has changed since (one `stat` each), else None."""
        try:
            with open(self.directory / _stat_name(files), "rb") as stream:
                recorded = json.loads(stream.read())
            if recorded["files"] != list(files):
                return None
            if recorded["stats"] != _stats(files):
                return None
            key = recorded["key"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return key if isinstance(key, str) else None

    def remember_stats(self, files: Sequence[str], key: str) -> None:
        """Record the key of these files by their stat, unless one changed too recently to be told apart by it."""
        try:
            stats = _stats(files)
        except OSError:
            return
        racy_after = time.time_ns() - int(RACY_SECONDS * 1e9)
        if any(mtime >= racy_after or ctime >= racy_after for _size, mtime, ctime, _inode in stats):
            return
        document = {"files": list(files), "stats": stats, "key": key}
        if write_atomically(
            self.directory, _stat_name(files), json.dumps(document, separators=(",", ":")).encode("utf-8")
        ):
            prune_oldest(self.directory, "*.stat", MAX_ENTRIES)


def _stat_name(files: Sequence[str]) -> str:
    """The `.stat` file of one list of rule files (and this version and format): two checksums of the list."""
    listing = f"ci-forensics {__version__} rules-cache {CACHE_FORMAT}\n".encode() + "\n".join(files).encode(
        "utf-8", "surrogateescape"
    )
    return f"{zlib.crc32(listing):08x}{zlib.adler32(listing):08x}.stat"


def _stats(files: Sequence[str]) -> list[list[int]]:
    """Size, modification and change times (ns) and inode of each file: any write changes the change time."""
    stats = []
    for file in files:
        stat = os.stat(file)
        stats.append([stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino])
    return stats


# A rule's first-line entry: [id, kind, ignore_case, [[field, literal alternatives or null, their ignore_case],
# … one per pattern in PATTERN_FIELDS order], scope]; its line holds each pattern's [source, flags, groups] in that order.


class CachedPack:
    """A pack read from the cache: per rule, what the scanner needs (id, kind, case-insensitivity, each pattern's
    source and literals) parsed up front; its patterns made on first use and the rest of it (its line of JSON)
    parsed when the rule is first read. A `RuleSource` (rules/model.py)."""

    __slots__ = (
        "_base",
        "_bodies",
        "_data",
        "_ends",
        "_heads",
        "_kinds",
        "_patterns",
        "_probes",
        "_rebuilt",
        "_rules",
        "_scopes",
    )

    def __init__(
        self,
        heads: list[list[Any]],
        data: bytes,
        base: int,
        ends: list[int],
        rebuild: Callable[[], Mapping[str, Rule]] | None,
    ) -> None:
        self._heads = heads
        self._data = data
        self._base = base
        self._ends = ends
        self._kinds = [_KINDS[head[1]] for head in heads]
        self._scopes = [_SCOPES[head[4]] for head in heads]
        self._probes = [_probes_from_json(head) for head in heads]
        self._patterns: dict[tuple[int, int, int], RulePattern] = {}
        self._rules: dict[int, Rule] = {}
        self._bodies: dict[int, dict[str, Any]] = {}
        self._rebuilt: list[Callable[[], Mapping[str, Rule]] | None] = [rebuild]

    @classmethod
    def parse(
        cls, key: str, data: bytes, rebuild: Callable[[], Mapping[str, Rule]] | None = None
    ) -> CachedPack | None:
        """The pack in a cache entry's bytes, None when it is another key's or format's; ValueError, KeyError,
        TypeError or IndexError when its first line is damaged."""
        first = data.index(b"\n")
        header = json.loads(data[:first])
        if header.get("key") != key or header.get("format") != CACHE_FORMAT:
            return None
        heads = header["rules"]
        ends = header["ends"]
        if not isinstance(heads, list) or not isinstance(ends, list) or len(heads) != len(ends):
            raise ValueError("the pack's first line does not list one end per rule")
        if ends and ends[-1] != len(data) - first - 1:
            raise ValueError("the pack's rule lines do not end where its first line says")
        for head in heads:
            if not isinstance(head[0], str) or not isinstance(head[2], bool) or not isinstance(head[3], list):
                raise TypeError("a rule's id, case-insensitivity or patterns have the wrong type")
        return cls(heads, data, first + 1, ends, rebuild)

    def __len__(self) -> int:
        return len(self._heads)

    def rule_id(self, index: int) -> str:
        rule_id: str = self._heads[index][0]
        return rule_id

    def kind(self, index: int) -> RuleKind:
        return self._kinds[index]

    def ignore_case(self, index: int) -> bool:
        ignore_case: bool = self._heads[index][2]
        return ignore_case

    def scope(self, index: int) -> RuleScope:
        return self._scopes[index]

    def probes(self, index: int) -> Sequence[tuple[int, int, Literals | None]]:
        return self._probes[index]

    def pattern(self, index: int, field: int, position: int) -> RulePattern:
        made = self._patterns.get((index, field, position))
        if made is None:
            number = self._number(index, field, position)
            try:
                source, flags, groups = self._body(index)["patterns"][number]
                if not isinstance(source, str) or not isinstance(flags, int) or not isinstance(groups, dict):
                    raise TypeError("a pattern's source, flags or groups have the wrong type")
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                rebuilt = self._rebuild(self.rule_id(index))
                return getattr(rebuilt, PATTERN_FIELDS[field])[position]  # type: ignore[no-any-return]
            made = self._patterns[(index, field, position)] = RulePattern(source, flags, groupindex=groups)
            remember_literals(
                source, ignore_case=self.ignore_case(index), literals=self._probes[index][number][2]
            )
        return made

    def _number(self, index: int, field: int, position: int) -> int:
        """Where pattern `position` of field `field` is among rule `index`'s patterns (PATTERN_FIELDS order)."""
        probes = self._probes[index]
        return next(n for n, probe in enumerate(probes) if probe[0] == field and probe[1] == position)

    def is_built(self, index: int) -> bool:
        return index in self._rules

    def rule(self, index: int) -> Rule:
        rule = self._rules.get(index)
        if rule is None:
            rule = self._rules[index] = self._build(index)
        return rule

    def literal_ways(self, index: int, field: int, position: int) -> tuple[tuple[Literals, ...], ...]:
        # parsed from the pattern when its probe is first selected: kept in the entry, they cost a miss ~0.2 s
        pattern = self.pattern(index, field, position)
        return required_literal_ways(pattern.pattern, ignore_case=self.ignore_case(index))

    def _body(self, index: int) -> dict[str, Any]:
        """Rule `index`'s line, parsed (once)."""
        body = self._bodies.get(index)
        if body is None:
            start = self._base + (self._ends[index - 1] + 1 if index else 0)
            body = json.loads(self._data[start : self._base + self._ends[index]])
            if not isinstance(body, dict):
                raise TypeError("a rule's line is not a JSON object")
            self._bodies[index] = body
        return body

    def _build(self, index: int) -> Rule:
        head = self._heads[index]
        try:
            return _rule_from_json(head, self._body(index), self._kinds[index], self._patterns_of(index))
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            return self._rebuild(head[0])

    def _patterns_of(self, index: int) -> tuple[tuple[RulePattern, ...], ...]:
        probes = self._probes[index]
        return tuple(
            tuple(self.pattern(index, field, position) for f, position, _ in probes if f == field)
            for field in range(len(PATTERN_FIELDS))
        )

    def _rebuild(self, rule_id: str) -> Rule:
        """A rule whose line is damaged: the pack validated again from its files (once), that rule from it."""
        from forensics.errors import RulesError

        rebuild = self._rebuilt[0]
        if rebuild is None:
            raise RulesError(
                f"the rule pack cache entry holding rule '{rule_id}' is damaged",
                hint=f"delete the folder {default_cache_dir()}: the next run validates the rules again",
            )
        validated = rebuild()
        self._rebuilt[0] = lambda: validated
        if rule_id not in validated:
            raise RulesError(
                f"rule '{rule_id}' is in the rule pack cache but no longer in its files",
                hint=f"delete the folder {default_cache_dir()}: the next run validates the rules again",
            )
        return validated[rule_id]


def _probes_from_json(head: list[Any]) -> list[tuple[int, int, Literals | None]]:
    """(field, position, literals) of each of a rule's patterns, from its first-line entry."""
    probes: list[tuple[int, int, Literals | None]] = []
    positions = [0] * len(PATTERN_FIELDS)
    for field, alternatives, ignore_case in head[3]:
        position = positions[field]
        positions[field] += 1
        if alternatives is None:
            probes.append((field, position, None))
        elif isinstance(alternatives, list) and all(type(literal) is str for literal in alternatives):
            probes.append((field, position, Literals(tuple(alternatives), ignore_case is True)))
        else:
            raise TypeError("a pattern's literals are not a list of text")
    return probes


def _head_to_json(rule: Rule) -> list[Any]:
    """What the scanner needs of a rule: id, kind, case-insensitivity, its patterns in PATTERN_FIELDS order."""
    return [
        rule.id,
        rule.kind.value,
        rule.ignore_case,
        [_literals_to_json(field, pattern, rule.ignore_case) for field, pattern in _patterns(rule)],
        rule.scope.value,
    ]


def _patterns(rule: Rule) -> list[tuple[int, RulePattern]]:
    """A rule's patterns with their field number, in PATTERN_FIELDS order (the scanner's probes' order)."""
    return [(field, pattern) for field, name in enumerate(PATTERN_FIELDS) for pattern in getattr(rule, name)]


def _body_to_json(rule: Rule) -> dict[str, Any]:
    """The rest of a rule: read only when the rule is."""
    return {
        "title": rule.title,
        "category": rule.category.value,
        "summary": _template_to_json(rule.summary),
        "advice": rule.advice,
        "priority": rule.priority,
        "general": rule.general,
        "specifics": list(rule.specifics),
        "tags": list(rule.tags),
        "derive": [[name, expression.source] for name, expression in rule.derive],
        "tickets": list(rule.tickets),
        "examples": [_example_to_json(example) for example in rule.examples],
        "near_misses": [_example_to_json(example) for example in rule.near_misses],
        "path": rule.path,
        "patterns": [[p.pattern, p.flags, dict(p.groupindex)] for _field, p in _patterns(rule)],
    }


def _literals_to_json(field: int, pattern: RulePattern, ignore_case: bool) -> list[Any]:
    literals = required_literals(pattern.pattern, ignore_case=ignore_case)
    if literals is None:
        return [field, None, False]
    return [field, list(literals.alternatives), literals.ignore_case]


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


# Building a rule (when it is first read): list comprehensions, not generators, and the JSON values as they are
# (a damaged line fails on the first wrong type and the pack is validated again). The enums by value from a dict:
# calling a StrEnum costs ~4 µs (an unknown value is a KeyError: a damaged entry).
_CATEGORIES = {category.value: category for category in Category}
_KINDS = {kind.value: kind for kind in RuleKind}
_SCOPES = {scope.value: scope for scope in RuleScope}


def _rule_from_json(
    head: list[Any], body: dict[str, Any], kind: RuleKind, patterns: tuple[tuple[RulePattern, ...], ...]
) -> Rule:
    return Rule(
        id=head[0],
        title=body["title"],
        category=_CATEGORIES[body["category"]],
        kind=kind,
        patterns=patterns[0],
        summary=_template_from_json(body["summary"]),
        advice=body["advice"],
        priority=int(body["priority"]),
        general=bool(body["general"]),
        specifics=tuple(body["specifics"]),
        tags=tuple(body["tags"]),
        ignore_case=head[2],
        requires=patterns[1],
        excludes=patterns[2],
        context=patterns[3],
        derive=tuple([(name, Expression.parse(source)) for name, source in body["derive"]]),
        tickets=tuple(body["tickets"]),
        examples=tuple([_example_from_json(item) for item in body["examples"]]),
        near_misses=tuple([_example_from_json(item) for item in body["near_misses"]]),
        path=body["path"],
        scope=_SCOPES[head[4]],
    )


def _example_from_json(item: dict[str, Any]) -> Example:
    fields = item["fields"]
    return Example(
        text=item["text"],
        source=item["source"],
        fields=tuple([(name, value) for name, value in fields]) if fields else (),
    )
