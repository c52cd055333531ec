"""The dashboard's sentences and number formats, in one place so every page says the same thing."""

from __future__ import annotations

from datetime import UTC, date, datetime

from forensics.dashboard.model import Totals
from forensics.store.answers import EnvironmentShare

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DIMENSIONS = {
    "runner_label": "runner label",
    "gpu_model": "GPU model",
    "gpu_memory": "GPU memory",
    "runner": "runner",
}


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 failure`, `3 failures`."""
    return f"{count:,} {noun if count == 1 else plural_noun or noun + 's'}"


def percent(share: float) -> str:
    """A share as a whole percentage that never says 100% or 0% unless it is exactly that."""
    if share >= 1:
        return "100%"
    if share <= 0:
        return "0%"
    return f"{min(99, max(1, round(share * 100)))}%"


def percent_of_runs(share: float) -> str:
    """A small share with one decimal (`0.4%`), since a cause hits a few of thousands of tests run."""
    if share <= 0:
        return "0%"
    if share >= 0.1:
        return percent(share)
    return f"{max(0.1, round(share * 100, 1)):.1f}%"


def window(days: int) -> str:
    """`the last 30 days`, `the last day`."""
    return "the last day" if days == 1 else f"the last {days} days"


def explained_share(totals: Totals) -> float | None:
    """The share of failing tests a rule explains; None when nothing failed."""
    if totals.explained_share is not None:
        return totals.explained_share
    return totals.explained / totals.failing_tests if totals.failing_tests else None


def headline(totals: Totals, window_days: int) -> str:
    """`86% of failures explained over the last 30 days (42 of 49)`."""
    share = explained_share(totals)
    if share is None or totals.failing_tests == 0:
        return f"No failures over {window(window_days)}"
    return (
        f"{percent(share)} of failures explained over {window(window_days)} "
        f"({totals.explained:,} of {totals.failing_tests:,})"
    )


def dimension_label(dimension: str) -> str:
    """`gpu_model` → `GPU model`, in lower case for use inside a sentence."""
    return _DIMENSIONS.get(dimension, dimension.replace("_", " "))


def dimension_order(dimension: str) -> int:
    """Runner label first, then GPU model, GPU memory, runner, then anything else."""
    order = list(_DIMENSIONS)
    return order.index(dimension) if dimension in order else len(order)


def capitalised(text: str) -> str:
    """The first letter upper case, the rest as is (`GPU model` stays, `runner label` → `Runner label`)."""
    return text[:1].upper() + text[1:]


def correlation(share: EnvironmentShare) -> str:
    """`100% of hits on runner label gpu-a10g, which ran 40% of jobs`."""
    return (
        f"{percent(share.hit_share)} of hits on {dimension_label(share.dimension)} {share.value}, "
        f"which ran {percent(share.run_share)} of jobs"
    )


def timestamp(moment: datetime) -> str:
    """`2026-02-28 14:03 UTC`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso(moment: datetime) -> str:
    """`2026-02-28T14:03:00Z`, for `<time datetime>`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def short_date(day: date) -> str:
    """`14 Feb` (English month names whatever the locale)."""
    return f"{day.day} {_MONTHS[day.month - 1]}"


def long_date(day: date) -> str:
    """`14 Feb 2026`."""
    return f"{short_date(day)} {day.year}"
