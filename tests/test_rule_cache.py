"""The pack cache and lazy patterns: a hit parses and compiles nothing, any change misses, a bad rule still fails."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest

from forensics.engine.scanner import CompiledRules, scan_stream
from forensics.errors import RulesError
from forensics.rules import cache as cache_module
from forensics.rules import loader
from forensics.rules.cache import PackCache
from forensics.rules.loader import load_rules
from forensics.rules.model import PackRules, Rule, RuleSet
from tests.support.rulebook import rule_toml

DERIVED = """
requires = ['''attempt \\d+''']
context = ['''worker (?P<worker>\\d+) started''']
derive = { twice = "worker * 2" }
tags = ["demo"]
[[rule.near_misses]]
text = '''disk almost full'''
"""


def _pack(folder: Path, *, second_pattern: str = "disk is full") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "one.toml").write_text(
        rule_toml("x.disk-full", second_pattern, extra=DERIVED, example=f"{second_pattern} attempt 3")
    )
    (folder / "two.toml").write_text(rule_toml("x.boom", r"boom (?P<code>\d+) happened"))
    return folder


def _load(folder: Path, cache: PackCache) -> RuleSet:
    return load_rules([folder], include_shipped=False, cache=cache)


def _shape(rule: Rule) -> tuple[object, ...]:
    """Everything a rule is made of, patterns by source, summary and derive by their text."""
    return (
        rule.id,
        rule.title,
        rule.category,
        rule.kind,
        rule.priority,
        rule.general,
        rule.specifics,
        rule.tags,
        rule.ignore_case,
        tuple((p.pattern, p.flags, dict(p.groupindex)) for p in (*rule.patterns, *rule.requires)),
        tuple((p.pattern, dict(p.groupindex)) for p in (*rule.excludes, *rule.context)),
        rule.summary.source,
        tuple((name, expression.source) for name, expression in rule.derive),
        rule.advice,
        rule.tickets,
        rule.examples,
        rule.near_misses,
        rule.path,
    )


def test_a_second_load_comes_from_the_cache_whole_and_uncompiled(tmp_path: Path) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    validated = _load(folder, cache)
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1
    cached = _load(folder, cache)
    assert [_shape(rule) for rule in cached] == [_shape(rule) for rule in validated]
    assert all(rule.patterns[0].is_compiled for rule in validated)  # validation compiled every pattern
    assert not any(pattern.is_compiled for rule in cached for pattern in (*rule.patterns, *rule.context))
    values = cached.rules[0].values({"worker": "4"})
    assert values == {"worker": 4, "twice": 8}


def test_only_the_patterns_whose_literal_occurs_are_compiled(tmp_path: Path) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    rules = _load(folder, cache)
    scan = scan_stream(io.BytesIO(b"quiet line\nboom 42 happened\n"), CompiledRules(rules), name="log")
    boom = rules.get("x.boom")
    disk = rules.get("x.disk-full")
    assert boom is not None and disk is not None
    assert boom.patterns[0].is_compiled
    assert not disk.patterns[0].is_compiled
    assert [hit.captures for hits in scan.hits.values() for hit in hits] == [(("code", "42"),)]


def test_a_hit_builds_only_the_rules_whose_literal_a_line_holds(tmp_path: Path) -> None:
    """A cached pack's rules stay JSON until read: the scanner's probes and pre-filter need only each rule's
    literals, so a log that holds one rule's literal builds that rule and no other."""
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    rules = _load(folder, cache)
    table = rules.rules
    assert isinstance(table, PackRules)
    assert [table.rule_id(n) for n in range(len(table))] == ["x.disk-full", "x.boom"]
    compiled = CompiledRules(rules)
    assert not any(table.is_built(n) for n in range(len(table)))
    scan = scan_stream(io.BytesIO(b"quiet line\nboom 42 happened\n"), CompiledRules(rules), name="log")
    assert list(scan.hits) == [compiled.probes_by_rule[1][0]]
    assert [table.is_built(n) for n in range(len(table))] == [False, False]  # matching needs no rule
    assert compiled.rules[1].id == "x.boom"  # the verdict reads the matching rule: built then
    assert [table.is_built(n) for n in range(len(table))] == [False, True]


