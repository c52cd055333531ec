"""Find the tickets a test points to: Linear/Jira keys and URLs, GitHub `#N`, `owner/repo#N` and URLs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from forensics.lazy_regex import LazyRegex
from forensics.model import Link, Ticket, TicketOrigin, TicketSystem

if TYPE_CHECKING:
    import regex

_LINEAR_URL = LazyRegex(r"https?://linear\.app/[\w-]+/issue/(?P<key>[A-Za-z][A-Za-z0-9]{0,9}-\d{1,7})\b")
_JIRA_URL = LazyRegex(r"https?://[\w.-]+(?::\d+)?/browse/(?P<key>[A-Z][A-Z0-9_]{0,9}-\d{1,7})\b")
_GITHUB_URL = LazyRegex(
    r"https?://(?:www\.)?github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:issues|pull)/(?P<number>\d{1,7})\b"
)
_GITHUB_REPO_REF = LazyRegex(r"(?<![\w/.-])(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]+)#(?P<number>\d{1,7})\b")
_GITHUB_REF = LazyRegex(r"(?<![\w&/#])#(?P<number>\d{1,7})\b")
_KEY = LazyRegex(r"(?<![\w/-])(?P<key>[A-Z][A-Z0-9]{1,9})-(?P<number>\d{1,7})\b")
# Upper-case words followed by a number that are not ticket keys in the texts we read.
_NOT_KEYS = frozenset(
    {
        "UTF",
        "SHA",
        "ISO",
        "RFC",
        "CVE",
        "HTTP",
        "TLS",
        "SSL",
        "FP",
        "BF",
        "INT",
        "UINT",
        "CUDA",
        "SM",
        "GPU",
        "TP",
        "PP",
        "DP",
        "EP",
        "PCI",
        "PCIE",
        "DDR",
        "GDDR",
        "HBM",
        "NCCL",
        "MD",
        "RSA",
        "AES",
        "TCP",
        "UDP",
    }
)
_TICKET_LINK_TYPES = frozenset({"issue", "tms", "link"})


def tickets_from_links(links: Iterable[Link]) -> list[Ticket]:
    """Tickets from Allure links of type issue/tms/link; both `url` and `name` are read (users swap them)."""
    found: list[Ticket] = []
    for link in links:
        if link.type.lower() not in _TICKET_LINK_TYPES:
            continue
        trusted = link.type.lower() in ("issue", "tms")
        for text in (link.url, link.name):
            found.extend(tickets_in_text(text, origin="link", bare_keys=trusted or "://" not in text))
    return found


def tickets_in_text(text: str, *, origin: TicketOrigin, bare_keys: bool = True) -> list[Ticket]:
    """Every ticket reference in a piece of text (a link, a skip reason)."""
    found: list[Ticket] = []
    consumed: list[tuple[int, int]] = []

    def take(match: regex.Match[str], ticket: Ticket) -> None:
        consumed.append(match.span())
        found.append(ticket)

    def free(match: regex.Match[str]) -> bool:
        start, end = match.span()
        return all(end <= used_start or start >= used_end for used_start, used_end in consumed)

    for match in _LINEAR_URL.finditer(text):
        take(match, Ticket("linear", match["key"].upper(), match.group(0), origin))
    for match in _JIRA_URL.finditer(text):
        if free(match):
            take(match, Ticket("jira", match["key"], match.group(0), origin))
    for match in _GITHUB_URL.finditer(text):
        if free(match):
            reference = f"{match['repo']}#{match['number']}"
            take(match, Ticket("github", reference, match.group(0), origin))
    for match in _GITHUB_REPO_REF.finditer(text):
        if free(match):
            reference = f"{match['repo']}#{match['number']}"
            take(
                match,
                Ticket(
                    "github",
                    reference,
                    f"https://github.com/{match['repo']}/issues/{match['number']}",
                    origin,
                ),
            )
    for match in _GITHUB_REF.finditer(text):
        if free(match):
            take(match, Ticket("github", f"#{match['number']}", "", origin))
    if bare_keys:
        for match in _KEY.finditer(text):
            if free(match) and match["key"] not in _NOT_KEYS:
                take(match, Ticket("linear", f"{match['key']}-{match['number']}", "", origin))
    return found


def system_of(key: str, url: str = "") -> TicketSystem:
    """The tracker of a ticket kept as key and URL only (a store row, a data.json): read as a link would be."""
    for text in (url, key):
        found = tickets_in_text(text, origin="link")
        if found:
            return found[0].system
    return "github" if "#" in key else "linear"  # a bare key reads as Linear, as in tickets_in_text


def merge_tickets(tickets: Iterable[Ticket]) -> tuple[Ticket, ...]:
    """One entry per ticket (a URL beats a bare key); `#N` is dropped when `owner/repo#N` is also known."""
    by_key: dict[tuple[str, str], Ticket] = {}
    for ticket in tickets:
        key = (ticket.system, ticket.key)
        existing = by_key.get(key)
        if existing is None or (not existing.url and ticket.url):
            by_key[key] = ticket
    full_numbers = {
        key.split("#", 1)[1] for system, key in by_key if system == "github" and not key.startswith("#")
    }
    return tuple(
        ticket
        for (system, key), ticket in by_key.items()
        if not (system == "github" and key.startswith("#") and key[1:] in full_numbers)
    )
