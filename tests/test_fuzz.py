"""Fuzzing the three places hostile text enters (issue 11): the Allure reader (through verdicts and renderers),
the log normaliser and scanner, and the derived-value evaluator. Bounded (few examples, a deadline) so the suite stays fast."""

from __future__ import annotations

import io
import json
from typing import Any, BinaryIO

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forensics.engine.normalize import normalize_line
from forensics.engine.scanner import CompiledRules, ScanLimits, scan_stream
from forensics.model import InputInfo, Problem, Report
from forensics.render import RENDERERS
from forensics.report.grouping import group_verdicts
from forensics.report.session import AnalyzeOptions, InputSession
from forensics.rules.expressions import Expression
from forensics.rules.loader import load_rules
from forensics.values import MAX_EPOCH_MS

FUZZ = settings(
    max_examples=40, deadline=1000, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
COMPILED = CompiledRules(load_rules(cache=False))  # collected before the fixtures redirect the user cache

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),  # lone surrogates and NUL included
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_FIELDS = (
    "uuid", "name", "fullName", "status", "statusDetails", "start", "stop", "historyId", "labels",
    "links", "parameters", "attachments", "steps", "children", "befores", "afters", "testCaseId",
)  # fmt: skip
allure_documents = st.dictionaries(st.sampled_from(_FIELDS), json_values, max_size=10)


class MemoryArchive:
    """An Archive over files held in memory (the Archive protocol is four methods and four fields)."""

    kind = "directory"

    def __init__(self, files: dict[str, bytes]) -> None:
        self.label = "fuzz"
        self.path = "fuzz"
        self.problems: list[Problem] = []
        self.files = files

    def names(self) -> list[str]:
        return sorted(self.files)

    def open(self, name: str) -> BinaryIO:
        return io.BytesIO(self.files[name])

    def size(self, name: str) -> int:
        return len(self.files[name])

    def reopen(self) -> MemoryArchive:
        return self


def _encoded(document: Any) -> bytes:
    return json.dumps(document, allow_nan=True).encode("utf-8", "surrogatepass")


@FUZZ
@given(
    results=st.lists(allure_documents, max_size=4),
    containers=st.lists(allure_documents, max_size=2),
    junk=st.binary(max_size=64),
)
def test_any_allure_document_becomes_tests_or_problems_and_renders(
    results: list[dict[str, Any]], containers: list[dict[str, Any]], junk: bytes
) -> None:
    files = {f"r{number}-result.json": _encoded(document) for number, document in enumerate(results)}
    files.update({f"c{number}-container.json": _encoded(doc) for number, doc in enumerate(containers)})
    files["junk-result.json"] = junk
    files["log-attachment.txt"] = b"RuntimeError: CUDA error: out of memory\n\xff\xfe\x00"
    problems: list[Problem] = []
    session = InputSession(MemoryArchive(files), COMPILED, AnalyzeOptions(jobs=1), problems)
    tests = session.tests()
    for test in tests:
        for text in (test.uuid, test.name, test.full_name, test.message, test.history_id):
            text.encode("utf-8")  # no lone surrogate survives into the model
        for moment in (test.start, test.stop):
            assert moment is None or 0 <= moment <= MAX_EPOCH_MS
    verdicts = session.verdicts(tests)
    report = Report(
        inputs=(InputInfo(path="fuzz", kind="directory", label="fuzz", tests=len(verdicts)),),
        verdicts=tuple(verdicts),
        groups=group_verdicts(verdicts),
        problems=tuple(problems),
        rules_loaded=len(COMPILED.rules),
    )
    for name in ("json", "markdown", "github"):
        rendered = RENDERERS[name](report)
        assert isinstance(rendered, str)
        rendered.encode("utf-8")


@FUZZ
@given(st.text(max_size=300))
def test_the_normaliser_takes_any_line(line: str) -> None:
    normalized = normalize_line(line)
    assert len(normalized.text) <= len(line)


@FUZZ
@given(st.lists(st.binary(max_size=200) | st.sampled_from([b"\r", b"\n", b"\x1b[31m", b"\x00"]), max_size=30))
def test_the_scanner_takes_any_bytes(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    scan = scan_stream(
        io.BytesIO(data), COMPILED, name="fuzz", limits=ScanLimits(max_line=256, block_size=64)
    )
    assert scan.bytes_read <= len(data)


_ATOMS = st.one_of(
    st.integers(min_value=0, max_value=10**6).map(str),
    st.sampled_from(["10**64", "64", "0", "0.5", "1e308", "a", "b", "n"]),
)


def _expression(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), children)
    call = st.tuples(
        st.sampled_from(["min", "max", "abs", "round", "floor", "ceil"]),
        st.lists(children, min_size=1, max_size=3),
    )
    return st.one_of(
        binary.map(lambda parts: f"({parts[0]} {parts[1]} {parts[2]})"),
        children.map(lambda inner: f"-{inner}"),
        call.map(lambda parts: f"{parts[0]}({', '.join(parts[1])})"),
    )


@FUZZ
@given(st.recursive(_ATOMS, _expression, max_leaves=12), st.integers(min_value=-(10**40), max_value=10**40))
def test_the_evaluator_answers_a_number_or_none_quickly(source: str, value: int) -> None:
    try:
        expression = Expression.parse(source)
    except ValueError:
        return
    result = expression.evaluate({"a": value, "b": 1.5, "n": 10**60})
    assert result is None or isinstance(result, int | float)
    if isinstance(result, int):
        assert result.bit_length() <= 1024
