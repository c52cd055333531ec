"""Run scenario files under the real allure-pytest plugin and zip the results like actions/upload-artifact."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

SCENARIOS_DIRECTORY = Path(__file__).resolve().parents[1] / "scenarios"
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
REMOVED_ENVIRONMENT = ("PYTEST_ADDOPTS", "ALLURE_INDENT_OUTPUT")


def scenario_environment() -> dict[str, str]:
    """Return the current environment without settings that would change pytest's or Allure's output."""
    return {key: value for key, value in os.environ.items() if key not in REMOVED_ENVIRONMENT}


def run_scenarios(files: Sequence[Path], alluredir: Path, *, extra_args: Sequence[str] = ()) -> Path:
    """Run pytest on scenario files into ``alluredir`` (not cleaned, so repeated runs model CI retries).

    The scenarios fail on purpose, so pytest's exit code is ignored; a run that wrote no
    ``*-result.json`` raises RuntimeError with pytest's output.
    """
    alluredir = Path(alluredir).resolve()
    command = [
        sys.executable,
        "-m",
        "pytest",
        *(str(Path(file).resolve()) for file in files),
        "-p",
        "no:cacheprovider",
        "-q",
        f"--alluredir={alluredir}",
        *extra_args,
    ]
    completed = subprocess.run(
        command,
        cwd=SCENARIOS_DIRECTORY,
        env=scenario_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if not any(alluredir.glob("*-result.json")):
        raise RuntimeError(
            f"pytest wrote no Allure results (exit code {completed.returncode}):\n"
            f"{completed.stdout}\n{completed.stderr}"
        )
    return alluredir


def zip_results(directory: Path, zip_path: Path) -> None:
    """Zip a results directory's files at the archive root, sorted, dated 1980-01-01, deflated."""
    files = sorted(path for path in Path(directory).iterdir() if path.is_file())
    zip_path = Path(zip_path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            info = zipfile.ZipInfo(path.name, date_time=ZIP_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
