"""The scanner's walk through a block, for tests that compare pre-filter engines line by line."""

from __future__ import annotations

from collections.abc import Callable


def line_starts(find: Callable[[bytes, int, int], int], data: bytes) -> list[int]:
    """The start of every line `find(data, pos, endpos)` hands on (-1: nothing more), walking `data` as the scanner
    does: after a hit, the search goes on at the next line."""
    starts = []
    position = 0
    while position < len(data):
        found = find(data, position, len(data))
        if found < 0:
            break
        start = data.rfind(b"\n", 0, found) + 1
        starts.append(start)
        end = data.find(b"\n", start)
        position = len(data) if end < 0 else end + 1
    return starts
