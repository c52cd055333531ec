"""The store answers' JSON pieces that `history --format json` and the dashboard's data.json share, written one way."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from forensics.store.answers import CauseStats, EnvironmentShare, Sighting


def iso(moment: datetime) -> str:
    """`2026-03-01T06:00:00Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sighting_to_dict(seen: Sighting) -> dict[str, Any]:
    """A run where something was seen."""
    return {"at": iso(seen.at), "run_id": seen.run_id, "run_url": seen.run_url, "head_sha": seen.head_sha}


def counts_to_dict(stats: CauseStats) -> dict[str, int]:
    """A cause's hits over 24 h, 7 days, 30 days and in all."""
    return {"24h": stats.count_24h, "7d": stats.count_7d, "30d": stats.count_30d, "total": stats.total}


def share_to_dict(share: EnvironmentShare) -> dict[str, Any]:
    """One environment value's share of a cause's hits against its share of jobs."""
    return {
        "dimension": share.dimension,
        "value": share.value,
        "hits": share.hits,
        "hit_share": share.hit_share,
        "run_share": share.run_share,
    }
