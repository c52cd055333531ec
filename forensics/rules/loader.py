"""Load rule files (TOML) into validated, compiled `Rule`s; a bad rule names file, rule id and field."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from forensics.errors import RulesError
from forensics.lazy_regex import LazyRegex
from forensics.model import Category, RuleKind, RuleScope
from forensics.paths import PathArgument, path_strings
from forensics.rules.cache import PackCache, default_cache_dir, pack_key
from forensics.rules.expressions import Expression
from forensics.rules.model import Example, PackRules, Rule, RulePattern, RuleProblem, RuleSet, RuleSource
from forensics.rules.template import Template

_ID = LazyRegex(r"[a-z0-9][a-z0-9_.-]{0,99}")
_KNOWN_KEYS = {
    "id",
    "title",
    "category",
    "kind",
    "priority",
    "general",
    "specifics",
    "tags",
    "ignore_case",
    "patterns",
    "requires",
    "context",
    "excludes",
    "summary",
    "advice",
    "tickets",
    "derive",
    "examples",
    "near_misses",
    "scope",
}
_MAX_REPORTED_ERRORS = 20
_Enum = TypeVar("_Enum", Category, RuleKind, RuleScope)


def shipped_rules_path() -> Path:
    """The rule pack: inside an installed wheel (`forensics/rules_pack`), else the checkout's `rules/`."""
    package_dir = Path(__file__).resolve().parent.parent
    for candidate in (package_dir / "rules_pack", package_dir.parent / "rules"):
        if candidate.is_dir():
            return candidate
    raise RulesError(
        f"the shipped rule pack is missing (looked in {package_dir / 'rules_pack'} and {package_dir.parent / 'rules'})",
        hint="reinstall ci-forensics from a full checkout or wheel",
    )


def rule_files(path: Path) -> list[Path]:
    """A rule file itself, or every `*.toml` below a folder, sorted for a stable load order."""
    return [Path(name) for name in _rule_file_names(path)]


def _rule_file_names(path: Path) -> list[str]:
    """`rule_files` as strings, in the same order: a thousand Path objects cost more than reading the files."""
    if path.is_dir():
        names = _toml_files_below(str(path))
        return sorted(names, key=lambda name: os.path.normcase(name).split(os.sep))  # as Paths sort
    if path.is_file():
        return [str(path)]
    raise RulesError(f"rules path '{path}' does not exist", hint="pass a .toml rule file or a folder of them")


def _toml_files_below(folder: str) -> list[str]:
    """Every `*.toml` file below `folder` as `Path.rglob` finds them: symlinked folders are not entered and an
    unreadable folder is skipped."""
    found: list[str] = []
    try:
        with os.scandir(folder) as entries:
            listed = list(entries)
    except PermissionError:
        return found
    for entry in listed:
        try:
            is_folder = entry.is_dir() and not entry.is_symlink()
        except OSError:
            is_folder = False
        if is_folder:
            found.extend(_toml_files_below(entry.path))
        elif entry.name.endswith(".toml") and entry.is_file():
            found.append(entry.path)
    return found


def collect_rules(
    paths: PathArgument | Sequence[PathArgument] = (),
    *,
    include_shipped: bool = True,
    cache: PackCache | bool = True,
) -> tuple[RuleSet, list[RuleProblem]]:
    """The rules that loaded, and a RuleProblem (`file: rule 'id': field: why`) for each that did not.

    `cache`: True uses the per-user pack cache (validated packs by content hash), False validates every file
    now, or a `PackCache` of your own.
    """
    errors: list[RuleProblem] = []
    pack_cache = _pack_cache(cache)
    shipped: dict[str, _Entry] = {}
    if include_shipped:
        shipped = _load_unique(_rule_file_names(shipped_rules_path()), errors, pack_cache)
    user = _load_unique(
        [file for path in path_strings(paths) for file in _rule_file_names(Path(path))], errors, pack_cache
    )
    merged = dict(shipped)
    merged.update(user)
    entries = list(merged.values())
    automata = pack_cache.directory / "automata" if pack_cache is not None else None
    if all(isinstance(entry, Rule) for entry in entries):
        return RuleSet(tuple(entry for entry in entries if isinstance(entry, Rule)), automata), errors
    return RuleSet(PackRules(entries), automata), errors


