"""ci-forensics: tells why each test in a failed CI run really failed.

The public API: every name a program needs, importable from `forensics` itself.

    from forensics import analyze, load_rules, render_report
    report = analyze(["allure-results.zip"], rules=load_rules())
    print(render_report(report, "markdown"))

Paths may be strings or `os.PathLike` (a `pathlib.Path`). Names load on first use (PEP 562), so
`import forensics` stays cheap: no HTTP client, database driver or terminal library is imported until a
name that needs it is used. Anything not listed in `__all__` is internal and may change between releases.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forensics.version import __version__

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time `__getattr__` imports on first use
    from forensics.annotate import (
        AnnotateOptions,
        AnnotateResult,
        SinkUnavailable,
        TicketOutcome,
        annotate_report,
    )
    from forensics.dashboard.document import dashboard_data
    from forensics.dashboard.site import build_site, write_dashboard
    from forensics.errors import (
        AuthenticationError,
        ConfigError,
        ForensicsError,
        NotFoundError,
        RateLimitedError,
        ResultsError,
        RulesError,
        ServiceError,
        StoreError,
        StoreNotFoundError,
        UnavailableError,
    )
    from forensics.model import (
        Category,
        Evidence,
        ExcerptLine,
        Finding,
        Fingerprint,
        Group,
        InputInfo,
        JobContext,
        Link,
        LogRef,
        Problem,
        Report,
        RuleKind,
        RunContext,
        Status,
        TestCase,
        Ticket,
        Verdict,
    )
    from forensics.paths import PathArgument
    from forensics.render import render_report
    from forensics.report.build import analyze, analyze_source
    from forensics.report.redact import Redactor, redact_report
    from forensics.report.saved import load_report
    from forensics.report.session import AnalyzeOptions
    from forensics.rules.loader import load_rules
    from forensics.rules.model import Rule, RuleSet
    from forensics.services.github import GitHubClient
    from forensics.services.jira import JiraClient
    from forensics.services.linear import LinearClient
    from forensics.sinks.github import GitHubCommentSink
    from forensics.sinks.jira import JiraCommentSink
    from forensics.sinks.linear import LinearCommentSink
    from forensics.sources.base import ArtifactSource, FetchResult
    from forensics.sources.cache import DownloadCache, default_cache_directory
    from forensics.sources.github_actions import GitHubActionsSource, GitHubActionsTarget
    from forensics.store import Store, open_store
    from forensics.store.answers import CauseStats, History, cause_stats, history
    from forensics.store.writer import RecordResult, record_report

__all__ = [
    "AnalyzeOptions",
    "AnnotateOptions",
    "AnnotateResult",
    "ArtifactSource",
    "AuthenticationError",
    "Category",
    "CauseStats",
    "ConfigError",
    "DownloadCache",
    "Evidence",
    "ExcerptLine",
    "FetchResult",
    "Finding",
    "Fingerprint",
    "ForensicsError",
    "GitHubActionsSource",
    "GitHubActionsTarget",
    "GitHubClient",
    "GitHubCommentSink",
    "Group",
    "History",
    "InputInfo",
    "JiraClient",
    "JiraCommentSink",
    "JobContext",
    "LinearClient",
    "LinearCommentSink",
    "Link",
    "LogRef",
    "NotFoundError",
    "PathArgument",
    "Problem",
    "RateLimitedError",
    "RecordResult",
    "Redactor",
    "Report",
    "ResultsError",
    "Rule",
    "RuleKind",
    "RuleSet",
    "RulesError",
    "RunContext",
    "ServiceError",
    "SinkUnavailable",
    "Status",
    "Store",
    "StoreError",
    "StoreNotFoundError",
    "TestCase",
    "Ticket",
    "TicketOutcome",
    "UnavailableError",
    "Verdict",
    "__version__",
    "analyze",
    "analyze_source",
    "annotate_report",
    "build_site",
    "cause_stats",
    "dashboard_data",
    "default_cache_directory",
    "history",
    "load_report",
    "load_rules",
    "open_store",
    "record_report",
    "redact_report",
    "render_report",
    "write_dashboard",
]

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "Category",
            "Evidence",
            "ExcerptLine",
            "Finding",
            "Fingerprint",
            "Group",
            "InputInfo",
            "JobContext",
            "Link",
            "LogRef",
            "Problem",
            "Report",
            "RuleKind",
            "RunContext",
            "Status",
            "TestCase",
            "Ticket",
            "Verdict",
        ),
        "forensics.model",
    ),
    **dict.fromkeys(
        (
            "AuthenticationError",
            "ConfigError",
            "ForensicsError",
            "NotFoundError",
            "RateLimitedError",
            "ResultsError",
            "RulesError",
            "ServiceError",
            "StoreError",
            "StoreNotFoundError",
            "UnavailableError",
        ),
        "forensics.errors",
    ),
    **dict.fromkeys(("PathArgument",), "forensics.paths"),
    **dict.fromkeys(
        (
            "analyze",
            "analyze_source",
        ),
        "forensics.report.build",
    ),
    **dict.fromkeys(("Redactor", "redact_report"), "forensics.report.redact"),
    **dict.fromkeys(("AnalyzeOptions",), "forensics.report.session"),
    **dict.fromkeys(("load_report",), "forensics.report.saved"),
    **dict.fromkeys(("load_rules",), "forensics.rules.loader"),
    **dict.fromkeys(
        (
            "Rule",
            "RuleSet",
        ),
        "forensics.rules.model",
    ),
    **dict.fromkeys(("render_report",), "forensics.render"),
    **dict.fromkeys(
        (
            "Store",
            "open_store",
        ),
        "forensics.store",
    ),
    **dict.fromkeys(
        (
            "RecordResult",
            "record_report",
        ),
        "forensics.store.writer",
    ),
    **dict.fromkeys(
        (
            "CauseStats",
            "History",
            "cause_stats",
            "history",
        ),
        "forensics.store.answers",
    ),
    **dict.fromkeys(("dashboard_data",), "forensics.dashboard.document"),
    **dict.fromkeys(
        (
            "build_site",
            "write_dashboard",
        ),
        "forensics.dashboard.site",
    ),
    **dict.fromkeys(
        (
            "AnnotateOptions",
            "AnnotateResult",
            "SinkUnavailable",
            "TicketOutcome",
            "annotate_report",
        ),
        "forensics.annotate",
    ),
    **dict.fromkeys(("GitHubClient",), "forensics.services.github"),
    **dict.fromkeys(("LinearClient",), "forensics.services.linear"),
    **dict.fromkeys(("JiraClient",), "forensics.services.jira"),
    **dict.fromkeys(("GitHubCommentSink",), "forensics.sinks.github"),
    **dict.fromkeys(("LinearCommentSink",), "forensics.sinks.linear"),
    **dict.fromkeys(("JiraCommentSink",), "forensics.sinks.jira"),
    **dict.fromkeys(
        (
            "ArtifactSource",
            "FetchResult",
        ),
        "forensics.sources.base",
    ),
    **dict.fromkeys(
        (
            "GitHubActionsSource",
            "GitHubActionsTarget",
        ),
        "forensics.sources.github_actions",
    ),
    **dict.fromkeys(
        (
            "DownloadCache",
            "default_cache_directory",
        ),
        "forensics.sources.cache",
    ),
}


def __getattr__(name: str) -> Any:
    """Import a public name's module the first time the name is used, then keep the name here."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'forensics' has no attribute {name!r}")
    from forensics.dataclass_code import install  # before the name's modules create their dataclasses

    install()
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
