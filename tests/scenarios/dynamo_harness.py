"""A stand-in for NVIDIA Dynamo's test harness (managed processes, per-test log files) for the scenarios."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import allure
import pytest

TEXT = allure.attachment_type.TEXT
LOGGER = logging.getLogger("tests.utils.managed_process")
HEALTH_CHECK_SECONDS = 0.005
"""A few milliseconds, so results get a non-zero duration without slowing the scenario run."""


@dataclass
class ManagedProcess:
    """A launched process whose output the harness wrote to ``<log dir>/<command>.log.txt``."""

    command_name: str
    log_directory: Path
    exit_code: int | None = None
    failure: BaseException | None = field(default=None, repr=False)

    @property
    def log_path(self) -> Path:
        """Path of the log file, named like Dynamo's ``f"{command_name}.log.txt"``."""
        return self.log_directory / f"{self.command_name}.log.txt"

    @property
    def attachment_name(self) -> str:
        """Attachment name the harness uses, identical to the log file's name."""
        return self.log_path.name

    def write(self, text: str) -> None:
        """Store the process output on disk as the harness's tee would."""
        self.log_directory.mkdir(parents=True, exist_ok=True)
        self.log_path.write_text(text, encoding="utf-8")

    def attach_log(self) -> None:
        """Attach the log to whatever Allure item is open right now (test, step or fixture)."""
        allure.attach.file(str(self.log_path), name=self.attachment_name, attachment_type=TEXT)

    def tail(self, count: int = 20) -> list[str]:
        """Return the last lines of the log, as the harness dumps them when a process dies."""
        return self.log_path.read_text(encoding="utf-8").splitlines()[-count:]

    def wait_until_healthy(self) -> None:
        """Raise the harness's error if the process died during startup; return at once if it is healthy."""
        time.sleep(HEALTH_CHECK_SECONDS)
        if self.failure is None:
            LOGGER.info("%s is healthy", self.command_name)
            return
        LOGGER.error("=== Last %d lines from %s ===", 20, self.log_path)
        for line in self.tail():
            LOGGER.error("%s", line)
        LOGGER.error("=== End of log tail ===")
        raise self.failure


def log_directory_for(factory: pytest.TempPathFactory, node_name: str, suffix: str = "") -> Path:
    """Return ``$DYN_TEST_OUTPUT_PATH/<node name><suffix>``, placed under pytest's basetemp."""
    return factory.getbasetemp() / "dynamo_tests" / f"{node_name}{suffix}"


def allure_results_directory(config: pytest.Config) -> Path | None:
    """Return the ``--alluredir`` of this run, if the Allure plugin is active."""
    directory = getattr(config.option, "allure_report_dir", None)
    return Path(directory) if directory else None


def previous_attempts(config: pytest.Config, test_name: str) -> int:
    """Count results already in ``--alluredir`` for this test, i.e. how many times CI ran it before."""
    directory = allure_results_directory(config)
    if directory is None or not directory.is_dir():
        return 0
    count = 0
    for path in directory.glob("*-result.json"):
        if json.loads(path.read_text(encoding="utf-8")).get("name") == test_name:
            count += 1
    return count
