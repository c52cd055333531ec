"""The dashboard in a real browser (Debian's Chromium driven by Playwright), opened from file:// as a user would.

Skipped only on a developer machine without /usr/bin/chromium; in CI (`CI` set) a missing browser is a failure,
since .ci/services installs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from forensics.dashboard import write_dashboard
from tests.support.browser import Visit

if TYPE_CHECKING:
    from playwright.sync_api import Page
from tests.support.dashboard_data import (
    SEED_ADVICE,
    SEED_KEY,
    SEED_TITLE,
    XSS_KEY,
    XSS_LINE,
    XSS_TEST,
    chart_bar_count,
    dashboard_document,
    empty_document,
)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return dashboard_document()


@pytest.fixture(scope="module")
def site(document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser-site")
    write_dashboard(document, out)
    return out


def _causes_order(page: Page) -> list[str]:
    keys = page.locator("#causes-table tbody tr").evaluate_all("rows => rows.map(row => row.dataset.key)")
    return [str(key) for key in keys]


def test_every_page_loads_without_errors_or_network(visit: Visit, site: Path, tmp_path: Path) -> None:
    pages = [site / "index.html", *sorted((site / "causes").glob("*.html"))]
    write_dashboard(empty_document(), tmp_path)
    pages.append(tmp_path / "index.html")
    for path in pages:
        visit.open(path)
        assert visit.page.locator("h1").count() == 1, path.name
        # the stylesheet applied (system fonts, theme variables) and the script ran
        assert visit.page.evaluate("getComputedStyle(document.body).marginTop") == "0px", path.name
    visit.assert_clean()
    assert any(url.endswith("/assets/dashboard.js") for url in visit.requests)
    assert "No failures recorded yet" in visit.page.locator("h1").inner_text()


def test_the_chart_renders_a_bar_per_cause_and_day(
    visit: Visit, site: Path, document: dict[str, Any]
) -> None:
    visit.open(site / "index.html")
    chart = visit.page.locator("svg.chart")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 600 and box["height"] > 100
    bars = visit.page.locator("svg.chart rect.bar")
    assert bars.count() == chart_bar_count(document) > 0
    heights = bars.evaluate_all("bars => bars.map(bar => bar.getBoundingClientRect().height)")
    assert all(height > 0 for height in heights)
    counts = bars.evaluate_all("bars => bars.map(bar => Number(bar.dataset.count))")
    assert sum(counts) == document["totals"]["failing_tests"]
    tooltip = visit.page.locator(f'svg.chart rect.bar[data-series="{SEED_KEY}"] title').first.text_content()
    assert tooltip is not None and SEED_TITLE in tooltip and "3 failures" in tooltip
    legend = visit.page.locator("ul.legend li")
    assert legend.count() == 5  # four causes with failures in the window, and the unexplained clusters
    visit.assert_clean()


def test_clicking_a_header_sorts_the_table(visit: Visit, site: Path, document: dict[str, Any]) -> None:
    visit.open(site / "index.html")
    page = visit.page
    before = _causes_order(page)
    by_30_days = sorted(document["causes"], key=lambda cause: -cause["counts"]["30d"])
    assert [cause["counts"]["30d"] for cause in by_30_days] == [
        next(cause["counts"]["30d"] for cause in document["causes"] if cause["key"] == key) for key in before
    ]
    cause_header = page.locator("#causes-table thead th").filter(has_text="Cause")
    thirty_days = page.locator("#causes-table thead th").filter(has_text="30 d")
    assert thirty_days.get_attribute("aria-sort") == "descending"

    cause_header.get_by_role("button").click()
    titles = {cause["key"]: cause["title"] for cause in document["causes"]}
    ascending = sorted(before, key=lambda key: titles[key].casefold())
    assert _causes_order(page) == ascending != before
    assert cause_header.get_attribute("aria-sort") == "ascending"
    assert thirty_days.get_attribute("aria-sort") is None

    cause_header.get_by_role("button").click()
    assert _causes_order(page) == list(reversed(ascending))
    assert cause_header.get_attribute("aria-sort") == "descending"

    page.locator("#causes-table thead th").filter(has_text="Total").get_by_role("button").click()
    totals = {cause["key"]: cause["counts"]["total"] for cause in document["causes"]}
    assert [totals[key] for key in _causes_order(page)] == sorted(totals.values(), reverse=True)
    visit.assert_clean()


def test_a_cause_link_navigates_to_its_page_with_evidence_and_advice(visit: Visit, site: Path) -> None:
    visit.open(site / "index.html")
    page = visit.page
    page.locator("#causes-table").get_by_role("link", name=SEED_TITLE).click()
    page.wait_for_url(f"**/causes/{SEED_KEY}.html")
    assert page.locator("h1").inner_text() == SEED_TITLE
    assert SEED_ADVICE in page.locator("section.advice").inner_text()
    evidence = page.locator("article.example mark.line").first
    assert evidence.is_visible()
    assert (
        "146" in evidence.inner_text()
        and "Free memory on device cuda:0 (19.5/22.03 GiB)" in evidence.inner_text()
    )
    assert "100% of hits on runner label gpu-a10g-22gb, which ran 40% of jobs." in page.inner_text("main")
    page.get_by_role("link", name="← All causes").click()
    page.wait_for_url("**/index.html#causes")
    assert page.locator("#causes-table").is_visible()
    visit.assert_clean()


def test_html_in_a_log_line_is_shown_as_text_and_never_runs(visit: Visit, site: Path) -> None:
    visit.open(site / "index.html")
    page = visit.page
    page.locator("ol.clusters a").filter(has_text="unexpected response body").click()
    page.wait_for_url(f"**/causes/{XSS_KEY}.html")
    assert XSS_LINE in page.locator("article.example mark.line").inner_text()
    assert page.locator("article.example h3").inner_text() == XSS_TEST
    assert page.locator("script").count() == 2  # ours (sorting, filters); the log's <script> is text
    assert page.locator("main img, main b").count() == 0
    assert page.get_by_role("link", name="OPS-9999").count() == 0  # its javascript: URL is not a link
    visit.assert_clean()
