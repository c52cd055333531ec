"""The front page's first question: what changed with each workflow's latest run, and which tests are flaky.

New causes and new unexplained clusters, causes back after quiet runs, causes gone; each with its first run
and the commits between the runs where the runs carry their commits (a compare link for GitHub runs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import regex

from forensics.dashboard.layout import Column, sighting, sortable_table
from forensics.dashboard.markup import Content, Html, link, tag
from forensics.dashboard.model import Dashboard, Flaky, SinceLastRun
from forensics.dashboard.test_page import test_link
from forensics.dashboard.wording import percent, plural
from forensics.store.answers import CauseChange, SeriesChanges, Sighting

_ACTIONS_RUN = regex.compile(r"^(https?://[^/\s]+/[^/\s]+/[^/\s]+)/actions/runs/\d+")
_GROUPS = (  # (heading, badge class), in the order a triage engineer reads them
    ("New", "new"),
    ("New unexplained", "new"),
    ("Returning", "returning"),
    ("Back after a short gap", "recurring"),
    ("Gone", "gone"),
)
_FLAKY_COLUMNS = (
    Column("Test"),
    Column("Flip rate", number=True),
    Column("Failed", number=True),
    Column("Tries", number=True),
    Column("Causes"),
    Column("First failed", number=True),
    Column("Last failed", number=True),
)


def compare_url(base: Sighting, head: Sighting) -> str:
    """GitHub's compare page from one run's commit to another's; '' when the runs do not say enough."""
    if not base.head_sha or not head.head_sha or base.head_sha == head.head_sha:
        return ""
    match = _ACTIONS_RUN.match(head.run_url)
    return f"{match[1]}/compare/{base.head_sha}...{head.head_sha}" if match else ""


def render_since_last_run(
    dashboard: Dashboard, *, pages: Mapping[str, str], test_pages: Mapping[str, str] | None = None
) -> Html | None:
    """The section (None for a document that does not say, one written before schema 1.1); `test_pages` maps a
    test's name to its page."""
    since, flaky = dashboard.since_last_run, dashboard.flaky
    if since is None and flaky is None:
        return None
    titles = {cause.key: cause.title for cause in dashboard.causes}
    parts: list[Content] = [tag("h2", "Since the last run", id="since-last-run")]
    if since is not None:
        if not since.series:
            parts.append(tag("p", "No run in this window.", class_="muted"))
        parts += [_series(series, since, titles=titles, pages=pages) for series in since.series]
    if flaky is not None:
        parts.append(_flaky(flaky, pages=pages, test_pages=test_pages or {}))
    return tag("section", parts, class_="since", aria_labelledby="since-last-run")


def _series(
    series: SeriesChanges, since: SinceLastRun, *, titles: Mapping[str, str], pages: Mapping[str, str]
) -> Html:
    name = " · ".join(part for part in (series.workflow, series.branch) if part) or "local analyses"
    facts: list[Content] = ["Latest run ", sighting(series.latest)]
    if series.previous is None:
        facts.append(", the first one recorded.")
    else:
        facts += [
            tag("br"),
            "Previous run ",
            sighting(series.previous),
            _commits(series.previous, series.latest),
        ]
    if series.last_good is not None and series.last_good != series.previous:
        facts += [
            tag("br"),
            "Last run without a failure ",
            sighting(series.last_good),
            _commits(series.last_good, series.latest),
        ]
    elif series.last_good is None and series.previous is not None:
        facts += [tag("br"), "No earlier run of it passed without a failure."]
    groups = []
    for heading, badge in _GROUPS:
        members = [change for change in series.changes if _heading(change) == heading]
        if members:
            items = [_change(change, badge, since, titles=titles, pages=pages) for change in members]
            groups.append(tag("li", tag("h4", heading), tag("ul", items), data_group=badge))
    if groups:
        body = tag("ul", groups, class_="change-groups")
    elif series.previous is None:
        body = tag("p", "Nothing failed in its first recorded run.", class_="muted")
    else:
        body = tag("p", "Nothing new, nothing gone.", class_="muted")
    return tag(
        "article",
        tag("h3", name, tag("span", f" {series.repository}", class_="muted") if series.repository else None),
        tag("p", facts, class_="seen"),
        body,
        class_="series",
        data_workflow=series.workflow,
        data_branch=series.branch,
    )


