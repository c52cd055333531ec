"""Group failing tests by root cause rule, and unexplained ones by fingerprint; biggest first."""

from __future__ import annotations

from collections.abc import Sequence

from forensics.model import Group, Verdict


def group_verdicts(verdicts: Sequence[Verdict]) -> tuple[Group, ...]:
    """Cause groups (biggest first), then unexplained groups (biggest first)."""
    causes: dict[str, list[Verdict]] = {}
    unexplained: dict[str, list[Verdict]] = {}
    for verdict in verdicts:
        if not verdict.test.status.is_failing:
            continue
        if verdict.root_cause is not None:
            causes.setdefault(verdict.root_cause.rule_id, []).append(verdict)
        elif verdict.fingerprint is not None:
            unexplained.setdefault(verdict.fingerprint.key, []).append(verdict)
    cause_groups = [
        Group(
            kind="cause",
            key=rule_id,
            title=members[0].root_cause.title if members[0].root_cause else rule_id,
            category=members[0].root_cause.category if members[0].root_cause else None,
            test_uuids=tuple(v.test.uuid for v in members),
        )
        for rule_id, members in causes.items()
    ]
    unexplained_groups = [
        Group(
            kind="unexplained",
            key=key,
            title=members[0].fingerprint.masked if members[0].fingerprint else key,
            category=None,
            test_uuids=tuple(v.test.uuid for v in members),
        )
        for key, members in unexplained.items()
    ]
    cause_groups.sort(key=lambda g: (-len(g.test_uuids), g.title))
    unexplained_groups.sort(key=lambda g: (-len(g.test_uuids), g.title))
    return (*cause_groups, *unexplained_groups)
