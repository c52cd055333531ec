"""Which tickets to annotate: the report's tickets, the matched rules' tickets and `--ticket`, made concrete.

Resolution rules, kept explicit:
- Linear: `ABC-123` keys and `linear.app/<workspace>/issue/ABC-123` URLs.
- Jira: `…/browse/ABC-123` URLs on the configured Jira site, and bare keys whose project is listed as a
  Jira project (`--jira-project`); every other bare key is Linear. Without a Jira site, Jira tickets are
  problems, not targets.
- GitHub: `owner/repo#N` and issue/PR URLs as they are; `#N` in the repository given (`--repo`) or the
  report's CI repository, else a problem.
Only tickets linked to at least one failing test are annotated; the rest are listed as not annotated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from forensics.inputs.tickets import tickets_in_text
from forensics.model import Problem, Report, Ticket, Verdict
from forensics.sinks.base import Target


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """How ambiguous references resolve: the repository of `#N`, the Jira site and its projects."""

    repository: str = ""  # "owner/name"; default: the report's CI repository
    jira_base_url: str = ""
    jira_projects: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class LinkedTarget:
    """A ticket and the tests of this run linked to it: failing ones (what is posted) and the others."""

    target: Target
    failing: tuple[str, ...]  # test uuids, report order
    others: tuple[str, ...] = ()  # passed or skipped tests linked to the same ticket


@dataclass(frozen=True, slots=True)
class Resolution:
    """Targets with failing tests, targets linked only to other tests, and references that did not resolve."""

    targets: tuple[LinkedTarget, ...]
    quiet: tuple[Target, ...]
    problems: tuple[Problem, ...]


@dataclass(slots=True)
class _Links:
    """One ticket target and the tests that link to it: failing ones, and the others."""

    target: Target
    failing: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)


def resolve_targets(
    report: Report, *, extra_tickets: Sequence[str] = (), options: TargetOptions = TargetOptions()
) -> Resolution:
    """Every ticket the report links to, resolved per system, with the tests linked to each."""
    problems: dict[tuple[str, str], Problem] = {}
    extra: list[Ticket] = []
    for text in extra_tickets:
        found = tickets_in_text(text.strip(), origin="option")
        if not found:
            _add(problems, Problem(text, "is not a ticket reference", hint=_REFERENCE_HINT, severity="error"))
        extra.extend(found)
    repository = options.repository or (report.context.repository if report.context else "")
    links: dict[tuple[str, str], _Links] = {}
    for verdict in report.verdicts:
        failing = verdict.test.status.is_failing
        references = [
            *verdict.test.tickets,
            *(_rule_tickets(verdict) if failing else ()),
            *(extra if failing else ()),
        ]
        for ticket in references:
            resolved = _resolve(ticket, repository=repository, options=options)
            if isinstance(resolved, Problem):
                if failing:
                    _add(problems, resolved)
                continue
            entry = links.setdefault((resolved.system, resolved.key.lower()), _Links(resolved))
            if resolved.url and not entry.target.url:
                entry.target = resolved
            bucket = entry.failing if failing else entry.others
            if verdict.test.uuid not in bucket:
                bucket.append(verdict.test.uuid)
    targets = tuple(
        LinkedTarget(
            entry.target, tuple(entry.failing), tuple(u for u in entry.others if u not in entry.failing)
        )
        for entry in links.values()
        if entry.failing
    )
    quiet = tuple(entry.target for entry in links.values() if not entry.failing)
    return Resolution(targets=targets, quiet=quiet, problems=tuple(problems.values()))


_REFERENCE_HINT = "use OPS-123, owner/repo#123, #123 (with --repo), or a Linear, Jira or GitHub issue URL"


def _rule_tickets(verdict: Verdict) -> Iterable[Ticket]:
    if verdict.root_cause is None:
        return ()
    return [ticket for text in verdict.root_cause.tickets for ticket in tickets_in_text(text, origin="rule")]


def _resolve(ticket: Ticket, *, repository: str, options: TargetOptions) -> Target | Problem:
    if ticket.system == "github":
        return _github(ticket, repository)
    if ticket.system == "jira":
        return _jira(ticket, options)
    project = ticket.key.split("-", 1)[0]
    if project in options.jira_projects and not ticket.url:
        return _jira(ticket, options)
    return Target("linear", ticket.key.upper(), ticket.url)


def _github(ticket: Ticket, repository: str) -> Target | Problem:
    repo, _, number = ticket.key.rpartition("#")
    repo = repo or repository
    if not repo:
        return Problem(
            ticket.key,
            "names no repository",
            hint="pass --repo owner/name (a report fetched from CI knows its repository)",
            severity="error",
        )
    url = ticket.url or f"https://github.com/{repo}/issues/{number}"
    return Target("github", f"{repo.lower()}#{number}", url)


def _jira(ticket: Ticket, options: TargetOptions) -> Target | Problem:
    site = options.jira_base_url.rstrip("/")
    if not site:
        return Problem(
            ticket.key,
            "is a Jira ticket but no Jira site is configured",
            hint="set JIRA_BASE_URL or pass --jira-url",
            severity="error",
        )
    if ticket.url and _host(ticket.url) != _host(site):
        return Problem(
            ticket.key,
            f"is on the Jira site {_host(ticket.url)}, not the configured {_host(site)}",
            hint="annotate it with --jira-url pointing at its site",
            severity="error",
        )
    return Target("jira", ticket.key.upper(), ticket.url or f"{site}/browse/{ticket.key.upper()}")


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _add(problems: dict[tuple[str, str], Problem], problem: Problem) -> None:
    problems.setdefault((problem.object, problem.message), problem)
