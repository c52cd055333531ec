"""The program's entry point (`ci-forensics …`, `python -m forensics …`): a plain `analyze` runs without click.

Click, and what it imports, is ~50 M instructions of a one-line `analyze`'s 356 M; the common forms of `analyze`
are parsed by `forensics/cli/quick.py` from the same option table click's declarations use, and every other
command line (other commands, `--help`, `--version`, errors, rarer forms) goes to click's group in
`forensics/cli/main.py`, which a program or a test can still call as before.
"""

from __future__ import annotations

import importlib
import sys
import types


def main() -> None:
    """Run the command line in `sys.argv`; exits with the command's code, as click's standalone mode does."""
    quick = sys.argv[1:2] == ["analyze"]  # the quick parser imports analyze's modules: `--help` needs none
    if quick:  # `dataclasses` imports `inspect`, which only a class without a docstring (or click) uses
        _load_on_first_use("inspect")
    from forensics.dataclass_code import install

    install()  # before the command's modules create their dataclasses (forensics/dataclass_code.py)
    if quick:
        from forensics.cli.quick import run_quick

        if run_quick(sys.argv[1:]):
            return
    from forensics.cli.main import main as click_main

    click_main()


def _load_on_first_use(name: str) -> None:
    """Put a stand-in for a standard library module in `sys.modules` that imports it on its first attribute use."""
    if name not in sys.modules:
        sys.modules[name] = _OnFirstUse(name)


class _OnFirstUse(types.ModuleType):
    """A module's stand-in: its first attribute looked up imports the module and takes in all its names."""

    def __getattr__(self, attribute: str) -> object:
        # two threads may both get here: `pop` spares the second a KeyError, and the import lock serialises them
        if sys.modules.get(self.__name__) is self:
            sys.modules.pop(self.__name__, None)
        self.__dict__.update(vars(importlib.import_module(self.__name__)))
        return object.__getattribute__(self, attribute)
