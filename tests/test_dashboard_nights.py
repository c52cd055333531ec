"""The dashboard of simulated nights (tests/support/nights.py) in headless Chromium, opened from file://.

Two workflows, two GPU types, real Allure results recorded through the normal path: what is new and gone
since the last run (as the dashboard built on the morning after night 5 and after night 6 shows it), the
flaky list, days without a run, the test pages' run strips, and the filters with their state in the URL.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.dashboard import write_dashboard
from forensics.dashboard.document import build
from forensics.dashboard.model import Dashboard
from forensics.store import open_store
from tests.support.browser import Visit
from tests.support.nights import (
    FLAKY_TEST,
    GATED_TEST,
    GONE_CAUSE,
    MEMORY_CAUSE,
    MEMORY_TEST,
    NEW_CAUSE,
    NEW_NIGHT,
    NIGHTLY,
    PORT_TEST,
    NightBuilder,
    after_night,
)

LAST_NIGHT = 6


@pytest.fixture(scope="module")
def nights_store(night_builder: NightBuilder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("nights-store")
    location = folder / "history.sqlite3"
    with open_store(str(location), default_dir=folder) as store:
        night_builder.record(store)
    return location


def _dashboard(location: Path, night: int) -> Dashboard:
    with open_store(str(location), default_dir=location.parent, mode="read") as store:
        return build(store, now=after_night(night), days=14)


@pytest.fixture(scope="module")
def last_night(nights_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site-last-night")
    write_dashboard(_dashboard(nights_store, LAST_NIGHT), out)
    return out


@pytest.fixture(scope="module")
def new_night(nights_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site-new-night")
    write_dashboard(_dashboard(nights_store, NEW_NIGHT), out)
    return out


def _changes(visit: Visit, workflow: str, status: str) -> list[str]:
    items = visit.page.locator(f'article.series[data-workflow="{workflow}"] li[data-status="{status}"]')
    return sorted(str(key) for key in items.evaluate_all("items => items.map(item => item.dataset.key)"))


def _strip(visit: Visit, workflow: str) -> list[str]:
    series = visit.page.locator(f'div.series[data-series^="{workflow}"] ol.strip li')
    return [
        str(outcome) for outcome in series.evaluate_all("cells => cells.map(cell => cell.dataset.outcome)")
    ]


def _shown_causes(visit: Visit) -> list[str]:
    rows = visit.page.locator("#causes-table tbody tr:visible")
    return sorted(str(key) for key in rows.evaluate_all("rows => rows.map(row => row.dataset.key)"))


def test_every_page_of_the_nights_loads_cleanly(visit: Visit, last_night: Path) -> None:
    pages = [last_night / "index.html", *sorted(last_night.glob("causes/*.html"))]
    pages += sorted(last_night.glob("tests/*.html"))
    assert len(list(last_night.glob("tests/*.html"))) == 4
    for path in pages:
        visit.open(path)
        assert visit.page.locator("h1").count() == 1, path.name
    visit.assert_clean()  # a Content-Security-Policy violation is a console error too


def test_a_test_page_is_reached_from_its_cause_and_shows_its_run_strip(
    visit: Visit, last_night: Path
) -> None:
    visit.open(last_night / "index.html")
    page = visit.page
    page.locator("#causes-table").get_by_role("link", name="Hugging Face gated model").click()
    page.wait_for_url(f"**/causes/{NEW_CAUSE}.html")
    page.locator("section ul.tests").get_by_role("link", name=GATED_TEST).click()
    page.wait_for_url("**/tests/*.html")
    assert page.locator("h1").inner_text() == GATED_TEST
    # it first ran on night 5: the four Nightly runs before are "not run", then it failed twice
    assert _strip(visit, "Nightly CI Pipeline") == ["not-run"] * 4 + ["failed", "failed"]
    assert page.locator("div.series").count() == 1
    last = page.locator("ol.strip li").last
    assert f"run {7_000_000 + LAST_NIGHT}" in str(last.get_attribute("title"))
    assert "Hugging Face gated model" in str(last.get_attribute("title"))
    assert "Failing since" in page.locator("p.failing-since").inner_text()
    assert f"run {7_000_000 + NEW_NIGHT}" in page.locator("p.failing-since").inner_text()
    assert page.get_by_role("link", name="OPS-5120").count() == 1
    page.locator("ul.test-causes").get_by_role("link").click()
    page.wait_for_url(f"**/causes/{NEW_CAUSE}.html")
    visit.assert_clean()


def test_skipped_cells_and_two_workflows(visit: Visit, last_night: Path) -> None:
    visit.open(last_night / "index.html")
    page = visit.page
    page.locator("#causes-table").get_by_role("link", name="Port already in use").click()
    page.locator("article.example h3").get_by_role("link", name=PORT_TEST).click()
    page.wait_for_url("**/tests/*.html")
    assert _strip(visit, "Nightly CI Pipeline") == ["passed"] * 4 + ["failed", "passed"]
    assert _strip(visit, "Post-merge GPU") == ["skipped"] * 3
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "recovered"
    visit.open(last_night / f"causes/{MEMORY_CAUSE}.html")
    page.locator("section ul.tests").get_by_role("link", name=MEMORY_TEST).click()
    assert _strip(visit, "Nightly CI Pipeline") == ["failed"] * 6
    assert _strip(visit, "Post-merge GPU") == ["passed"] * 3
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "failing"
    visit.assert_clean()


def test_a_flaky_test_is_marked_flaky(visit: Visit, last_night: Path) -> None:
    visit.open(last_night / "index.html")
    page = visit.page
    page.locator("ol.clusters a").first.click()
    page.locator("section ul.tests").get_by_role("link", name=FLAKY_TEST).click()
    page.wait_for_url("**/tests/*.html")
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "flaky"
    # on the A10G: pass, fail, pass, fail, fail then pass on the retry, pass (4 flips); the L40S always passed
    facts = page.locator("header p.facts").inner_text()
    assert "flipped between pass and fail 4 times over 13 tries" in facts and "a flip rate of 33%" in facts
    cells = page.locator("ol.strip li")
    assert _strip(visit, "Nightly CI Pipeline") == [
        "passed", "unexplained", "passed", "unexplained", "passed", "passed",
    ]  # fmt: skip
    assert "passed on a retry after failing" in str(cells.nth(4).get_attribute("title"))
    assert "retried" in str(cells.nth(4).get_attribute("class"))
    visit.assert_clean()


def test_filters_narrow_the_causes_and_a_copied_link_reopens_the_view(visit: Visit, last_night: Path) -> None:
    visit.open(last_night / "index.html")
    page = visit.page
    everything = _shown_causes(visit)
    assert len(everything) == 4 and page.locator("#filters").is_visible()

    page.select_option("select[name=kind]", "unexplained")
    unexplained = _shown_causes(visit)
    assert len(unexplained) == 1 and unexplained[0] not in (MEMORY_CAUSE, NEW_CAUSE)
    assert page.locator("ol.clusters li:visible").count() == 1
    page.select_option("select[name=kind]", "")
    page.select_option("select[name=gpu]", "NVIDIA L40S")  # only the gated repo failed on the L40S
    assert _shown_causes(visit) == [NEW_CAUSE]
    page.select_option("select[name=gpu]", "")
    page.fill("input[name=q]", "mm_epd")  # a test's name finds its cause
    assert _shown_causes(visit) == [MEMORY_CAUSE]
    page.select_option("select[name=category]", "infrastructure")
    assert page.locator("#filters output").inner_text() == "Showing 1 of 4"
    assert "q=mm_epd" in page.url and "category=infrastructure" in page.url

    copied = page.url
    page.reload()
    assert _shown_causes(visit) == [MEMORY_CAUSE]
    assert page.input_value("input[name=q]") == "mm_epd"
    assert page.input_value("select[name=category]") == "infrastructure"
    other = page.context.new_page()
    other.goto(copied)
    assert other.input_value("input[name=q]") == "mm_epd"
    assert other.locator("#causes-table tbody tr:visible").count() == 1
    other.close()

    page.get_by_role("button", name="Clear").click()
    page.wait_for_function("() => !window.location.search")
    assert _shown_causes(visit) == everything
    visit.assert_clean()


def test_a_cause_is_new_on_its_night_and_not_on_the_next(
    visit: Visit, new_night: Path, last_night: Path
) -> None:
    visit.open(new_night / "index.html")
    assert visit.page.locator("#since-last-run").is_visible()
    assert _changes(visit, NIGHTLY, "new") == sorted([NEW_CAUSE, GONE_CAUSE])  # both first failed on night 5
    new = visit.page.locator(f'article.series[data-workflow="{NIGHTLY}"] li[data-key="{NEW_CAUSE}"]')
    assert new.is_visible() and "Hugging Face gated model" in new.inner_text()
    visit.open(last_night / "index.html")
    assert _changes(visit, NIGHTLY, "new") == []  # failed again on night 6: not new any more
    assert _changes(visit, "Post-merge GPU", "new") == []
    visit.assert_clean()


def test_a_cause_that_went_away_is_listed_as_gone(visit: Visit, last_night: Path) -> None:
    visit.open(last_night / "index.html")
    assert _changes(visit, NIGHTLY, "gone") == [GONE_CAUSE]
    gone = visit.page.locator(f'article.series[data-workflow="{NIGHTLY}"] li[data-key="{GONE_CAUSE}"]')
    assert "in the previous run, none in the latest" in gone.inner_text()
    gone.get_by_role("link", name="Port already in use").click()
    visit.page.wait_for_url(f"**/causes/{GONE_CAUSE}.html")
    visit.assert_clean()


def test_the_flaky_list_marks_the_flaky_test_and_links_its_page(visit: Visit, last_night: Path) -> None:
    visit.open(last_night / "index.html")
    page = visit.page
    listed = page.locator("#flaky-table tbody tr").evaluate_all("rows => rows.map(row => row.dataset.test)")
    assert listed == [FLAKY_TEST]  # the test failing on every A10G and passing on every L40S is GPU-bound
    page.locator("#flaky-table").get_by_role("link", name=FLAKY_TEST).click()
    page.wait_for_url("**/tests/*.html")
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "flaky"
    visit.assert_clean()


def test_days_without_a_run_are_shown_as_such(visit: Visit, last_night: Path) -> None:
    visit.open(last_night / "index.html")
    page = visit.page
    # a 14-day window to 7 Feb: nothing ran from 25 to 31 Jan, nor on night 3 (4 Feb)
    no_run = page.locator("svg.chart rect.no-run title").evaluate_all(
        "titles => titles.map(t => t.textContent)"
    )
    assert len(no_run) == 8 and "4 Feb 2026: no run" in no_run
    assert "3 Feb 2026: no run" not in no_run and "5 Feb 2026: no run" not in no_run
    page.locator("summary").filter(has_text="The numbers, day by day").click()
    rows = page.locator("table.days tbody tr.no-run")
    assert rows.count() == 8
    assert "no run" in page.locator("table.days tbody tr", has_text="4 Feb 2026").inner_text()
    visit.assert_clean()