def test_a_slice_of_a_cached_pack_builds_none_of_its_rules(tmp_path: Path) -> None:
    """`rules.rules[:n]` (the first n rules, as the benchmark's rule-count runs take them) stays unbuilt: slicing
    a pack of 500 rules must not parse 500 rules' lines."""
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    table = _load(folder, cache).rules
    assert isinstance(table, PackRules)
    first = table[:1]
    assert isinstance(first, PackRules) and len(first) == 1 and first.rule_id(0) == "x.disk-full"
    assert not any(table.is_built(n) for n in range(len(table)))
    assert table[1:] == (table[1],) and table[::-1] == (table[1], table[0])  # equal to the tuple of its rules
    assert [table.is_built(n) for n in range(len(table))] == [True, True]


def test_a_damaged_rule_line_is_read_from_the_rule_files_when_the_rule_is_needed(tmp_path: Path) -> None:
    """A rule's line is parsed only when the rule is read: damage there surfaces then, and the pack is
    validated again from its files instead of failing."""
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    validated = _load(folder, cache)
    (entry,) = (tmp_path / "cache").glob("*.json")
    first, disk_full, boom = entry.read_bytes().split(b"\n")
    entry.write_bytes(b"\n".join([first, b"[" + disk_full[1:], boom]))  # same length, not an object
    rules = _load(folder, cache)
    assert isinstance(rules.rules, PackRules)
    boom_rule = rules.get("x.boom")
    assert boom_rule is not None and boom_rule.patterns[0].pattern == r"boom (?P<code>\d+) happened"
    assert [_shape(rule) for rule in rules] == [_shape(rule) for rule in validated]


def test_an_unchanged_pack_is_found_by_its_files_stat_without_reading_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0.0)
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    validated = _load(folder, cache)
    assert len(list((tmp_path / "cache").glob("*.stat"))) == 1

    def no_hashing(files: object) -> str:
        raise AssertionError("the rule files were read and hashed")

    with monkeypatch.context() as patched:
        patched.setattr(loader, "pack_key", no_hashing)
        cached = _load(folder, cache)
    assert [_shape(rule) for rule in cached] == [_shape(rule) for rule in validated]


def test_a_file_rewritten_with_the_same_size_after_its_stat_was_recorded_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any write changes a file's change time (st_ctime_ns): the stat no longer matches and the files are read."""
    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0.0)
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    time.sleep(0.05)  # past the file system's timestamp granularity
    _pack(folder, second_pattern="disk is fall")  # the same number of bytes
    rules = _load(folder, cache)
    assert rules.rules[0].patterns[0].pattern == "disk is fall"


def test_a_file_changed_within_the_racy_window_is_never_trusted_by_its_stat(tmp_path: Path) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")  # written now: younger than RACY_SECONDS
    _load(folder, cache)
    _load(folder, cache)
    assert list((tmp_path / "cache").glob("*.stat")) == []


def test_an_edited_rule_file_misses_the_cache(tmp_path: Path) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    _pack(folder, second_pattern="volume is full")
    rules = _load(folder, cache)
    assert rules.rules[0].patterns[0].pattern == "volume is full"
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2


def test_an_added_file_misses_the_cache(tmp_path: Path) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    (folder / "three.toml").write_text(rule_toml("x.third", "third thing broke"))
    assert sorted(rule.id for rule in _load(folder, cache)) == ["x.boom", "x.disk-full", "x.third"]


def test_another_version_never_reads_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    monkeypatch.setattr(cache_module, "__version__", "99.0.0")
    _load(folder, cache)
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x00\xff not json", b'{"key": "other", "format": 1, "rules": []}', b'{"rules": [{"id": 1}]}'],
)
def test_a_corrupt_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: bytes) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    (entry,) = (tmp_path / "cache").glob("*.json")
    entry.write_bytes(damage)
    rules = _load(folder, cache)
    assert sorted(rule.id for rule in rules) == ["x.boom", "x.disk-full"]
    assert entry.read_bytes() != damage  # rewritten from the validated pack
    assert sorted(rule.id for rule in _load(folder, cache)) == ["x.boom", "x.disk-full"]


