"""Two tests share a module-scoped server fixture whose server dies of CUDA OOM while starting.

The fixture attaches the server log (so Allure keeps it on the fixture, in a container shared by both
tests) and fails; pytest reports both tests as errors in setup.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from harness import PYTHON, launch_server, program


@pytest.fixture(scope="module")
def oom_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    log = tmp_path_factory.mktemp("oom-server") / "server.log"
    launch_server([PYTHON, program("cuda_oom.py")], log)
    yield


def test_chat_completion_streams(oom_server: None) -> None:
    assert oom_server is None


def test_completion_logprobs(oom_server: None) -> None:
    assert oom_server is None
