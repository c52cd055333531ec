"""The command-line interface: flags and environment in, one library call, output and exit code out.

When the process is the program itself (`ci-forensics …` or `python -m forensics …`), Python's cycle collector is
paused from here, before click and the command's modules are imported, until the command starts
(`forensics.cli.main.main`), where what is alive is frozen and the collector resumed: the imports allocate ~100,000
objects that live until exit, and the collections they trigger walked them again and again (~10 M instructions
of a one-line `analyze`, ~3 % of it; tests/test_fixed_cost.py). A program or a test that imports the CLI's modules
is not touched.
"""

from __future__ import annotations

import gc
import os
import sys


def _started_as_the_program() -> bool:
    """Whether `__main__` is the `ci-forensics` script or `python -m forensics`."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return getattr(spec, "name", None) == "forensics.__main__"
    script = getattr(main, "__file__", None)
    return isinstance(script, str) and os.path.basename(script).startswith("ci-forensics")


COLLECTOR_PAUSED = _started_as_the_program() and gc.isenabled()
if COLLECTOR_PAUSED:
    gc.disable()
