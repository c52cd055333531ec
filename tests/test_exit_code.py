"""The exit-code policy of `analyze`, `fetch` and `render`, as a pure function (docs/cli.md, "Exit codes")."""

from __future__ import annotations

import pytest

from forensics.usecases.exit_code import ExitCode, exit_code


@pytest.mark.parametrize(
    ("nothing_read", "fail_on_met", "store_failed", "tickets_failed", "expected"),
    [
        (False, False, False, False, ExitCode.OK),
        (False, True, False, False, ExitCode.CHECK_FAILED),
        (True, False, False, False, ExitCode.NOTHING_READ),
        (False, True, False, True, ExitCode.TICKETS_FAILED),  # a nightly's failures never hide a ticket
        (True, False, False, True, ExitCode.TICKETS_FAILED),
        (False, True, True, True, ExitCode.ERROR),  # the store first: the history is what it is about
        (True, False, True, False, ExitCode.ERROR),
    ],
)
def test_the_first_code_that_applies(
    nothing_read: bool, fail_on_met: bool, store_failed: bool, tickets_failed: bool, expected: ExitCode
) -> None:
    code = exit_code(
        nothing_read=nothing_read,
        fail_on_met=fail_on_met,
        store_failed=store_failed,
        tickets_failed=tickets_failed,
    )
    assert code is expected


def test_the_codes_are_the_documented_numbers() -> None:
    assert [int(code) for code in ExitCode] == [0, 1, 2, 3, 4, 5]
