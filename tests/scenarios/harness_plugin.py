"""Dynamo's conftest behaviour (autouse ``logger`` fixture, ``dynamo_*`` Allure labels) as a scenario plugin.

Scenario modules load it with ``pytest_plugins = ("harness_plugin",)`` rather than through a conftest.py,
so the project's own test run, which may walk this folder, never picks these hooks up.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import allure
import pytest


@pytest.fixture(autouse=True)
def logger(request: pytest.FixtureRequest) -> Iterator[logging.Logger]:
    """Mirror Dynamo's autouse ``logger`` fixture: every test gets a ``log`` capture and a container."""
    test_logger = logging.getLogger("tests.conftest")
    test_logger.info("Starting test %s", request.node.nodeid)
    yield test_logger
    test_logger.info("Finished test %s", request.node.nodeid)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Add the ``dynamo_*`` labels Dynamo's conftest sets from the ``DYNAMO_TEST_*`` environment."""
    test_type = getattr(item.module, "DYNAMO_TEST_TYPE", "Test")  # type: ignore[attr-defined]
    allure.dynamic.label("dynamo_workflow", "Nightly CI Pipeline")
    allure.dynamic.label("dynamo_framework", "vllm")
    allure.dynamic.label("dynamo_platform", "amd64")
    allure.dynamic.label("dynamo_testType", test_type)
