"""The dashboard site as files: every cause has a page, links resolve, data is text, the chart adds up."""

from __future__ import annotations

import copy
import json
import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from forensics.dashboard import build_site, write_dashboard
from forensics.dashboard.chart import OTHER, UNEXPLAINED, plan_series
from forensics.dashboard.document import parse
from forensics.dashboard.markup import Html, external_url, tag
from forensics.dashboard.site import write_scoped_dashboards
from forensics.dashboard.slugs import slugify, unique_slugs
from forensics.dashboard.wording import headline, percent
from forensics.errors import ResultsError
from tests.support.dashboard_data import (
    SEED_ADVICE,
    SEED_KEY,
    SEED_TESTS,
    STALE_KEY,
    TIMEOUT_KEY,
    XSS_KEY,
    XSS_LINE,
    XSS_TEST,
    XSS_TICKET_URL,
    chart_bar_count,
    dashboard_document,
    empty_document,
)

_SAFE_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*")


class _Page(HTMLParser):
    """What the tests look at in a page: every start tag with its attributes, ids, and the visible text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.text_parts: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))

    def handle_data(self, data: str) -> None:
        self.text_parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.text_parts).split())

    def all(self, name: str) -> list[dict[str, str | None]]:
        return [attributes for tag, attributes in self.tags if tag == name]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return dashboard_document()


@pytest.fixture(scope="module")
def site(document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    write_dashboard(document, out)
    return out


def _page(path: Path) -> _Page:
    return _Page(path.read_text(encoding="utf-8"))


def _cause_page(site: Path, key: str) -> _Page:
    """The page the index's row of `key` links to."""
    index = (site / "index.html").read_text(encoding="utf-8")
    row = index[index.index(f'data-key="{key}"') :]
    href = re.search(r'href="(causes/[^"]+)"', row)
    assert href is not None
    return _page(site / href[1])


def test_the_site_has_an_index_a_page_per_cause_data_and_assets(site: Path, document: dict[str, Any]) -> None:
    written = sorted(path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file())
    pages = [name for name in written if name.startswith("causes/")]
    assert len(pages) == len(document["causes"]) == 7
    assert {"index.html", "data.json", "assets/dashboard.css", "assets/dashboard.js"} <= set(written)
    assert "causes/vllm.startup-free-memory.html" in pages
    for cause in document["causes"]:
        assert any(f">{cause['key']}</code>" in (site / page).read_text() for page in pages), cause["key"]


def test_write_dashboard_returns_what_it_wrote_index_first(tmp_path: Path, document: dict[str, Any]) -> None:
    written = write_dashboard(document, tmp_path / "new" / "site")
    assert written[0] == tmp_path / "new" / "site" / "index.html"
    assert all(path.is_file() for path in written)
    assert len(written) == 1 + len(document["causes"]) + 4  # index, cause pages, data.json and three assets


def test_every_relative_link_resolves_and_nothing_comes_from_the_network(site: Path) -> None:
    checked = 0
    for path in site.rglob("*.html"):
        page = _page(path)
        for tag_name, attributes in page.tags:
            for attribute in ("href", "src"):
                url = attributes.get(attribute)
                if url is None:
                    continue
                parts = urlsplit(url)
                if tag_name in ("link", "script", "img"):
                    # Styles, scripts and icons are local files (or the empty data: icon), never fetched.
                    assert not parts.scheme or url == "data:,", f"{path.name}: {tag_name} loads {url}"
                if parts.scheme:
                    continue
                target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
                assert target.is_file(), f"{path.relative_to(site)} links to {url}, which does not exist"
                assert site.resolve() in target.parents, f"{url} leaves the site"
                if parts.fragment and target.suffix == ".html":
                    assert parts.fragment in _page(target).ids, f"{url}: no element with that id"
                checked += 1
    assert checked > 50


def test_index_links_every_cause_to_its_page(site: Path, document: dict[str, Any]) -> None:
    index = _page(site / "index.html")
    linked = {str(a["href"]) for a in index.all("a") if str(a.get("href", "")).startswith("causes/")}
    assert len(linked) == len(document["causes"])
    rows = [
        attributes["data-key"]
        for tag_name, attributes in index.tags
        if tag_name == "tr" and "data-key" in attributes
    ]
    assert sorted(str(key) for key in rows) == sorted(cause["key"] for cause in document["causes"])


