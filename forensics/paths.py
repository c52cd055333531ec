"""Paths as library callers give them: a string or any `os.PathLike` (a `pathlib.Path`), one or several."""

from __future__ import annotations

import os
from collections.abc import Sequence

PathArgument = str | os.PathLike[str]
"""One path as a caller has it: a string (for `analyze`, also `-` for stdin) or a `pathlib.Path`."""


def path_strings(paths: PathArgument | Sequence[PathArgument]) -> list[str]:
    """The paths as strings. One path alone is one path, never a sequence of characters.

    A `Path` left as it is would reach input labels, the JSON report and the history store as an object
    (sqlite3 refuses it: "type 'PosixPath' is not supported").
    """
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]
