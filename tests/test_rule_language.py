"""Derived values (safe arithmetic), summary templates, and the literals the pre-filter extracts."""

from __future__ import annotations

import pytest

from forensics.engine.prefilter import Prefilter
from forensics.rules.expressions import Expression
from forensics.rules.literals import MAX_WAYS, required_literal_sets, required_literal_ways, required_literals
from forensics.rules.template import Template, format_value


def test_the_seed_numbers() -> None:
    values = {"free_gib": 19.5, "total_gib": 22.03, "requested_gib": 19.83}
    assert Expression.parse("round(requested_gib - free_gib, 2)").evaluate(values) == 0.33
    assert Expression.parse("floor(free_gib / total_gib * 100) / 100").evaluate(values) == 0.88


@pytest.mark.parametrize(
    "source",
    [
        "__import__('os').system('true')",
        "free_gib.__class__",
        "[1, 2]",
        "free_gib if 1 else 2",
        "lambda: 1",
        "'text'",
        "max(a=1)",
        "open('x')",
        "1 < 2",
    ],
)
def test_anything_but_arithmetic_is_refused(source: str) -> None:
    with pytest.raises(ValueError, match=r"not allowed|only|positional"):
        Expression.parse(source)


def test_missing_values_division_by_zero_and_huge_powers_give_none() -> None:
    assert Expression.parse("a + 1").evaluate({}) is None
    assert Expression.parse("a + 1").evaluate({"a": "cuda:0"}) is None
    assert Expression.parse("1 / a").evaluate({"a": 0}) is None
    assert Expression.parse("10 ** 10 ** 10").evaluate({}) is None


def test_templates_fill_values_specs_and_fallbacks() -> None:
    template = Template.parse("{free:.1f} of {total} on {device|the GPU} ({missing}) {{literal}}")
    assert template.render({"free": 19.5, "total": 22.03}) == "19.5 of 22.03 on the GPU (?) {literal}"
    assert template.names == {"free", "total", "device", "missing"}


def test_templates_refuse_stray_braces_and_attribute_access() -> None:
    with pytest.raises(ValueError, match="unbalanced"):
        Template.parse("{device.__class__}")
    with pytest.raises(ValueError, match="unbalanced"):
        Template.parse("oops {")


def test_floats_print_without_noise() -> None:
    assert format_value(19.83 - 19.5) == "0.33"
    assert format_value(8192.0) == "8192"
    assert format_value(0.9) == "0.9"


@pytest.mark.parametrize(
    ("pattern", "ignore_case", "expected"),
    [
        (r"Free memory on device(?: (?P<d>\S+))? \((?P<f>[\d.]+)/", False, ("Free memory on device",)),
        (
            r"address already in use|EADDRINUSE|port \d+ already in use",
            False,
            (" already in use", "EADDRINUSE"),
        ),
        (r"No space left on device", True, ("no space left on device",)),
        (r"(?i:killed) process \d+", False, ("killed process ",)),
        (r"\d+\.\d+", False, None),
        (r"(?:a|bcd)efgh", False, ("bcdefgh", "aefgh")),
        (r"(?:foo)?barbaz", False, ("barbaz",)),
        (
            r"(?:ModuleNotFound|Import)Error: No module named",
            False,
            ("ModuleNotFoundError: No module named", "ImportError: No module named"),
        ),
        (
            r"\b(?:health check|Health check|healthcheck) (?:failed|timed out) after \d+",
            False,
            (
                "Health check timed out after ",
                "health check timed out after ",
                "healthcheck timed out after ",
                "Health check failed after ",
                "health check failed after ",
                "healthcheck failed after ",
            ),
        ),
        (r"[Ee]rror\b code=?(?<!x)\d", False, ("Error code", "error code")),
        (r"Killed(?:\s+\d+)?", False, ("Killed",)),
    ],
)
def test_required_literals(pattern: str, ignore_case: bool, expected: tuple[str, ...] | None) -> None:
    literals = required_literals(pattern, ignore_case=ignore_case)
    assert (literals.alternatives if literals else None) == expected