def test_a_bad_rule_after_a_good_cache_is_still_an_error_naming_file_rule_and_field(tmp_path: Path) -> None:
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    (folder / "two.toml").write_text(rule_toml("x.boom", "boom (unclosed"))
    with pytest.raises(RulesError) as raised:
        _load(folder, cache)
    message = str(raised.value)
    assert f"{folder / 'two.toml'}: rule 'x.boom': patterns[1]: bad regex" in message
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1  # a pack with errors is never cached


def test_an_unwritable_cache_folder_only_costs_the_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    folder = _pack(tmp_path / "rules")
    rules = _load(folder, PackCache(blocker / "rules"))
    assert len(rules) == 2


def test_the_default_cache_lives_in_the_user_cache_folder(tmp_path: Path) -> None:
    folder = _pack(tmp_path / "rules")
    load_rules([folder], include_shipped=False)
    user_cache = Path(os.environ["XDG_CACHE_HOME"]) / "ci-forensics" / "rules"
    assert len(list(user_cache.glob("*.json"))) == 1
    load_rules([folder], include_shipped=False, cache=False)
    assert len(list(user_cache.glob("*.json"))) == 1


@pytest.mark.parametrize(
    ("xdg", "home"),
    [("/x/cache", "/h"), ("", "/h"), ("relative", "/h/"), (None, "/"), (None, "relative-home"), ("/x", None)],
)
def test_the_cache_folder_is_platformdirs_answer_without_importing_it(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None, home: str | None
) -> None:
    import platformdirs

    for name, value in (("XDG_CACHE_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    fast = cache_module._linux_cache_home()
    if sys.platform == "linux":
        assert (fast is None) == (home == "relative-home")
    if fast is not None:  # None: platformdirs itself answers (no absolute home)
        assert Path(fast, "ci-forensics") == Path(platformdirs.user_cache_dir("ci-forensics"))
    assert cache_module.default_cache_dir() == Path(platformdirs.user_cache_dir("ci-forensics"), "rules")


def test_old_packs_are_pruned_least_recently_used_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 2)
    cache = PackCache(tmp_path / "cache")
    folder = _pack(tmp_path / "rules")
    _load(folder, cache)
    (first,) = (tmp_path / "cache").glob("*.json")
    os.utime(first, (1, 1))  # long unused
    for pattern in ("volume is full", "quota is full"):
        _pack(folder, second_pattern=pattern)
        _load(folder, cache)
    remaining = sorted((tmp_path / "cache").glob("*.json"))
    assert len(remaining) == 2 and first not in remaining


def test_rule_files_are_listed_as_path_rglob_lists_them(tmp_path: Path) -> None:
    """The loader lists files with os.scandir (a Path per file cost more than reading it): same files, same
    order as `sorted(Path.rglob("*.toml"))`, symlinked folders not entered, a folder named *.toml skipped."""
    root = tmp_path / "rules"
    for relative in (
        "a/b.toml",
        "a-c/x.toml",
        "a/z/deep.toml",
        ".hidden.toml",
        "B.toml",
        "a.toml",
        "notes.txt",
    ):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("")
    (root / "folder.toml").mkdir()
    (root / "linked").symlink_to(root / "a", target_is_directory=True)
    (root / "link.toml").symlink_to(root / "a.toml")
    expected = sorted(path for path in root.rglob("*.toml") if path.is_file())
    assert loader.rule_files(root) == expected
    assert [path.relative_to(root).as_posix() for path in expected] == [
        ".hidden.toml",
        "B.toml",
        "a/b.toml",  # by parts, not by string: "a" sorts before "a-c" and "a.toml"
        "a/z/deep.toml",
        "a-c/x.toml",
        "a.toml",
        "link.toml",
    ]