def _heading(change: CauseChange) -> str:
    if change.status == "new":
        return "New" if change.kind == "cause" else "New unexplained"
    return {"returning": "Returning", "recurring": "Back after a short gap", "gone": "Gone"}[change.status]


def _commits(base: Sighting, head: Sighting) -> Content:
    if not base.head_sha or not head.head_sha or base.head_sha == head.head_sha:
        return None
    text = f"commits {base.head_sha[:7]}…{head.head_sha[:7]}"
    return [" · ", link(text, compare_url(base, head))]


def _change(
    change: CauseChange,
    badge: str,
    since: SinceLastRun,
    *,
    titles: Mapping[str, str],
    pages: Mapping[str, str],
) -> Html:
    title = titles.get(change.key, change.key)
    target = pages.get(change.key)
    name: Content = tag("a", title, href=target) if target else title
    if change.kind != "cause":
        name = tag("span", name, class_="masked")
    detail: list[Content] = [
        f"{plural(change.hits, 'failing test')} in the previous run, none in the latest"
        if change.status == "gone"
        else plural(change.hits, "failing test")
    ]
    if change.status in ("returning", "recurring") and change.quiet_runs is not None:
        detail.append(f" · back after {plural(change.quiet_runs, 'run')} without it")
        if change.quiet_days is not None:
            detail.append(f" ({plural(change.quiet_days, 'day')})")
    if change.first_seen is not None and change.status != "new":
        detail += [" · first seen ", sighting(change.first_seen)]
    return tag(
        "li",
        tag("span", badge if badge != "recurring" else "back", class_=f"badge {badge}"),
        " ",
        name,
        tag("br"),
        tag("span", detail, class_="muted"),
        data_key=change.key,
        data_status=change.status,
        title=f"returning: absent from {since.returning_after_runs} or more runs"
        if change.status == "returning"
        else None,
    )


def _flaky(flaky: Flaky, *, pages: Mapping[str, str], test_pages: Mapping[str, str]) -> Html:
    heading = tag("h3", "Flaky tests", id="flaky")
    explanation = tag(
        "p",
        f"Tests that passed and failed on one commit and GPU (a retry or a re-run), or whose outcome flipped "
        f"{plural(flaky.min_flips, 'time')} or more on one GPU. Flip rate: flips per try after the first "
        "(100%: it alternates every time).",
        class_="muted",
    )
    if not flaky.tests:
        return tag("div", heading, explanation, tag("p", "None in this window.", class_="muted"))
    rows = [
        tag(
            "tr",
            tag("th", test_link(test.name, test_pages, root=""), scope="row", data_sort=test.name.casefold()),
            tag("td", percent(test.flip_rate), class_="number", data_sort=f"{test.flip_rate:.4f}"),
            tag("td", f"{test.failed:,}", class_="number", data_sort=test.failed),
            tag("td", f"{test.executions:,}", class_="number", data_sort=test.executions),
            tag("td", _causes(test.causes, pages)),
            tag(
                "td",
                sighting(test.first_failed, compact=True),
                data_sort=int(test.first_failed.at.timestamp()),
            ),
            tag(
                "td",
                sighting(test.last_failed, compact=True),
                data_sort=int(test.last_failed.at.timestamp()),
            ),
            data_test=test.name,
        )
        for test in flaky.tests
    ]
    return tag(
        "div",
        heading,
        explanation,
        sortable_table(
            caption=f"Flaky tests of the window ({plural(len(rows), 'test')}), highest flip rate first",
            columns=_FLAKY_COLUMNS,
            rows=rows,
            table_id="flaky-table",
            sorted_by=1,
        ),
    )


def _causes(keys: Sequence[str], pages: Mapping[str, str]) -> Content:
    if not keys:
        return tag("span", "passed on a retry", class_="muted")
    return [
        [tag("br") if index else None, tag("a", key, href=pages[key]) if key in pages else key]
        for index, key in enumerate(keys)
    ]
