"""`fetch --annotate`: one command from a failed nightly job to its tickets, against fake GitHub and Linear."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forensics.cli.main import main
from tests.fakes.github import TOKEN, FakeGitHub, running_github
from tests.fakes.linear import API_KEY, FakeLinear, running_linear
from tests.store.old_stores import build_version_1, schema_version
from tests.support.fetch_scenario import REPOSITORY, VLLM_JOB, scenario_zip, seed_nightly


@pytest.fixture(scope="module")
def sglang_zip(scenario_results: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return scenario_zip(
        scenario_results("scenario_nightly_multigpu.py"), tmp_path_factory.mktemp("sglang") / "a.zip"
    )


@pytest.fixture
def services(
    sglang_zip: bytes, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[FakeGitHub, FakeLinear]]:
    with running_github() as github, running_linear() as linear:
        seed_nightly(github, sglang_zip=sglang_zip)
        monkeypatch.setenv("GITHUB_API_URL", github.api.url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("LINEAR_API_URL", linear.url)
        monkeypatch.setenv("LINEAR_API_KEY", API_KEY)
        monkeypatch.setenv("CI_FORENSICS_CACHE", str(tmp_path / "cache"))
        yield github, linear


def _fetch(*args: str) -> Result:
    return CliRunner().invoke(
        main, ["fetch", "--job", str(VLLM_JOB), "--repo", REPOSITORY, *args], catch_exceptions=False
    )


def _linked_tickets() -> dict[str, set[str]]:
    """The tickets the job's failing tests link to, per system, as the report names them."""
    document = json.loads(_fetch("--format", "json").stdout)
    tickets: dict[str, set[str]] = {}
    for test in document["tests"]:
        if test["status"] in ("failed", "broken"):
            for ticket in test["tickets"]:
                tickets.setdefault(ticket["system"], set()).add(ticket["key"])
    return tickets


def test_fetch_annotate_posts_once_then_leaves_the_comments_alone(
    services: tuple[FakeGitHub, FakeLinear],
) -> None:
    github, linear = services
    tickets = _linked_tickets()
    assert "OPS-4445" in tickets["linear"]
    assert f"{REPOSITORY}#8443" in tickets["github"]
    for key in tickets["linear"]:
        linear.add_issue(key)
    other_repositories = {}
    for key in tickets["github"]:
        repository, number = key.rsplit("#", 1)
        if repository not in (REPOSITORY, *other_repositories):  # a test links another repository's issue
            other_repositories[repository] = FakeGitHub(
                api=github.api, storage=github.storage, repository=repository
            )
        fake = github if repository == REPOSITORY else other_repositories[repository]
        fake.comments.setdefault(int(number), [])

    first = _fetch("--annotate")
    assert first.exit_code == 0, first.output + first.stderr
    assert first.stdout.splitlines()[0].endswith("explained (82%), 2 unexplained")  # the report on stdout
    assert "OPS-4445 (linear): created" in first.stderr
    assert f"{REPOSITORY}#8443 (github): created" in first.stderr
    (linear_comment,) = linear.comments_of("OPS-4445")
    assert "0.33 GiB short" in linear_comment["body"]  # the captured numbers, not the wrapper error
    assert f"/job/{VLLM_JOB}" in linear_comment["body"]  # the job link from the CI context
    (github_comment,) = github.comments[8443]
    assert "vllm.startup-free-memory" in github_comment["body"]
    assert TOKEN not in github_comment["body"] and API_KEY not in linear_comment["body"]

    second = _fetch("--annotate")
    assert second.exit_code == 0
    assert "OPS-4445 (linear): unchanged" in second.stderr
    assert "created" not in second.stderr and "updated" not in second.stderr
    assert len(linear.comments_of("OPS-4445")) == 1 and len(github.comments[8443]) == 1


def test_a_ticket_that_cannot_be_annotated_exits_4_after_the_report(
    services: tuple[FakeGitHub, FakeLinear],
) -> None:
    github, _linear = services  # no Linear issue exists: OPS-4445 answers "not found"
    github.comments.setdefault(8443, [])
    result = _fetch("--annotate", "--fail-on", "failures")
    assert result.exit_code == 4
    assert result.stdout.splitlines()[0].startswith("11 failing tests")
    assert "OPS-4445 (linear): failed" in result.stderr
    assert f"{REPOSITORY}#8443 (github): created" in result.stderr


def test_fetch_record_then_annotate_shows_the_history_of_each_cause(
    services: tuple[FakeGitHub, FakeLinear], tmp_path: Path
) -> None:
    _github, linear = services
    linear.add_issue("OPS-4445")
    store = tmp_path / "history.sqlite3"
    result = _fetch("--record", "--store", str(store), "--annotate", "--ticket", "OPS-4445")
    assert result.exit_code == 4, result.stderr  # recorded fine; only the tickets missing from the fake fail
    assert "Recorded " in result.stderr and "OPS-4445 (linear): created" in result.stderr
    (comment,) = linear.comments_of("OPS-4445")
    assert "History:" in comment["body"]
    assert "first seen" in comment["body"] and "last seen" in comment["body"]
    counts = re.search(r"(\d+)× in 30 days, (\d+)× in all", comment["body"])
    assert counts is not None and int(counts[2]) >= 1  # this run's hits, recorded before annotating


def test_a_store_too_old_to_read_still_lets_the_tickets_get_the_root_cause(
    services: tuple[FakeGitHub, FakeLinear], tmp_path: Path
) -> None:
    _github, linear = services
    linear.add_issue("OPS-4445")
    store = str(tmp_path / "old.sqlite3")
    build_version_1(store)
    result = _fetch("--annotate", "--store", store, "--ticket", "OPS-4445")
    assert result.exit_code == 1  # the store's error outranks the tickets' and --fail-on's codes
    assert "has schema version 1" in result.stderr and "OPS-4445 (linear): created" in result.stderr
    (comment,) = linear.comments_of("OPS-4445")
    assert "0.33 GiB short" in comment["body"] and "History:" not in comment["body"]
    assert schema_version(store) == 1  # a reader never upgrades it


def test_the_ticket_outcomes_file_tells_failed_tickets_even_when_the_store_failed_too(
    services: tuple[FakeGitHub, FakeLinear], tmp_path: Path
) -> None:
    _github, linear = services  # OPS-4445 is not in Linear: that ticket fails
    outcomes = tmp_path / "tickets.json"
    result = _fetch(
        "--annotate",
        "--ticket",
        "OPS-4445",
        "--annotate-output",
        str(outcomes),
        "--record",
        "--store",
        "postgresql://forensics:pw@127.0.0.1:1/none",
    )
    assert result.exit_code == 1  # the store's code wins, so the code alone cannot tell about tickets
    document = json.loads(outcomes.read_text())
    failed = [ticket["key"] for ticket in document["tickets"] if ticket["action"] == "failed"]
    assert "OPS-4445" in failed and "OPS-4445" not in linear.issues


def test_annotate_output_goes_with_annotate(services: tuple[FakeGitHub, FakeLinear], tmp_path: Path) -> None:
    result = _fetch("--annotate-output", str(tmp_path / "tickets.json"))
    assert result.exit_code == 2 and "--annotate-output goes with --annotate" in result.output
