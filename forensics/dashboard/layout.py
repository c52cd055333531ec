"""The page shell and the pieces both page kinds use: sightings, tickets, kind badges, legends, tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from forensics.dashboard.chart import Series
from forensics.dashboard.filters import FILTER_SCRIPT
from forensics.dashboard.markup import Content, Html, link, render, tag
from forensics.dashboard.model import Cause, Dashboard
from forensics.dashboard.wording import iso, timestamp, window
from forensics.model import Ticket
from forensics.store.answers import Sighting
from forensics.store.queries import Filters

GENERATOR = "ci-forensics dashboard"
STYLESHEET = "assets/dashboard.css"
SCRIPT = "assets/dashboard.js"
COMMA = Html(", ")
# Scripts only from the site's own files (never inline), nothing from the network; inline style attributes carry
# the chart's colours and bar widths, which are numbers and colours the site computed, never data.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True, slots=True)
class Scope:
    """One page set of a site that covers several scopes: its name and its folder under the site's top."""

    label: str
    folder: str  # "" for the site's top, else "scopes/<slug>"


@dataclass(frozen=True, slots=True)
class ScopeSwitcher:
    """The links between the page sets of one site, shown on every page of each."""

    scopes: tuple[Scope, ...]
    current: Scope

    def render(self, root: str) -> Html:
        """The switcher for a page `root` away from its page set's top (`""` or `"../"`)."""
        top = root + "../" * len([part for part in self.current.folder.split("/") if part])
        items = [
            tag(
                "li",
                tag(
                    "a",
                    scope.label,
                    href=f"{top}{scope.folder + '/' if scope.folder else ''}index.html",
                    aria_current="page" if scope == self.current else None,
                ),
            )
            for scope in self.scopes
        ]
        return tag("nav", tag("ul", items), class_="scopes", aria_label="Scope")


@dataclass(frozen=True, slots=True)
class Column:
    """A header of a sortable table: `number` columns sort descending first, by each cell's `data-sort`."""

    label: str
    number: bool = False


def page(
    *, title: str, body: Content, dashboard: Dashboard, root: str, switcher: ScopeSwitcher | None = None
) -> str:
    """A whole HTML document; `root` is the relative way back to its page set's top (`""` or `"../"`)."""
    head = tag(
        "head",
        tag("meta", charset="utf-8"),
        tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
        tag("meta", name="color-scheme", content="light dark"),
        tag("meta", name="generator", content=GENERATOR),
        tag("meta", http_equiv="Content-Security-Policy", content=CONTENT_SECURITY_POLICY),
        tag("title", f"{title} · ci-forensics"),
        # An empty icon: otherwise browsers ask the server for /favicon.ico and log a 404.
        tag("link", rel="icon", href="data:,"),
        tag("link", rel="stylesheet", href=root + STYLESHEET),
        tag("script", src=root + SCRIPT, defer=True),
        tag("script", src=root + FILTER_SCRIPT, defer=True),
    )
    header = tag(
        "header",
        tag("a", "ci-forensics", href=f"{root}index.html", class_="brand"),
        tag("span", " triage dashboard", class_="muted"),
        tag("span", scope_label(dashboard.scope), class_="scope") if scope_label(dashboard.scope) else None,
        tag(
            "span",
            f"last {dashboard.window_days} days · generated ",
            time(dashboard.generated_at),
            class_="muted generated",
        ),
        class_="site",
    )
    if switcher is not None and len(switcher.scopes) > 1:
        header = Html(header + switcher.render(root))
    footer = tag(
        "footer",
        "The data behind these pages: ",
        tag("a", "data.json", href=f"{root}data.json"),
        f" (schema {dashboard.schema_version}, {window(dashboard.window_days)}).",
    )
    document = tag("html", head, tag("body", header, tag("main", body, id="main"), footer), lang="en")
    return f"<!doctype html>\n{document}\n"


def scope_label(scope: Filters) -> str:
    """`acme/inference · Nightly CI · main` for the parts a scope names ('' for everything)."""
    return " · ".join(part for part in (scope.repository, scope.workflow, scope.branch) if part)


def time(moment: datetime) -> Html:
    """A `<time>` element in UTC."""
    return tag("time", timestamp(moment), datetime=iso(moment))


def sighting(seen: Sighting, *, compact: bool = False) -> Html:
    """`2026-02-28 14:03 UTC · run 123 · 1a2b3c4` with the run linked; `compact`: the date over the run."""
    run = link(f"run {seen.run_id}" if seen.run_id is not None else "run", seen.run_url)
    has_run = bool(seen.run_url) or seen.run_id is not None
    if compact:
        day = tag(
            "time",
            seen.at.astimezone(UTC).date().isoformat(),
            datetime=iso(seen.at),
            title=timestamp(seen.at),
        )
        return tag("span", day, [tag("br"), run] if has_run else None, class_="sighting")
    parts: list[Content] = [time(seen.at)]
    if has_run:
        parts += [" · ", run]
    if seen.head_sha:
        parts += [" · ", tag("code", seen.head_sha[:7], title=seen.head_sha)]
    return tag("span", parts, class_="sighting")


def tickets(items: Sequence[Ticket], *, separator: Html = COMMA) -> Html:
    """Ticket keys linked to their trackers."""
    return render(
        [separator if index else None, link(ticket.key, ticket.url)] for index, ticket in enumerate(items)
    )


def kind_badge(cause: Cause) -> Html:
    """`cause` or `unexplained`, styled."""
    return tag("span", cause.kind, class_=f"badge {cause.kind}")


def legend(series: Sequence[Series], *, hrefs: dict[str, str] | None = None) -> Html:
    """The chart's key; a cause links to its page when `hrefs` knows it."""
    items = []
    for one in series:
        swatch = tag(
            "span", class_="swatch hatched" if one.hatched else "swatch", style=f"--swatch: {one.colour}"
        )
        target = (hrefs or {}).get(one.key)
        items.append(tag("li", swatch, tag("a", one.label, href=target) if target else one.label))
    return tag("ul", items, class_="legend", aria_label="Chart legend")


def sortable_table(
    *,
    caption: Content,
    columns: Sequence[Column],
    rows: Sequence[Html],
    table_id: str,
    sorted_by: int | None = None,
) -> Html:
    """A table whose headers sort it (assets/dashboard.js); `sorted_by` marks the order the rows come in."""
    headers = [
        tag(
            "th",
            column.label,
            scope="col",
            data_type="number" if column.number else "text",
            aria_sort=("descending" if column.number else "ascending") if index == sorted_by else None,
        )
        for index, column in enumerate(columns)
    ]
    return tag(
        "div",
        tag(
            "table",
            tag("caption", caption),
            tag("thead", tag("tr", headers)),
            tag("tbody", rows),
            class_="sortable",
            id=table_id,
        ),
        class_="table-scroll",
    )


def number_cell(value: int) -> Html:
    """A right-aligned count, muted when zero."""
    return tag("td", f"{value:,}", class_="number zero" if value == 0 else "number", data_sort=value)
