"""causes/<slug>.html: one cause's counts, days, environment, advice, tests, tickets and evidence."""

from __future__ import annotations

from collections.abc import Mapping

from forensics.dashboard.chart import Series, render_chart
from forensics.dashboard.layout import (
    Column,
    ScopeSwitcher,
    kind_badge,
    number_cell,
    page,
    sighting,
    sortable_table,
    time,
)
from forensics.dashboard.markup import Content, Html, link, tag
from forensics.dashboard.model import Cause, Dashboard, Example
from forensics.dashboard.test_page import test_link
from forensics.dashboard.wording import (
    capitalised,
    correlation,
    dimension_label,
    dimension_order,
    percent,
    percent_of_runs,
    plural,
)
from forensics.model import Evidence

ROOT = "../"
_TESTS_SHOWN = 20
_ENVIRONMENT_COLUMNS = (
    Column("Where"),
    Column("Value"),
    Column("Hits", number=True),
    Column("Share of hits", number=True),
    Column("Share of jobs", number=True),
)


def render_cause_page(
    dashboard: Dashboard,
    cause: Cause,
    *,
    series: Series,
    switcher: ScopeSwitcher | None = None,
    test_pages: Mapping[str, str] | None = None,
) -> str:
    """The page of one cause; `series` gives it the colour it has in the front page's chart, `test_pages`
    maps a test's name to its page (from the site's top)."""
    test_pages = test_pages or {}
    body = [
        tag("p", tag("a", "← All causes", href=f"{ROOT}index.html#causes"), class_="back"),
        _title(cause),
        _counts(cause),
        _days(dashboard, cause, series),
        _advice(cause),
        _environment(cause),
        _tests(cause, test_pages),
        _tickets(cause),
        _evidence(cause, test_pages),
    ]
    return page(title=cause.title, body=body, dashboard=dashboard, root=ROOT, switcher=switcher)


def _title(cause: Cause) -> Html:
    facts: list[Content] = [kind_badge(cause)]
    if cause.category:
        facts += [" ", tag("span", cause.category, class_="badge category")]
    label = "rule" if cause.explained else "fingerprint"
    facts += [" ", label, " ", tag("code", cause.key, class_="key")]
    return tag(
        "header",
        tag("h1", cause.title, class_=None if cause.explained else "masked"),
        tag("p", facts, class_="facts"),
        class_="cause-title",
    )


def _counts(cause: Cause) -> Html:
    counts = cause.counts
    stats = [
        ("Last 24 hours", f"{counts.last_24h:,}"),
        ("Last 7 days", f"{counts.last_7d:,}"),
        ("Last 30 days", f"{counts.last_30d:,}"),
        ("In all", f"{counts.total:,}"),
        ("Tests", f"{len(cause.tests):,}"),
    ]
    if cause.executed_share is not None:
        stats.append(("Of the tests run", percent_of_runs(cause.executed_share)))
    return tag(
        "section",
        tag("h2", "How often", class_="visually-hidden", id="counts"),
        tag("dl", [tag("div", tag("dt", name), tag("dd", value)) for name, value in stats], class_="stats"),
        tag(
            "p",
            "First seen ",
            sighting(cause.first_seen),
            tag("br"),
            "Last seen ",
            sighting(cause.last_seen),
            class_="seen",
        ),
        aria_labelledby="counts",
    )


def _days(dashboard: Dashboard, cause: Cause, series: Series) -> Html:
    label = f"Failing tests per day: {cause.title}"
    return tag(
        "section",
        tag("h2", "Failures per day", id="per-day"),
        tag(
            "figure",
            render_chart(dashboard.days, (series,), titles={cause.key: cause.title}, label=label, height=200),
            class_="chart-figure",
        ),
        aria_labelledby="per-day",
    )


def _advice(cause: Cause) -> Html:
    if not cause.explained:
        return tag(
            "section",
            tag("h2", "No rule explains this yet", id="advice"),
            tag(
                "p",
                "These failing tests share their last error line once numbers, paths, addresses and other "
                "volatile parts are masked. Read the evidence below; to start a rule from it, run ",
                tag("code", "ci-forensics rules suggest report.json"),
                " on a report of one of the runs.",
            ),
            class_="advice",
            aria_labelledby="advice",
        )
    paragraphs = [part.strip() for part in cause.advice.split("\n\n") if part.strip()]
    return tag(
        "section",
        tag("h2", "Advice", id="advice"),
        [tag("p", paragraph) for paragraph in paragraphs]
        or tag("p", "The rule gives no advice.", class_="muted"),
        class_="advice",
        aria_labelledby="advice",
    )