def test_headline_is_the_explained_share_over_the_window(site: Path, document: dict[str, Any]) -> None:
    totals = document["totals"]
    explained = sum(day["explained"] for day in document["days"])
    failing = sum(day["failures"] for day in document["days"])
    assert (totals["explained"], totals["failing_tests"]) == (explained, failing) == (51, 58)
    index = _page(site / "index.html")
    assert "88% of failures explained over the last 30 days (51 of 58)" in index.text
    assert "<title>88% of failures explained" in (site / "index.html").read_text()


@pytest.mark.parametrize(
    ("share", "shown"),
    [(1.0, "100%"), (0.996, "99%"), (0.5, "50%"), (0.004, "1%"), (0.0, "0%")],
)
def test_percent_never_rounds_to_all_or_nothing(share: float, shown: str) -> None:
    assert percent(share) == shown


def test_headline_without_failures(document: dict[str, Any]) -> None:
    dashboard = parse(empty_document(days=7))
    assert headline(dashboard.totals, dashboard.window_days) == "No failures over the last 7 days"
    one_day = parse({**empty_document(days=1), "totals": {**document["totals"], "explained_share": None}})
    assert headline(one_day.totals, 1) == "88% of failures explained over the last day (51 of 58)"


def test_log_lines_test_names_and_links_from_the_data_stay_text(site: Path) -> None:
    for path in site.rglob("*.html"):
        raw = path.read_text(encoding="utf-8")
        assert "<script>alert" not in raw and "<img src=x" not in raw and "<b>server said" not in raw, (
            path.name
        )
        page = _page(path)
        scripts = page.all("script")
        assert [script.get("src") for script in scripts] in (
            ["assets/dashboard.js", "assets/filters.js"],
            ["../assets/dashboard.js", "../assets/filters.js"],
        )
        for tag_name, attributes in page.tags:
            handlers = [name for name in attributes if name.startswith("on")]
            assert not handlers, f"{path.name}: <{tag_name}> has {handlers}"
            assert not str(attributes.get("href", "")).lower().startswith("javascript:"), path.name
    cluster = _cause_page(site, XSS_KEY)
    assert XSS_LINE in cluster.text
    assert XSS_TEST in cluster.text
    assert "<b>server said</b>" in cluster.text
    assert "OPS-9999" in cluster.text  # the ticket with a javascript: URL is named, not linked
    assert not any(a.get("href") == XSS_TICKET_URL for a in cluster.all("a"))
    index = _page(site / "index.html")
    assert "ValueError: unexpected response body: '<script>alert(<num>)</script>'" in index.text


def test_the_seed_cause_page_has_counts_correlation_advice_tests_tickets_and_evidence(site: Path) -> None:
    page = _cause_page(site, SEED_KEY)
    text = page.text
    assert "GPU already in use: vLLM's startup free-memory check failed" in text
    assert "Last 30 days 36" in text and "In all 45" in text
    assert "100% of hits on runner label gpu-a10g-22gb, which ran 40% of jobs." in text
    assert SEED_ADVICE in text
    assert all(test in text for test in SEED_TESTS)
    assert {a.get("href") for a in page.all("a")} >= {
        "https://linear.app/acme/issue/OPS-4445",
        "https://github.com/ai-dynamo/dynamo/issues/8443",
        "https://github.com/acme/inference/actions/runs/9100000027",
        "../index.html#causes",
    }
    raw = (site / "causes" / f"{SEED_KEY}.html").read_text()
    assert raw.count('class="example"') == 2
    assert "bash.log.txt, line 146" in text
    evidence_line = re.search(r'<mark class="line"><span class="number">146</span>([^<]*)', raw)
    assert (
        evidence_line is not None
        and "ValueError: Free memory on device cuda:0 (19.5/22.03 GiB)" in evidence_line[1]
    )
    assert '<span class="number">143</span>' in raw


