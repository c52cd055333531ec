"""render/indented_json.py writes exactly what `json.dumps(data, indent=2, ensure_ascii=False)` writes."""

from __future__ import annotations

import json
import math
from enum import IntEnum
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forensics.render.indented_json import dumps_indented

_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
_DATA = st.recursive(
    _LEAVES,
    lambda children: (
        st.lists(children, max_size=5)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_DATA)
def test_the_text_is_the_standard_librarys(data: Any) -> None:
    assert dumps_indented(data) == json.dumps(data, indent=2, ensure_ascii=False)


class _Level(IntEnum):
    HIGH = 3


def test_what_the_walk_leaves_to_the_standard_library_reads_the_same_in_place() -> None:
    data = {
        "nested": [{"float": 1.5, "nan": math.nan, "inf": -math.inf}, {1: "an int key", None: [True]}],
        "enum": _Level.HIGH,
        "empty": [{}, [], ""],
        "text": 'line\nbreak "quoted" ✓ \u2028 ##[',
    }
    assert dumps_indented(data) == json.dumps(data, indent=2, ensure_ascii=False)
