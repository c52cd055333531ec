"""Benchmark: `ci-forensics analyze` from one line to GiBs of logs against unzip + ripgrep and a parallel inflate floor.

Measures, in one run and side by side (median of --repeat runs, interleaved round by round):
  * the fixed cost: `ci-forensics --help`, and `analyze` of a one-line log with the shipped pack (pack cache
    warm and cold), with the pack grown to 300 rules and with a synthetic 1,000-rule pack;
  * `ci-forensics analyze ZIP --format json --output /dev/null`: wall, CPU (user+sys), peak RSS of the child;
  * `unzip -q -o ZIP -d DIR` then `rg -c -f PATTERNS DIR` (the pack's patterns converted for ripgrep);
  * the floor: inflating every member of the zip across N processes (N = the default --jobs), nothing else;
  * scaling with artifact size (1 MiB → 1 GiB of logs; 5 GiB with --huge) and with rule count (in-process);
  * one core: `scan_stream` in this process against `rg -j1` on the same uncompressed healthy serving lines
    (benchmarks/bench_core.py; `--core-mib 0` skips it);
  * peak RSS on an artifact holding one 200 MiB attachment.
Prints one table with the ratios and each target's verdict and writes it as Markdown (benchmarks/results.md;
`--quick` writes benchmarks/.cache/results-quick.md). Sizes are uncompressed log bytes. Asserts nothing.

Usage: python benchmarks/bench_speed.py [--quick] [--huge] [--repeat 3] [--sizes 1line,1mib,16mib,256mib,1gib]
       [--jobs N] [--big-attachment-mib 200] [--core-mib 32]
`--sizes 1line` measures the fixed cost alone (a minute or two); a size (MiB, or with a unit: 256mib, 1gib, 5gib)
adds that artifact.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from artifacts import DEFAULT_CACHE_DIR, MIB, Artifact, ArtifactSpec, ensure_artifact
from synthetic_rules import write_rules

from forensics.model import RuleScope
from forensics.report.session import default_jobs
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from forensics.version import __version__

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent
RESULTS = BENCHMARKS / "results.md"
# ripgrep's default Unicode classes blow the pack's bounded repeats ({1,300}) up past its 100 MB regex size
# limit and, with the limit raised, run at well under 1 MiB/s; the logs are ASCII, so ASCII classes it is.
# `--dfa-size-limit` stated: rg 13's help says its default is 10M, yet with 10M given the pack's patterns (with
# capture groups) aborted at once on a 22 GB allocation, and without it they ran: the limit is stated, at 1G.
RIPGREP_FLAGS = ("--no-unicode", "--regex-size-limit", "1G", "--dfa-size-limit", "1G")
# A pattern searched with a never-matching partner over this much of the healthy mix: above RIPGREP_ALONE_CPU_S of
# CPU it pushes the whole alternation off rg's fast path (no literal to skip to, its lazy DFA thrashing over a
# leading bounded repeat such as `\b[\w .-]{1,60}? requires`), so it is searched in a pass of its own.
RIPGREP_PROBE_MIB = 1.0
RIPGREP_ALONE_CPU_S = 0.15
RIPGREP_PARTNER = "ci-forensics benchmark probe: this literal never matches"
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
PRLIMIT = shutil.which(
    "prlimit"
)  # util-linux: runs a command under a limit (exec, so GNU time still sees it)
RUST_ESCAPABLE = set("\\.+*?()|[]{}^$#&-~")
TARGET_RIPGREP_RATIO = {
    256: 0.5,
    1024: 0.3,
}  # MiB of logs -> ci-forensics / (unzip + rg), at that size and above
TARGET_FLOOR_RATIO = 2.0  # ci-forensics / parallel-inflate floor, at 1 GiB and above
TARGET_ONE_LINE_S = 0.12
TARGET_ONE_LINE_1000_RULES_S = 0.2
TARGET_HELP_S = 0.15
HUGE_MIB = 5120
FIXED_RULES = 1000
GROWN_RULES = 300  # the pack after the accuracy work (about three times the shipped one)
ONE_LINE_SIZE = "1line"  # in --sizes: the fixed-cost measurements
TARGET_RSS_MIB = 400
TARGET_LINEAR_TOLERANCE = 1.2
TARGET_RULES_RATIO = 2.0
TARGET_CORE_RATIO = 1.0  # one core: ci-forensics MiB/s / rg -j1 MiB/s, same patterns, same lines
CORE_SCAN = "scan_stream, 1 core (in-process)"
CORE_RG = "rg -j1 -c -f PATTERNS FILE"
CORE_RG_EMPTY = "rg -j1 -c -f PATTERNS (empty file: start, compile)"
INFORMATION = "(no target)"
# Run in a child for the rule-count cases: the first N rules of (shipped pack + extra folder), analysed in-process.
RULES_CHILD = """
import json, sys, time
from pathlib import Path
from forensics import analyze
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
zip_path, count, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3]
start = time.perf_counter()
rules = load_rules([Path(extra)] if extra else [])
rules = RuleSet(rules.rules[:count], rules.automata_folder)
loaded = time.perf_counter()
report = analyze([zip_path], rules=rules)
done = time.perf_counter()
print(json.dumps({"rules": len(rules), "load_s": loaded - start, "analyze_s": done - loaded,
                  "explained": report.explained_count, "failing": len(report.failing)}))
"""


# The floor: every member of the zip inflated once (with zlib-ng, as ci-forensics inflates), members spread over N
# forked processes (largest first, each to the least loaded process), the bytes thrown away. Nothing else: no line
# splitting, no matching.
FLOOR_CHILD = """
import os, sys, zipfile
try:  # the inflater ci-forensics uses (zlib-ng, a dependency), so the floor is as fast as the tool can inflate
    from zlib_ng import zlib_ng
    zipfile.zlib = zlib_ng
    zipfile.crc32 = zlib_ng.crc32
except ImportError:
    pass
path, jobs = sys.argv[1], int(sys.argv[2])
with zipfile.ZipFile(path) as archive:
    members = sorted(archive.infolist(), key=lambda info: -info.file_size)
shares = [[] for _ in range(jobs)]
loads = [0] * jobs
for info in members:
    least = loads.index(min(loads))
    shares[least].append(info.filename)
    loads[least] += info.file_size
children = []
for share in shares:
    if not share:
        continue
    pid = os.fork()
    if pid == 0:
        with zipfile.ZipFile(path) as archive:
            for name in share:
                with archive.open(name) as stream:
                    while stream.read(1 << 20):
                        pass
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
"""


class ChildFailedError(RuntimeError):
    """A measured command exited with an error."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One run of a command: wall and CPU seconds (user+sys of the child tree), peak RSS, stderr."""

    wall: float
    cpu: float
    rss_mib: float
    stderr: str = ""


