"""The GitHub client against a fake GitHub and a fake storage host on 127.0.0.1 (real sockets, no mocks)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from forensics.errors import (
    AuthenticationError,
    GoneError,
    NotFoundError,
    RateLimitedError,
    ServiceError,
    UnavailableError,
)
from forensics.services.github import GitHubClient, IssueComment
from forensics.services.http import RetryPolicy
from tests.fakes.github import SIGNATURE_SECRET, TOKEN, FakeGitHub, running_github
from tests.fakes.server import Reply

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=5)
REPO = "ai-dynamo/dynamo"
SAMPLE = Path(__file__).resolve().parents[1] / "forensics" / "samples" / "nightly-allure-results.zip"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with running_github() as fake:
        yield fake


def _client(github: FakeGitHub, *, token: str | None = TOKEN, **options: object) -> GitHubClient:
    return GitHubClient(  # type: ignore[arg-type]
        base_url=github.api.url, token=token, timeout=5, **{"retry": FAST, **options}
    )


def test_issue_comments_list_create_and_update(github: FakeGitHub) -> None:
    with _client(github) as client:
        created = client.create_issue_comment(REPO, 8443, "first <!-- ci-forensics:nightly -->")
        assert isinstance(created, IssueComment)
        assert created.body == "first <!-- ci-forensics:nightly -->"
        assert created.author == "github-actions[bot]"
        assert created.url == f"https://github.com/{REPO}/issues/8443#issuecomment-{created.id}"
        for index in range(120):  # two pages of comments
            client.create_issue_comment(REPO, 8443, f"comment {index}")
        comments = list(client.list_issue_comments(REPO, 8443))
        assert len(comments) == 121 and comments[0] == created
        updated = client.update_issue_comment(REPO, created.id, "second")
        assert (updated.id, updated.body) == (created.id, "second")
        assert next(c.body for c in client.list_issue_comments(REPO, 8443)) == "second"
    posted = github.api_requests("/issues/8443/comments")[0]
    assert posted.method == "POST" and posted.json() == {"body": "first <!-- ci-forensics:nightly -->"}
    assert (
        len([r for r in github.api_requests("/issues/8443/comments") if r.method == "GET"]) == 3
    )  # two pages, then one


def test_requests_carry_githubs_headers(github: FakeGitHub) -> None:
    github.add_run(101)
    with _client(github) as client:
        run = client.get_run(REPO, 101)
    assert (run.id, run.name, run.path, run.head_branch) == (
        101,
        "Nightly CI Pipeline",
        ".github/workflows/nightly-ci.yml",
        "main",
    )
    headers = github.api.requests[0].headers
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["user-agent"].startswith("ci-forensics/")
    assert TOKEN not in repr(client)


def test_an_earlier_attempt_of_a_run_reads_as_it_was(github: FakeGitHub) -> None:
    github.add_run(101, head_sha="a" * 40)
    github.rerun(101, head_sha="b" * 40)
    with _client(github) as client:
        first = client.get_run_attempt(REPO, 101, 1)
        second = client.get_run_attempt(REPO, 101, 2)
        latest = client.get_run(REPO, 101)
        with pytest.raises(NotFoundError) as missing:
            client.get_run_attempt(REPO, 101, 3)
    assert (first.id, first.run_attempt, first.head_sha) == (101, 1, "a" * 40)
    assert second == latest and (second.run_attempt, second.head_sha) == (2, "b" * 40)
    assert [request.path for request in github.api_requests("/attempts/")][:2] == [
        f"/repos/{REPO}/actions/runs/101/attempts/1",
        f"/repos/{REPO}/actions/runs/101/attempts/2",
    ]
    assert "cannot get attempt 3 of run 101 of ai-dynamo/dynamo" in missing.value.message


def test_artifact_listing_follows_link_pages(github: FakeGitHub) -> None:
    github.add_run(101)
    for index in range(230):
        github.add_artifact(101, f"coverage-{index}")
    with _client(github) as client:
        names = [artifact.name for artifact in client.list_run_artifacts(REPO, 101)]
    assert names == [f"coverage-{index}" for index in range(230)]
    pages = github.api_requests("/actions/runs/101/artifacts")
    assert [r.param("page", "1") for r in pages] == ["1", "2", "3"]
    assert {r.param("per_page") for r in pages} == {"100"}


def test_download_follows_the_redirect_without_credentials_and_checks_the_digest(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.add_run(101)
    github.add_artifact(101, "allure-results-vllm-Test-amd64-101-7", SAMPLE.read_bytes())
    with _client(github) as client:
        artifact = next(iter(client.list_run_artifacts(REPO, 101)))
        done = client.download_artifact(REPO, artifact, tmp_path / "a.zip")
    assert done.path.read_bytes() == SAMPLE.read_bytes()
    assert artifact.digest == f"sha256:{done.sha256}"
    (blob,) = github.storage_downloads
    assert "authorization" not in blob.headers and blob.param("sig") == SIGNATURE_SECRET
    assert list(tmp_path.iterdir()) == [tmp_path / "a.zip"]  # no partial left behind


def test_an_interrupted_download_is_retried_and_no_partial_is_kept(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.add_run(101)
    data = SAMPLE.read_bytes()
    github.add_artifact(101, "allure-results-vllm-Test-amd64-101-7", data)
    notices: list[str] = []
    github.storage.fail_next("/blob/", Reply(body=data, drop_after=1000))
    with _client(github, notify=notices.append) as client:
        artifact = next(iter(client.list_run_artifacts(REPO, 101)))
        done = client.download_artifact(REPO, artifact, tmp_path / "a.zip")
    assert done.path.read_bytes() == data
    assert len(github.storage_downloads) == 2
    assert len(github.api_requests("/zip")) == 2  # a fresh signed URL for the second try
    assert any("interrupted" in notice for notice in notices)
    assert not any(SIGNATURE_SECRET in notice for notice in notices)
    assert list(tmp_path.iterdir()) == [tmp_path / "a.zip"]


def test_a_download_that_keeps_breaking_names_the_artifact_but_never_the_signed_url(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.add_run(101)
    data = SAMPLE.read_bytes()
    github.add_artifact(101, "allure-results-vllm-Test-amd64-101-7", data)
    github.storage.fail_next("/blob/", Reply(body=data, drop_after=10), times=3)
    with _client(github) as client:
        artifact = next(iter(client.list_run_artifacts(REPO, 101)))
        with pytest.raises(UnavailableError) as raised:
            client.download_artifact(REPO, artifact, tmp_path / "a.zip")
    assert "artifact 'allure-results-vllm-Test-amd64-101-7' (run 101)" in raised.value.message
    assert SIGNATURE_SECRET not in raised.value.message
    assert list(tmp_path.iterdir()) == []


def test_a_502_then_success(github: FakeGitHub) -> None:
    github.add_run(101)
    github.api.fail_next("/repos/", Reply.json({"message": "Server Error"}, status=502))
    notices: list[str] = []
    with _client(github, notify=notices.append) as client:
        assert client.get_run(REPO, 101).id == 101
    assert len(github.api.requests) == 2
    assert notices and "502" in notices[0]


def test_primary_rate_limit_waits_until_the_reset(github: FakeGitHub) -> None:
    github.add_run(101)
    reset = int(time.time()) + 30  # far enough that "until the reset" differs from any fixed wait
    github.api.fail_next(
        "/repos/",
        Reply.json(
            {"message": "API rate limit exceeded for user ID 1."},
            status=403,
            headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
        ),
    )
    waits: list[float] = []
    notices: list[str] = []
    patient = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=60)
    with _client(github, sleep=waits.append, notify=notices.append, retry=patient) as client:
        assert client.get_run(REPO, 101).id == 101
    assert len(waits) == 1 and 29.0 <= waits[0] <= 31.5  # until the reset, plus a second for clock skew
    assert "rate limit" in notices[0]


def test_secondary_rate_limit_honours_retry_after(github: FakeGitHub) -> None:
    github.add_run(101)
    github.api.fail_next(
        "/repos/",
        Reply.json(
            {"message": "You have exceeded a secondary rate limit."}, status=403, headers={"retry-after": "3"}
        ),
    )
    waits: list[float] = []
    with _client(github, sleep=waits.append) as client:
        assert client.get_run(REPO, 101).id == 101
    assert waits == [3.0]


def test_a_rate_limit_longer_than_we_wait_is_an_error(github: FakeGitHub) -> None:
    github.api.fail_next(
        "/repos/", Reply.json({"message": "slow down"}, status=429, headers={"retry-after": "600"})
    )
    with _client(github) as client, pytest.raises(RateLimitedError, match="wait 600 s"):
        client.get_run(REPO, 101)


def test_refusals_say_what_to_do(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_run(101)
    github.add_job(101, 72349014718)
    artifact = github.add_artifact(101, "allure-results-vllm-Test-amd64-101-72349014718", b"zip")
    with (
        _client(github, token="ghp_wrongwrongwrongwrongwrongwrongwrong12") as client,
        pytest.raises(AuthenticationError) as unauthorised,
    ):
        client.get_job(REPO, 72349014718)
    assert "cannot get job 72349014718 of ai-dynamo/dynamo" in unauthorised.value.message
    assert "GITHUB_TOKEN" in unauthorised.value.hint
    with _client(github, token=None) as client:
        listed = next(
            iter(client.list_run_artifacts(REPO, 101))
        )  # metadata of a public repo: no token needed
        with pytest.raises(AuthenticationError) as anonymous:
            client.download_artifact(REPO, listed, tmp_path / "a.zip")
    assert "You must have the actions scope" in anonymous.value.message
    assert "even for public repositories" in anonymous.value.hint and "actions: read" in anonymous.value.hint
    github.api.fail_next("/repos/", Reply.json({"message": "Resource not accessible by integration"}, 403))
    with _client(github) as client:
        with pytest.raises(AuthenticationError) as forbidden:
            client.get_job(REPO, 72349014718)
        assert "`actions: read`" in forbidden.value.hint
        with pytest.raises(NotFoundError) as missing:
            client.get_job(REPO, 7219)
        assert "job 7219 of ai-dynamo/dynamo" in missing.value.message
        assert "--repo" in missing.value.hint
        github.gone.add(artifact["id"])
        with pytest.raises(GoneError) as gone:
            client.download_artifact(REPO, listed, tmp_path / "a.zip")
    assert gone.value.message == (
        "cannot download artifact 'allure-results-vllm-Test-amd64-101-72349014718' (run 101): "
        "it expired on 2026-04-28"
    )
    assert "kept 7 days (retention-days in actions/upload-artifact)" in gone.value.hint
    assert not any(TOKEN in str(error.value) for error in (unauthorised, anonymous, forbidden, missing, gone))


def test_size_and_digest_are_checked_only_when_github_lists_a_digest(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.add_run(101)
    old_style = github.add_artifact(101, "allure-results-v3", SAMPLE.read_bytes(), with_digest=False)
    old_style["size_in_bytes"] = 608085  # upload-artifact v3 listed the files' total, not the zip's size
    damaged = github.add_artifact(101, "allure-results-v4", SAMPLE.read_bytes())
    damaged["digest"] = "sha256:" + "0" * 64
    with _client(github) as client:
        listed = {artifact.name: artifact for artifact in client.list_run_artifacts(REPO, 101)}
        done = client.download_artifact(REPO, listed["allure-results-v3"], tmp_path / "v3.zip")
        assert done.size == SAMPLE.stat().st_size
        with pytest.raises(ServiceError, match="does not match the digest GitHub gave"):
            client.download_artifact(REPO, listed["allure-results-v4"], tmp_path / "v4.zip")
    assert not (tmp_path / "v4.zip").exists()
