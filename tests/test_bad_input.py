"""Bad input gets a clear message naming the object and the next step, and the rest of the run goes on."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from forensics.engine.scanner import ScanLimits
from forensics.errors import ResultsError, RulesError
from forensics.report.build import AnalyzeOptions, analyze
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from tests.support.rulebook import rule_toml


def _copy_results(reference: Path, target: Path) -> Path:
    shutil.copytree(reference / "allure-results-pytest", target)
    return target


def test_a_missing_path_an_empty_folder_and_a_binary_file_are_errors(
    tmp_path: Path, rule_pack: RuleSet
) -> None:
    with pytest.raises(ResultsError, match="does not exist") as missing:
        analyze([str(tmp_path / "nope")], rules=rule_pack)
    assert "allure-results folder" in missing.value.hint
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsError, match="is empty"):
        analyze([str(tmp_path / "empty")], rules=rule_pack)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("hello")
    with pytest.raises(ResultsError, match="holds no Allure results"):
        analyze([str(tmp_path / "notes")], rules=rule_pack)
    image = tmp_path / "picture.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    with pytest.raises(ResultsError, match="not an allure-results folder, an artifact zip or a text log"):
        analyze([str(image)], rules=rule_pack)


def test_one_broken_input_does_not_stop_the_others(
    tmp_path: Path, reference: Path, rule_pack: RuleSet
) -> None:
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04" + b"\x00garbage" * 100)
    report = analyze([str(corrupt), str(reference / "allure-results.zip")], rules=rule_pack)
    assert len(report.verdicts) == 14
    assert any(p.object == str(corrupt) and "cannot read" in p.message and p.hint for p in report.problems)


def test_a_truncated_zip_is_reported_and_whatever_it_holds_is_read(
    tmp_path: Path, reference: Path, rule_pack: RuleSet
) -> None:
    data = (reference / "allure-results.zip").read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ResultsError, match=r"cannot read .* as a zip archive") as error:
        analyze([str(truncated)], rules=rule_pack)
    assert "download the artifact again" in error.value.hint


def test_entries_that_leave_the_archive_are_refused_and_nothing_is_written(
    tmp_path: Path, reference: Path, rule_pack: RuleSet
) -> None:
    artifact = tmp_path / "evil.zip"
    with (
        zipfile.ZipFile(reference / "allure-results.zip") as source,
        zipfile.ZipFile(artifact, "w") as target,
    ):
        for info in source.infolist():
            target.writestr(info.filename, source.read(info))
        target.writestr("../escaped.txt", "x")
        target.writestr("/etc/evil.txt", "x")
    before = sorted(tmp_path.rglob("*"))
    report = analyze([str(artifact)], rules=rule_pack)
    assert sorted(tmp_path.rglob("*")) == before
    assert not (tmp_path.parent / "escaped.txt").exists()
    refused = [p for p in report.problems if "points outside the archive" in p.message]
    assert {p.object.rsplit("'", 2)[1] for p in refused} == {"../escaped.txt", "/etc/evil.txt"}
    assert len(report.verdicts) == 14


def test_malformed_json_is_a_problem_naming_the_file(
    tmp_path: Path, reference: Path, rule_pack: RuleSet
) -> None:
    results = _copy_results(reference, tmp_path / "results")
    victim = next(results.glob("*-result.json"))
    victim.write_text('{"uuid": "x", "status": "fail')
    (results / "list-result.json").write_text("[1, 2]")
    report = analyze([str(results)], rules=rule_pack)
    assert len(report.verdicts) == 13
    assert any(victim.name in p.object and "malformed JSON" in p.message for p in report.problems)
    assert any("list-result.json" in p.object and "not a JSON object" in p.message for p in report.problems)


def test_a_missing_attachment_file_is_a_problem_on_that_test(
    tmp_path: Path, reference: Path, rule_pack: RuleSet
) -> None:
    results = _copy_results(reference, tmp_path / "results")
    (
        results / "790369b9-09e0-4bf7-938a-da7f640b9832-attachment.txt"
    ).unlink()  # test_tensor_parallel_2's only log
    report = analyze([str(results)], rules=rule_pack)
    problem = next(p for p in report.problems if "is missing from the results" in p.message)
    assert "test_tensor_parallel_2" in problem.object and problem.test
    verdict = next(v for v in report.verdicts if v.test.name == "test_tensor_parallel_2")
    assert verdict.test.logs == ()


def test_a_zip_bomb_is_cut_at_the_size_limit(tmp_path: Path, reference: Path, rule_pack: RuleSet) -> None:
    results = _copy_results(reference, tmp_path / "results")
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as target:
        for path in sorted(results.iterdir()):
            if path.name == "790369b9-09e0-4bf7-938a-da7f640b9832-attachment.txt":
                with target.open(path.name, "w") as stream:
                    stream.write(path.read_bytes())
                    for _ in range(64):
                        stream.write(b"\x00" * (1 << 20))
            else:
                target.write(path, path.name)
    assert bomb.stat().st_size < 2 * 1024 * 1024
    options = AnalyzeOptions(limits=ScanLimits(max_bytes=8 * 1024 * 1024))
    report = analyze([str(bomb)], rules=rule_pack, options=options)
    assert any("790369b9" in p.object and "larger than the 8 MiB limit" in p.message for p in report.problems)
    verdict = next(v for v in report.verdicts if v.test.name == "test_tensor_parallel_2")
    assert verdict.root_cause is not None  # the cause sits in the first bytes, before the padding


def test_binary_junk_inside_a_log_is_tolerated(tmp_path: Path, rule_pack: RuleSet) -> None:
    log = tmp_path / "job.log"
    log.write_bytes(
        b"startup\n\x00\x01\x02\xff\xfe junk\n"
        b"ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU memory "
        b"utilization (0.9, 19.83 GiB).\n"
    )
    report = analyze([str(log)], rules=rule_pack)
    assert report.verdicts[0].root_cause is not None
    assert report.verdicts[0].root_cause.evidence.line == 3


@pytest.mark.parametrize(
    ("table", "field"),
    [
        (rule_toml("x.bad-regex", "unclosed (group"), "patterns[1]: bad regex"),
        (
            '[[rule]]\nid = "x.no-title"\ncategory = "infrastructure"\nkind = "cause"\npatterns = ["boom"]\n'
            'summary = "s"\nadvice = "a"\n[[rule.examples]]\ntext = "boom"\n',
            "title: required text is missing",
        ),
        (
            rule_toml("x.bad-category", "boom").replace('"infrastructure"', '"gpu"'),
            "category: 'gpu' is not one of",
        ),
        (rule_toml("x.empty", "(?:x)?"), "matches the empty string"),
        (
            rule_toml("x.summary", "boom").replace('summary = "x.summary happened"', 'summary = "{nope}"'),
            "summary: refers to unknown value(s) nope",
        ),
        (
            rule_toml("x.derive", "boom", extra='[rule.derive]\nbad = "__import__(1)"'),
            "derive.bad: only the functions",
        ),
        (rule_toml("x.typo", "boom", extra='pattern = "oops"'), "pattern: unknown field"),
    ],
)
def test_a_bad_rule_names_file_rule_and_field(tmp_path: Path, table: str, field: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(table)
    with pytest.raises(RulesError) as error:
        load_rules([path], include_shipped=False)
    assert str(path) in error.value.message
    assert field in error.value.message
    assert "rules lint" in error.value.hint


def test_a_user_rule_with_a_shipped_id_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "override.toml"
    path.write_text(rule_toml("vllm.startup-free-memory", "my own wording"))
    rules = load_rules([path])
    rule = rules.get("vllm.startup-free-memory")
    assert rule is not None and rule.path == str(path)
    assert len(rules) == len(load_rules())


def test_the_json_report_of_a_bad_run_still_lists_the_problems(
    tmp_path: Path, reference: Path, rule_pack: RuleSet
) -> None:
    from forensics.render.json_report import report_to_dict

    report = analyze([str(tmp_path / "nope"), str(reference / "allure-results.zip")], rules=rule_pack)
    document = json.loads(json.dumps(report_to_dict(report)))
    assert document["problems"][0]["object"].endswith("nope")
    assert document["problems"][0]["severity"] == "error"