@dataclass(slots=True)
class Measurement:
    """Every run of one command on one artifact."""

    name: str
    artifact: str
    log_mib: float
    samples: list[Sample] = field(default_factory=list)
    error: str = ""
    warnings: set[str] = field(default_factory=set)

    @property
    def wall(self) -> float:
        """Median wall seconds."""
        return statistics.median(sample.wall for sample in self.samples) if self.samples else float("nan")

    @property
    def cpu(self) -> float:
        """Median CPU seconds."""
        return statistics.median(sample.cpu for sample in self.samples) if self.samples else float("nan")

    @property
    def rss_mib(self) -> float:
        """Highest peak RSS over the runs."""
        return max(sample.rss_mib for sample in self.samples) if self.samples else float("nan")

    @property
    def spread(self) -> str:
        """Fastest and slowest wall time."""
        if not self.samples:
            return "-"
        walls = [sample.wall for sample in self.samples]
        return f"{min(walls):.2f}–{max(walls):.2f}"


@dataclass(frozen=True, slots=True)
class Check:
    """One ratio and its target."""

    name: str
    value: float
    target: str
    passed: bool | None
    detail: str = ""


def run_measured(
    argv: Sequence[str],
    *,
    stdout_path: Path | None = None,
    ok_codes: tuple[int, ...] = (0,),
    timeout: float = 0,
    env: dict[str, str] | None = None,
    memory_limit: int = 0,
) -> Sample:
    """Run a command to completion: wall time, CPU and peak RSS of the command (and its children).

    CPU comes from os.wait4. Peak RSS comes from GNU time when installed: ru_maxrss from os.wait4 would include
    this harness's own memory, which the child inherits at fork until it execs. `memory_limit` (bytes, 0: none)
    caps the command's address space through util-linux's prlimit (when installed), so a command that would take the machine's memory fails on its own
    allocation instead of drawing the kernel's out-of-memory killer. A failure raises ChildFailedError saying why:
    the exit status or signal, the time limit, peak RSS and the end of stderr.
    """
    with tempfile.TemporaryDirectory(prefix="run-") as scratch:
        rss_file = Path(scratch) / "rss"
        errors_file = Path(scratch) / "stderr"
        capped = [PRLIMIT, f"--as={memory_limit}", "--", *argv] if memory_limit and PRLIMIT else list(argv)
        command = [GNU_TIME, "-f", "%M", "-o", str(rss_file), *capped] if GNU_TIME else capped
        with (
            errors_file.open("wb") as errors,
            open(stdout_path or os.devnull, "wb") as stdout,
        ):
            start = time.perf_counter()
            process = subprocess.Popen(
                command,
                stdout=stdout,
                stderr=errors,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )
            timer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL)) if timeout else None
            if timer:
                timer.start()
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
            timed_out = timer is not None and timer.finished.is_set() and not timer.is_alive()
            if timer:
                timer.cancel()
        stderr = errors_file.read_text(errors="replace")
        rss_kib = usage.ru_maxrss
        time_lines = rss_file.read_text(errors="replace").strip().splitlines() if rss_file.exists() else []
        if time_lines and time_lines[-1].isdigit():
            rss_kib = int(time_lines[-1])
    if (timed_out and process.returncode < 0) or process.returncode not in ok_codes:
        raise ChildFailedError(
            failure_reason(
                argv,
                process.returncode,
                time_lines,
                stderr,
                rss_mib=rss_kib / 1024,
                timed_out=timed_out,
                timeout=timeout,
                memory_limit=memory_limit,
            )
        )
    return Sample(wall=wall, cpu=usage.ru_utime + usage.ru_stime, rss_mib=rss_kib / 1024, stderr=stderr)


def failure_reason(
    argv: Sequence[str],
    returncode: int,
    time_lines: Sequence[str],
    stderr: str,
    *,
    rss_mib: float,
    timed_out: bool,
    timeout: float,
    memory_limit: int,
) -> str:
    """Why a measured command failed, in one line: what ran, how it ended, its peak memory, its last words.

    GNU time runs the command as its child: a command killed by a signal makes GNU time write "Command
    terminated by signal N" and exit 128 + N (137 for SIGKILL), so the signal is read from its output."""
    what = " ".join(Path(argv[0]).name if index == 0 else part for index, part in enumerate(argv[:3]))
    killed_by = next(
        (
            int(line.rsplit(" ", 1)[1])
            for line in time_lines
            if line.startswith("Command terminated by signal ")
        ),
        -returncode if returncode < 0 else 0,
    )
    if timed_out and returncode < 0:
        how = f"killed at this benchmark's time limit ({timeout:.0f} s, --timeout)"
    elif killed_by:
        how = f"killed by signal {killed_by} ({signal.Signals(killed_by).name})"
        if killed_by == signal.SIGKILL:
            how += (
                " before the time limit: the kernel's out-of-memory killer or a limit outside this benchmark"
            )
    else:
        how = f"exited {returncode}"
    limit = f" (address space capped at {memory_limit / 2**30:.0f} GiB)" if memory_limit and PRLIMIT else ""
    tail = " | ".join(stderr.strip().splitlines()[-5:])
    return f"{what} … {how}; peak RSS {rss_mib:.0f} MiB{limit}" + (f"; stderr: {tail}" if tail else "")


def to_ripgrep(source: str) -> str:
    """A Python `regex` pattern in Rust regex syntax: no needless escapes, and every group non-capturing.

    `rg -c` never reads a group, but when its lazy DFA gives up, Rust's regex (ripgrep 13) falls back to an NFA
    that keeps a slot for every capture group in every NFA state: with the pack's ~800 patterns and their
    bounded repeats that was one allocation of 22,458,397,120 bytes, per search thread (the SIGKILL of the
    16-core run). Named and plain groups alike become `(?:…)`; which lines match does not change."""
    out: list[str] = []
    index = 0
    in_class = False
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            following = source[index + 1]
            if following.isalnum() or following in RUST_ESCAPABLE:
                out.append(char + following)
            else:
                out.append(following)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
            index += 1
            continue
        if char == "[":
            in_class = True
            out.append(char)
            index += 1
            for opener in ("^", "]"):  # `[^]…]` and `[]…]`: a leading `]` is a member, not the end
                if source.startswith(opener, index):
                    out.append(opener)
                    index += 1
            continue
        if source.startswith("(?P<", index):
            out.append("(?:")
            index = source.index(">", index) + 1
            continue
        if char == "(" and not source.startswith("(?", index):
            out.append("(?:")
            index += 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class RipgrepPlan:
    """The pack's patterns as ripgrep searches them: one `rg -f` pass over most, a pass each for a few.

    `alone` holds the patterns that, in one alternation with any other, push ripgrep off its fast path (no
    literal it can skip to, its lazy DFA thrashing over a leading bounded repeat): TGI's Flash Attention rule
    (a bounded repeat of word characters, then ` requires `) alone runs at rg's usual speed and made the
    842-pattern alternation ~6× slower. Searching it apart costs rg one more read of the files, which is counted."""

    together: tuple[str, ...]
    alone: tuple[str, ...]
    skipped: dict[str, int]

    @property
    def count(self) -> int:
        """Every pattern rg searches."""
        return len(self.together) + len(self.alone)

    def commands(self, rg: str, patterns_file: Path, target: Path, *extra: str) -> list[list[str]]:
        """The rg command lines that search `target` for every pattern: `-f PATTERNS`, then one per lone one."""
        base = [rg, *extra, *RIPGREP_FLAGS, "-c"]
        return [
            [*base, "-f", str(patterns_file), str(target)],
            *([*base, f"--regexp={pattern}", str(target)] for pattern in self.alone),
        ]

    def note(self) -> str:
        """How the patterns were split, for the results' notes."""
        alone = "; ".join(f"`{pattern[:70]}`" for pattern in self.alone) or "none"
        return (
            f"{len(self.together)} in one `rg -f` pass, {len(self.alone)} in a pass of their own (with any other "
            f"pattern they took rg over {RIPGREP_ALONE_CPU_S} CPU s per {RIPGREP_PROBE_MIB} MiB of the healthy mix, "
            f"its fast path lost): {alone}"
        )