def load_rules(
    paths: PathArgument | Sequence[PathArgument] = (),
    *,
    include_shipped: bool = True,
    cache: PackCache | bool = True,
) -> RuleSet:
    """The shipped pack (optional) plus the user's files; a user rule with a shipped id replaces it."""
    rules, errors = collect_rules(paths, include_shipped=include_shipped, cache=cache)
    if errors:
        shown = errors[:_MAX_REPORTED_ERRORS]
        more = f"\n… and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        raise RulesError(
            "cannot load rules:\n" + "\n".join(f"  {error}" for error in shown) + more,
            hint="fix the rule file(s) named above; `ci-forensics rules lint FILE` checks one file",
        )
    return rules


def _pack_cache(cache: PackCache | bool) -> PackCache | None:
    if isinstance(cache, PackCache):
        return cache
    return PackCache(default_cache_dir()) if cache else None


_Entry = Rule | tuple[RuleSource, int]  # a validated rule, or rule n of a cached pack (built when first read)


def _load_unique(
    files: Sequence[str], errors: list[RuleProblem], cache: PackCache | None = None
) -> dict[str, _Entry]:
    """Every rule of these files by id; a pack seen before (same bytes, same version) comes from the cache, found
    by the files' stat when none changed since (else by reading and hashing them)."""
    if not files:
        return {}
    if cache is not None:
        known = cache.key_from_stats(files)
        if known is not None:
            cached = cache.load(known, rebuild=lambda: _validated(files))
            if cached is not None:
                return {cached.rule_id(index): (cached, index) for index in range(len(cached))}
    contents: list[tuple[str, bytes]] = []
    for file in files:
        try:
            with open(file, "rb") as stream:
                contents.append((file, stream.read()))
        except OSError as err:
            errors.append(RuleProblem(path=file, message=f"cannot read: {err}"))
    if not contents:
        return {}
    key = pack_key(contents) if cache is not None else ""
    if cache is not None:
        cached = cache.load(key, rebuild=lambda: _validated(files))
        if cached is not None:
            if len(contents) == len(files):
                cache.remember_stats(files, key)
            return {cached.rule_id(index): (cached, index) for index in range(len(cached))}
    errors_before = len(errors)
    rules = _validate(contents, errors)
    if cache is not None and len(errors) == errors_before:
        cache.store(key, rules.values())
        cache.remember_stats(files, key)
    return dict(rules)


def _validate(contents: Iterable[tuple[str, bytes]], errors: list[RuleProblem]) -> dict[str, Rule]:
    """Every rule of these files (path, bytes) by id, parsed and checked; problems are appended to `errors`."""
    rules: dict[str, Rule] = {}
    for file, content in contents:
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as err:
            errors.append(RuleProblem(path=file, message=f"cannot read: {err}"))
            continue
        for rule in parse_rules(text, Path(file), errors):
            if rule.id in rules:
                errors.append(
                    RuleProblem(
                        path=file,
                        rule=f"rule '{rule.id}'",
                        rule_id=rule.id,
                        message=f"id already defined in {rules[rule.id].path}",
                    )
                )
            else:
                rules[rule.id] = rule
    return rules


def _validated(files: Sequence[str]) -> dict[str, Rule]:
    """The rules of these files validated again (a cached pack's line turned out damaged when read)."""
    errors: list[RuleProblem] = []
    contents = []
    for file in files:
        try:
            with open(file, "rb") as stream:
                contents.append((file, stream.read()))
        except OSError as err:
            errors.append(RuleProblem(path=file, message=f"cannot read: {err}"))
    rules = _validate(contents, errors)
    if errors:
        raise RulesError(
            "cannot load rules:\n" + "\n".join(f"  {error}" for error in errors[:_MAX_REPORTED_ERRORS]),
            hint="fix the rule file(s) named above; `ci-forensics rules lint FILE` checks one file",
        )
    return rules


