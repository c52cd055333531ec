"""Which GitHub repository a fetch is about: the option, then $GITHUB_REPOSITORY, then `git remote` origin."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

import regex

from forensics.errors import ConfigError
from forensics.services.github import parse_repository

# https://github.com/o/r(.git), ssh://git@host(:port)/o/r.git, git@host:o/r.git (GHE hosts too)
_REMOTE = regex.compile(
    r"""^(?:
        (?:https?|ssh|git)://(?:[^@/]+@)?[^/]+/(?P<path>[^?#]+?)
      | [^@/\s]+@[^:/\s]+:(?P<scp>[^?#]+?)
    )(?:\.git)?/?$""",
    regex.X,
)


def repository_from_remote(url: str) -> str | None:
    """`owner/name` of a git remote URL (https or ssh forms), None when it is not one."""
    match = _REMOTE.match(url.strip())
    if match is None:
        return None
    path = (match["path"] or match["scp"] or "").strip("/")
    parts = path.split("/")
    if len(parts) != 2:
        return None
    try:
        return parse_repository(path)
    except ConfigError:
        return None


def origin_url(directory: Path) -> str | None:
    """`git remote get-url origin` in `directory`; None without git, a repository or an origin."""
    try:
        completed = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return completed.stdout.strip() or None if completed.returncode == 0 else None


def resolve_repository(option: str | None, *, environment: Mapping[str, str], directory: Path) -> str:
    """--repo, else $GITHUB_REPOSITORY, else the origin remote of the git checkout in `directory`."""
    if option:
        return parse_repository(option)
    from_environment = environment.get("GITHUB_REPOSITORY", "").strip()
    if from_environment:
        return parse_repository(from_environment)
    remote = origin_url(directory)
    repository = repository_from_remote(remote) if remote else None
    if repository is None:
        raise ConfigError(
            "which GitHub repository? none given, GITHUB_REPOSITORY is not set, and "
            + ("the git remote 'origin' is not a GitHub URL" if remote else "no git remote 'origin' here"),
            hint="pass --repo owner/name",
        )
    return repository
