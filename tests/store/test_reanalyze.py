"""`reanalyze`: today's rules over what the store kept — the artifact while it is cached, else the evidence
window — and what moved; `apply` writes explained and changed verdicts, never a lost one."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from forensics.model import REDACTED, RuleScope
from forensics.report.build import AnalyzeOptions, analyze
from forensics.report.redact import Redactor
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from forensics.store import Store
from forensics.store.answers import history
from forensics.store.writer import record_report
from forensics.usecases.reanalyze import reanalyze
from forensics.usecases.selftest import check_rule
from tests.store.conftest import SAMPLE
from tests.store.nightly import START, nightly, run_url
from tests.support.rulebook import without_ordinary_explainers

HANDLER_RULE = """
[[rule]]
id = "dynamo.handler-error"
title = "A Dynamo worker handler raised KeyError"
category = "product"
kind = "cause"
priority = 60
patterns = ['''^KeyError: '(?P<key>[^']{1,80})'''']
summary = "The request handler raised KeyError for '{key}'."
advice = "The request lacks a field the worker's handler reads: a frontend/worker protocol mismatch."
tickets = ["DYN-77"]

[[rule.examples]]
source = "synthetic: the handler's KeyError line"
text = '''
KeyError: 'token_ids'
'''

[[rule.near_misses]]
source = "synthetic: a request log line that names the field"
text = '''
INFO request 7f3c token_ids=17
'''
"""
ENCODER_RULE = """
[[rule]]
id = "vllm.encoder-default-share"
title = "An encoder engine asked for vLLM's default GPU share next to another engine"
category = "test"
kind = "cause"
priority = 90
patterns = ['''Free memory on device(?: \\S+)? \\((?P<free_gib>[\\d.]+)/(?P<total_gib>[\\d.]+) GiB\\) on startup''']
summary = "Only {free_gib} of {total_gib} GiB were free."
advice = "Give encoder-only engines a small gpu_memory_utilization."

[[rule.examples]]
source = "synthetic"
text = '''
ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired
'''

[[rule.near_misses]]
source = "synthetic"
text = '''
Free memory on device cuda:0 (21.9/22.03 GiB) at shutdown
'''
"""
GATED_NEVER_MATCHES = """
[[rule]]
id = "hf.gated-repo"
title = "Hugging Face gated model (rewritten to match nothing)"
category = "external-service"
kind = "cause"
patterns = ['''this wording appears in no log at all''']
summary = "never"
advice = "never"

[[rule.examples]]
source = "synthetic"
text = '''
this wording appears in no log at all
'''

[[rule.near_misses]]
source = "synthetic"
text = '''
Access to model meta-llama/Llama-3.1-8B-Instruct is restricted.
'''
"""
# the Hub-access fatal-line rule names the gated test's likely-cause line when no ordinary rule does: it goes too, taken
# out of the pack rather than rewritten, since the learned family model names a family by its fatal-line rule's id
# (a pack without the rule has no third tier for the Hub: engine/learned.py)
FATAL_HUB_ACCESS = "fatal-line.hub-access"
# the Hub's plain 401 is the gated log's fallback cause; it goes too, so the gated test is left with none
UNAUTHORIZED_NEVER_MATCHES = GATED_NEVER_MATCHES.replace('id = "hf.gated-repo"', 'id = "hf.unauthorized"')
# and so does the 401 read under huggingface_hub's hf_raise_for_status frame (sixteenth round)
HUB_TRACEBACK_NEVER_MATCHES = GATED_NEVER_MATCHES.replace(
    'id = "hf.gated-repo"', 'id = "hf.hub-traceback-client-error"'
)
MIGRATION = "test_request_migration[qwen3-0.6b]"


def _rules(tmp_path: Path, *texts: str) -> RuleSet:
    paths = []
    for number, text in enumerate(texts):
        path = tmp_path / f"extra-{number}.toml"
        path.write_text(text)
        paths.append(path)
    rules = load_rules(paths)
    extra = [rule for rule in rules if rule.path in {str(path) for path in paths}]
    assert len(extra) == len(texts)
    for rule in extra:  # each extra rule proves itself with its examples and near misses
        assert check_rule(rule).passed, rule.id
    return rules


def _handler_error_line(source: str) -> int:
    """The KeyError's line number in the sample's log `source` (lines end at \\n only: the log has a bare \\r)."""
    with zipfile.ZipFile(SAMPLE) as archive:
        lines = archive.read(source).decode("utf-8", "replace").split("\n")
    return next(number for number, line in enumerate(lines, 1) if "KeyError: 'token_ids'" in line)


@pytest.fixture
def recorded(store: Store, rule_pack: RuleSet, tmp_path: Path) -> Path:
    """The sample artifact, cached at a path of its own, analysed with the shipped rules and recorded."""
    cached = tmp_path / "cache" / "allure-results.zip"
    cached.parent.mkdir()
    shutil.copy(SAMPLE, cached)
    record_report(store, nightly(analyze([str(cached)], rules=rule_pack), day=0))
    return cached


def test_the_same_rules_move_nothing_from_artifacts_or_evidence(
    store: Store, recorded: Path, rule_pack: RuleSet
) -> None:
    cached = reanalyze(store, rules=rule_pack)
    assert (cached.examined, cached.from_artifacts, cached.from_evidence, cached.moves) == (7, 7, 0, ())
    recorded.unlink()
    kept = reanalyze(store, rules=rule_pack)  # every verdict is found again in the stored windows alone
    assert (kept.examined, kept.from_artifacts, kept.from_evidence, kept.moves) == (7, 0, 7, ())


def test_progress_hears_of_each_artifact_then_each_failing_test(
    store: Store, recorded: Path, rule_pack: RuleSet
) -> None:
    steps: list[tuple[str, int, int]] = []
    reanalyze(store, rules=rule_pack, progress=lambda what, done, total: steps.append((what, done, total)))
    assert steps == [
        ("reading allure-results.zip again", 0, 1),
        *[("deciding the stored failing tests", number, 7) for number in range(7)],
    ]


@pytest.mark.parametrize("artifact", ["cached", "expired"])
def test_a_new_rule_explains_a_stored_failure(
    store: Store, recorded: Path, tmp_path: Path, artifact: str
) -> None:
    if artifact == "expired":
        recorded.unlink()
    found = reanalyze(store, rules=_rules(tmp_path, HANDLER_RULE))
    [move] = found.moves
    assert (move.test, move.run_url, move.run_at, move.change) == (
        MIGRATION,
        run_url(9_000_000),
        START,
        "explained",
    )
    assert (move.before_kind, move.before_key, move.after_kind, move.after_key) == (
        "unexplained",
        "c9103a15f5a3",
        "cause",
        "dynamo.handler-error",
    )
    assert move.source == ("artifact" if artifact == "cached" else "evidence")
    assert not move.applied and found.applied == 0
    assert store.scalar("SELECT cause_key FROM tests WHERE name = ?", (MIGRATION,)) == "c9103a15f5a3"


def test_apply_writes_the_new_verdict_with_original_line_numbers(
    store: Store, recorded: Path, tmp_path: Path
) -> None:
    recorded.unlink()
    rules = _rules(tmp_path, HANDLER_RULE)
    source = store.scalar(
        "SELECT e.source FROM evidence_logs e JOIN tests t ON t.id = e.test WHERE t.name = ?", (MIGRATION,)
    )
    assert reanalyze(store, rules=rules, apply=True).applied == 1
    row = store.query(
        "SELECT t.cause_kind, t.cause_key, f.kind, f.key, f.line, f.text, f.summary, f.tickets"
        " FROM tests t JOIN findings f ON f.test = t.id WHERE t.name = ?",
        (MIGRATION,),
    )[0]
    assert row[:5] == (
        "cause",
        "dynamo.handler-error",
        "cause",
        "dynamo.handler-error",
        _handler_error_line(source),
    )
    assert "KeyError: 'token_ids'" in row[5]
    assert row[6] == "The request handler raised KeyError for 'token_ids'."
    assert '"DYN-77"' in row[7]
    assert reanalyze(store, rules=rules).moves == ()
    causes = {cause.key: cause for cause in history(store, now=START.replace(hour=12)).causes}
    assert "c9103a15f5a3" not in causes and causes["dynamo.handler-error"].tests == (MIGRATION,)


@pytest.mark.parametrize("log_kept", [True, False], ids=["from-artifact", "from-evidence"])
def test_apply_writes_what_the_redactor_of_today_leaves(
    store: Store, rule_pack: RuleSet, tmp_path: Path, log_kept: bool
) -> None:
    """A secret recorded before it was known (an older version, a token since added to the environment) is
    not written back by `apply`, whether the verdict comes from the whole log or the stored window."""
    secret = "pw-7f3a9c-plain-value-41"  # no known shape: only the redactor's exact value can find it
    log = tmp_path / "job.log"
    log.write_text(f"INFO connecting with {secret}\nKeyError: 'token_ids' for {secret}\n")
    record_report(store, analyze([str(log)], rules=rule_pack))
    assert secret in repr(store.query("SELECT text FROM evidence_logs"))
    if not log_kept:
        log.unlink()
    options = AnalyzeOptions(read_evidence=False, redactor=Redactor(secrets=(secret,)))
    found = reanalyze(store, rules=_rules(tmp_path, HANDLER_RULE), apply=True, options=options)
    assert [(move.change, move.source) for move in found.moves] == [
        ("explained", "artifact" if log_kept else "evidence")
    ]
    [finding] = store.query("SELECT * FROM findings")
    assert "dynamo.handler-error" in finding and secret not in repr(finding) and REDACTED in repr(finding)


def test_changed_causes_are_applied_and_lost_ones_are_not(
    store: Store, recorded: Path, tmp_path: Path
) -> None:
    rules = _rules(
        tmp_path, ENCODER_RULE, GATED_NEVER_MATCHES, UNAUTHORIZED_NEVER_MATCHES, HUB_TRACEBACK_NEVER_MATCHES
    )
    without_the_hub_tier = RuleSet(tuple(rule for rule in rules if rule.id != FATAL_HUB_ACCESS))
    assert len(without_the_hub_tier) == len(rules) - 1
    found = reanalyze(store, rules=without_the_hub_tier, apply=True)
    moves = [(move.change, move.before_key, move.after_key, move.applied) for move in found.moves]
    assert moves == [
        ("changed", "vllm.startup-free-memory", "vllm.encoder-default-share", True),
        ("changed", "vllm.startup-free-memory", "vllm.encoder-default-share", True),
        ("changed", "vllm.startup-free-memory", "vllm.encoder-default-share", True),
        ("lost", "hf.gated-repo", found.moves[3].after_key, False),
    ]
    assert found.moves[3].after_kind == "unexplained"
    keys = dict(store.query("SELECT cause_key, COUNT(*) FROM tests WHERE failing = 1 GROUP BY cause_key"))
    assert keys["vllm.encoder-default-share"] == 3 and keys["hf.gated-repo"] == 1


def test_the_selection_limits_what_is_reanalysed(store: Store, recorded: Path, tmp_path: Path) -> None:
    from forensics.store.queries import Filters

    rules = _rules(tmp_path, HANDLER_RULE)
    assert reanalyze(store, rules=rules, filters=Filters(branch="release")).examined == 0
    assert reanalyze(store, rules=rules, since=START.replace(day=2)).examined == 0
    assert reanalyze(store, rules=rules, since=START).examined == 7


def test_a_plain_log_given_by_a_relative_path_is_found_again(
    store: Store, rule_pack: RuleSet, workdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = [f"INFO step {number}" for number in range(400)]
    lines[100] = "KeyError: 'token_ids'"
    lines[399] = "ERROR dynamo_runtime::runtime: tokio runtime worker terminated; aborting process"
    (workdir / "job.log").write_text("\n".join(lines) + "\n")
    record_report(store, analyze(["job.log"], rules=rule_pack))  # relative to the current folder
    os.chdir(tmp_path_factory.mktemp("elsewhere"))
    found = reanalyze(store, rules=_rules(workdir, HANDLER_RULE))
    [move] = found.moves
    assert (move.test, move.change, move.after_key, move.source) == (
        "job.log",
        "explained",
        "dynamo.handler-error",
        "artifact",  # line 101 is outside the stored window (the last 200 lines): only the whole log has it
    )


FREE_MEMORY = (
    "ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU memory"
    " utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
)


def test_a_log_overwritten_by_a_later_night_is_not_read_for_the_earlier_one(
    store: Store, rule_pack: RuleSet, workdir: Path
) -> None:
    log = workdir / "job.log"
    log.write_text("INFO starting\nERROR worker 7 exited with status 3\n")
    record_report(store, analyze([str(log)], rules=rule_pack))  # night 1: no rule explains it
    log.write_text(f"INFO starting the engine\n{FREE_MEMORY}\n")
    record_report(store, analyze([str(log)], rules=rule_pack))  # night 2, same path: the free-memory check
    assert store.query("SELECT cause_kind FROM tests ORDER BY id") == [("unexplained",), ("cause",)]
    found = reanalyze(store, rules=rule_pack)  # the same rules: nothing may move
    assert found.moves == ()
    assert (found.examined, found.from_artifacts, found.from_evidence) == (
        2,
        1,
        1,
    )  # night 1 from its evidence
    log.unlink()
    assert reanalyze(store, rules=rule_pack).from_artifacts == 0


def test_a_cached_zip_replaced_by_another_is_not_read(store: Store, recorded: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(SAMPLE) as original, zipfile.ZipFile(recorded, "w") as replaced:
        for info in original.infolist():  # the same executions (uuids), one log changed
            data = original.read(info)
            if info.filename.endswith(".txt") and b"KeyError: 'token_ids'" in data:
                data = data.replace(b"KeyError: 'token_ids'", b"KeyOkay: 'token_ids'")
            replaced.writestr(info, data)
    found = reanalyze(store, rules=_rules(tmp_path, HANDLER_RULE))
    assert (found.from_artifacts, found.from_evidence) == (0, 7)
    [move] = found.moves  # the stored window still holds the KeyError line the recorded artifact had
    assert (move.change, move.after_key, move.source) == ("explained", "dynamo.handler-error", "evidence")


def _record_without_the_tier(store: Store, source: Path, log: Path, rules: RuleSet) -> RuleSet:
    """Copy a real log to `log`, record a night whose pack lacks the fatal-line tier (the test is unexplained), and
    return the pack with no ordinary rule that explains the log, so that only the tier can name its cause."""
    shutil.copyfile(source, log)
    rules = without_ordinary_explainers(log, rules)
    scanned_only = RuleSet(tuple(rule for rule in rules if rule.scope is RuleScope.EVERY_LINE))
    record_report(store, analyze([str(log)], rules=scanned_only))  # before the tier: unexplained
    return rules


# A real log (tests/corpus/train) whose likely-cause line the container-image fatal-line rule names: podman's
# `Error response from daemon: manifest unknown` (the ordinary rule that also reads it is taken out below).
MANIFEST_UNKNOWN = (
    Path(__file__).resolve().parent.parent
    / "corpus/train/holdout-r6/container-image/i-podman-ai-lab-llama-server-manifest-unknown.log"
)


def test_fatal_line_rules_name_a_cause_in_the_kept_window_as_analyze_does(
    store: Store, rule_pack: RuleSet, workdir: Path
) -> None:
    log = workdir / "pull.log"
    rule_pack = _record_without_the_tier(
        store, MANIFEST_UNKNOWN, log, rule_pack
    )  # (an ordinary rule reads it too)
    record_report(store, analyze([str(log)], rules=rule_pack))  # with it: the fatal-line cause
    assert store.query("SELECT cause_kind, cause_key FROM tests ORDER BY id")[1] == (
        "cause",
        "fatal-line.container-image",
    )
    log.unlink()  # only the kept window and message are left
    found = reanalyze(store, rules=rule_pack)
    assert (found.examined, found.from_evidence) == (2, 2)
    [move] = found.moves  # the second night's cause is found again in its window: it does not move
    assert (move.change, move.after_key, move.source) == (
        "explained",
        "fatal-line.container-image",
        "evidence",
    )


# A real log whose likely-cause line (`nvidia-smi failed with return code 18`) only reports a failure: the tier names
# the line below it, nvidia-smi's own `Failed to initialize NVML: Driver/library version mismatch` (thirteenth round)
NVML_MISMATCH = (
    Path(__file__).resolve().parent.parent
    / "corpus/train/dev-lower/cuda-setup/nvml-mismatch-taskcluster-mozilla-translations-1167.log"
)


def test_the_tier_reads_the_kept_windows_excerpt_as_analyze_does(
    store: Store, rule_pack: RuleSet, workdir: Path
) -> None:
    log = workdir / "train.log"
    rule_pack = _record_without_the_tier(store, NVML_MISMATCH, log, rule_pack)
    [verdict] = analyze([str(log)], rules=rule_pack).verdicts
    assert verdict.root_cause is not None and verdict.root_cause.evidence.line == 2  # below the likely cause
    log.unlink()  # only the kept window and message are left
    found = reanalyze(store, rules=rule_pack)
    [move] = found.moves
    assert (move.change, move.after_key, move.source) == ("explained", "fatal-line.cuda-setup", "evidence")
