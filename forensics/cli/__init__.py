"""The command-line interface: flags and environment in, one library call, output and exit code out.

When the process is the program itself (`ci-forensics …` or `python -m forensics …`), Python's cycle collector is
paused from here, before click and the command's modules are imported, until the command starts
(`command_started`), where what is alive is frozen and the collector resumed: the imports allocate ~100,000
objects that live until exit, and the collections they trigger walked them again and again (~10 M instructions
of a one-line `analyze`, ~3 % of it; tests/test_fixed_cost.py). A program or a test that imports the CLI's modules
is not touched.
"""

from __future__ import annotations

import atexit
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


def command_started() -> None:
    """What the program does once its command is known and imported, before it runs (click's group callback in
    forensics/cli/main.py, or forensics/cli/quick.py for a plain `analyze`): resume the collector, freeze at exit."""
    _resume_collector()
    _freeze_at_exit()


def _resume_collector() -> None:
    """The command's modules are imported (click resolves the command before this group's callback runs): freeze
    what is alive, out of the collector's sight for the rest of the run, and resume the collector that
    forensics/cli/__init__.py paused for the imports, collecting the youngest objects every 10,000 allocations
    instead of 700 (reading a cached pack builds tens of thousands of containers, none in a cycle: ~4 M
    instructions of collections at 700; cycles made later are still collected, a little later)."""
    if COLLECTOR_PAUSED and not gc.isenabled():
        gc.freeze()
        gc.set_threshold(10_000)
        gc.enable()


_FREEZING: list[bool] = []


def _freeze_at_exit() -> None:
    """Spare the process the collections Python runs over every object just before it ends (~25 M instructions,
    5 % of a one-line analyze): `gc.freeze()` as an exit handler, registered when a command starts, moves what is
    alive out of the cycle collector's sight. Exit handlers run last registered first, so those registered while
    the command ran (the dataclass code cache's write, a worker pool's shutdown) still run, and before it;
    objects are still freed when the last reference goes; only objects in reference cycles at exit are left to
    the operating system, whose `__del__` Python never promises to run at exit. Once per process, and only for
    the CLI (a program importing the library is not touched); tests/test_fixed_cost.py checks it."""
    if not _FREEZING:
        _FREEZING.append(True)
        atexit.register(gc.freeze)
