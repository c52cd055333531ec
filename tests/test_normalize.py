"""Line normalisation: what rules see, and the level that ranks candidate lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import regex

from forensics.engine.normalize import MAYBE_ERROR, Level, is_error_line, normalize_line, visible_line


@pytest.mark.parametrize(
    ("raw", "text", "level"),
    [
        (
            "2026-02-24T20:21:58.1234567Z [BASH] (EngineCore_DP0 pid=6940) ERROR 11-28 08:14:19 [core.py:708] "
            "ValueError: Free memory",
            "ValueError: Free memory",
            Level.ERROR,
        ),
        ("[2026-02-24T20:21:58Z] [PYTHON] INFO 11-28 08:14:19 [api.py:1] ready", "ready", Level.INFO),
        ("\x1b[1;36m(EngineCore_DP0 pid=7)\x1b[0;0m (Worker_TP1 pid=9) [rank0]: boom\r", "boom", Level.PLAIN),
        ("(VllmWorker rank=0 pid=5) WARNING 11-28 08:14:19 [x.py:2] careful", "careful", Level.WARNING),
        ("[rank3]:[W1128 08:14:19] RuntimeError: x", "[W1128 08:14:19] RuntimeError: x", Level.PLAIN),
        (
            "RuntimeError: Engine core initialization failed.",
            "RuntimeError: Engine core initialization failed.",
            Level.ERROR,
        ),
        ("##[error]The operation was canceled.", "The operation was canceled.", Level.ERROR),
        ("[2026-02-24 20:21:58 TP0] Scheduler hit an exception", "Scheduler hit an exception", Level.PLAIN),
        (
            "E       Failed: Timeout (>600.0s) from pytest-timeout.",
            "Failed: Timeout (>600.0s) from pytest-timeout.",
            Level.ERROR,
        ),
        ("2026-02-24T20:21:58.123Z  WARN dynamo_runtime::x: slow", "slow", Level.WARNING),
        (
            "[w3] [BASH] torch.OutOfMemoryError: CUDA out of memory.",
            "torch.OutOfMemoryError: CUDA out of memory.",
            Level.ERROR,
        ),
        ("[Errno 98] Address already in use", "[Errno 98] Address already in use", Level.PLAIN),
        ("[12-16 14:27:08 TP0] Scheduler hit an exception", "Scheduler hit an exception", Level.PLAIN),
        (
            "ERROR    tests.utils.managed_process:dynamo_harness.py:60 RuntimeError: boom",
            "RuntimeError: boom",
            Level.ERROR,
        ),
        (
            "thread 'tokio-runtime-worker' panicked at lib/x.rs:1:2:",
            "thread 'tokio-runtime-worker' panicked at lib/x.rs:1:2:",
            Level.ERROR,
        ),
        (  # Ray's C++ log prefix goes; its `E` is not read (as glog's), Abseil's signal announcement is an error
            "(RayWorkerWrapper pid=24036) [2024-07-25 10:46:00,050 E 24036 24036] logging.cc:440: "
            "*** SIGSEGV received at time=1721904360 on cpu 140 ***",
            "*** SIGSEGV received at time=1721904360 on cpu 140 ***",
            Level.ERROR,
        ),
        (
            "[2024-02-27 16:09:19,108 E 19394 19394] logging.cc:361: PC: @     0x7f3c5f628350  (unknown)",
            "PC: @     0x7f3c5f628350  (unknown)",
            Level.PLAIN,
        ),
    ],
)
def test_prefixes_are_stripped_and_levels_kept(raw: str, text: str, level: Level) -> None:
    line = normalize_line(raw)
    assert (line.text, line.level) == (text, level)


def test_traceback_headers_and_frames_are_not_error_lines() -> None:
    assert not is_error_line(
        normalize_line("ERROR 11-28 08:14:19 [core.py:708] Traceback (most recent call last):")
    )
    assert not is_error_line(
        normalize_line('ERROR 11-28 08:14:19 [core.py:708]   File "/x.py", line 1, in f')
    )
    assert is_error_line(normalize_line("ERROR 11-28 08:14:19 [core.py:708] ValueError: bad"))
    assert not is_error_line(normalize_line("INFO 11-28 08:14:19 [core.py:708] all good"))


@pytest.mark.parametrize(
    "raw",
    [
        "ERROR 11-28 08:14:19 [core.py:708] something broke",
        "[BASH] ValueError: bad",
        "Fatal Python error: Segmentation fault",
        "thread 'main' panicked at src/x.rs:1:2:",
        "##[error]Process completed with exit code 1.",
        "E       AssertionError: x",
        "KeyboardInterrupt: stopped",
        "2026-02-24T20:21:58.123Z ERROR dynamo: lost",
        "[ERROR] disk full",
        "CRITICAL boom",
        "SystemExit: 2",
        "*** SIGSEGV received at time=1709021359 on cpu 44 ***",
        "*** SIGSEGV (@0x0) received by PID 42 (TID 0x7f) from PID 0; stack trace: ***",
    ],
)
def test_every_error_line_passes_the_cheap_byte_check(raw: str) -> None:
    assert is_error_line(normalize_line(raw))
    assert MAYBE_ERROR.search(raw.encode())


def _prefix_steps(
    text: str, match_prefix: Callable[[str], regex.Match[str] | None]
) -> list[tuple[int, dict[str, str]]]:
    """Each prefix a line loses, as `normalize_line` strips them: where it ends and the groups it set."""
    steps = []
    for _ in range(12):
        match = match_prefix(text)
        if match is None or match.end() == 0:
            break
        steps.append(
            (match.end(), {name: value for name, value in match.groupdict().items() if value is not None})
        )
        text = text[match.end() :]
    return steps


def test_the_prefixes_tried_by_first_character_match_as_the_whole_alternation_on_every_training_line() -> (
    None
):
    """A small run tries only the prefix alternatives a line's first character allows (engine/normalize.py): the
    same matches as the whole alternation, step by step, on every line of the training corpus."""
    from forensics.engine.normalize import _PREFIX, _PREFIXES, prefix_match_by_first_character

    corpus = Path(__file__).parent / "corpus" / "train"
    lines = {
        visible_line(line).lstrip()
        for path in sorted(corpus.rglob("*.log"))
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
    }
    lines.update(  # one line for each alternative, the rare ones too
        [
            "2026-02-24T20:21:58.1234567Z ERROR step: [BASH] x",
            "[12-16 14:27:08 TP0] x",
            "ERROR    root:test_x.py:12 boom",
            "[rank3]: (EngineCore_DP0 pid=7) INFO 11-28 08:14:19 [core.py:708] x",
            "##[error]x",
            "E   x",
            "W1201 09:50:33.669 123 file.cc:83] x",
            "[W914 04:53:45.6 ProcessGroupNCCL.cpp:1476] x",
            "[W socket.cpp:464] x",
            "[2024-02-27 16:09:19,106 E 19394 19394] logging.cc:361: x",
            "ERROR 2024-01-01T00:00:00Z [resource.labels] x",
            "[03/27/2024-11:09:02] [TRT] [E] x",
            "ERROR: x",
            "WARNING:root:x",
            "| x",
        ]
    )
    stripped = 0
    for text in sorted(lines):
        if not text[:1].isascii():
            continue
        steps = _prefix_steps(text, prefix_match_by_first_character)
        assert steps == _prefix_steps(text, _PREFIX.match), text
        stripped += len(steps)
    assert len(lines) > 4_000 and stripped > 1_000, stripped
    # every alternative is reachable from the characters it lists, and the table lists only ASCII
    assert all(first and first.isascii() for first, _ in _PREFIXES)
