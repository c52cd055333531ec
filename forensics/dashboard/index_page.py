"""index.html: the headline, failures per day, the causes table, cause × environment, unexplained clusters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from forensics.dashboard.chart import Series, render_chart
from forensics.dashboard.filters import filter_attributes, filter_form
from forensics.dashboard.layout import (
    Column,
    ScopeSwitcher,
    kind_badge,
    legend,
    number_cell,
    page,
    sighting,
    sortable_table,
    tickets,
)
from forensics.dashboard.markup import Content, Html, tag
from forensics.dashboard.model import Cause, Dashboard, Day, Matrix
from forensics.dashboard.since_last_run import render_since_last_run
from forensics.dashboard.wording import (
    dimension_label,
    explained_share,
    headline,
    long_date,
    percent,
    percent_of_runs,
    plural,
    window,
)

_CAUSE_COLUMNS = (
    Column("Cause"),
    Column("Kind"),
    Column("Category"),
    Column("24 h", number=True),
    Column("7 d", number=True),
    Column("30 d", number=True),
    Column("Total", number=True),
    Column("First seen", number=True),
    Column("Last seen", number=True),
    Column("Tests", number=True),
    Column("Tickets"),
)
_SHARE_COLUMN = Column("Of tests run", number=True)  # before Tickets, when the document says
_SORTED_BY = 5  # the rows come ordered by failures in the last 30 days


def render_index(
    dashboard: Dashboard,
    *,
    pages: Mapping[str, str],
    series: Sequence[Series],
    switcher: ScopeSwitcher | None = None,
    test_pages: Mapping[str, str] | None = None,
) -> str:
    """The front page; `pages` maps each cause key to its page's path relative to the site's top."""
    if not dashboard.causes:
        return page(
            title="No failures recorded yet",
            body=[
                _nothing_yet(dashboard),
                render_since_last_run(dashboard, pages=pages, test_pages=test_pages),
            ],
            dashboard=dashboard,
            root="",
            switcher=switcher,
        )
    titles = {cause.key: cause.title for cause in dashboard.causes}
    body = [
        _headline(dashboard),
        render_since_last_run(dashboard, pages=pages, test_pages=test_pages),
        _per_day(dashboard, series=series, titles=titles, pages=pages),
        _causes(dashboard, pages),
        _matrix(dashboard.matrix, pages),
        _unexplained(dashboard, pages),
    ]
    return page(
        title=headline(dashboard.totals, dashboard.window_days),
        body=body,
        dashboard=dashboard,
        root="",
        switcher=switcher,
    )


def _nothing_yet(dashboard: Dashboard) -> Html:
    runs = dashboard.totals.runs
    recorded = (
        f"The history store holds {plural(runs, 'run')} over {window(dashboard.window_days)}, none with a failing test."
        if runs
        else "The history store holds no runs yet."
    )
    return tag(
        "section",
        tag("h1", "No failures recorded yet"),
        tag("p", recorded, class_="lead"),
        tag(
            "p",
            "Record the reports of CI runs in the history store and build the dashboard again: this page will "
            "then show which share of the failures has a known root cause, day by day, and where each cause hits.",
        ),
        class_="empty-state",
    )


def _headline(dashboard: Dashboard) -> Html:
    totals = dashboard.totals
    share = explained_share(totals)
    clusters = dashboard.unexplained_clusters
    causes = len(dashboard.causes) - len(clusters)
    stats = [
        ("Failing tests", f"{totals.failing_tests:,}"),
        ("Explained", f"{totals.explained:,}"),
        ("Unexplained", f"{totals.failing_tests - totals.explained:,}"),
        ("Runs", f"{totals.runs:,}"),
        ("Jobs", f"{totals.jobs:,}"),
        ("Causes", f"{causes:,}"),
        ("Unexplained clusters", f"{len(clusters):,}"),
    ]
    if totals.tests_run is not None:
        rate = totals.pass_rate
        stats[3:3] = [
            ("Tests run", f"{totals.tests_run:,}"),
            ("Pass rate", percent(rate) if rate is not None else "—"),
        ]
    if totals.days_without_run:
        stats.append(("Days without a run", f"{totals.days_without_run:,}"))
    meter = None
    if share is not None:
        meter = tag(
            "div",
            tag("span", style=f"width: {share * 100:.1f}%"),
            class_="share-bar",
            role="img",
            aria_label=f"{percent(share)} explained",
        )
    return tag(
        "section",
        tag("h1", headline(totals, dashboard.window_days), id="headline"),
        meter,
        tag("dl", [tag("div", tag("dt", name), tag("dd", value)) for name, value in stats], class_="stats"),
        class_="headline",
        aria_labelledby="headline",
    )


def _per_day(
    dashboard: Dashboard, *, series: Sequence[Series], titles: Mapping[str, str], pages: Mapping[str, str]
) -> Html:
    days = dashboard.days
    label = "Failing tests per day by root cause"
    if days:
        label += f", {long_date(days[0].date)} to {long_date(days[-1].date)}"
    return tag(
        "section",
        tag("h2", "Failures per day by root cause", id="per-day"),
        tag(
            "figure",
            render_chart(days, series, titles=titles, label=label),
            legend(series, hrefs=dict(pages)),
            tag(
                "figcaption",
                "Each bar is one day's failing tests, stacked by root cause; hover a part for its numbers. "
                "Hatched: failures no rule explains.",
                " Dotted: a day without any run (not a clean day)."
                if any(day.no_run for day in days)
                else None,
            ),
            class_="chart-figure",
        ),
        _day_table(days),
        aria_labelledby="per-day",
    )


def _day_table(days: Sequence[Day]) -> Html:
    known = any(day.ran is not None for day in days)  # a 1.0 document does not say what ran
    rows = [
        tag(
            "tr",
            tag("th", long_date(day.date), scope="row"),
            _ran_cells(day) if known else None,
            number_cell(day.failures),
            number_cell(day.explained),
            number_cell(day.failures - day.explained),
            class_="no-run" if day.no_run else None,
        )
        for day in days
    ]
    ran_headers = (
        [tag("th", name, scope="col") for name in ("Runs", "Tests run", "Passed")] if known else None
    )
    return tag(
        "details",
        tag("summary", "The numbers, day by day"),
        tag(
            "table",
            tag("caption", "Failing tests per day"),
            tag(
                "thead",
                tag(
                    "tr",
                    tag("th", "Day", scope="col"),
                    ran_headers,
                    tag("th", "Failures", scope="col"),
                    tag("th", "Explained", scope="col"),
                    tag("th", "Unexplained", scope="col"),
                ),
            ),
            tag("tbody", rows),
            class_="days",
        ),
    )


def _ran_cells(day: Day) -> Content:
    """Runs, tests run and pass rate; one "no run" cell across them on a day nothing ran."""
    if day.ran is None or day.no_run:
        return tag("td", "no run", class_="no-run-label", colspan=3)
    rate = day.pass_rate
    return [
        number_cell(day.ran.runs),
        number_cell(day.ran.executed),
        tag("td", percent(rate) if rate is not None else "—", class_="number"),
    ]


def _share_cell(cause: Cause) -> Html:
    share = cause.executed_share
    if share is None:
        return tag("td", "—", class_="number zero", data_sort=0)
    return tag("td", percent_of_runs(share), class_="number", data_sort=f"{share:.4f}")


def _cause_link(cause: Cause, pages: Mapping[str, str]) -> Html:
    return tag("a", cause.title, href=pages[cause.key], class_="masked" if not cause.explained else None)


def _causes(dashboard: Dashboard, pages: Mapping[str, str]) -> Html:
    ordered = sorted(
        dashboard.causes, key=lambda cause: (-cause.counts.last_30d, -cause.counts.total, cause.title)
    )
    shares = dashboard.totals.tests_run is not None  # a 1.0 document does not say how many tests ran
    rows = [
        tag(
            "tr",
            tag(
                "th",
                _cause_link(cause, pages),
                tag("br"),
                tag("code", cause.key, class_="key"),
                scope="row",
                data_sort=cause.title.casefold(),
            ),
            tag("td", kind_badge(cause), data_sort=cause.kind),
            tag("td", cause.category or "—", data_sort=cause.category or ""),
            number_cell(cause.counts.last_24h),
            number_cell(cause.counts.last_7d),
            number_cell(cause.counts.last_30d),
            number_cell(cause.counts.total),
            tag(
                "td", sighting(cause.first_seen, compact=True), data_sort=int(cause.first_seen.at.timestamp())
            ),
            tag("td", sighting(cause.last_seen, compact=True), data_sort=int(cause.last_seen.at.timestamp())),
            number_cell(len(cause.tests)),
            _share_cell(cause) if shares else None,
            tag(
                "td",
                tickets(cause.tickets, separator=tag("br")),
                data_sort=" ".join(ticket.key for ticket in cause.tickets),
            ),
            data_key=cause.key,
            **filter_attributes(cause),
        )
        for cause in ordered
    ]
    return tag(
        "section",
        tag("h2", "Causes", id="causes"),
        filter_form(dashboard.causes),
        sortable_table(
            caption=f"Root causes and unexplained clusters: failing tests over 24 hours, 7 days, 30 days and "
            f"in all ({plural(len(rows), 'row')}; click a header to sort)",
            columns=_CAUSE_COLUMNS
            if not shares
            else (*_CAUSE_COLUMNS[:-1], _SHARE_COLUMN, _CAUSE_COLUMNS[-1]),
            rows=rows,
            table_id="causes-table",
            sorted_by=_SORTED_BY,
        ),
        aria_labelledby="causes",
    )


def _matrix(matrix: Matrix, pages: Mapping[str, str]) -> Html:
    dimension = dimension_label(matrix.dimension)
    heading = tag("h2", f"Causes by {dimension}", id="environment")
    if not matrix.columns or not matrix.rows:
        return tag(
            "section",
            heading,
            tag("p", f"No {dimension} was recorded with these runs.", class_="muted"),
            aria_labelledby="environment",
        )
    highest = max((row.count(column) for row in matrix.rows for column in matrix.columns), default=0) or 1
    rows = []
    for row in matrix.rows:
        target = pages.get(row.key)
        name: Content = tag("a", row.title, href=target) if target else row.title
        cells = []
        for column in matrix.columns:
            count = row.count(column)
            cells.append(
                tag(
                    "td",
                    f"{count:,}",
                    class_="number heat zero" if count == 0 else "number heat",
                    style=f"--heat: {count / highest:.2f}",
                    data_sort=count,
                )
            )
        total = sum(row.count(column) for column in matrix.columns)
        rows.append(
            tag("tr", tag("th", name, scope="row", data_sort=row.title.casefold()), cells, number_cell(total))
        )
    columns = [
        Column("Cause"),
        *(Column(column, number=True) for column in matrix.columns),
        Column("All", number=True),
    ]
    return tag(
        "section",
        heading,
        sortable_table(
            caption=f"Failing tests per cause on each {dimension}",
            columns=columns,
            rows=rows,
            table_id="matrix-table",
        ),
        aria_labelledby="environment",
    )


def _unexplained(dashboard: Dashboard, pages: Mapping[str, str]) -> Html:
    clusters = sorted(
        dashboard.unexplained_clusters,
        key=lambda cause: (-cause.counts.last_30d, -cause.counts.total, cause.key),
    )
    heading = tag("h2", "Unexplained clusters", id="unexplained")
    if not clusters:
        return tag(
            "section",
            heading,
            tag("p", "None: every recorded failure has a root cause.", class_="muted"),
            aria_labelledby="unexplained",
        )
    items = [
        tag(
            "li",
            tag("a", tag("code", cluster.title), href=pages[cluster.key]),
            tag(
                "p",
                f"fingerprint {cluster.key} · {plural(cluster.counts.last_30d, 'failure')} in 30 days, "
                f"{cluster.counts.total:,} in all · {plural(len(cluster.tests), 'test')} · last seen ",
                sighting(cluster.last_seen),
                class_="muted",
            ),
            **filter_attributes(cluster),
        )
        for cluster in clusters
    ]
    return tag(
        "section",
        heading,
        tag(
            "p",
            "Failing tests no rule explains, grouped by their last error line with volatile parts masked. "
            "To turn one into a rule: ",
            tag("code", "ci-forensics rules suggest report.json"),
            ".",
        ),
        tag("ol", items, class_="clusters"),
        aria_labelledby="unexplained",
    )