def _environment(cause: Cause) -> Html:
    heading = tag("h2", "Where it happens", id="environment")
    # A value every job of the scope had (the runner label `gpu` on every runner) says nothing about the cause.
    informative = [share for share in cause.environment if share.run_share < 1]
    everywhere = [
        f"{dimension_label(share.dimension)} {share.value}"
        for share in cause.environment
        if share.run_share >= 1
    ]
    left_out = (
        tag("p", "Every job had ", ", ".join(everywhere), ": not shown.", class_="muted")
        if everywhere
        else None
    )
    if not informative:
        message = (
            "Every job in this scope ran on the same runners and GPUs, so where it happens tells nothing."
            if everywhere
            else "No runner or GPU was recorded with these failures."
        )
        return tag(
            "section",
            heading,
            tag("p", message, class_="muted"),
            left_out,
            aria_labelledby="environment",
        )
    ordered = sorted(
        informative,
        key=lambda share: (-round(share.lift, 4), -share.hits, dimension_order(share.dimension), share.value),
    )
    strongest = ordered[0]
    lead = (
        tag("p", capitalised(correlation(strongest)), ".", class_="lead")
        if strongest.lift > 0
        else tag("p", "The hits spread over runners and GPUs as the runs do.", class_="lead")
    )
    rows = [
        tag(
            "tr",
            tag("td", capitalised(dimension_label(share.dimension)), data_sort=share.dimension),
            tag("th", share.value, scope="row", data_sort=share.value.casefold()),
            number_cell(share.hits),
            tag("td", percent(share.hit_share), class_="number", data_sort=f"{share.hit_share:.4f}"),
            tag("td", percent(share.run_share), class_="number", data_sort=f"{share.run_share:.4f}"),
        )
        for share in ordered
    ]
    return tag(
        "section",
        heading,
        lead,
        sortable_table(
            caption="The cause's hits on each runner and GPU, against the share of all jobs each one ran",
            columns=_ENVIRONMENT_COLUMNS,
            rows=rows,
            table_id="environment-table",
        ),
        left_out,
        aria_labelledby="environment",
    )


def _tests(cause: Cause, test_pages: Mapping[str, str]) -> Html:
    shown = [tag("li", test_link(test, test_pages, root=ROOT)) for test in cause.tests[:_TESTS_SHOWN]]
    rest = [tag("li", test_link(test, test_pages, root=ROOT)) for test in cause.tests[_TESTS_SHOWN:]]
    more = tag("details", tag("summary", f"{len(rest):,} more"), tag("ul", rest)) if rest else None
    return tag(
        "section",
        tag("h2", plural(len(cause.tests), "test"), id="tests"),
        tag("ul", shown, class_="tests") if shown else tag("p", "No test names recorded.", class_="muted"),
        more,
        aria_labelledby="tests",
    )


def _tickets(cause: Cause) -> Html:
    items = [tag("li", link(ticket.key, ticket.url)) for ticket in cause.tickets]
    return tag(
        "section",
        tag("h2", "Tickets", id="tickets"),
        tag("ul", items, class_="tickets") if items else tag("p", "No ticket linked yet.", class_="muted"),
        aria_labelledby="tickets",
    )


def _evidence(cause: Cause, test_pages: Mapping[str, str]) -> Html:
    heading = tag("h2", "Evidence", id="evidence")
    if not cause.examples:
        return tag(
            "section",
            heading,
            tag("p", "No log excerpt was stored.", class_="muted"),
            aria_labelledby="evidence",
        )
    return tag(
        "section",
        heading,
        [_example(example, test_pages) for example in cause.examples],
        aria_labelledby="evidence",
    )


def _example(example: Example, test_pages: Mapping[str, str]) -> Html:
    run = f"run {example.run_id}" if example.run_id is not None else "run"
    meta: list[Content] = [time(example.at)]
    if example.run_url or example.run_id is not None:
        meta += [" · ", link(run, example.run_url)]
    return tag(
        "article",
        tag("h3", test_link(example.test, test_pages, root=ROOT)),
        tag("p", meta, class_="muted"),
        tag("p", example.summary) if example.summary else None,
        _excerpt(example.evidence) if example.evidence is not None else None,
        class_="example",
    )


def _excerpt(evidence: Evidence) -> Html | None:
    """The numbered lines around the evidence, the evidence line marked."""
    if evidence.line <= 0:
        # A fingerprint taken from the test's message has no log line to number.
        if not evidence.text:
            return None
        line = tag("mark", evidence.text, class_="line")
        return tag(
            "figure",
            tag("figcaption", "The test's error message"),
            tag("pre", tag("code", line)),
            class_="excerpt",
        )
    # The evidence line is shown even when the store kept no excerpt around it.
    by_number = {line.number: line.text for line in evidence.excerpt}
    by_number.setdefault(evidence.line, evidence.text)
    numbered = sorted(by_number.items())
    width = len(str(numbered[-1][0]))
    code = [
        tag(
            "mark" if number == evidence.line else "span",
            tag("span", str(number).rjust(width), class_="number"),
            text,
            "\n",
            class_="line",
        )
        for number, text in numbered
    ]
    place = f"{evidence.attachment or 'log'}, line {evidence.line}"
    return tag("figure", tag("figcaption", place), tag("pre", tag("code", code)), class_="excerpt")