def test_an_unexplained_cluster_page_says_no_rule_explains_it(site: Path) -> None:
    page = _cause_page(site, TIMEOUT_KEY)
    assert "No rule explains this yet" in page.text
    assert "ci-forensics rules suggest report.json" in page.text
    assert "RuntimeError: TIMEOUT: Check URL: http://localhost:8000/health failed after 600s" in page.text


def test_index_lists_unexplained_clusters_with_their_masked_lines(site: Path) -> None:
    index = (site / "index.html").read_text()
    section = index[index.index('id="unexplained"') :]
    assert section.count('<li data-filter="cause"') == 2
    assert "RuntimeError: TIMEOUT: Check URL: &lt;url&gt; failed after &lt;duration&gt;" in section
    assert f"fingerprint {TIMEOUT_KEY}" in section


def test_the_matrix_shows_each_cause_per_gpu_model(site: Path) -> None:
    index = (site / "index.html").read_text()
    matrix = index[index.index('id="matrix-table"') :]
    matrix = matrix[: matrix.index("</table>")]
    assert "NVIDIA A10G" in matrix and "NVIDIA L40S" in matrix
    seed_row = next(row for row in matrix.split("<tr") if "startup free-memory" in row)
    counts = re.findall(r'data-sort="(\d+)"', seed_row)
    assert counts == ["36", "0", "36"]  # A10G, L40S (no cell in the data: zero), all


def test_the_causes_table_is_sortable_and_comes_sorted_by_the_last_30_days(site: Path) -> None:
    index = _page(site / "index.html")
    headers = [
        attributes
        for tag_name, attributes in index.tags
        if tag_name == "th" and attributes.get("scope") == "col"
    ]
    sorted_headers = [header for header in headers if header.get("aria-sort")]
    assert sorted_headers == [{"scope": "col", "data-type": "number", "aria-sort": "descending"}]
    order = [
        str(attributes["data-key"])
        for tag_name, attributes in index.tags
        if tag_name == "tr" and "data-key" in attributes
    ]
    assert order[0] == SEED_KEY and order[-1] == STALE_KEY
    assert all(table.get("class") == "sortable" for table in index.all("table") if table.get("id"))


def test_chart_bars_add_up_to_each_days_failures(site: Path, document: dict[str, Any]) -> None:
    svg = (site / "index.html").read_text()
    svg = svg[svg.index("<svg") : svg.index("</svg>")]
    day_groups = re.findall(r'<g class="day" data-date="([\d-]+)" data-total="(\d+)">(.*?)</g>', svg, re.S)
    assert [date for date, _, _ in day_groups] == [day["date"] for day in document["days"]]
    for (date, total, bars), day in zip(day_groups, document["days"], strict=True):
        counts = [int(count) for count in re.findall(r'data-count="(\d+)"', bars)]
        assert sum(counts) == int(total) == day["failures"], date
        assert all(count > 0 for count in counts)
    expected_bars = chart_bar_count(document)
    assert svg.count('class="bar"') == expected_bars > 0
    assert svg.count("<title>") == expected_bars  # a tooltip per bar
    assert (
        '<title id="chart-title">Failing tests per day by root cause, 31 Jan 2026 to 1 Mar 2026</title>'
        in svg
    )
    assert 'fill="url(#chart-hatch)"' in svg


def test_rare_causes_fold_into_other_causes(document: dict[str, Any]) -> None:
    crowded = copy.deepcopy(document)
    template = crowded["causes"][1]
    for number in range(10):
        key = f"rare.cause-{number}"
        crowded["causes"].append({**copy.deepcopy(template), "key": key, "title": f"Rare cause {number}"})
        crowded["days"][number]["by_cause"][key] = 1
        crowded["days"][number]["failures"] += 1
    dashboard = parse(crowded)
    series = plan_series(dashboard)
    assert [one.key for one in series][-2:] == [OTHER, UNEXPLAINED]
    assert len(series) == 8 + 2
    assert series[-2].label == "Other causes (6)"  # 4 causes of the document and 10 rare ones, 8 drawn
    assert series[0].key == SEED_KEY
    colours = [one.colour for one in series[:-2]]
    assert len(set(colours)) == len(colours)
    site = build_site(crowded)
    index = dict(site.files)["index.html"]
    other_bars = re.findall(r'<rect[^>]*data-series="other"[^>]*><title>([^<]*)</title>', index)
    assert other_bars and all("Other causes (6)" in title for title in other_bars)
    assert "Other causes (6)</li>" in index  # the legend says how many the fold holds
    assert any("Rare cause" in title for title in other_bars)
    per_day = defaultdict(int)
    for date, bars in re.findall(r'data-date="([\d-]+)" data-total="\d+">(.*?)</g>', index, re.S):
        per_day[date] = sum(int(count) for count in re.findall(r'data-count="(\d+)"', bars))
    assert [per_day[day["date"]] for day in crowded["days"]] == [day["failures"] for day in crowded["days"]]


