"""Headless Chromium for the dashboard's browser tests: Debian's chromium driven by Playwright's Python API.

`tests/conftest.py` turns these into the `browser` and `visit` fixtures. Skipped only on a developer machine
without /usr/bin/chromium; in CI (`CI` set) a missing browser is a failure, since .ci/services installs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Request

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 30_000  # a busy 2-core CI machine; only a failing test ever waits this long


@contextmanager
def launched_browser() -> Iterator[Browser]:
    """Chromium, headless, for as long as the block runs."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/services installs Debian's chromium for these tests")
        pytest.skip(f"{CHROMIUM} is missing (install Debian's chromium to run the browser tests)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Visit:
    """A page with everything that went wrong on it recorded: console errors, script errors, dialogs, requests."""

    page: Page
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri(), wait_until="load")

    def assert_clean(self) -> None:
        assert self.errors == []
        assert self.dialogs == []
        outside = [url for url in self.requests if not url.startswith(("file:", "data:"))]
        assert outside == [], "the site must load nothing from the network"


@contextmanager
def visiting(browser: Browser) -> Iterator[Visit]:
    """A fresh browser context and page whose errors, dialogs and requests are recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    recorded = Visit(page)

    def on_console(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            recorded.errors.append(f"console {message.type}: {message.text}")

    def on_dialog(dialog: Dialog) -> None:
        recorded.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_request(request: Request) -> None:
        recorded.requests.append(request.url)

    page.on("console", on_console)
    page.on("pageerror", lambda error: recorded.errors.append(f"page error: {error}"))
    page.on("dialog", on_dialog)
    page.on("request", on_request)
    try:
        yield recorded
    finally:
        context.close()
