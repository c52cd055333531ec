"""Nightly single-GPU vLLM stage: the OPS-4445 seed case (encoder fails the memory precheck) and its peers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

import allure
import fakelogs
import pytest
from dynamo_harness import ManagedProcess, log_directory_for

pytest_plugins = ("harness_plugin",)

DYNAMO_TEST_TYPE = "Test"
ENGINE_CORE_FAILURE = "Engine core initialization failed. See root cause above. Failed core proc(s): {}"
OPS_4445_MARKS = (
    allure.issue("OPS-4445", "https://linear.app/nvidia/issue/OPS-4445"),
    allure.link("https://github.com/ai-dynamo/dynamo/pull/8443", name="PR #8443"),
    pytest.mark.post_merge,
)

pytestmark = [pytest.mark.vllm, pytest.mark.gpu_1, pytest.mark.nightly, pytest.mark.e2e]


class AttachSite(Enum):
    """Where a config's ``bash.log.txt`` is attached, which decides where allure-pytest stores it."""

    FIXTURE_TEARDOWN = "fixture teardown (container afters)"
    TEST_BODY = "test body (result attachments)"
    STEP = "allure step (step attachments)"


@dataclass(frozen=True)
class DeploymentConfig:
    """One ``test_serve_deployment`` parameter: model, how its log is generated, and how it ends."""

    model: str
    build_log: Callable[[str], str]
    attach_site: AttachSite
    fails: bool = False


def healthy(model: fakelogs.ModelSpec, script: str) -> Callable[[str], str]:
    """Return a log builder for a deployment that starts and serves normally."""
    return lambda config_name: fakelogs.healthy_deployment_log(config_name, model, script)


DEPLOYMENTS: dict[str, DeploymentConfig] = {
    "agg_qwen3-0.6b": DeploymentConfig(
        fakelogs.QWEN3_0_6B.repository, healthy(fakelogs.QWEN3_0_6B, "agg.sh"), AttachSite.FIXTURE_TEARDOWN
    ),
    "agg_router_qwen3-0.6b": DeploymentConfig(
        fakelogs.QWEN3_0_6B.repository,
        healthy(fakelogs.QWEN3_0_6B, "agg_router.sh"),
        AttachSite.FIXTURE_TEARDOWN,
    ),
    "mm_agg_qwen3-vl-2b": DeploymentConfig(
        fakelogs.QWEN3_VL_2B.repository,
        healthy(fakelogs.QWEN3_VL_2B, "agg_multimodal.sh"),
        AttachSite.TEST_BODY,
    ),
    "mm_agg_qwen2-audio-7b": DeploymentConfig(
        "Qwen/Qwen2-Audio-7B-Instruct",
        healthy(fakelogs.QWEN3_VL_2B, "agg_multimodal.sh"),
        AttachSite.FIXTURE_TEARDOWN,
    ),
    "mm_e_pd_qwen3-vl-2b": DeploymentConfig(
        fakelogs.QWEN3_VL_2B.repository,
        fakelogs.encoder_memory_log,
        AttachSite.FIXTURE_TEARDOWN,
        fails=True,
    ),
    "mm_epd_qwen3-vl-2b": DeploymentConfig(
        fakelogs.QWEN3_VL_2B.repository,
        lambda config_name: fakelogs.encoder_memory_log(config_name, rank_tagged=True),
        AttachSite.TEST_BODY,
        fails=True,
    ),
    "mm_epd_qwen3-vl-2b-video": DeploymentConfig(
        fakelogs.QWEN3_VL_2B.repository,
        lambda config_name: fakelogs.encoder_memory_log(config_name, video=True),
        AttachSite.STEP,
        fails=True,
    ),
}


def deployment_params() -> list[pytest.param]:  # type: ignore[valid-type]
    """Build the parametrize list: model marks everywhere, OPS-4445 links on the seed configs, one skip."""
    params = []
    for config_name, config in DEPLOYMENTS.items():
        marks: list[pytest.MarkDecorator] = [pytest.mark.model(config.model)]
        if config_name.startswith("mm_"):
            marks.append(pytest.mark.multimodal)
        if config.fails:
            marks.extend(OPS_4445_MARKS)
        if config_name == "mm_agg_qwen2-audio-7b":
            marks.append(pytest.mark.skip(reason="vLLM engine core init fails on amd64 post-merge. OPS-4445"))
        params.append(pytest.param(config_name, marks=marks, id=config_name))
    return params


@pytest.fixture
def dynamo_deployment(
    config_name: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ManagedProcess]:
    """Launch the config's script; teardown-attach configs put ``bash.log.txt`` in the container afters."""
    config = DEPLOYMENTS[config_name]
    process = ManagedProcess("bash", log_directory_for(tmp_path_factory, request.node.name))
    if config.fails:
        process.exit_code = 1
        process.failure = RuntimeError(ENGINE_CORE_FAILURE)
    process.write(config.build_log(config_name))
    yield process
    if config.attach_site is AttachSite.FIXTURE_TEARDOWN:
        process.attach_log()


def chat_completion(config_name: str) -> dict[str, object]:
    """Return the canned OpenAI response the fake deployment gives to the smoke request."""
    return {"model": DEPLOYMENTS[config_name].model, "choices": [{"index": 0, "finish_reason": "stop"}]}


@allure.feature("vLLM deployments")
@pytest.mark.parametrize("config_name", deployment_params())
def test_serve_deployment(config_name: str, dynamo_deployment: ManagedProcess) -> None:
    """Start a launch script, wait for the frontend health check, send one chat request."""
    attach_site = DEPLOYMENTS[config_name].attach_site
    if attach_site is AttachSite.STEP:
        with allure.step(f"Wait for {config_name} to become healthy"):
            try:
                dynamo_deployment.wait_until_healthy()
            finally:
                dynamo_deployment.attach_log()
    elif attach_site is AttachSite.TEST_BODY:
        try:
            dynamo_deployment.wait_until_healthy()
        finally:
            dynamo_deployment.attach_log()
    else:
        dynamo_deployment.wait_until_healthy()
    with allure.step("Send chat completion request"):
        response = chat_completion(config_name)
        assert response["choices"] == [{"index": 0, "finish_reason": "stop"}]
