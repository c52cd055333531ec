"""The outcome of `annotate`: one line per ticket (text), or everything with the bodies (JSON).

Pure functions of an `AnnotateResult`; `annotate` and `fetch --annotate` print them.
"""

from __future__ import annotations

import json
from typing import Any

from forensics.annotate import Action, AnnotateResult, TicketOutcome
from forensics.render.escape import defuse_workflow_commands


def render_result(result: AnnotateResult) -> str:
    """One line per ticket (and in a dry run, the body it would get), then problems.

    A hint is shown once: twenty tickets on a tracker that is down share one "what to check".
    """
    lines: list[str] = []
    hints_shown: set[str] = set()
    for outcome in result.outcomes:
        if outcome.action is Action.PLANNED:
            lines += [
                f"=== {outcome.target.label}: would post ({_tests(outcome.tests)}) ===",
                _body(outcome),
                "",
            ]
            continue
        line = f"{outcome.target.label}: {outcome.action.value} ({_tests(outcome.tests)})"
        if outcome.comment_url:
            line += f" {outcome.comment_url}"
        if outcome.action is Action.FAILED:
            line += f": {outcome.message}"
        lines.append(line)
        if outcome.hint and outcome.action is Action.FAILED and outcome.hint not in hints_shown:
            hints_shown.add(outcome.hint)
            lines.append(f"  hint: {outcome.hint}")
    for problem in result.problems:
        lines.append(f"problem: {problem.object}: {problem.message}")
        if problem.hint:
            lines.append(f"  hint: {problem.hint}")
    if result.quiet:
        labels = ", ".join(target.label for target in result.quiet)
        lines.append(f"not annotated (no failing test links to them): {labels}")
    if not result.outcomes and not result.problems:
        lines.append("no ticket is linked to a failing test: nothing to annotate")
    elif not result.dry_run:
        done = len(result.outcomes) - len(result.failed)
        lines.append(f"{done} of {len(result.outcomes)} tickets annotated")
    return defuse_workflow_commands("\n".join(lines) + "\n")  # printed in CI steps, bodies quote logs


def result_to_dict(result: AnnotateResult) -> dict[str, Any]:
    """The result as JSON: per ticket the action, comment link, failure reason and the body."""
    return {
        "dry_run": result.dry_run,
        "tickets": [_outcome(outcome) for outcome in result.outcomes],
        "problems": [
            {"object": p.object, "message": p.message, "hint": p.hint, "severity": p.severity}
            for p in result.problems
        ],
        "not_annotated": [
            {"system": target.system, "key": target.key, "url": target.url} for target in result.quiet
        ],
    }


def _outcome(outcome: TicketOutcome) -> dict[str, Any]:
    return {
        "system": outcome.target.system,
        "key": outcome.target.key,
        "url": outcome.target.url,
        "action": outcome.action.value,
        "tests": outcome.tests,
        "comment_url": outcome.comment_url,
        "message": outcome.message,
        "hint": outcome.hint,
        "marker": outcome.body.marker.text,
        "format": outcome.body.format,
        "body": outcome.body.document() if outcome.body.format == "adf" else outcome.body.text,
    }


def _body(outcome: TicketOutcome) -> str:
    if outcome.body.format == "adf":
        return json.dumps(outcome.body.document(), indent=2, ensure_ascii=False)
    return outcome.body.text.rstrip("\n")


def _tests(count: int) -> str:
    return f"{count} failing test{'' if count == 1 else 's'}"