def test_every_part_that_needs_a_literal_gives_a_set() -> None:
    sets = required_literal_sets(
        r"(?:Flash|flash)Infer\b.{0,80}?version \d+ (?:is not supported|too old)", ignore_case=False
    )
    assert [literals.alternatives for literals in sets] == [
        ("FlashInfer", "flashInfer"),
        ("version ",),
        (" is not supported", " too old"),
    ]
    assert required_literal_sets(r"(?i:oom) in \(", ignore_case=False)[0].ignore_case
    assert required_literal_sets("(?P<x", ignore_case=False) == ()


def test_each_way_through_an_alternation_gives_its_own_sets() -> None:
    pattern = (
        r"(?:Error|Exception): [^\n]{0,80}(?:[Cc]uda|GPU)[^\n]{0,40}(?:is not availab|unavailable)"
        r"|Torch not compiled with CUDA enabled|No CUDA GPUs (?:are|were) (?P<what>available|found)"
    )
    ways = required_literal_ways(pattern, ignore_case=False)
    assert [[literals.alternatives for literals in way] for way in ways] == [
        [("Exception: ", "Error: "), ("Cuda", "cuda", "GPU"), ("is not availab", "unavailable")],
        [("Torch not compiled with CUDA enabled",)],
        [
            (
                "No CUDA GPUs were available",
                "No CUDA GPUs are available",
                "No CUDA GPUs were found",
                "No CUDA GPUs are found",
            )
        ],
    ]
    # the whole pattern's sets take each branch's best literals together: one set, any branch's
    (whole,) = required_literal_sets(pattern, ignore_case=False)
    assert {"is not availab", "Torch not compiled with CUDA enabled"} <= set(whole.alternatives)
    assert "Error: " not in whole.alternatives
    # a group's branches are spliced between what comes before and after it: the runs join across
    assert [
        [literals.alternatives for literals in way]
        for way in required_literal_ways(r"timed out (?:after \d+s|waiting for .+) on host", ignore_case=True)
    ] == [[("timed out after ",), ("s on host",)], [("timed out waiting for ",), (" on host",)]]
    assert all(
        literals.ignore_case for literals in required_literal_ways("(?i:oom)|x{2}kill", ignore_case=False)[0]
    )
    # no alternation (or one of a few exact strings, already a run): one way, the whole pattern's sets
    assert required_literal_ways(r"(?:failed|timed out) after", ignore_case=False) == (
        required_literal_sets(r"(?:failed|timed out) after", ignore_case=False),
    )
    assert required_literal_ways("(?P<x", ignore_case=False) == ()


def test_the_ways_stop_at_max_ways() -> None:
    branches = "|".join(f"word{n}.+end{n}" for n in range(MAX_WAYS + 1))
    ways = required_literal_ways(f"start (?:{branches})", ignore_case=False)
    assert len(ways) == 1  # splitting would pass the bound: the alternation is left whole
    assert ways == (required_literal_sets(f"start (?:{branches})", ignore_case=False),)
    nested = required_literal_ways(
        r"(?:a1.+|b2.+)(?:c3.+|d4.+)(?:e5.+|f6.+)(?:g7.+|h8.+)(?:i9.+|j0.+)", ignore_case=False
    )
    assert len(nested) == MAX_WAYS  # the first four alternations split, the fifth left whole in each way
    assert [literals.alternatives for literals in nested[0]] == [
        ("a1",),
        ("c3",),
        ("e5",),
        ("g7",),
        ("i9", "j0"),
    ]


def test_one_pattern_without_literals_turns_the_prefilter_off() -> None:
    assert Prefilter.build([required_literals(r"\d+", ignore_case=False)]).pattern is None
    built = Prefilter.build(
        [required_literals("Free memory", ignore_case=False), required_literals("oom", ignore_case=True)]
    )
    assert built.pattern is not None
    assert (
        built.pattern.search(b"xx OOM yy")
        and built.pattern.search(b"Free memory")
        and not built.pattern.search(b"free")
    )