def ripgrep_plan(rules: RuleSet, rg: str, probe: Path) -> RipgrepPlan:
    """Every rule pattern that ripgrep accepts, split into those searched together and those searched alone
    (each run once over `probe` beside a never-matching partner: rg's CPU time says whether it keeps rg's fast
    path in an alternation), and the reasons (with counts) the others were skipped."""
    converted: list[str] = []
    for rule in rules:
        if (
            rule.scope is not RuleScope.EVERY_LINE
        ):  # a fatal-line rule is never scanned: ripgrep gets none of it
            continue
        for pattern in rule.patterns:
            text = to_ripgrep(pattern.pattern)
            converted.append(f"(?i:{text})" if rule.ignore_case else text)
    return plan_patterns(converted, rg, probe)


def plan_patterns(patterns: Sequence[str], rg: str, probe: Path) -> RipgrepPlan:
    """Patterns in rg's syntax split as `ripgrep_plan` says; those rg rejects are counted by reason."""
    together: list[str] = []
    alone: list[str] = []
    skipped: dict[str, int] = {}
    for pattern in patterns:
        if "\n" in pattern:
            skipped["spans lines"] = skipped.get("spans lines", 0) + 1
            continue
        check, cpu = _probe_ripgrep(rg, pattern, probe)
        if check.returncode == 2:
            message = check.stderr.decode(errors="replace")
            if "look-around" in message:
                reason = "look-around"
            elif "backreference" in message:
                reason = "backreference"
            else:
                reason = next(
                    (line.strip() for line in message.splitlines() if line.startswith("error:")),
                    "rejected",
                )
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        (alone if cpu > RIPGREP_ALONE_CPU_S else together).append(pattern)
    return RipgrepPlan(together=tuple(together), alone=tuple(alone), skipped=skipped)


