"""Where a cause hits: the share of its hits per runner label, GPU model, GPU memory and runner, against the
share of jobs that ran there — "100% of hits on 22 GiB NVIDIA A10G runners, which ran 40% of jobs".

A job whose logs revealed no GPU inherits what its runner was last seen with (runners keep their GPUs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forensics.store.environment import DIMENSIONS, GPU_DIMENSIONS, Fact
from forensics.store.queries import HitRow, JobRow

MIN_PATTERN_HITS = 3
MIN_PATTERN_LIFT = 0.3  # hit share at least this far above the job share
_PATTERN_ORDER = ("gpu_memory", "gpu_model", "runner_label", "runner")


@dataclass(frozen=True, slots=True)
class EnvironmentShare:
    """One environment value's part in a cause's hits, against its part in all jobs."""

    dimension: str  # runner_label | gpu_model | gpu_memory | runner
    value: str
    hits: int
    hit_share: float
    run_share: float  # share of the jobs in the window that ran there

    @property
    def lift(self) -> float:
        """How far the hits lean to this value beyond what its share of jobs explains."""
        return self.hit_share - self.run_share


class Environments:
    """The facts of every job in a window, with runner-inherited GPU facts filled in."""

    def __init__(self, jobs: Sequence[JobRow], runner_gpus: Mapping[str, frozenset[Fact]]) -> None:
        self.facts: dict[int, frozenset[Fact]] = {}
        for job in jobs:
            facts = set(job.facts)
            known = {dimension for dimension, _ in facts}
            for dimension, value in runner_gpus.get(job.runner_name, frozenset()):
                if dimension in GPU_DIMENSIONS and dimension not in known:
                    facts.add((dimension, value))
            self.facts[job.pk] = frozenset(facts)
        self.job_counts: Counter[Fact] = Counter(fact for facts in self.facts.values() for fact in facts)

    @property
    def job_total(self) -> int:
        """Jobs in the window."""
        return len(self.facts)

    def shares(self, hits: Sequence[HitRow]) -> tuple[EnvironmentShare, ...]:
        """Every value the hits ran on, by dimension, most hits first."""
        counted: Counter[Fact] = Counter(fact for hit in hits for fact in self.facts.get(hit.job_pk, ()))
        total = len(hits)
        shares = [
            EnvironmentShare(
                dimension=dimension,
                value=value,
                hits=count,
                hit_share=round(count / total, 4),
                run_share=round(self.job_counts[(dimension, value)] / self.job_total, 4)
                if self.job_total
                else 0.0,
            )
            for (dimension, value), count in counted.items()
        ]
        order = {dimension: index for index, dimension in enumerate(DIMENSIONS)}
        return tuple(
            sorted(shares, key=lambda share: (order.get(share.dimension, 99), -share.hits, share.value))
        )

    def columns(self, dimension: str) -> list[str]:
        """The values of one dimension across the window's jobs, most jobs first."""
        values = [(count, value) for (found, value), count in self.job_counts.items() if found == dimension]
        return [value for _, value in sorted(values, key=lambda item: (-item[0], item[1]))]


def pattern(shares: Sequence[EnvironmentShare]) -> tuple[EnvironmentShare, ...]:
    """The values a cause leans to (all that tie with the strongest lean), or () when it spreads evenly."""
    candidates = [s for s in shares if s.hits >= MIN_PATTERN_HITS and s.lift >= MIN_PATTERN_LIFT]
    if not candidates:
        return ()
    best = max(candidates, key=lambda share: (share.lift, share.hits))
    tied = [
        s
        for s in candidates
        if (s.hits, s.hit_share, s.run_share) == (best.hits, best.hit_share, best.run_share)
    ]
    order = {dimension: index for index, dimension in enumerate(_PATTERN_ORDER)}
    return tuple(sorted(tied, key=lambda share: (order.get(share.dimension, 99), share.value)))


def describe_pattern(shares: Sequence[EnvironmentShare]) -> str:
    """`100% of hits on 22 GiB NVIDIA A10G runners, which ran 40% of jobs` ('' without a pattern)."""
    if not shares:
        return ""
    first = shares[0]
    gpu = " ".join(share.value for share in shares if share.dimension in GPU_DIMENSIONS)
    names = {"runner_label": "label", "runner": "runner"}
    others = ", ".join(
        f"{names.get(share.dimension, share.dimension)} '{share.value}'"
        for share in shares
        if share.dimension not in GPU_DIMENSIONS
    )
    where = f"{gpu} runners" + (f" ({others})" if others else "") if gpu else f"runners with {others}"
    return f"{first.hit_share:.0%} of hits on {where}, which ran {first.run_share:.0%} of jobs"
