"""The GPU corpus (tests/corpus/gpu) reads cleanly and its labels fit the results they describe.

The allure-results there were produced by tests/gpu_suite on a GPU machine and are kept as produced; the
labels say what each failed test provoked. Accuracy on them is scored in test_corpus_accuracy.py.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from forensics.inputs.allure import read_allure
from forensics.inputs.archive import DirectoryArchive
from forensics.model import TestCase
from tests.corpus_accuracy import CORPUS, UNEXPLAINED, family_ids

GPU = CORPUS / "gpu"


def read_results(folder: Path) -> dict[str, TestCase]:
    archive = DirectoryArchive(folder)
    results = read_allure(archive)
    assert results.problems == []
    return {test.name: test for test in results.tests}


def gpu_labels() -> list[dict[str, str]]:
    return list(tomllib.loads((GPU / "labels.toml").read_text(encoding="utf-8"))["log"])


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, TestCase]]:
    folders = {label["results"] for label in gpu_labels()}
    return {folder: read_results(GPU / folder) for folder in folders}


def test_every_failed_test_has_one_label_and_passing_tests_have_none(
    results: dict[str, dict[str, TestCase]],
) -> None:
    labelled = [(label["results"], label["test"]) for label in gpu_labels()]
    assert len(labelled) == len(set(labelled))
    for folder, tests in results.items():
        failing = {name for name, test in tests.items() if test.status.is_failing}
        assert failing == {name for results_folder, name in labelled if results_folder == folder}
        assert len(tests) > len(failing)  # a few tests passed, and they carry no label


def test_labels_name_known_families_and_unexplained_cases_exist() -> None:
    families = [label["family"] for label in gpu_labels()]
    assert set(families) <= family_ids()
    assert families.count(UNEXPLAINED) >= 4


def test_each_evidence_is_in_the_attached_log_or_the_status_message(
    results: dict[str, dict[str, TestCase]],
) -> None:
    for label in gpu_labels():
        test = results[label["results"]][label["test"]]
        evidence = label.get("evidence")
        if label["family"] == UNEXPLAINED:
            assert evidence is None, label["test"]
            continue
        assert evidence, label["test"]
        logs = [
            (GPU / label["results"] / Path(log.source).name).read_text(encoding="utf-8") for log in test.logs
        ]
        assert any(evidence in log for log in logs) or evidence in test.message + test.trace, label["test"]


def test_provoking_tests_attach_their_log_as_bash_log_txt(results: dict[str, dict[str, TestCase]]) -> None:
    tests = [test for folder in results.values() for test in folder.values()]
    with_logs = [test for test in tests if test.logs]
    assert len(with_logs) >= 40
    assert all(log.attachment == "bash.log.txt" for test in with_logs for log in test.logs)
