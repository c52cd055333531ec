"""The picker's literal gates answer as each gate's own literal search, with the literals found in one pass."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import forensics.engine.likely as likely_module
from forensics.engine import gated_regex
from forensics.engine.gated_regex import GatedRegex, _LiteralsPresent


def _gates() -> list[GatedRegex]:
    likely_module.compile_patterns()  # every gate computed, its literals numbered
    found: list[GatedRegex] = []
    pending: list[object] = list(vars(likely_module).values())
    while pending:
        value = pending.pop()
        if isinstance(value, gated_regex.AnyOf):
            pending.extend(value.branches)
        elif isinstance(value, tuple):
            pending.extend(value)
        elif isinstance(value, GatedRegex):
            found.append(value)
    return found


GATES = _gates()
_LITERALS = sorted({literal for gate in GATES if gate._gate for literal in gate._gate[0]})


def _reference(gate: GatedRegex, text: str) -> bool:
    """What a gate answered before its literals were found together: each looked for on its own."""
    if not gate._gate:
        return True
    literals, insensitive = gate._gate
    if insensitive:
        if not text.isascii():
            return True
        text = text.lower()
    return any(literal in text for literal in literals)


_PIECE = st.one_of(
    st.sampled_from(_LITERALS),
    st.sampled_from(_LITERALS).map(str.upper),
    st.sampled_from(_LITERALS).map(lambda literal: literal[:-1]),  # a near miss
    st.text(alphabet=st.characters(codec="ascii"), max_size=8),
    st.sampled_from(["\u017f", "\u212a", "é", "\ufffd"]),  # `ſ` and the Kelvin sign fold to ASCII letters
)


def test_the_picker_has_gates_whose_literals_are_found_together() -> None:
    numbered = [gate for gate in GATES if gate._ids]
    assert len(numbered) >= 10
    assert any(gate._gate and gate._gate[1] for gate in numbered)  # caseless ones
    assert any(  # and case-sensitive ones with capitals
        gate._gate and not gate._gate[1] and any(literal != literal.lower() for literal in gate._gate[0])
        for gate in numbered
    )


def test_a_process_builds_the_set_only_after_its_first_texts() -> None:
    present = _LiteralsPresent()
    present.register(("alpha", "beta"), caseless=False)
    assert all(present.found(f"text {number}") is None for number in range(gated_regex.PLAIN_TEXTS))
    assert present.found("alpha and more") == {present.ids["alpha", False]}


@given(pieces=st.lists(_PIECE, max_size=12))
def test_every_gate_answers_as_its_own_literal_search(pieces: list[str]) -> None:
    text = "".join(pieces)
    for gate in GATES:  # each gate on its own (the first texts of a process)
        assert gate.possible(text) == _reference(gate, text), (gate.pattern, text)
    present = gated_regex._PRESENT
    left, present.plain_left = present.plain_left, 0
    try:
        for gate in GATES:  # the literals found in one pass
            assert gate.possible(text) == _reference(gate, text), (gate.pattern, text)
            assert gate.possible(text) == _reference(gate, text)  # again, from the texts kept
        assert present.found(text) is not None
    finally:
        present.plain_left = left


def test_without_re2_each_gate_looks_for_its_literals_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    present = _LiteralsPresent()
    monkeypatch.setattr(present, "_unavailable", True)
    assert present.found("a text") is None
    monkeypatch.setattr(gated_regex, "_PRESENT", present)
    text = "Process completed with exit code 1; the command failed"
    for gate in GATES:
        assert gate.possible(text) == _reference(gate, text)


def test_literals_added_later_are_found_in_texts_seen_before() -> None:
    present = _LiteralsPresent()
    present.plain_left = 1
    first = present.register(("alpha", "beta"), caseless=False)
    assert present.found("the first text") is None  # answered by each gate itself
    text = "Alpha beta GAMMA"
    assert present.found(text) == first - {present.ids["alpha", False]}
    later = present.register(("gamma", "delta"), caseless=True)
    assert present.found(text) == (first - {present.ids["alpha", False]}) | {present.ids["gamma", True]}
    assert later == {present.ids["gamma", True], present.ids["delta", True]}
