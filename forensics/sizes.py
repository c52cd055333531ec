"""Byte sizes as people write them: `--max-log-size 1k` is reported as "1 KiB", never as "0 MiB"."""

from __future__ import annotations

_UNITS = (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def format_size(size: int) -> str:
    """The largest binary unit in which `size` is a whole number or has at most two decimals, exactly.

    Sizes come from `512MiB`, `1.5G` or `100k` (read as `int(number × unit)`), so the unit the user wrote
    comes back: 1024 → "1 KiB", 1.5 GiB → "1.5 GiB", 1500 → "1500 bytes".
    """
    for name, unit in _UNITS:
        if size < unit:
            continue
        for decimals in (0, 1, 2):
            number = round(size / unit, decimals)
            if int(number * unit) == size:
                return f"{number:.{decimals}f} {name}"
    return f"{size} byte{'' if size == 1 else 's'}"