def _probe_ripgrep(rg: str, pattern: str, probe: Path) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """rg on one pattern beside a never-matching partner over `probe`: its exit (2: rejected), its CPU seconds."""
    command = [
        rg,
        "-j1",
        *RIPGREP_FLAGS,
        "-c",
        f"--regexp={pattern}",
        f"--regexp={RIPGREP_PARTNER}",
        str(probe),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    check = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return check, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@dataclass(slots=True)
class Bench:
    """The tools, options and results of one benchmark run."""

    options: argparse.Namespace
    analyze_command: list[str]
    unzip: str | None
    rg: str | None
    work: Path
    jobs: int = 1
    patterns_file: Path | None = None
    plan: RipgrepPlan | None = None
    measurements: list[Measurement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)

    def measurement(self, name: str, artifact: Artifact) -> Measurement:
        label = artifact_label(artifact)
        for existing in self.measurements:
            if existing.name == name and existing.artifact == label:
                return existing
        created = Measurement(name=name, artifact=label, log_mib=artifact.log_mib)
        self.measurements.append(created)
        return created

    def measurement_named(self, name: str, label: str, log_mib: float) -> Measurement:
        """The measurement of `name` on something that is not a generated artifact (a one-line log)."""
        for existing in self.measurements:
            if existing.name == name and existing.artifact == label:
                return existing
        created = Measurement(name=name, artifact=label, log_mib=log_mib)
        self.measurements.append(created)
        return created

    def record(self, name: str, artifact: Artifact, action: str) -> None:
        """Run one measured action and add its sample (or its error) to the measurement."""
        target = self.measurement(name, artifact)
        if target.error:
            return
        try:
            if action == "analyze":
                sample = run_measured(
                    [*self.analyze_command, str(artifact.path), *ANALYZE_ARGS, "--jobs", str(self.jobs)],
                    timeout=self.options.timeout,
                )
            elif action == "ripgrep":
                sample = self.unzip_and_ripgrep(artifact)
            else:
                sample = run_measured(
                    [sys.executable, "-c", FLOOR_CHILD, str(artifact.path), str(self.jobs)],
                    timeout=self.options.timeout,
                )
        except (ChildFailedError, OSError) as err:  # one comparison failing never loses the others' figures
            target.error = str(err)
            print(f"  {name}: FAILED: {err}", flush=True)
            return
        target.samples.append(sample)
        note_stderr(target, sample)
        print(
            f"  {name:<34} {target.artifact:<24} wall {sample.wall:7.2f} s  cpu {sample.cpu:7.2f} s  "
            f"rss {sample.rss_mib:6.0f} MiB",
            flush=True,
        )

    def unzip_and_ripgrep(self, artifact: Artifact) -> Sample:
        """Extract the zip to a fresh folder, then count pattern matches with ripgrep; both timed, summed."""
        assert self.unzip is not None and self.rg is not None and self.patterns_file is not None
        assert self.plan is not None
        folder = Path(tempfile.mkdtemp(prefix="extract-", dir=self.work))
        try:
            extract = run_measured(
                [self.unzip, "-q", "-o", str(artifact.path), "-d", str(folder)], timeout=self.options.timeout
            )
            passes = [
                run_measured(
                    command,
                    ok_codes=(0, 1),
                    timeout=self.options.timeout,
                    memory_limit=self.options.rg_memory_gib << 30,
                )
                for command in self.plan.commands(self.rg, self.patterns_file, folder)
            ]
            search = Sample(
                wall=sum(one.wall for one in passes),
                cpu=sum(one.cpu for one in passes),
                rss_mib=max(one.rss_mib for one in passes),
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            os.sync()
        self.measurement(EXTRACT_ONLY, artifact).samples.append(extract)
        self.measurement(SEARCH_ONLY, artifact).samples.append(search)
        return Sample(
            wall=extract.wall + search.wall,
            cpu=extract.cpu + search.cpu,
            rss_mib=max(extract.rss_mib, search.rss_mib),
        )

    def validate(self, artifact: Artifact) -> None:
        """One untimed analyze (also the warm-up): are the generated root causes the ones found?"""
        report_path = self.work / "report.json"
        try:
            run_measured(
                [*self.analyze_command, str(artifact.path), "--format", "json", "--output", str(report_path)],
                timeout=self.options.timeout,
            )
        except ChildFailedError as err:
            self.notes.append(f"{artifact_label(artifact)}: validation run failed: {err}")
            return
        report = json.loads(report_path.read_text())
        found = {test["id"]: (test["root_cause"] or {}).get("rule") for test in report["tests"]}
        wrong = [test for test, rule in artifact.expected.items() if found.get(test) != rule]
        causes = sum(rule is not None for rule in artifact.expected.values())
        verdict = "as generated" if not wrong else f"{len(wrong)} test(s) NOT as generated"
        self.notes.append(
            f"{artifact_label(artifact)}: root causes {verdict} ({causes} planted in {len(artifact.expected)} "
            f"failing tests; report: {report['headline']}; {len(report['problems'])} problem(s))"
        )

    def rules_case(
        self, artifact: Artifact, count: int, extra: Path | None, *, cold: bool = False, timed: bool = True
    ) -> None:
        """One in-process rule-count run (first `count` rules of the pack plus `extra`): with the pack cache (and
        the pre-filter's stored database) of the earlier runs, or `cold`, in an empty cache folder; a run not
        `timed` only fills the cache."""
        name = rules_case_name(count, cold=cold)
        target = self.measurement(name, artifact)
        if target.error:
            return
        output = self.work / "rules-child.json"
        argv = [sys.executable, "-c", RULES_CHILD, str(artifact.path), str(count), str(extra or "")]
        cache_home = self.work / (f"xdg-rules-cold-{count}-{len(target.samples)}" if cold else "xdg-rules")
        try:
            sample = run_measured(
                argv,
                stdout_path=output,
                timeout=self.options.timeout,
                env={**os.environ, "XDG_CACHE_HOME": str(cache_home)},
            )
        except ChildFailedError as err:
            target.error = str(err)
            print(f"  {name}: FAILED: {err}", flush=True)
            return
        if not timed:
            return
        target.samples.append(sample)
        child = json.loads(output.read_text())
        note_stderr(target, sample)
        print(
            f"  {name:<34} {target.artifact:<24} wall {sample.wall:7.2f} s  cpu {sample.cpu:7.2f} s  "
            f"rss {sample.rss_mib:6.0f} MiB  (load {child['load_s']:.2f} s, analyze {child['analyze_s']:.2f} s, "
            f"{child['rules']} rules, explained {child['explained']}/{child['failing']})",
            flush=True,
        )


def rules_case_name(count: int, *, cold: bool = False) -> str:
    """The measurement's name for one rule count (warm: the pack cache filled by an earlier run)."""
    return f"analyze in-process, {count} rules" + (" (pack cache cold)" if cold else "")


def note_stderr(target: Measurement, sample: Sample) -> None:
    """Remember what a measured command complained about (RE2's DFA running out of memory above all)."""
    complaints = sample.stderr.count("DFA out of memory")
    if complaints:
        target.warnings.add(f"RE2 printed 'DFA out of memory' {complaints}× in one run (its DFA gave up)")
    elif sample.stderr.strip() and target.name != "unzip + rg":
        target.warnings.add(f"stderr: {sample.stderr.strip().splitlines()[0][:200]}")


EXTRACT_ONLY = "  of which unzip -d DIR"
SEARCH_ONLY = "  of which rg -c -f PATTERNS DIR"
ANALYZE_ARGS = ("--format", "json", "--output", os.devnull)


def artifact_label(artifact: Artifact) -> str:
    """A short name: log size and, if any, the big attachment."""
    size = artifact.spec.size_mib
    label = f"{size // 1024} GiB" if size % 1024 == 0 else f"{size} MiB"
    if artifact.spec.big_attachment_mib:
        label += f" incl. {artifact.spec.big_attachment_mib} MiB log"
    return label


def warm(path: Path) -> None:
    """Read the zip once so every tool starts from the page cache."""
    with path.open("rb") as stream:
        while stream.read(1 << 24):
            pass


def find_tools() -> tuple[list[str], str | None, str | None, list[str]]:
    """The ci-forensics command, unzip and rg (None when missing), and messages about what is missing."""
    messages = []
    beside = Path(sys.executable).parent / "ci-forensics"
    found = str(beside) if beside.exists() else shutil.which("ci-forensics")
    analyze_command = [found, "analyze"] if found else [sys.executable, "-m", "forensics", "analyze"]
    unzip = shutil.which("unzip")
    rg = shutil.which("rg")
    if unzip is None:
        messages.append(
            "unzip not found: the unzip + rg comparison is skipped (install: apt-get install -y unzip)"
        )
    if rg is None:
        messages.append(
            "ripgrep (rg) not found: the unzip + rg comparison is skipped (install: apt-get install -y ripgrep)"
        )
    return analyze_command, unzip, rg, messages


def tool_versions(bench: Bench) -> str:
    """Python, ci-forensics, ripgrep and unzip versions on one line."""

    def first_line(argv: list[str]) -> str:
        try:
            text = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
        except OSError:
            return "?"
        return text.strip().splitlines()[0] if text.strip() else "?"

    parts = [f"Python {platform.python_version()}", f"ci-forensics {__version__}", prefilter_engine()]
    if bench.rg:
        parts.append(first_line([bench.rg, "--version"]))
    if bench.unzip:
        parts.append(first_line([bench.unzip, "-v"]).split(" of ")[0])
    return ", ".join(parts)


def prefilter_engine() -> str:
    """Which search the scanner's pre-filter uses past its first 16 KiB (engine/prefilter.py): Hyperscan where
    it is installed (an x86-64 or macOS arm64 wheel), RE2 otherwise; and what counts a big block's line breaks
    (engine/scanner.py): StringZilla where installed, `bytes.count` otherwise."""
    try:
        search = f"pre-filter: hyperscan {importlib.metadata.version('hyperscan')}"
    except importlib.metadata.PackageNotFoundError:
        search = "pre-filter: RE2 (hyperscan not installed)"
    try:
        count = f"line count: stringzilla {importlib.metadata.version('stringzilla')}"
    except importlib.metadata.PackageNotFoundError:
        count = "line count: bytes.count (stringzilla not installed)"
    return f"{search}, {count}"


def machine() -> str:
    """CPU model, core count and memory."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        memory_kib = int(Path("/proc/meminfo").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        memory_kib = 0
    return f"{model}, {os.cpu_count()} cores, {memory_kib / (1 << 20):.0f} GiB RAM"


def commit() -> str:
    """The checked-out commit (read-only git call), or '?'."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        )
    except OSError:
        return "?"
    return result.stdout.strip() or "?"


def ratio(numerator: Measurement | None, denominator: Measurement | None) -> float:
    """Median wall of one over the other (nan when either is missing)."""
    if numerator is None or denominator is None or not numerator.samples or not denominator.samples:
        return float("nan")
    return numerator.wall / denominator.wall


def judge(value: float, limit: float, *, strict: bool = False) -> bool | None:
    """Whether `value` is within `limit` (None when it was not measured)."""
    if math.isnan(value):
        return None
    return value < limit if strict else value <= limit


def find(bench: Bench, name: str, artifact: Artifact | None) -> Measurement | None:
    """The measurement of `name` on `artifact`, if taken."""
    if artifact is None:
        return None
    label = artifact_label(artifact)
    return next((m for m in bench.measurements if m.name == name and m.artifact == label), None)


FLOOR = "inflate in N processes (floor)"
ANALYZE = "ci-forensics analyze"


def checks(
    bench: Bench, by_size: list[Artifact], rules_artifact: Artifact | None, big: Artifact | None
) -> list[Check]:
    """Every target, judged on what was measured."""
    results = fixed_cost_checks(bench)
    for artifact in by_size:
        label = artifact_label(artifact)
        analyzed = find(bench, ANALYZE, artifact)
        value = ratio(analyzed, find(bench, "unzip + rg", artifact))
        limits = [limit for size, limit in TARGET_RIPGREP_RATIO.items() if artifact.spec.size_mib >= size]
        limit = min(limits) if limits else None
        results.append(
            Check(
                f"ci-forensics / (unzip + rg), {label}",
                value,
                f"≤ {limit}" if limit else INFORMATION,
                judge(value, limit) if limit else None,
            )
        )
        value = ratio(analyzed, find(bench, FLOOR, artifact))
        floor_target = artifact.spec.size_mib >= 1024
        results.append(
            Check(
                f"ci-forensics / floor ({bench.jobs} processes), {label}",
                value,
                f"≤ {TARGET_FLOOR_RATIO}" if floor_target else INFORMATION,
                judge(value, TARGET_FLOOR_RATIO) if floor_target else None,
            )
        )
    rss_rows = [
        m
        for m in bench.measurements
        if m.name.startswith(("ci-forensics", "analyze")) and m.samples and not math.isnan(m.rss_mib)
    ]
    if rss_rows:
        worst = max(rss_rows, key=lambda m: m.rss_mib)
        results.append(
            Check(
                "ci-forensics peak RSS MiB, worst case",
                worst.rss_mib,
                f"< {TARGET_RSS_MIB}",
                worst.rss_mib < TARGET_RSS_MIB,
                f"{worst.name}, {worst.artifact}" + ("" if big else "; the big-attachment case was not run"),
            )
        )
    if len(by_size) > 1:
        small, large = by_size[-2], by_size[-1]
        time_ratio = ratio(find(bench, ANALYZE, large), find(bench, ANALYZE, small))
        size_ratio = large.log_bytes / small.log_bytes
        normalised = time_ratio / size_ratio
        results.append(
            Check(
                f"time {artifact_label(large)} / {artifact_label(small)} (size × {size_ratio:.2f})",
                time_ratio,
                f"≤ {TARGET_LINEAR_TOLERANCE} × size ratio",
                judge(normalised, TARGET_LINEAR_TOLERANCE),
                f"per-MiB cost at the large size is {normalised:.2f}× the smaller one's; "
                f"{linear_fit(bench, by_size)}",
            )
        )
    if rules_artifact is not None:
        counts = sorted(bench.options.rule_counts)
        few = find(bench, rules_case_name(counts[0]), rules_artifact)
        many = find(bench, rules_case_name(counts[-1]), rules_artifact)
        value = ratio(many, few)
        results.append(
            Check(
                f"time {counts[-1]} rules / {counts[0]} rules, {artifact_label(rules_artifact)}",
                value,
                f"< {TARGET_RULES_RATIO}",
                judge(value, TARGET_RULES_RATIO, strict=True),
                "pack cache warm (every run after the first with the same rules)",
            )
        )
        few_cold = find(bench, rules_case_name(counts[0], cold=True), rules_artifact)
        many_cold = find(bench, rules_case_name(counts[-1], cold=True), rules_artifact)
        if few_cold is not None and many_cold is not None:
            results.append(
                Check(
                    f"time {counts[-1]} rules / {counts[0]} rules, pack cache cold, {artifact_label(rules_artifact)}",
                    ratio(many_cold, few_cold),
                    INFORMATION,
                    None,
                    "the first run after a pack is edited: every rule file validated, its patterns compiled",
                )
            )
    return results


ONE_LINE = "1 line"
FIXED_CASES = (
    ("ci-forensics --help", TARGET_HELP_S),
    ("ci-forensics analyze, shipped pack (cache warm)", TARGET_ONE_LINE_S),
    ("ci-forensics analyze, shipped pack (cache cold)", None),
    (f"ci-forensics analyze, {FIXED_RULES} rules (cache warm)", TARGET_ONE_LINE_1000_RULES_S),
    (f"ci-forensics analyze, {FIXED_RULES} rules (cache cold)", None),
    ("rg -c -f PATTERNS (same log)", None),
    (f"ci-forensics analyze, grown pack of {GROWN_RULES} rules (cache warm)", TARGET_ONE_LINE_S),
)


def fixed_cost_checks(bench: Bench) -> list[Check]:
    """The one-line and --help targets (median wall seconds)."""
    results = []
    for name, limit in FIXED_CASES:
        measured = next((m for m in bench.measurements if m.name == name and m.artifact == ONE_LINE), None)
        if limit is None or measured is None or not measured.samples:
            continue
        results.append(
            Check(f"{name}, {ONE_LINE}, s", measured.wall, f"≤ {limit}", judge(measured.wall, limit))
        )
    return results


def measure_fixed_costs(bench: Bench, shipped_count: int) -> None:
    """`--help` and a one-line log: the cost paid before the first byte of a log is read."""
    log = bench.work / "one-line.log"
    log.write_text(
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 22.03 GiB of which 1.20 GiB is free.\n"
    )
    extra = bench.work / "fixed-cost-rules"
    write_rules(extra, FIXED_RULES - shipped_count)
    grown = bench.work / "grown-pack-rules"
    write_rules(grown, max(0, GROWN_RULES - shipped_count))
    base = bench.analyze_command[:-1]
    warm_cache = bench.work / "xdg-warm"
    commands: dict[str, list[str]] = {
        FIXED_CASES[0][0]: [*base, "--help"],
        FIXED_CASES[1][0]: [*bench.analyze_command, str(log), *ANALYZE_ARGS],
        FIXED_CASES[2][0]: [*bench.analyze_command, str(log), *ANALYZE_ARGS],
        FIXED_CASES[3][0]: [*bench.analyze_command, str(log), "--rules", str(extra), *ANALYZE_ARGS],
        FIXED_CASES[4][0]: [*bench.analyze_command, str(log), "--rules", str(extra), *ANALYZE_ARGS],
        FIXED_CASES[6][0]: [*bench.analyze_command, str(log), "--rules", str(grown), *ANALYZE_ARGS],
    }
    if bench.rg and bench.patterns_file and bench.plan:
        commands[FIXED_CASES[5][0]] = bench.plan.commands(bench.rg, bench.patterns_file, log)[0]
    bench.notes.append(
        f"fixed cost: `analyze` of a one-line log (a CUDA out-of-memory line), --format json to /dev/null; the "
        f"{FIXED_RULES}-rule and the grown {GROWN_RULES}-rule packs = the {shipped_count} shipped rules + "
        "synthetic ones (benchmarks/synthetic_rules.py, one file a rule) passed with --rules; cache warm = the "
        "pack cache filled by an earlier run, cold = an empty cache folder; Python bytecode cached as an "
        "installed package has it (PYTHONPYCACHEPREFIX in the work folder)"
    )
    print(f"fixed cost: {ONE_LINE} ({FIXED_RULES}-rule pack = shipped + synthetic)", flush=True)
    for name in (FIXED_CASES[1][0], FIXED_CASES[3][0], FIXED_CASES[6][0]):  # fill the warm cache once
        run_measured(
            commands[name], env={**os.environ, "XDG_CACHE_HOME": str(warm_cache)}, ok_codes=(0, 1, 3)
        )
    for round_number in range(max(3, bench.options.repeat)):
        for case_number, (name, command) in enumerate(commands.items()):
            target = bench.measurement_named(name, ONE_LINE, 0.0)
            if target.error:
                continue
            cache_home = (
                warm_cache if "cold" not in name else bench.work / f"xdg-cold-{round_number}-{case_number}"
            )
            try:
                sample = run_measured(
                    command, env={**os.environ, "XDG_CACHE_HOME": str(cache_home)}, ok_codes=(0, 1, 3)
                )
            except ChildFailedError as err:
                target.error = str(err)
                print(f"  {name}: FAILED: {err}", flush=True)
                continue
            target.samples.append(sample)
            print(f"  {name:<50} wall {sample.wall:6.3f} s  rss {sample.rss_mib:5.0f} MiB", flush=True)


def linear_fit(bench: Bench, by_size: list[Artifact]) -> str:
    """Least-squares line through (log MiB, median analyze wall) over the sizes: fixed cost and cost per GiB."""
    points = []
    for artifact in by_size:
        measured = find(bench, "ci-forensics analyze", artifact)
        if measured is not None and measured.samples:
            points.append((artifact.log_mib, measured.wall))
    if len(points) < 2:
        return "no fit"
    mean_size = statistics.fmean(size for size, _ in points)
    mean_wall = statistics.fmean(wall for _, wall in points)
    slope = sum((size - mean_size) * (wall - mean_wall) for size, wall in points) / sum(
        (size - mean_size) ** 2 for size, _ in points
    )
    fixed = mean_wall - slope * mean_size
    worst = max(abs(wall - (fixed + slope * size)) / wall for size, wall in points)
    return f"fit: {fixed:.2f} s + {slope * 1024:.2f} s per GiB, largest residual {worst:.0%}"


def render(bench: Bench, results: list[Check], *, markdown: bool) -> str:
    """The measurements and the checks as a plain-text or Markdown table."""
    rows = [("what", "artifact", "wall s", "range s", "CPU s", "MiB/s", "peak RSS MiB")]
    for m in bench.measurements:
        if m.error:
            rows.append((m.name, m.artifact, "failed", "-", "-", "-", "-"))
            continue
        rows.append(
            (
                m.name,
                m.artifact,
                f"{m.wall:.2f}",
                m.spread,
                f"{m.cpu:.2f}",
                f"{m.log_mib / m.wall:.0f}" if m.log_mib else "-",
                "-" if math.isnan(m.rss_mib) else f"{m.rss_mib:.0f}",
            )
        )
    check_rows = [("ratio", "value", "target", "verdict")]
    for check in results:
        verdict = "n/a" if check.passed is None else ("PASS" if check.passed else "FAIL")
        if check.target == INFORMATION:
            verdict = "info"
        value = (
            "n/a"
            if math.isnan(check.value)
            else f"{check.value:.3f}"
            if check.value < 1
            else f"{check.value:.2f}"
        )
        name = f"{check.name} ({check.detail})" if check.detail else check.name
        check_rows.append((name, value, check.target, verdict))
    return table(rows, markdown=markdown) + "\n\n" + table(check_rows, markdown=markdown)


def table(rows: list[tuple[str, ...]], *, markdown: bool) -> str:
    """Rows as an aligned text table or a Markdown table (first row is the header)."""
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(" --- " for _ in rows[0]) + "|"]
        lines.extend("| " + " | ".join(row) + " |" for row in rows[1:])
        return "\n".join(lines)
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for number, row in enumerate(rows):
        cells = [
            cell.ljust(width) if column == 0 else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells))
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def parse_options(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options; --quick means 100 MiB only, one run, no big attachment."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="16 and 100 MiB, 1 run, no big-attachment case")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument(
        "--sizes",
        default=f"{ONE_LINE_SIZE},1,16,256,1024",
        help=f"what to measure, comma-separated: {ONE_LINE_SIZE} (the fixed cost: --help and a one-line log) "
        "and artifact sizes of logs: MiB, or with a unit (256mib, 1gib, 5gib)",
    )
    parser.add_argument(
        "--huge",
        action="store_true",
        help=f"add a {HUGE_MIB // 1024} GiB artifact (~1 GiB zip, several GiB of disk)",
    )
    parser.add_argument(
        "--no-fixed", action="store_true", help=f"skip the one-line and --help measurements ({ONE_LINE_SIZE})"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=0,
        help="worker processes for analyze and the floor (0: analyze's default)",
    )
    parser.add_argument("--big-attachment-mib", type=int, default=200, help="0 skips the big-attachment case")
    parser.add_argument(
        "--core-mib", type=float, default=32, help="MiB of healthy lines for the one-core row (0 skips it)"
    )
    parser.add_argument("--rule-counts", default="50,500", help="the two rule counts to compare")
    parser.add_argument(
        "--rules-size-mib", type=int, default=256, help="artifact for rule scaling (0: the largest)"
    )
    parser.add_argument("--timeout", type=float, default=1800, help="seconds before one command is killed")
    parser.add_argument(
        "--rg-memory-gib",
        type=int,
        default=default_rg_memory_gib(),
        help="address-space cap for each rg run, GiB (default: half the machine's memory, at most 64)",
    )
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    parser.add_argument(
        "--work-dir", type=Path, default=None, help="where unzip extracts (default: system temp)"
    )
    parser.add_argument(
        "--results", type=Path, default=None, help="Markdown output (default: benchmarks/results.md)"
    )
    options = parser.parse_args(argv)
    given = list(sys.argv[1:] if argv is None else argv)
    options.command_line = " ".join(["python benchmarks/bench_speed.py", *given])
    tokens = {token.strip() for token in options.sizes.split(",") if token.strip()}
    options.fixed = ONE_LINE_SIZE in tokens and not options.no_fixed
    options.sizes = sorted(
        {size_mib(size) for size in tokens - {ONE_LINE_SIZE}} | ({HUGE_MIB} if options.huge else set())
    )
    options.rule_counts = sorted({int(count) for count in options.rule_counts.split(",")})
    if options.quick:
        options.fixed = not options.no_fixed
        options.sizes = [16, 100]
        options.repeat = 1
        options.big_attachment_mib = 0
        options.results = options.results or options.cache_dir / "results-quick.md"
    options.results = options.results or RESULTS
    return options


