"""A flaky nightly test: run this file twice into one results directory to reproduce a CI retry.

The first run loses vLLM's memory-profiling race (broken); any later run into the same ``--alluredir``
sees the earlier result there and passes, so the directory holds two results with the same historyId.
"""

from __future__ import annotations

from collections.abc import Iterator

import allure
import fakelogs
import pytest
from dynamo_harness import ManagedProcess, log_directory_for, previous_attempts

pytest_plugins = ("harness_plugin",)

DYNAMO_TEST_TYPE = "Test"

pytestmark = [pytest.mark.vllm, pytest.mark.gpu_1, pytest.mark.nightly, pytest.mark.router]


@pytest.fixture
def router_deployment(
    transport: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ManagedProcess]:
    """Start two workers behind the KV router; ``bash.log.txt`` is attached in teardown."""
    attempt = previous_attempts(request.config, request.node.name) + 1
    process = ManagedProcess("bash", log_directory_for(tmp_path_factory, request.node.name))
    if attempt == 1:
        process.exit_code = 1
        process.failure = RuntimeError(
            "Main server process exited with code 1 while waiting for health check"
        )
    process.write(fakelogs.memory_profiling_race_log(f"kv-router-{transport}", attempt))
    yield process
    process.attach_log()


@allure.feature("KV router")
@pytest.mark.parametrize(
    "transport", [pytest.param("nats", marks=pytest.mark.model(fakelogs.QWEN3_0_6B.repository))]
)
def test_kv_router_decisions(transport: str, router_deployment: ManagedProcess) -> None:
    """Send prefix-sharing requests and expect the router to keep them on one worker."""
    router_deployment.wait_until_healthy()
    with allure.step("Send 10 requests sharing a 512-token prefix"):
        assert router_deployment.exit_code is None
