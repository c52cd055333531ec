"""A nightly gone badly wrong: 1,500 tests that each fail with an error of its own, and 100 with known causes.

Each test attaches its ``bash.log.txt`` (a short server log and a traceback) and fails with the log's last
line. The distinct errors differ in words, not numbers, so each is a fingerprint of its own; the known
causes are lines the shipped rules explain, in groups of 1 to 40 tests. ``MANY_ERRORS`` (default 1500)
sets how many distinct errors there are.
"""

from __future__ import annotations

import itertools
import os

import allure
import pytest

ADJECTIVES = [
    "amber",
    "azure",
    "bitter",
    "brisk",
    "calm",
    "crimson",
    "dusty",
    "eager",
    "faint",
    "fierce",
    "gentle",
    "gilded",
    "hollow",
    "icy",
    "jagged",
    "keen",
    "lucid",
    "mellow",
    "misty",
    "noble",
    "olive",
    "pale",
    "quiet",
    "rapid",
    "rustic",
    "scarlet",
    "silent",
    "sleek",
    "solemn",
    "stark",
    "sturdy",
    "tawny",
    "tender",
    "vivid",
    "wary",
    "wistful",
    "woven",
    "young",
    "zealous",
]
NOUNS = [
    "anchor",
    "badger",
    "beacon",
    "bramble",
    "canyon",
    "cedar",
    "comet",
    "delta",
    "ember",
    "falcon",
    "fjord",
    "garnet",
    "harbor",
    "heron",
    "island",
    "juniper",
    "kestrel",
    "lagoon",
    "lantern",
    "meadow",
    "nebula",
    "orchard",
    "osprey",
    "pebble",
    "quarry",
    "raven",
    "summit",
    "thistle",
    "tundra",
    "valley",
    "walnut",
    "willow",
    "yarrow",
    "zephyr",
    "cobalt",
    "marble",
]
VERBS = ["handshake", "lease", "checkpoint", "rollout", "manifest", "ledger"]
KNOWN = (  # (rule the line proves, tests), biggest first
    ("harness.response-mismatch", 40, "E   AssertionError: Response returned unexpected status code: got 500, expected 200"),
    ("network.connection-refused", 25, "Exception: Failed to connect to NATS: IO error: Connection refused (os error 111)"),
    ("python.module-not-found", 15, "E   ModuleNotFoundError: No module named 'sniffio'"),
    ("distributed.store-failure", 10, "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/3 clients joined."),
    ("dynamo.etcd-unavailable", 6, "E   Exception: Unable to create lease. Check etcd server status at http://localhost:2379"),
    ("model.config-error", 3, "ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`"),
    ("hf.cannot-connect", 1, "[BASH] OSError: We couldn't connect to 'https://huggingface.co' to load the files, and couldn't find them in the cached files."),
)  # fmt: skip


def _distinct(count: int) -> list[str]:
    words = itertools.product(VERBS, ADJECTIVES, NOUNS)
    return [
        f"RuntimeError: the {adjective} {noun} service refused the {verb} request"
        for verb, adjective, noun in itertools.islice(words, count)
    ]


CASES = [
    (f"distinct-{index:04d}", line)
    for index, line in enumerate(_distinct(int(os.environ.get("MANY_ERRORS", "1500"))))
]
CASES += [(f"{rule}-{index:02d}", line) for rule, tests, line in KNOWN for index in range(tests)]


def _log(case: str, line: str) -> str:
    chatter = [f"[BASH] INFO worker {case}: step {step} done in 0.{step}s" for step in range(12)]
    trace = [
        "[BASH] Traceback (most recent call last):",
        '[BASH]   File "/opt/app/server.py", line 88, in serve',
        "[BASH]     self.start()",
        '[BASH]   File "/opt/app/server.py", line 41, in start',
        "[BASH]     raise failure",
        line if line.startswith("[BASH]") else f"[BASH] {line}",
    ]
    return "\n".join([*chatter, *trace, "[BASH] INFO shutting down"]) + "\n"


@pytest.mark.parametrize(("case", "line"), CASES, ids=[case for case, _ in CASES])
def test_serve(case: str, line: str) -> None:
    """Start the server, which fails with the case's own error."""
    allure.attach(_log(case, line), name="bash.log.txt", attachment_type=allure.attachment_type.TEXT)
    raise RuntimeError(line)
