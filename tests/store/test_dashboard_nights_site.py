"""The dashboard's pages over several simulated nights of two workflows on two GPUs: the first screen says what
changed since the last run, days without a run are marked, a site covers several workflows with a switcher,
and the CLI's scope options restrict what it shows."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from click.testing import CliRunner, Result

from forensics.cli.main import main
from forensics.dashboard.document import build, build_scopes
from forensics.dashboard.site import build_site, write_scoped_dashboards
from forensics.store import Store
from tests.store.conftest import PRE_MERGE
from tests.store.nightly import START, WORKFLOW

SEED_KEY = "vllm.startup-free-memory"


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the visible text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.parts: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def _index(store: Store, night: int) -> str:
    dashboard = build(store, now=START + timedelta(days=night, hours=6), days=14)
    return dict(build_site(dashboard).files)["index.html"]


def _series(index: str, workflow: str) -> str:
    match = re.search(
        rf'<article class="series" data-workflow="{re.escape(workflow)}".*?</article>', index, re.S
    )
    assert match is not None, workflow
    return match[0]


def test_the_first_screen_lists_a_cause_new_on_its_night_and_gone_when_it_went(nights: Store) -> None:
    night_three = _index(nights, 3)
    assert night_three.index('id="since-last-run"') < night_three.index('id="per-day"')  # before the chart
    nightly = _series(night_three, WORKFLOW)
    assert f'data-key="{SEED_KEY}" data-status="new"' in nightly
    assert 'href="causes/vllm.startup-free-memory.html"' in nightly
    assert 'data-status="new"' not in _series(_index(nights, 4), WORKFLOW)
    assert "Nothing new, nothing gone." in _Tags(_series(_index(nights, 4), WORKFLOW)).text
    night_five = _series(_index(nights, 5), WORKFLOW)
    assert f'data-key="{SEED_KEY}" data-status="gone"' in night_five
    assert "1 failing test in the previous run, none in the latest" in _Tags(night_five).text
    pre_merge = _Tags(_series(_index(nights, 1), PRE_MERGE)).text
    assert "New unexplained new KeyError: 'token_ids' 1 failing test" in pre_merge
    returning = _series(_index(nights, 10), WORKFLOW)
    assert f'data-key="{SEED_KEY}" data-status="returning"' in returning
    assert "back after 4 runs without it (6 days)" in _Tags(returning).text


def test_the_commit_range_links_to_githubs_compare_page(nights: Store) -> None:
    nightly = _series(_index(nights, 3), WORKFLOW)
    base, head = f"{9_000_001:040x}", f"{9_000_003:040x}"
    assert f'href="https://github.com/acme/inference/compare/{base}...{head}"' in nightly


def test_flaky_tests_show_their_flip_rate(nights: Store) -> None:
    index = _index(nights, 10)
    table = index[index.index('id="flaky-table"') : index.index("</table>", index.index('id="flaky-table"'))]
    rows = re.findall(r'<tr data-test="([^"]+)">(.*?)</tr>', table, re.S)
    assert [(test, _Tags(row).text.split()[1]) for test, row in rows] == [
        ("test_kv_router_decisions[nats]", "100%")
    ]


def test_days_without_a_run_are_marked_in_the_chart_and_the_table(nights: Store) -> None:
    index = _index(nights, 10)
    no_run = {(START + timedelta(days=night)).date().isoformat() for night in (-3, -2, -1, 2, 6)}
    marked = set(re.findall(r'<g class="day" data-date="([\d-]+)" data-total="0" data-no-run>', index))
    assert marked == no_run
    assert index.count('class="no-run"') == 2 * len(no_run)  # a shaded column and a table row each
    assert "Dotted: a day without any run (not a clean day)." in index
    clean = (START + timedelta(days=0)).date().isoformat()  # ran, nothing failed
    assert re.search(rf'<g class="day" data-date="{clean}" data-total="0">', index)
    rows = _Tags(index[index.index('<table class="days">') :]).text
    assert "29 Jan 2026 no run 0 0 0" in rows and "1 Feb 2026 1 2 100% 0 0 0" in rows
    assert "Tests run 52 Pass rate 67%" in _Tags(index).text


def test_where_it_happens_leaves_out_what_every_job_had(nights: Store) -> None:
    dashboard = build(nights, now=START + timedelta(days=10, hours=6), days=14)
    page = _Tags(dict(build_site(dashboard).files)[f"causes/{SEED_KEY}.html"])
    rows = [attributes for tag, attributes in page.tags if tag == "th" and attributes.get("scope") == "row"]
    assert rows  # GPU model, GPU memory and runner are left
    assert "Runner label" not in page.text.split("Where it happens")[1].split("Every job had")[0]
    assert (
        "Every job had runner label gpu, runner label linux, runner label self-hosted: not shown."
        in page.text
    )
    assert "100% of hits on GPU model NVIDIA A10G, which ran 45% of jobs" in page.text


def test_one_site_covers_each_workflow_with_a_switcher(nights: Store, tmp_path: Path) -> None:
    documents = build_scopes(nights, split_by="workflow", now=START + timedelta(days=10, hours=6), days=14)
    assert [label for label, _ in documents] == ["All workflows", WORKFLOW, PRE_MERGE]
    out = tmp_path / "site"
    written = write_scoped_dashboards(documents, out)
    assert written[0] == out / "index.html"
    folders = {path.parent.relative_to(out).as_posix() for path in written if path.name == "index.html"}
    assert folders == {".", "scopes/nightly-ci-pipeline", "scopes/pre-merge-gpu"}
    assert json.loads((out / "scopes/pre-merge-gpu/data.json").read_text())["scope"]["workflow"] == PRE_MERGE
    checked = 0
    for page in out.rglob("*.html"):
        tags = _Tags(page.read_text(encoding="utf-8")).tags
        switcher = [attributes for tag, attributes in tags if tag == "a" and "aria-current" in attributes]
        assert len(switcher) == 1, page
        here = (page.parent / str(switcher[0]["href"])).resolve()
        assert here.parent in (page.parent.resolve(), page.parent.parent.resolve())  # its own page set
        for tag, attributes in tags:
            url = attributes.get("href") or attributes.get("src")
            if url is None or urlsplit(url).scheme or (tag == "link" and url == "data:,"):
                continue
            target = (page.parent / unquote(urlsplit(url).path)).resolve()
            assert target.is_file() and out.resolve() in target.parents, f"{page}: {url}"
            checked += 1
    assert checked > 100
    nightly = (out / "scopes/nightly-ci-pipeline/index.html").read_text(encoding="utf-8")
    assert 'data-workflow="Pre-merge GPU"' not in nightly and "Nightly CI Pipeline" in nightly


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_cli_restricts_the_dashboard_to_a_scope(
    nights: Store, store_location: str, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    base = ("dashboard", "--store", store_location, "--days", "3660", "--out", str(out))
    result = _run(*base, "--workflow", PRE_MERGE)
    assert result.exit_code == 0, result.output
    assert "(Pre-merge GPU, last 3660 days); wrote" in result.output
    data = json.loads((out / "data.json").read_text(encoding="utf-8"))
    assert data["scope"] == {"repository": None, "workflow": PRE_MERGE, "branch": None}
    assert data["totals"]["runs"] == 2
    split = _run(*base, "--split-by", "workflow")
    assert split.exit_code == 0, split.output
    assert f"{out / 'scopes'}/: 2 page sets" in split.output
    assert json.loads((out / "data.json").read_text(encoding="utf-8"))["totals"]["runs"] == 11
    unknown = _run(*base, "--workflow", "Nightly CI")
    assert unknown.exit_code == 1
    assert "no run of workflow 'Nightly CI' (--workflow)" in unknown.output
    assert "did you mean 'Nightly CI Pipeline'" in unknown.output
