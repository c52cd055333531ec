"""A PostgreSQL store URL's password never reaches a message: not when libpq cannot parse the URL (it quotes
the offending text), not when the connection fails, not when the server rejects a statement."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from forensics.cli.main import main
from forensics.errors import StoreError
from forensics.store import open_store
from forensics.store.postgres import PostgresStore
from tests.store.servers import postgres_url, with_search_path

CLOSED_PORT = "127.0.0.1:1"  # nothing listens there: the connection is refused at once
INVALID_URL = (
    "the store URL is not a valid PostgreSQL URL: percent-encode special characters of the password "
    "(%25 for %, %40 for @, %20 for space)"
)
# each written raw into the URL, as people do; the part after the special character must not leak either
NASTY_PASSWORDS = {
    "percent": ("Sup3r%Secret", "invalid"),
    "space": ("Sup3r Secret", "invalid"),
    "at": ("Sup3r@Secret", "invalid"),  # libpq would take `Secret@127.0.0.1` for the host
    "slash": ("Sup3r/Secret@", "invalid"),  # libpq would take `Sup3r` for the port
    "digits-slash": ("4711/Secret", "invalid"),  # a numeric port, the rest in the database name
    "hash": ("Sup3r#Secret", "unreachable"),  # libpq reads these right: the connection fails, quoting nothing
    "question": ("Sup3r?Secret", "unreachable"),
    "colon": ("Sup3r:Secret", "unreachable"),
}


def _fragments(password: str) -> list[str]:
    """The password and each run of letters and digits in it: the pieces a mangled URL would scatter."""
    pieces = "".join(character if character.isalnum() else " " for character in password).split()
    return [password, *(piece for piece in pieces if len(piece) >= 4)]


def _assert_hidden(error: StoreError, password: str) -> None:
    for fragment in _fragments(password):
        assert fragment not in error.message and fragment not in error.hint, fragment


@pytest.mark.parametrize(("password", "outcome"), NASTY_PASSWORDS.values(), ids=NASTY_PASSWORDS.keys())
@pytest.mark.parametrize("where", ["user-info", "query"])
def test_a_password_never_appears_in_the_error(
    password: str, outcome: str, where: str, tmp_path: Path
) -> None:
    if where == "user-info":
        url = f"postgresql://triage:{password}@{CLOSED_PORT}/ci"
    else:  # in a query value libpq reads @ / # ? : as written; only % and space do not parse
        url = f"postgresql://triage@{CLOSED_PORT}/ci?password={password}"
        outcome = "invalid" if "%" in password or " " in password else "unreachable"
    with pytest.raises(StoreError) as raised:
        open_store(url, default_dir=tmp_path)
    assert raised.value.__cause__ is None or password not in str(raised.value.__cause__)  # nor in a traceback
    if outcome == "invalid":
        assert raised.value.message == INVALID_URL
        assert "PGPASSWORD" in raised.value.hint
    else:
        assert raised.value.message.startswith(
            "cannot connect to history store postgresql://triage@127.0.0.1:1/ci"
        )
    _assert_hidden(raised.value, password)


def test_the_command_line_shows_the_fixed_message(tmp_path: Path) -> None:
    url = f"postgresql://triage:Sup3r%Secret@{CLOSED_PORT}/ci"
    result = CliRunner().invoke(main, ["history", "--store", url], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {INVALID_URL}\nHint: ")
    assert "Secret" not in result.output and "Secret" not in result.stderr


def test_a_percent_encoded_password_is_what_the_hint_asks_for(tmp_path: Path) -> None:
    url = f"postgresql://triage:{quote('Sup3r%Se cr@et/#?', safe='')}@{CLOSED_PORT}/ci"
    with pytest.raises(StoreError) as raised:
        open_store(url, default_dir=tmp_path)
    assert raised.value.message.startswith(
        "cannot connect to history store postgresql://triage@127.0.0.1:1/ci:"
    )
    _assert_hidden(raised.value, "Sup3r%Se cr@et/#?")


def test_a_statement_error_quoting_the_password_is_redacted() -> None:
    password = "Se cr#et-4711"  # the test server trusts its user: libpq never sends it
    url = with_search_path(postgres_url(), "public") + f"&password={quote(password, safe='')}"
    with PostgresStore(url) as store:
        with pytest.raises(StoreError) as raised:
            store.query("SELECT CAST(? AS INTEGER)", (password,))  # PostgreSQL quotes the bad value
        assert "invalid input syntax for type integer" in raised.value.message
        assert "[REDACTED]" in raised.value.message
        _assert_hidden(raised.value, password)
