"""Which modules a CLI call loads: `ci-forensics ARGUMENTS` in a fresh interpreter, `sys.modules` read afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loaded:
    """The watched modules (or submodules of one) the call loaded, and what it printed."""

    modules: list[str]
    stdout: str


def loaded_after(arguments: list[str], watched: tuple[str, ...]) -> Loaded:
    """Run the CLI's `main(ARGUMENTS)` in a fresh interpreter; the watched modules it loaded, and its output."""
    code = (
        "import json, sys\n"
        "from forensics.cli.main import main\n"
        "try:\n"
        f"    main({arguments!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"watched = {watched!r}\n"
        "loaded = sorted(m for m in sys.modules if any(m == w or m.startswith(w + '.') for w in watched))\n"
        "print(json.dumps(loaded), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules: list[str] = json.loads(run.stderr.strip().splitlines()[-1])
    return Loaded(modules, run.stdout)
