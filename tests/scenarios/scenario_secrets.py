"""Every secret shape planted in every place a test can carry text, one failing test per shape.

The title, a parameter, a label, a step, an attachment's name and its lines, the status message and the
last error line (the fingerprint of an unexplained failure) each hold the shape's example; so does the
value of PLANTED_ENVIRONMENT_SECRET, which the test suite sets as a secret environment variable, and which a
test's own function name (so its `fullName`) carries too.
"""

from __future__ import annotations

import allure
import pytest

from forensics.report.secret_shapes import SHAPES

PLANTED_ENVIRONMENT_SECRET = "plantedEnvironmentSecret6c1f0e"  # a valid identifier: it names a test
EXAMPLES = [*(shape.example for shape in SHAPES), f"config loaded: {PLANTED_ENVIRONMENT_SECRET}"]
NAMES = [*(shape.name for shape in SHAPES), "environment secret"]


@pytest.mark.parametrize("planted", EXAMPLES, ids=NAMES)
def test_login(planted: str) -> None:
    allure.dynamic.title(f"login with {planted}")
    allure.dynamic.label("owner", planted)
    allure.dynamic.description(planted)
    with allure.step(f"connect with {planted}"):
        allure.attach(
            f"starting\n{planted}\nRuntimeError: login failed: {planted}\n",
            name=f"{planted} bash.log.txt",
            attachment_type=allure.attachment_type.TEXT,
        )
        raise RuntimeError(f"login failed: {planted}")


def _deploy() -> None:
    raise RuntimeError("deploy failed")


globals()[f"test_deploy_{PLANTED_ENVIRONMENT_SECRET}"] = _deploy
