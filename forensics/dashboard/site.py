"""The static site: index.html, a page per cause, data.json and the assets, written to one folder."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from forensics.dashboard.cause_page import render_cause_page
from forensics.dashboard.chart import OTHER_COLOUR, Series, plan_series
from forensics.dashboard.document import parse, to_json
from forensics.dashboard.filters import FILTER_SCRIPT
from forensics.dashboard.index_page import render_index
from forensics.dashboard.layout import GENERATOR, SCRIPT, STYLESHEET, Scope, ScopeSwitcher
from forensics.dashboard.model import Cause, Dashboard
from forensics.dashboard.slugs import unique_slugs
from forensics.dashboard.test_page import render_test_page
from forensics.errors import ConfigError
from forensics.report.redact import Redactor, redact_data

INDEX = "index.html"
DATA = "data.json"
CAUSES = "causes"
TESTS = "tests"
SCOPES = "scopes"
ASSETS = (STYLESHEET, SCRIPT, FILTER_SCRIPT)


@dataclass(frozen=True, slots=True)
class Site:
    """Every file of the site as relative path → text, and the parsed document it shows."""

    dashboard: Dashboard
    files: tuple[tuple[str, str], ...]

    @property
    def cause_pages(self) -> tuple[str, ...]:
        """The relative paths of the cause pages."""
        return tuple(path for path, _ in self.files if path.startswith(f"{CAUSES}/"))

    @property
    def test_pages(self) -> tuple[str, ...]:
        """The relative paths of the test pages."""
        return tuple(path for path, _ in self.files if path.startswith(f"{TESTS}/"))


def cause_paths(dashboard: Dashboard) -> dict[str, str]:
    """Cause key → its page's path relative to the site's top (`causes/<slug>.html`)."""
    slugs = unique_slugs(cause.key for cause in dashboard.causes)
    return {key: f"{CAUSES}/{slug}.html" for key, slug in slugs.items()}


def test_paths(dashboard: Dashboard) -> dict[str, str]:
    """Test name → its page's path relative to the site's top (`tests/<slug>.html`)."""
    slugs = unique_slugs(test.name for test in dashboard.tests)
    return {name: f"{TESTS}/{slug}.html" for name, slug in slugs.items()}


def build_site(
    data: Mapping[str, Any] | Dashboard,
    *,
    source: str = "dashboard data",
    redactor: Redactor | None = None,
    switcher: ScopeSwitcher | None = None,
) -> Site:
    """Render every page from the dashboard document, without touching the disk (but for the packaged assets).

    Every string of the document passes the redactor first: a store an older version wrote, or a data.json
    from elsewhere, may hold what this version redacts. A mapping's data.json is written as given (fields a
    later 1.x added stay in it).
    """
    data = redact_data(to_json(data) if isinstance(data, Dashboard) else dict(data), redactor or Redactor())
    dashboard = parse(data, source=source)
    pages = cause_paths(dashboard)
    series = plan_series(dashboard)
    tests = test_paths(dashboard)
    files = [
        (INDEX, render_index(dashboard, pages=pages, series=series, switcher=switcher, test_pages=tests))
    ]
    files += [
        (
            pages[cause.key],
            render_cause_page(
                dashboard, cause, series=_series_of(cause, series), switcher=switcher, test_pages=tests
            ),
        )
        for cause in dashboard.causes
    ]
    titles = {cause.key: cause.title for cause in dashboard.causes}
    files += [
        (
            tests[test.name],
            render_test_page(dashboard, test, cause_pages=pages, titles=titles, switcher=switcher),
        )
        for test in dashboard.tests
    ]
    files.append((DATA, json.dumps(data, indent=2, ensure_ascii=False) + "\n"))
    assets = resources.files("forensics.dashboard")
    files += [(asset, assets.joinpath(asset).read_text(encoding="utf-8")) for asset in ASSETS]
    return Site(dashboard=dashboard, files=tuple(files))


def write_dashboard(
    data: Mapping[str, Any] | Dashboard,
    out_dir: str | os.PathLike[str],
    *,
    source: str = "dashboard data",
    redactor: Redactor | None = None,
) -> list[Path]:
    """Write the site into `out_dir` (created if needed) and return the files written, index.html first.

    Cause pages an earlier build wrote for causes that are gone are removed, so no stale page stays reachable
    by its old address; files this tool did not write are left alone.
    """
    return _write(build_site(data, source=source, redactor=redactor), Path(out_dir))


def write_scoped_dashboards(
    documents: Sequence[tuple[str, Mapping[str, Any] | Dashboard]],
    out_dir: str | os.PathLike[str],
    *,
    source: str = "dashboard data",
    redactor: Redactor | None = None,
) -> list[Path]:
    """One site of several page sets: the first document at the top of `out_dir`, each other one under
    `scopes/<slug>/`, every page with a switcher between them (plain relative links: it works from a file).

    `documents` are (label, document) pairs, e.g. ("All workflows", …), ("Nightly CI", …). Returns the files
    written, the top's index.html first. Pages an earlier build wrote for scopes that are gone are removed.
    """
    out_dir = Path(out_dir)
    labels = [label for label, _ in documents]
    slugs = unique_slugs(labels[1:])
    scopes = tuple(
        Scope(label=label, folder="" if index == 0 else f"{SCOPES}/{slugs[label]}")
        for index, label in enumerate(labels)
    )
    written = []
    for scope, (_, document) in zip(scopes, documents, strict=True):
        site = build_site(
            document,
            source=source,
            redactor=redactor,
            switcher=ScopeSwitcher(scopes=scopes, current=scope),
        )
        written += _write(site, out_dir / scope.folder if scope.folder else out_dir)
    current = {out_dir / scope.folder for scope in scopes if scope.folder}
    for folder in sorted((out_dir / SCOPES).glob("*/")) if (out_dir / SCOPES).is_dir() else ():
        if folder not in current:
            _remove_stale_pages(folder / CAUSES, keep=set())
            _remove_stale_pages(folder / TESTS, keep=set())
            _remove_stale_pages(folder, keep=set())
    return written


def _write(site: Site, out_dir: Path) -> list[Path]:
    written = []
    try:
        for relative, text in site.files:
            path = out_dir / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        _remove_stale_pages(out_dir / CAUSES, keep=set(written))
        _remove_stale_pages(out_dir / TESTS, keep=set(written))
    except OSError as err:
        raise ConfigError(
            f"cannot write the dashboard into '{out_dir}': {err.strerror or err}",
            hint="give --out a folder you can write to (it is created if missing)",
        ) from err
    return written


def _series_of(cause: Cause, series: tuple[Series, ...]) -> Series:
    """The cause alone, in the colour it has on the front page."""
    holder = next((one for one in series if one.claims(cause.key)), None)
    colour = holder.colour if holder is not None else OTHER_COLOUR
    return Series(
        key=cause.key,
        label=cause.title,
        colour=colour,
        members=frozenset({cause.key}),
        hatched=not cause.explained,
    )


def _remove_stale_pages(folder: Path, *, keep: set[Path]) -> None:
    marker = f'<meta name="generator" content="{GENERATOR}">'.encode()
    for path in folder.glob("*.html") if folder.is_dir() else ():
        if path in keep:
            continue
        with path.open("rb") as stream:
            head = stream.read(1024)
        if marker in head:
            path.unlink()