def default_rg_memory_gib() -> int:
    """Half the machine's memory (at most 64 GiB, at least 1): rg's limit, so it cannot take the machine's."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return max(1, min(64, total // 2**31))


def measure_without_artifacts(bench: Bench, shipped: RuleSet) -> None:
    """The fixed cost (one line, --help) and the one-core comparison, unless skipped."""
    if bench.options.fixed:
        measure_fixed_costs(bench, len(shipped))
    if bench.options.core_mib > 0:
        measure_per_core(bench, shipped)


def size_mib(text: str) -> int:
    """`256`, `256mib`, `1gib`, `5GiB` as MiB."""
    value = text.strip().lower().removesuffix("b").removesuffix("i")
    for unit, factor in (("g", 1024), ("m", 1)):
        if value.endswith(unit):
            return int(float(value[:-1]) * factor)
    return int(value)


def measure_per_core(bench: Bench, rules: RuleSet) -> None:
    """One core: `scan_stream` in this process against `rg -j1` on the same healthy serving lines (with the
    planted causes), read from the page cache by both (benchmarks/bench_core.py)."""
    from bench_core import mixed_log, time_ripgrep, time_scan

    from forensics.engine.scanner import CompiledRules

    data = mixed_log(bench.options.core_mib)
    size = len(data) / MIB
    label = f"healthy mix {size:.0f} MiB"
    log = bench.work / "healthy.log"
    log.write_bytes(data)
    print(f"one core: {label}", flush=True)
    repeat = max(3, bench.options.repeat)
    ours, _scan = time_scan(CompiledRules(rules), log, repeat)
    bench.measurement_named(CORE_SCAN, label, size).samples.extend(
        Sample(wall=wall, cpu=wall, rss_mib=float("nan")) for wall in ours
    )
    if bench.rg:
        scratch = bench.work / "one-core"
        scratch.mkdir(exist_ok=True)
        theirs, note = time_ripgrep(rules, log, scratch, repeat, bench.plan)
        bench.measurement_named(CORE_RG, label, size).samples.extend(
            Sample(wall=wall, cpu=wall, rss_mib=float("nan")) for wall in theirs
        )
        empty = scratch / "empty.log"
        empty.write_bytes(b"")
        started, _ = time_ripgrep(rules, empty, scratch, repeat, bench.plan)
        bench.measurement_named(CORE_RG_EMPTY, label, 0.0).samples.extend(
            Sample(wall=wall, cpu=wall, rss_mib=float("nan")) for wall in started
        )
        bench.notes.append(f"one core: {note}; lines from benchmarks/healthy_mix.py")
    log.unlink()


def core_checks(bench: Bench) -> list[Check]:
    """ci-forensics' speed on one core over rg's on one thread (same patterns, same lines); rg's time without
    its start and pattern compile (its time on an empty file), as `scan_stream` is timed with rules compiled."""
    ours = next((m for m in bench.measurements if m.name == CORE_SCAN and m.samples), None)
    theirs = next((m for m in bench.measurements if m.name == CORE_RG and m.samples), None)
    started = next((m for m in bench.measurements if m.name == CORE_RG_EMPTY and m.samples), None)
    if ours is None or theirs is None:
        return []
    searching = max(theirs.wall - (started.wall if started else 0.0), 1e-6)
    value = searching / ours.wall
    detail = (
        f"{ours.log_mib / ours.wall:.0f} vs {theirs.log_mib / searching:.0f} MiB/s, rg's start and pattern "
        "compile taken out"
    )
    return [
        Check(
            f"one core: ci-forensics speed / rg -j1 speed, {ours.artifact}",
            value,
            f"≥ {TARGET_CORE_RATIO}",
            value >= TARGET_CORE_RATIO,
            detail,
        )
    ]


def write_ripgrep_patterns(bench: Bench, shipped: RuleSet, rg: str) -> Path:
    """The pack's patterns for `rg -f`, one a line; a note says how many were skipped and why."""
    from healthy_mix import healthy_bytes

    probe = bench.work / "ripgrep-probe.log"
    probe.write_bytes(healthy_bytes(RIPGREP_PROBE_MIB))
    bench.plan = ripgrep_plan(shipped, rg, probe)
    probe.unlink()
    path = bench.work / "patterns.txt"
    path.write_text("\n".join(bench.plan.together) + "\n", encoding="utf-8")
    total = bench.plan.count + sum(bench.plan.skipped.values())
    reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(bench.plan.skipped.items())) or "none"
    bench.notes.append(
        f"rg patterns: {bench.plan.count} of the pack's {total} patterns ({len(shipped)} rules); "
        f"skipped (Rust regex cannot): {reasons}; {bench.plan.note()}"
    )
    return path


