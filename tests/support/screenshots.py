"""Regenerate the dashboard screenshots in docs/ from the simulated nights (run by hand, never by the suite):

    python -m tests.support.screenshots            # writes docs/dashboard-first-screen.png, docs/dashboard-test-page.png

Builds the store of tests/support/nights.py in a temporary folder (every job a real pytest run under
allure-pytest, recorded through the normal path), writes the dashboard as of the evening after the last night,
and photographs its first screen and the flaky test's page in headless Chromium at 1280 × 900.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from forensics.dashboard import write_dashboard
from forensics.dashboard.document import build
from forensics.dashboard.site import test_paths
from forensics.rules.loader import load_rules
from forensics.store import open_store
from tests.support.browser import launched_browser, visiting
from tests.support.nights import FLAKY_TEST, NIGHTS, NightBuilder, after_night

DOCS = Path(__file__).resolve().parents[2] / "docs"
FIRST_SCREEN = DOCS / "dashboard-first-screen.png"
TEST_PAGE = DOCS / "dashboard-test-page.png"
MAX_BYTES = 300 * 1024


def main() -> int:
    """Build, photograph, and check each picture stays small enough for the repository."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with open_store(str(folder / "history.sqlite3"), default_dir=folder) as store:
            NightBuilder(folder / "results", load_rules(cache=False)).record(store)
            dashboard = build(store, now=after_night(NIGHTS - 1), days=14)
        site = folder / "site"
        write_dashboard(dashboard, site)
        with launched_browser() as browser, visiting(browser) as visit:
            visit.open(site / "index.html")
            visit.page.screenshot(path=str(FIRST_SCREEN))
            visit.open(site / test_paths(dashboard)[FLAKY_TEST])
            visit.page.screenshot(path=str(TEST_PAGE))
            visit.assert_clean()
    for picture in (FIRST_SCREEN, TEST_PAGE):
        size = picture.stat().st_size
        print(f"{picture.relative_to(DOCS.parent)}: {size / 1024:.0f} KiB")
        if size > MAX_BYTES:
            print(f"{picture.name} is over {MAX_BYTES // 1024} KiB", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