def test_a_tail_of_one_cause_is_drawn_as_itself_not_folded(document: dict[str, Any]) -> None:
    crowded = copy.deepcopy(document)
    template = crowded["causes"][1]
    for number in range(5):  # 4 + 5 = 9 causes in the window, one more than the 8 the chart names
        key = f"rare.cause-{number}"
        crowded["causes"].append({**copy.deepcopy(template), "key": key, "title": f"Rare cause {number}"})
        crowded["days"][number]["by_cause"][key] = 1
        crowded["days"][number]["failures"] += 1
    series = plan_series(parse(crowded))
    assert OTHER not in [one.key for one in series]
    assert len(series) == 9 + 1 and len({one.colour for one in series[:-1]}) == 9


def test_failures_the_store_did_not_attribute_still_count_in_the_bar(document: dict[str, Any]) -> None:
    odd = copy.deepcopy(document)
    odd["days"][0]["failures"] += 3
    odd["days"][0]["by_cause"]["gone.cause"] = 1  # a key with no entry in causes; 2 more with no key at all
    index = dict(build_site(odd).files)["index.html"]
    first_day = re.search(
        r'data-date="{}" data-total="(\d+)">(.*?)</g>'.format(odd["days"][0]["date"]), index, re.S
    )
    assert first_day is not None and int(first_day[1]) == odd["days"][0]["failures"]
    assert "not attributed to a cause: 2" in first_day[2] and "gone.cause: 1" in first_day[2]


def test_data_json_is_the_input_as_is(site: Path, document: dict[str, Any]) -> None:
    assert json.loads((site / "data.json").read_text(encoding="utf-8")) == document


def test_an_empty_store_renders_a_clear_page(tmp_path: Path) -> None:
    written = write_dashboard(empty_document(), tmp_path)
    assert [path.relative_to(tmp_path).as_posix() for path in written] == [
        "index.html",
        "data.json",
        "assets/dashboard.css",
        "assets/dashboard.js",
        "assets/filters.js",
    ]
    index = _page(tmp_path / "index.html")
    assert "No failures recorded yet" in index.text
    assert "The history store holds no runs yet." in index.text
    assert not index.all("table") and not index.all("svg")
    recorded = {**empty_document(), "totals": {**empty_document()["totals"], "runs": 12, "jobs": 20}}
    write_dashboard(recorded, tmp_path)
    assert (
        "holds 12 runs over the last 30 days, none with a failing test" in _page(tmp_path / "index.html").text
    )


def test_a_window_without_failures_still_lists_the_causes(tmp_path: Path, document: dict[str, Any]) -> None:
    quiet = copy.deepcopy(document)
    quiet["causes"] = [cause for cause in quiet["causes"] if cause["key"] == STALE_KEY]
    quiet["days"] = empty_document()["days"]
    quiet["totals"] = empty_document()["totals"]
    quiet["matrix"]["rows"] = []
    write_dashboard(quiet, tmp_path)
    index = _page(tmp_path / "index.html")
    assert "No failures over the last 30 days" in index.text
    assert "No failures in this window" in index.text
    assert "None: every recorded failure has a root cause." in index.text
    assert "No GPU model was recorded with these runs." in index.text
    assert (tmp_path / "causes" / f"{STALE_KEY}.html").is_file()


