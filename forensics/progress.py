"""How a long job tells its caller how far it is; the CLI draws it on a terminal, and nothing elsewhere."""

from __future__ import annotations

from collections.abc import Callable

StepProgress = Callable[[str, int, int], None]
"""Called with (what is being done now, steps done before it, steps in all) as a long job moves."""