def main(argv: Sequence[str] | None = None) -> None:
    """Generate (or reuse) the artifacts, measure everything round by round, print and write the table."""
    options = parse_options(argv)
    analyze_command, unzip, rg, missing = find_tools()
    for message in missing:
        print(f"NOTE: {message}", flush=True)
    print(prefilter_engine(), flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-speed-", dir=options.work_dir) as temporary:
        work = Path(temporary)
        use_bytecode_cache(work)
        bench = Bench(
            options=options,
            analyze_command=analyze_command,
            unzip=unzip,
            rg=rg,
            work=work,
            jobs=options.jobs or default_jobs(),
        )
        bench.notes.extend(missing)
        shipped = load_rules(cache=False)
        if rg:
            bench.patterns_file = write_ripgrep_patterns(bench, shipped, rg)
        measure_without_artifacts(bench, shipped)
        by_size = [ensure_artifact(ArtifactSpec(size_mib=size), options.cache_dir) for size in options.sizes]
        rules_artifact = None
        if options.sizes:  # `--sizes 1line`: the fixed cost alone, no artifact and no rule scaling
            rules_size = options.rules_size_mib or options.sizes[-1]
            rules_artifact = ensure_artifact(ArtifactSpec(size_mib=rules_size), options.cache_dir)
        big = None
        if options.big_attachment_mib and options.sizes:
            big_size = max(options.sizes[-1], options.big_attachment_mib * 2)
            big = ensure_artifact(
                ArtifactSpec(size_mib=big_size, big_attachment_mib=options.big_attachment_mib),
                options.cache_dir,
            )
        for artifact in [*by_size, *([big] if big else [])]:
            bench.artifacts.append(artifact)
            print(f"{artifact_label(artifact)}: {artifact.path.name}", flush=True)
            warm(artifact.path)
            bench.validate(artifact)
            print(f"  {bench.notes[-1]}", flush=True)
            for _ in range(options.repeat):
                bench.record(ANALYZE, artifact, "analyze")
                if unzip and rg:
                    bench.record("unzip + rg", artifact, "ripgrep")
                bench.record(FLOOR, artifact, "floor")
        if rules_artifact is not None:
            measure_rule_scaling(bench, rules_artifact, len(shipped))
    bench.notes.extend(
        f"{m.name}, {m.artifact}: {warning}" for m in bench.measurements for warning in sorted(m.warnings)
    )
    if not GNU_TIME:
        bench.notes.append(
            "GNU time (/usr/bin/time) not found: peak RSS is ru_maxrss from os.wait4, which includes this "
            "harness's own memory inherited at fork (an upper bound; apt-get install -y time)"
        )
    results = [*core_checks(bench), *checks(bench, by_size, rules_artifact, big)]
    elapsed = time.perf_counter() - started
    header = (
        f"median of {options.repeat} run(s), interleaved; wall and CPU (user+sys of the child and its children) "
        f"in seconds; MiB/s = uncompressed log MiB / wall; peak RSS = max RSS of the command from GNU time (highest run)"
    )
    print()
    print(header)
    print(render(bench, results, markdown=False))
    print()
    for note in bench.notes:
        print(f"- {note}")
    write_markdown(bench, results, header, elapsed)
    print(f"\nwritten to {options.results} (benchmark took {elapsed / 60:.1f} min)")


def measure_rule_scaling(bench: Bench, rules_artifact: Artifact, shipped_count: int) -> None:
    """The same artifact analysed in-process with few and with many rules."""
    options = bench.options
    extra = bench.work / "synthetic-rules"
    count_extra = max(0, options.rule_counts[-1] - shipped_count)
    write_rules(extra, count_extra)
    bench.notes.append(
        f"rule counts: {options.rule_counts[0]} = the first {options.rule_counts[0]} shipped rules; "
        f"{options.rule_counts[-1]} = the {shipped_count} shipped + {count_extra} synthetic rules "
        "(benchmarks/synthetic_rules.py); both in-process in a fresh interpreter, timed end to end; the pack "
        "cache in the benchmark's own folder: warm = filled by an untimed run of the same count first (as every "
        "run after the first with the same rules), cold = an empty folder (the first run after an edit: every "
        "rule validated)"
    )
    print(f"rule scaling on {artifact_label(rules_artifact)}", flush=True)
    warm(rules_artifact.path)
    for count in options.rule_counts:
        folder = extra if count > shipped_count else None
        bench.rules_case(rules_artifact, count, folder, cold=True)  # an empty cache: every rule validated
        bench.rules_case(rules_artifact, count, folder, timed=False)  # fills the warm rows' cache
    for _ in range(options.repeat):
        for count in options.rule_counts:
            bench.rules_case(rules_artifact, count, extra if count > shipped_count else None)


def use_bytecode_cache(work: Path) -> None:
    """Let every measured Python child keep its compiled bytecode (in the work folder, not the checkout).

    An installed ci-forensics has its `.pyc` files (pip compiles them); a checkout run with
    PYTHONDONTWRITEBYTECODE set has none, and every run compiled the whole package again (~50 ms a run).
    The first (untimed) run of each command writes them; this process's own settings do not change.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(work / "bytecode")


def write_markdown(bench: Bench, results: list[Check], header: str, elapsed: float) -> None:
    """The tables, the artifacts and the notes as Markdown the README can quote."""
    options = bench.options
    artifacts = [
        f"- {artifact_label(a)}: {a.log_mib:.0f} MiB of logs in {len(a.expected)} failing tests "
        f"({sum(r is not None for r in a.expected.values())} with a planted root cause), largest log "
        f"{a.largest_log_bytes / MIB:.0f} MiB, zip {a.zip_bytes / MIB:.0f} MiB (deflate level 6) — `{a.path.name}`"
        for a in bench.artifacts
    ]
    command = options.command_line
    text = "\n".join(
        [
            "# Speed benchmark results",
            "",
            f"Generated by `{command}` (`make bench` runs it without options) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit "
            f"{commit()} (working tree may differ), in {elapsed / 60:.1f} min.",
            f"Machine: {machine()} (shared, noisy). Tools: {tool_versions(bench)}.",
            "",
            header + ".",
            "",
            render(bench, results, markdown=True),
            "",
            "Artifacts (generated by `benchmarks/artifacts.py`, cached by parameters):",
            "",
            *artifacts,
            "",
            "Notes:",
            "",
            *(f"- {note}" for note in bench.notes),
            f"- `unzip + rg` = `unzip -q -o ZIP -d DIR` then `rg {' '.join(RIPGREP_FLAGS)} -c -f PATTERNS "
            "DIR` (rg uses every core) and one `rg … -c --regexp=PATTERN DIR` for each pattern searched alone (see "
            "rg patterns above), times summed; the extracted folder is removed (untimed) between runs. "
            "Without `--no-unicode`, rg rejects the pattern set (compiled regex over its 100 MB size limit: the "
            "pack's bounded repeats such as `[^']{1,200}` over Unicode classes); with only the limit raised it "
            "took about 400 s for the 100 MiB artifact (measured once by hand), so the table uses ASCII classes. "
            "Every group is non-capturing (`-c` reads none; with capture groups rg 13's fallback engine asked for "
            f"22 GB per thread). Each rg run's address space is capped at {options.rg_memory_gib} GiB "
            "(--rg-memory-gib): over it, rg fails on its own allocation and the table says so.",
            "- Sizes are uncompressed log bytes; every test is failing, so every log byte must be scanned. "
            "`ci-forensics analyze` and the floor read the zip from the page cache (it is read once first).",
            f"- The floor = every member of the zip inflated (Python's zipfile with zlib-ng's inflate and CRC-32 where "
            f"installed, as ci-forensics inflates, 1 MiB reads) in {bench.jobs} forked "
            "processes, members spread largest first to the least loaded process; nothing else is done with "
            "the bytes. `ci-forensics analyze` uses the same number of worker processes (its default --jobs).",
            "- The machine is shared with other work: absolute figures move from run to run; compare the "
            "ratios, which are measured side by side in one run.",
            "",
        ]
    )
    options.results.parent.mkdir(parents=True, exist_ok=True)
    options.results.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