def test_a_rebuild_removes_pages_of_gone_causes_and_leaves_other_files(
    tmp_path: Path, document: dict[str, Any]
) -> None:
    write_dashboard(document, tmp_path)
    mine = tmp_path / "causes" / "notes.html"
    mine.write_text("<!doctype html><p>my own notes</p>")
    fewer = copy.deepcopy(document)
    fewer["causes"] = [cause for cause in fewer["causes"] if cause["key"] != STALE_KEY]
    write_dashboard(fewer, tmp_path)
    assert not (tmp_path / "causes" / f"{STALE_KEY}.html").exists()
    assert (tmp_path / "causes" / f"{SEED_KEY}.html").is_file()
    assert mine.read_text() == "<!doctype html><p>my own notes</p>"


def test_a_site_of_several_scopes_drops_the_pages_of_a_scope_that_is_gone(
    tmp_path: Path, document: dict[str, Any]
) -> None:
    written = write_scoped_dashboards([("All workflows", document), ("Nightly CI", document)], tmp_path)
    scope_index = tmp_path / "scopes" / "nightly-ci" / "index.html"
    assert scope_index in written and (tmp_path / "scopes" / "nightly-ci" / "data.json").is_file()
    assert 'href="scopes/nightly-ci/index.html"' in (tmp_path / "index.html").read_text()
    assert 'href="../../index.html"' in scope_index.read_text()
    write_scoped_dashboards([("All workflows", document)], tmp_path)
    assert not scope_index.exists()
    assert not list((tmp_path / "scopes" / "nightly-ci" / "causes").glob("*.html"))
    assert 'class="scopes"' not in (tmp_path / "index.html").read_text()  # one scope: no switcher


def test_keys_that_collide_after_slugging_get_separate_pages(
    tmp_path: Path, document: dict[str, Any]
) -> None:
    clashing = copy.deepcopy(document)
    twin = copy.deepcopy(clashing["causes"][0])
    clashing["causes"][0]["key"] = "Net/Timeout"
    twin.update(key="net-timeout", title="Another timeout")
    third = {**copy.deepcopy(twin), "key": "../../etc/passwd", "title": "Path-like key"}
    clashing["causes"] += [twin, third]
    written = write_dashboard(clashing, tmp_path)
    pages = [path for path in written if path.parent.name == "causes"]
    assert len(pages) == len(clashing["causes"]) == len({path.name for path in pages})
    assert all(path.parent == tmp_path / "causes" for path in pages)
    index = _page(tmp_path / "index.html")
    hrefs = {str(a["href"]) for a in index.all("a") if str(a.get("href", "")).startswith("causes/")}
    assert len(hrefs) == len(clashing["causes"])
    assert "causes/etc-passwd.html" in hrefs


@pytest.mark.parametrize(
    ("key", "slug"),
    [
        ("vllm.startup-free-memory", "vllm.startup-free-memory"),
        ("422ce2be4167", "422ce2be4167"),
        ("Weird Key/With Spaces", "weird-key-with-spaces"),
        ("../..", "cause"),
        ("", "cause"),
        (".hidden", "hidden"),
        ("CON", "con-cause"),
        ("nul.txt", "nul.txt-cause"),
        ("é<script>", "script"),
    ],
)
def test_slugify(key: str, slug: str) -> None:
    assert slugify(key) == slug


def test_unique_slugs_are_safe_distinct_and_do_not_depend_on_order() -> None:
    keys = ["Net/Timeout", "net-timeout", "NET TIMEOUT", "x" * 300, "x" * 301, "ok.rule"]
    slugs = unique_slugs(keys)
    assert len(set(slugs.values())) == len(keys)
    assert all(_SAFE_SLUG.fullmatch(slug) and len(slug) <= 100 for slug in slugs.values())
    assert slugs["ok.rule"] == "ok.rule"
    assert unique_slugs(reversed(keys)) == slugs
    assert unique_slugs(["net-timeout", "ok.rule"])["net-timeout"] == "net-timeout"


