"""`rules lint`'s load check: how many lines of healthy traffic one rule's pre-filter literals make candidates.

The scanner's pre-filter (engine/prefilter.py) searches raw log bytes for any probe's literal (every rule's
patterns, `requires`, `excludes` and `context`) and sends only those lines to Python. A literal that healthy
serving lines hold (`vllm`, `EngineCore`, `cuda graph`) sends most of a log there: one such `requires` took the
pack from ~50 candidate lines a MiB of healthy traffic to 1,600 and the scan to a sixth of its speed. This
module measures each rule's literals on a sample of real healthy lines (forensics/samples/healthy-traffic.log,
or the user's own) so lint can say so before a benchmark does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from forensics.rules.literals import required_literals
from forensics.rules.model import Rule, RulePattern
from forensics.samples import healthy_traffic

# On the shipped sample the pack's worst rule makes 50 lines a MiB candidates and the whole pack 63 together; the
# reverted `requires` made 1,071. One rule over this costs every healthy log a visible share of the scan's speed.
MAX_CANDIDATES_PER_MIB = 200.0
MIB = 1024 * 1024
_ROLES = ("patterns", "requires", "excludes", "context")


@dataclass(frozen=True, slots=True)
class HealthySample:
    """Lines of healthy traffic (raw bytes, as the pre-filter sees them) and their total size."""

    lines: tuple[bytes, ...]
    size: int

    @classmethod
    def of(cls, files: Sequence[bytes] = ()) -> HealthySample:
        """The contents of the given files together, or the shipped sample when none is given."""
        files = files or [healthy_traffic()]
        lines = tuple(line for data in files for line in data.split(b"\n") if line)
        return cls(lines, sum(len(data) for data in files))

    @property
    def mib(self) -> float:
        return self.size / MIB


@dataclass(frozen=True, slots=True)
class LiteralLoad:
    """One literal of one pattern and the healthy lines holding it."""

    where: str  # `requires[1]`
    literal: str
    lines: int
    per_mib: float


@dataclass(frozen=True, slots=True)
class RuleLoad:
    """The healthy lines any literal of one rule makes candidates, and the literals that make most of them."""

    rule_id: str
    path: str
    lines: int
    per_mib: float
    literals: tuple[LiteralLoad, ...]  # most lines first


def rule_load(rule: Rule, sample: HealthySample) -> RuleLoad:
    """How many of the sample's lines the rule's pre-filter literals let through to Python."""
    candidates: set[int] = set()
    loads: list[LiteralLoad] = []
    folded: tuple[bytes, ...] | None = None
    for role, patterns in _roles(rule):
        for number, pattern in enumerate(patterns, start=1):
            literals = required_literals(pattern.pattern, ignore_case=rule.ignore_case)
            if literals is None:
                continue  # no literal: lint's prefilter check already warns, every line is a candidate
            if literals.ignore_case and folded is None:
                folded = tuple(line.lower() for line in sample.lines)
            haystack = folded if literals.ignore_case and folded is not None else sample.lines
            for literal in literals.alternatives:
                needle = (literal.lower() if literals.ignore_case else literal).encode("utf-8")
                holding = {index for index, line in enumerate(haystack) if needle in line}
                candidates |= holding
                loads.append(
                    LiteralLoad(f"{role}[{number}]", literal, len(holding), _per_mib(len(holding), sample))
                )
    loads.sort(key=lambda load: (-load.lines, load.where, load.literal))
    return RuleLoad(rule.id, rule.path, len(candidates), _per_mib(len(candidates), sample), tuple(loads))


def heavy_rules(
    rules: Iterable[Rule], sample: HealthySample, *, threshold: float = MAX_CANDIDATES_PER_MIB
) -> list[RuleLoad]:
    """The rules whose literals make more than `threshold` lines a MiB of the sample candidates."""
    loads = (rule_load(rule, sample) for rule in rules)
    return [load for load in loads if load.per_mib > threshold]


def _roles(rule: Rule) -> tuple[tuple[str, tuple[RulePattern, ...]], ...]:
    return tuple((role, getattr(rule, role)) for role in _ROLES)


def _per_mib(lines: int, sample: HealthySample) -> float:
    return lines / sample.mib if sample.size else 0.0
