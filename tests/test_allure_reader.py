"""The Allure reader against real allure-pytest output and public samples from other adapters."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from forensics.inputs.allure import read_allure
from forensics.inputs.archive import DirectoryArchive, ZipArchive
from forensics.model import Status


def _by_name(directory: Path) -> dict[str, object]:
    return {test.name: test for test in read_allure(DirectoryArchive(directory)).tests}


def test_reads_every_reference_test_with_status_and_links(reference: Path) -> None:
    expected = json.loads((reference / "allure-results-pytest.expected.json").read_text())["tests"]
    results = read_allure(DirectoryArchive(reference / "allure-results-pytest"))
    tests = {test.uuid: test for test in results.tests}
    assert len(tests) == len(expected) == 14
    for item in expected:
        test = tests[item["uuid"]]
        assert test.name == item["name"]
        assert test.full_name == item["fullName"]
        assert test.status.value == item["status"]
        assert sorted((link.type, link.name, link.url) for link in test.links) == sorted(
            (link["type"], link.get("name", ""), link.get("url", "")) for link in item["links"]
        )


def test_finds_logs_in_results_steps_and_fixture_containers(reference: Path) -> None:
    """bash.log.txt in a step, in a teardown container, and only in a setup container (fixture raised)."""
    expected = json.loads((reference / "allure-results-pytest.expected.json").read_text())["tests"]
    tests = {
        test.uuid: test for test in read_allure(DirectoryArchive(reference / "allure-results-pytest")).tests
    }
    for item in expected:
        if item["status"] not in ("failed", "broken"):
            continue
        want = sorted(
            a["source"]
            for a in item["attachments"]
            if a["name"] in ("bash.log.txt", "stdout", "stderr", "log")
        )
        got = sorted(log.source for log in tests[item["uuid"]].logs)
        assert got == want, item["name"]
    tp2 = next(t for t in tests.values() if t.name == "test_tensor_parallel_2")
    assert [(log.attachment, log.location) for log in tp2.logs] == [
        ("bash.log.txt", "fixture 'tp2_server' (setup)")
    ]
    startup = next(t for t in tests.values() if t.name == "test_engine_startup_70b")
    assert [log.location for log in startup.logs][:2] == [
        "step 'wait for server ready'",
        "fixture 'oom_server::1' (teardown)",
    ]


def test_bash_log_ranks_before_other_logs_and_shared_container_logs_rank_last(reference: Path) -> None:
    tests = _by_name(reference / "allure-results-pytest")
    assertion = tests["test_engine_startup_assert"]
    assert [log.attachment for log in assertion.logs] == ["bash.log.txt", "stderr"]  # type: ignore[attr-defined]
    germany = tests["test_completion[germany]"]
    shared = [log for log in germany.logs if log.attachment == "bash.log.txt"]  # type: ignore[attr-defined]
    assert shared and shared[0].shared_by == 11


def test_ticket_ids_come_from_link_url_and_name_and_skip_reasons(reference: Path) -> None:
    tests = _by_name(reference / "allure-results-pytest")
    startup = tests["test_engine_startup_70b"]
    keys = {ticket.key for ticket in startup.tickets}  # type: ignore[attr-defined]
    assert "OPS-4445" in keys
    linear = next(t for t in startup.tickets if t.key == "OPS-4445")  # type: ignore[attr-defined]
    assert linear.url == "https://linear.app/acme/issue/OPS-4445"


def test_the_zip_artifact_reads_like_the_folder(reference: Path) -> None:
    from_zip = read_allure(ZipArchive(reference / "allure-results.zip")).tests
    from_dir = read_allure(DirectoryArchive(reference / "allure-results-pytest")).tests
    assert sorted((t.uuid, t.status, len(t.logs)) for t in from_zip) == sorted(
        (t.uuid, t.status, len(t.logs)) for t in from_dir
    )


def test_retries_in_one_folder_keep_the_latest_and_count_the_rest(reference: Path) -> None:
    tests = read_allure(
        DirectoryArchive(reference / "allure-results-pytest-variants" / "rerun-same-dir")
    ).tests
    assert sorted(t.name for t in tests) == ["test_engine_startup_70b", "test_health_endpoint"]
    assert all(t.retries == 1 for t in tests)
    startup = next(t for t in tests if t.name == "test_engine_startup_70b")
    assert startup.previous_statuses == (Status.BROKEN,)


def test_link_pattern_variant_gives_linear_tickets(reference: Path) -> None:
    tests = read_allure(DirectoryArchive(reference / "allure-results-pytest-variants" / "linkpattern")).tests
    assert any(ticket.key == "OPS-4445" and ticket.system == "linear" for t in tests for ticket in t.tickets)


def test_public_samples_from_other_adapters_parse(reference: Path) -> None:
    public = reference / "allure-results-public"
    counts = {
        folder.name: read_allure(DirectoryArchive(folder)).tests
        for folder in sorted(public.iterdir())
        if folder.is_dir() and any(folder.glob("*-result.json"))
    }
    assert set(counts) >= {
        "allure2-demo",
        "allure2-generator-allure2data",
        "playwright-KseniyaDabraliubava-playwright-tests-ts",
        "pytest-Dayzer69-autotests-api",
        "testng-aritradas2002-RestAssured_api_chaining",
    }
    assert all(tests for tests in counts.values())
    demo = {t.name: t for t in counts["allure2-demo"]}
    assert {t.status for t in demo.values()} >= {Status.BROKEN, Status.SKIPPED, Status.UNKNOWN}


def test_testng_nested_containers_reach_their_results(reference: Path, tmp_path: Path) -> None:
    """Suite containers list container uuids as children; a log attached there reaches the tests below."""
    folder = tmp_path / "testng"
    shutil.copytree(
        reference / "allure-results-public" / "testng-aritradas2002-RestAssured_api_chaining", folder
    )
    suite = next(folder.glob("16f83820*-container.json"))
    document = json.loads(suite.read_text())
    assert all(child.startswith("be53500c") for child in document["children"])  # a container, not a result
    document["befores"] = [
        {"name": "suite setup", "attachments": [{"name": "suite.log", "source": "suite-attachment.txt"}]}
    ]
    suite.write_text(json.dumps(document))
    (folder / "suite-attachment.txt").write_text("ERROR something\n")
    tests = {test.uuid[:8]: test for test in read_allure(DirectoryArchive(folder)).tests}
    login = tests["21a203b0"]
    assert [(log.attachment, log.location, log.shared_by) for log in login.logs] == [
        ("suite.log", "fixture 'suite setup' (setup)", 1)
    ]
    assert tests["2d767f14"].logs == ()


def test_single_testcase_files_of_allure2_and_allure3_parse(reference: Path, tmp_path: Path) -> None:
    """Their test resources are bare JSON results; named as an adapter would, each one parses."""
    count = 0
    for folder in ("allure2-generator-testcases", "allure3-reader-allure2data"):
        for source in sorted((reference / "allure-results-public" / folder).glob("*.json")):
            target = tmp_path / f"{folder}-{source.stem}"
            target.mkdir()
            shutil.copy(source, target / f"{source.stem}-result.json")
            results = read_allure(DirectoryArchive(target))
            assert len(results.tests) + len(results.problems) >= 1, source.name
            count += 1
    assert count >= 20


def test_traversal_and_bad_sources_become_problems(reference: Path, tmp_path: Path) -> None:
    source = (
        reference
        / "allure-results-public"
        / "allure2-generator-testcases"
        / "text-attachment-path-traversal.json"
    )
    shutil.copy(source, tmp_path / "x-result.json")
    document = json.loads(source.read_text())
    document["status"] = "failed"
    document["attachments"] = [{"name": "bash.log.txt", "source": "../../etc/passwd"}]
    (tmp_path / "x-result.json").write_text(json.dumps(document))
    results = read_allure(DirectoryArchive(tmp_path))
    assert results.tests[0].logs == ()
    assert any("not a plain file name" in problem.message for problem in results.problems)