def test_markup_escapes_text_and_attributes_but_not_markup() -> None:
    assert tag("td", "<b>", title='"x" & y') == '<td title="&quot;x&quot; &amp; y">&lt;b&gt;</td>'
    assert tag("p", Html("<b>bold</b>"), " & ", 3, None) == "<p><b>bold</b> &amp; 3</p>"
    assert tag("th", "x", aria_sort="ascending", class_="a", hidden=True, data_x=None) == (
        '<th aria-sort="ascending" class="a" hidden>x</th>'
    )
    assert tag("meta", name="x") == '<meta name="x">'


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://github.com/acme/inference/actions/runs/1", True),
        ("http://jira.example/browse/OPS-1", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("//evil.example/x", False),
        ("", False),
    ],
)
def test_only_http_links_from_the_data_become_links(url: str, safe: bool) -> None:
    assert (external_url(url) is not None) is safe


def test_documents_that_do_not_fit_the_schema_are_errors_naming_the_field(document: dict[str, Any]) -> None:
    missing = copy.deepcopy(document)
    del missing["causes"][2]["counts"]["7d"]
    with pytest.raises(ResultsError, match=r"causes\[2\]\.counts has no '7d'") as caught:
        parse(missing, source="site/data.json")
    assert str(caught.value).startswith("site/data.json:") and "dashboard_data" in caught.value.hint
    wrong_type = copy.deepcopy(document)
    wrong_type["days"][3]["failures"] = "4"
    with pytest.raises(ResultsError, match=r"days\[3\]\.failures should be an integer"):
        parse(wrong_type)
    with pytest.raises(ResultsError, match=r"schema_version 2\.0 is not supported"):
        parse({**document, "schema_version": "2.0"})
    twice = copy.deepcopy(document)
    twice["causes"].append(copy.deepcopy(twice["causes"][0]))
    with pytest.raises(ResultsError, match=f"'{SEED_KEY}' appears twice"):
        parse(twice)
    bad_time = copy.deepcopy(document)
    bad_time["causes"][0]["last_seen"]["at"] = "yesterday"
    with pytest.raises(ResultsError, match=r"causes\[0\]\.last_seen\.at 'yesterday' is not an ISO 8601 time"):
        parse(bad_time)


def test_a_later_minor_version_with_new_fields_still_renders(document: dict[str, Any]) -> None:
    newer = copy.deepcopy(document)
    newer["schema_version"] = "1.3"
    newer["causes"][0]["owner"] = "infra-team"
    newer["totals"]["flaky"] = 4
    assert len(build_site(newer).cause_pages) == len(document["causes"])


def test_evidence_without_a_log_line_shows_the_message_and_no_evidence_is_no_excerpt(
    document: dict[str, Any],
) -> None:
    changed = copy.deepcopy(document)
    timeout = next(cause for cause in changed["causes"] if cause["key"] == TIMEOUT_KEY)
    message = "RuntimeError: TIMEOUT: Check URL: http://localhost:8000/health failed after 600s"
    timeout["examples"][0]["evidence"] = {"attachment": "", "line": 0, "text": message, "excerpt": []}
    timeout["examples"].append(
        {**copy.deepcopy(timeout["examples"][0]), "test": "test_other", "evidence": None}
    )
    site = dict(build_site(changed).files)
    page = _Page(site[f"causes/{TIMEOUT_KEY}.html"])
    assert "The test's error message " + message in page.text
    assert "line 0" not in page.text
    assert site[f"causes/{TIMEOUT_KEY}.html"].count('class="excerpt"') == 1
    assert site[f"causes/{TIMEOUT_KEY}.html"].count('class="example"') == 2


def test_tickets_are_the_models_tickets_with_their_tracker(document: dict[str, Any]) -> None:
    changed = copy.deepcopy(document)
    changed["causes"][0]["tickets"] += [
        {"key": "INFRA-12", "url": "https://acme.atlassian.net/browse/INFRA-12"},
        {"key": "#77", "url": ""},
    ]
    seed = parse(changed).causes[0]
    assert [(ticket.system, ticket.key) for ticket in seed.tickets] == [
        ("linear", "OPS-4445"),
        ("github", "ai-dynamo/dynamo#8443"),
        ("jira", "INFRA-12"),
        ("github", "#77"),
    ]
