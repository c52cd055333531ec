"""tests/<slug>.html: one test's run strip per series, its causes, its tickets and whether it is flaky.

Flaky is what the dashboard's flaky list says (`flipping_tests`, counted per GPU), so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from forensics.dashboard.layout import ScopeSwitcher, page, time
from forensics.dashboard.markup import Content, Html, external_url, link, tag
from forensics.dashboard.model import Dashboard
from forensics.dashboard.wording import percent, plural, timestamp
from forensics.store.answers import FlippingTest, Sighting, TestCell, TestHistory, TestOutcome, TestStrip

ROOT = "../"
OUTCOME_LABELS: dict[TestOutcome, str] = {
    "passed": "passed",
    "failed": "failed with a known cause",
    "unexplained": "failed, unexplained",
    "skipped": "skipped",
    "not-run": "not run",
}
_GLYPHS: dict[TestOutcome, str] = {
    "passed": "✓",
    "failed": "✗",
    "unexplained": "?",
    "skipped": "–",
    "not-run": "·",
}


def render_test_page(
    dashboard: Dashboard,
    test: TestHistory,
    *,
    cause_pages: Mapping[str, str],
    titles: Mapping[str, str],
    switcher: ScopeSwitcher | None = None,
) -> str:
    """The page of one test; `cause_pages` maps a cause key to its page (from the site's top), `titles` to its title."""
    flaky = None
    if dashboard.flaky is not None:
        flaky = next((one for one in dashboard.flaky.tests if one.name == test.name), None)
    body = [
        tag("p", tag("a", "← All causes", href=f"{ROOT}index.html#causes"), class_="back"),
        _title(test, flaky, known=dashboard.flaky is not None),
        _strips(test, titles),
        _causes(test, cause_pages, titles),
        _tickets(test),
    ]
    return page(title=test.name, body=body, dashboard=dashboard, root=ROOT, switcher=switcher)


def test_link(name: str, test_pages: Mapping[str, str], *, root: str) -> Html:
    """A test's name in code, linked to its page when it has one (`root`: the way back to the site's top)."""
    target = test_pages.get(name)
    code = tag("code", name)
    return tag("a", code, href=root + target, class_="test-link") if target else code


def verdict(test: TestHistory, flaky: FlippingTest | None) -> str:
    """`flaky` (on the dashboard's flaky list), `failing` (its latest run failed in some series) or `recovered`."""
    if flaky is not None:
        return "flaky"
    return "failing" if any(strip.failing_since for strip in test.strips) else "recovered"


def _flakiness(flaky: FlippingTest | None, *, known: bool) -> str:
    if flaky is None:
        return "Not flaky: on each GPU its outcome held steady." if known else ""
    why = " It passed and failed on one commit and GPU." if flaky.same_commit else ""
    return (
        f"Flaky: it flipped between pass and fail {plural(flaky.flips, 'time')} over "
        f"{plural(flaky.executions, 'try', 'tries')} (retries included, counted per GPU), a flip rate of "
        f"{percent(flaky.flip_rate)}.{why}"
    )


def _title(test: TestHistory, flaky: FlippingTest | None, *, known: bool) -> Html:
    state = verdict(test, flaky)
    executed = [
        cell for strip in test.strips for cell in strip.cells if cell.outcome not in ("skipped", "not-run")
    ]
    failing = sum(1 for cell in executed if cell.outcome in ("failed", "unexplained"))
    return tag(
        "header",
        tag("h1", tag("code", test.name)),
        tag(
            "p",
            tag("span", state, class_=f"badge verdict {state}", data_verdict=state),
            f" Failed in {failing:,} of the {plural(len(executed), 'run')} it ran in this window. ",
            _flakiness(flaky, known=known),
            class_="facts",
        ),
        class_="test-title",
    )


def _strips(test: TestHistory, titles: Mapping[str, str]) -> Html:
    return tag(
        "section",
        tag("h2", "Run by run", id="runs"),
        tag(
            "p",
            "One cell per run of each workflow the test belongs to, oldest first. A run with several jobs "
            "(GPUs) shows its worst outcome; hover a cell for its run.",
            class_="muted",
        ),
        _strip_legend(),
        [_strip(strip, titles) for strip in test.strips],
        aria_labelledby="runs",
    )


def _strip_legend() -> Html:
    items = [
        tag("li", tag("span", _GLYPHS[outcome], class_=f"cell {outcome}", aria_hidden="true"), label)
        for outcome, label in OUTCOME_LABELS.items()
    ]
    items.append(
        tag("li", tag("span", "✓↻", class_="cell passed retried", aria_hidden="true"), "passed on a retry")
    )
    return tag("ul", items, class_="legend strip-legend", aria_label="What the cells mean")


def series_name(strip: TestStrip) -> str:
    """`Nightly CI Pipeline · main · acme/inference`, or `local analyses`."""
    parts = [part for part in (strip.workflow, strip.branch, strip.repository) if part]
    return " · ".join(parts) if parts else "local analyses"


def _strip(strip: TestStrip, titles: Mapping[str, str]) -> Html:
    since = strip.failing_since
    status = None
    if since is not None:
        status = tag("p", "Failing since ", _run_text(since), ".", class_="failing-since")
    rows = [_row(cell, titles) for cell in reversed(strip.cells)]
    return tag(
        "div",
        tag("h3", series_name(strip)),
        tag(
            "ol",
            [_cell(cell, titles) for cell in strip.cells],
            class_="strip",
            aria_label=f"Runs of {series_name(strip)}, oldest first",
        ),
        _range(strip),
        status,
        tag(
            "details",
            tag("summary", "The runs, latest first"),
            tag(
                "table",
                tag(
                    "thead",
                    tag(
                        "tr",
                        tag("th", "Run", scope="col"),
                        tag("th", "Outcome", scope="col"),
                        tag("th", "Cause", scope="col"),
                    ),
                ),
                tag("tbody", rows),
                class_="runs",
            ),
        ),
        class_="series",
        data_series=series_name(strip),
    )


def _range(strip: TestStrip) -> Html | None:
    if not strip.cells:
        return None
    first, last = strip.cells[0].run.at, strip.cells[-1].run.at
    return tag(
        "p",
        plural(len(strip.cells), "run"),
        ", ",
        time(first),
        " to ",
        time(last),
        class_="muted strip-range",
    )


def _cell_title(cell: TestCell, titles: Mapping[str, str]) -> str:
    run = f"run {cell.run.run_id}" if cell.run.run_id is not None else "run"
    text = f"{timestamp(cell.run.at)} · {run}: {OUTCOME_LABELS[cell.outcome]}"
    if cell.causes:
        text += " — " + "; ".join(titles.get(key, key) for key in cell.causes)
    if cell.retried:
        text += " (passed on a retry after failing)"
    return text


def _cell(cell: TestCell, titles: Mapping[str, str]) -> Html:
    glyph = _GLYPHS[cell.outcome] + ("↻" if cell.retried else "")
    label = (
        tag("span", glyph, aria_hidden="true"),
        tag("span", _cell_title(cell, titles), class_="visually-hidden"),
    )
    target = external_url(cell.run.run_url)
    content: Content = tag("a", label, href=target, rel="noreferrer") if target else label
    return tag(
        "li",
        content,
        class_=f"cell {cell.outcome}" + (" retried" if cell.retried else ""),
        data_outcome=cell.outcome,
        data_run=cell.run.run_id,
        title=_cell_title(cell, titles),
    )


def _row(cell: TestCell, titles: Mapping[str, str]) -> Html:
    outcome = OUTCOME_LABELS[cell.outcome] + (" (passed on a retry)" if cell.retried else "")
    return tag(
        "tr",
        tag("td", _run_text(cell.run)),
        tag("td", outcome),
        tag("td", "; ".join(titles.get(key, key) for key in cell.causes) or "—"),
    )


def _run_text(seen: Sighting) -> Html:
    parts: list[Content] = [time(seen.at)]
    if seen.run_url or seen.run_id is not None:
        parts += [" · ", link(f"run {seen.run_id}" if seen.run_id is not None else "run", seen.run_url)]
    return tag("span", parts, class_="sighting")


def _causes(test: TestHistory, cause_pages: Mapping[str, str], titles: Mapping[str, str]) -> Html:
    items = []
    for key, count in test.causes:
        target = cause_pages.get(key)
        title = titles.get(key, key)
        name: Content = tag("a", title, href=ROOT + target) if target else title
        items.append(
            tag("li", name, " ", tag("code", key, class_="key"), f" — {plural(count, 'failing run')}")
        )
    return tag(
        "section",
        tag("h2", "Causes", id="causes"),
        tag("ul", items, class_="test-causes") if items else tag("p", "None recorded.", class_="muted"),
        aria_labelledby="causes",
    )


def _tickets(test: TestHistory) -> Html:
    items: Iterable[Html] = [tag("li", link(key, url)) for key, url in test.tickets]
    items = list(items)
    return tag(
        "section",
        tag("h2", "Tickets", id="tickets"),
        tag("ul", items, class_="tickets") if items else tag("p", "No ticket linked yet.", class_="muted"),
        aria_labelledby="tickets",
    )