def load_rule_file(path: Path, errors: list[RuleProblem]) -> list[Rule]:
    """Every rule in one TOML file; problems are appended to `errors`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        errors.append(RuleProblem(path=str(path), message=f"cannot read: {err}"))
        return []
    return parse_rules(text, path, errors)


def parse_rules(text: str, path: Path, errors: list[RuleProblem]) -> list[Rule]:
    """Every rule in TOML text that claims to come from `path` (for drafts never written to disk)."""
    import tomllib  # only when a pack is validated: a pack-cache hit parses no TOML

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        errors.append(RuleProblem(path=str(path), message=f"not valid TOML: {err}"))
        return []
    entries = document.get("rule")
    if not isinstance(entries, list) or not entries:
        errors.append(RuleProblem(path=str(path), message="no [[rule]] table"))
        return []
    rules = []
    for index, entry in enumerate(entries):
        builder = _RuleBuilder(path, index, entry, errors)
        rule = builder.build()
        if rule is not None:
            rules.append(rule)
    return rules


class _RuleBuilder:
    """Validates one `[[rule]]` table, collecting every error before giving up on it."""

    def __init__(self, path: Path, index: int, entry: Any, errors: list[RuleProblem]) -> None:
        self.path = path
        self.entry = entry if isinstance(entry, dict) else {}
        raw_id = self.entry.get("id")
        self.label = f"rule '{raw_id}'" if isinstance(raw_id, str) else f"rule #{index + 1}"
        self.rule_id = raw_id if isinstance(raw_id, str) else ""
        self.errors = errors
        self.failed = False

    def error(self, field: str, why: str) -> None:
        self.errors.append(
            RuleProblem(path=str(self.path), rule=self.label, rule_id=self.rule_id, field=field, message=why)
        )
        self.failed = True

    def build(self) -> Rule | None:
        entry = self.entry
        for key in sorted(set(entry) - _KNOWN_KEYS):
            self.error(key, "unknown field (typo?)")
        rule_id = self.text("id")
        if rule_id and not _ID.fullmatch(rule_id):
            self.error(
                "id", "use lower-case letters, digits, dots and dashes, e.g. 'vllm.startup-free-memory'"
            )
        title = self.text("title")
        category = self.choice("category", Category)
        kind = self.choice("kind", RuleKind)
        ignore_case = entry.get("ignore_case", False)
        if not isinstance(ignore_case, bool):
            self.error("ignore_case", "must be true or false")
            ignore_case = False
        patterns = self.patterns("patterns", ignore_case, required=True)
        requires = self.patterns("requires", ignore_case, required=False)
        excludes = self.patterns("excludes", ignore_case, required=False)
        context = self.patterns("context", ignore_case, required=False)
        priority = entry.get("priority", 50)
        if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 100:
            self.error("priority", "must be a whole number from 0 to 100")
            priority = 50
        general = entry.get("general", False)
        if not isinstance(general, bool):
            self.error("general", "must be true or false")
            general = False
        elif general and kind is RuleKind.SYMPTOM:
            self.error("general", "only a cause can be a family's general rule")
        specifics = self.strings("specifics")
        if specifics and not general:
            self.error(
                "specifics", "only a general rule (general = true) names the specific rules of its family"
            )
        known = {name for pattern in (*patterns, *context) for name in pattern.groupindex}
        derive = self.derive(known)
        summary = self.summary(known | {name for name, _ in derive})
        advice = entry.get("advice", "")
        if not isinstance(advice, str):
            self.error("advice", "must be text")
            advice = ""
        elif kind is RuleKind.CAUSE and not advice.strip():
            self.error("advice", "a cause needs advice: say what to do about it")
        tags = self.strings("tags")
        tickets = self.strings("tickets")
        examples = self.examples("examples", required=True)
        near_misses = self.examples("near_misses", required=False)
        scope = self.scope(kind, general=general, co_conditions=bool(requires or excludes or context))
        if self.failed or category is None or kind is None or summary is None:
            return None
        return Rule(
            id=rule_id,
            title=title,
            category=category,
            kind=kind,
            patterns=patterns,
            summary=summary,
            advice=advice.strip(),
            priority=priority,
            general=general,
            specifics=specifics,
            tags=tags,
            ignore_case=ignore_case,
            requires=requires,
            context=context,
            excludes=excludes,
            derive=derive,
            tickets=tickets,
            examples=examples,
            near_misses=near_misses,
            path=str(self.path),
            scope=scope,
        )

    def scope(self, kind: RuleKind | None, *, general: bool, co_conditions: bool) -> RuleScope:
        """Which lines the rule is tried on (default: every line); a fatal-line rule sees one line, so it is a
        cause of its own, with no co-condition over other lines."""
        if "scope" not in self.entry:
            return RuleScope.EVERY_LINE
        scope = self.choice("scope", RuleScope)
        if scope is not RuleScope.LIKELY_CAUSE:
            return RuleScope.EVERY_LINE
        if kind is RuleKind.SYMPTOM:
            self.error("scope", 'only a cause can be a fatal-line rule (scope = "likely-cause")')
        if general:
            self.error("scope", "a fatal-line rule is tried after every other rule already: drop `general`")
        if co_conditions:
            self.error(
                "scope",
                "a fatal-line rule sees only the likely-cause line: `requires`, `excludes` and `context` cannot apply",
            )
        return scope

    def text(self, field: str) -> str:
        value = self.entry.get(field)
        if not isinstance(value, str) or not value.strip():
            self.error(field, "required text is missing")
            return ""
        return value.strip()

    def choice(self, field: str, enum: type[_Enum]) -> _Enum | None:
        value = self.entry.get(field)
        try:
            return enum(str(value))
        except ValueError:
            allowed = ", ".join(member.value for member in enum)
            self.error(field, f"{value!r} is not one of: {allowed}")
            return None

    def strings(self, field: str) -> tuple[str, ...]:
        value = self.entry.get(field, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.error(field, "must be a list of text")
            return ()
        return tuple(value)

    def patterns(self, field: str, ignore_case: bool, *, required: bool) -> tuple[RulePattern, ...]:
        raw = self.entry.get(field, [])
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            self.error(field, "must be a list of regular expressions")
            return ()
        if required and not raw:
            self.error(field, "at least one pattern is required")
        import regex  # validating compiles with `regex` itself (forensics/regex_code.py keeps only what runs use)

        flags = regex.IGNORECASE if ignore_case else 0
        compiled = []
        for number, source in enumerate(raw, start=1):
            try:
                pattern = regex.compile(source, flags)
            except regex.error as err:
                self.error(f"{field}[{number}]", f"bad regex: {err}")
                continue
            if pattern.search("") is not None:
                self.error(f"{field}[{number}]", "matches the empty string, so it would match every line")
            compiled.append(RulePattern(source, flags, groupindex=pattern.groupindex, compiled=pattern))
        return tuple(compiled)

    def derive(self, known: set[str]) -> tuple[tuple[str, Expression], ...]:
        raw = self.entry.get("derive", {})
        if not isinstance(raw, dict):
            self.error("derive", 'must be a table of name = "expression"')
            return ()
        derived: list[tuple[str, Expression]] = []
        available = set(known)
        for name, source in raw.items():
            if not isinstance(source, str):
                self.error(f"derive.{name}", "must be an expression in quotes")
                continue
            try:
                expression = Expression.parse(source)
            except ValueError as err:
                self.error(f"derive.{name}", str(err))
                continue
            unknown = expression.names - available
            if unknown:
                self.error(f"derive.{name}", f"unknown value(s) {', '.join(sorted(unknown))}")
                continue
            derived.append((name, expression))
            available.add(name)
        return tuple(derived)

    def summary(self, known: set[str]) -> Template | None:
        source = self.text("summary")
        try:
            template = Template.parse(source)
        except ValueError as err:
            self.error("summary", str(err))
            return None
        unknown = template.names - known
        if unknown:
            self.error("summary", f"refers to unknown value(s) {', '.join(sorted(unknown))}")
            return None
        return template

    def examples(self, field: str, *, required: bool) -> tuple[Example, ...]:
        raw = self.entry.get(field, [])
        if not isinstance(raw, list):
            self.error(field, "must be a list of [[rule." + field + "]] tables")
            return ()
        if required and not raw:
            self.error(field, "at least one example is required: a log snippet the rule must match")
        examples = []
        for number, raw_item in enumerate(raw, start=1):
            item = {"text": raw_item} if isinstance(raw_item, str) else raw_item
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("text"), str)
                or not item["text"].strip()
            ):
                self.error(f"{field}[{number}]", "needs a non-empty text")
                continue
            fields = item.get("fields", {})
            if not isinstance(fields, dict) or not all(_is_value(value) for value in fields.values()):
                self.error(f"{field}[{number}].fields", "must be a table of numbers or text")
                continue
            source = item.get("source", "")
            examples.append(Example(text=item["text"], source=str(source), fields=tuple(fields.items())))
        return tuple(examples)


def _is_value(value: object) -> bool:
    return isinstance(value, int | float | str) and not isinstance(value, bool)
