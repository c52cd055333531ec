"""Benchmark: analyse a generated nightly artifact with the literal pre-filter vs every line through every rule.

Prints figures; asserts nothing. Ratios measured in one run are what to compare (shared, noisy machines).
Usage: python benchmarks/bench_scan.py [--size-mib 64] [--tests 40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path

from forensics.engine import scanner as scanner_module
from forensics.engine.prefilter import Prefilter
from forensics.report.build import analyze
from forensics.rules.loader import load_rules

NOISE = (
    "[BASH] (APIServer pid={pid}) INFO 11-28 08:{m:02d}:{s:02d} [loggers.py:123] Engine 000: Avg prompt throughput: "
    "{a:.1f} tokens/s, Avg generation throughput: {b:.1f} tokens/s, Running: {r} reqs, Waiting: 0 reqs",
    "[BASH] (EngineCore_DP0 pid={pid}) INFO 11-28 08:{m:02d}:{s:02d} [gpu_model_runner.py:2010] Model loading took "
    "{a:.4f} GiB and {b:.6f} seconds",
    "[BASH] 2026-02-24T20:{m:02d}:{s:02d}.{r:06d}Z  INFO dynamo_runtime::pipeline::network: request {pid} served",
    "[BASH] (EngineCore_DP0 pid={pid}) WARNING 11-28 08:{m:02d}:{s:02d} [topk_topp_sampler.py:61] FlashInfer is not "
    "available. Falling back to the PyTorch-native implementation of top-p & top-k sampling.",
    '[PYTHON] INFO:     127.0.0.1:{r} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
)
CAUSES = (
    "[BASH] [rank0]: ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU "
    "memory utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
    "[BASH] (Worker_TP1 pid=6898) ERROR 11-28 08:14:16 [multiproc_executor.py:597] torch.distributed.DistBackendError: "
    "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO "
    "for details), NCCL version 2.26.2",
    "[BASH] OSError: [Errno 98] Address already in use",
    "[BASH] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "22.03 GiB of which 1.20 GiB is free.",
)
WRAPPER = "[BASH] (APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"


def make_log(size: int, rng: random.Random, cause: str | None) -> bytes:
    """Deterministic noise of about `size` bytes with the cause two thirds of the way in."""
    lines: list[str] = []
    total = 0
    placed = cause is None
    while total < size:
        line = rng.choice(NOISE).format(
            pid=rng.randint(1000, 99999),
            m=rng.randint(0, 59),
            s=rng.randint(0, 59),
            a=rng.random() * 1000,
            b=rng.random() * 100,
            r=rng.randint(0, 999999),
        )
        lines.append(line)
        total += len(line) + 1
        if not placed and total > size * 2 // 3:
            lines.append(cause)  # type: ignore[arg-type]
            placed = True
    if cause is not None:
        lines.append(WRAPPER)
    return ("\n".join(lines) + "\n").encode()


def make_artifact(path: Path, *, size: int, tests: int) -> None:
    """An allure-results zip with `tests` broken tests, each with one bash.log.txt of size/tests bytes."""
    rng = random.Random(1234)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for index in range(tests):
            attachment = f"{uuid.UUID(int=rng.getrandbits(128))}-attachment.txt"
            cause = CAUSES[index % len(CAUSES)] if index % 5 else None
            archive.writestr(attachment, make_log(size // tests, rng, cause))
            result = {
                "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
                "historyId": f"h{index}",
                "name": f"test_serve_deployment[config-{index}]",
                "fullName": "tests.serve.test_vllm#test_serve_deployment",
                "status": "broken",
                "statusDetails": {"message": WRAPPER.removeprefix("[BASH] (APIServer pid=1) ")},
                "attachments": [{"name": "bash.log.txt", "source": attachment, "type": "text/plain"}],
                "start": index,
                "stop": index + 1,
            }
            archive.writestr(f"{result['uuid']}-result.json", json.dumps(result))


def measure(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu = time.process_time()
        wall = time.perf_counter()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def inflate_only(path: Path) -> None:
    """The floor: decompress every entry and throw the bytes away."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            with archive.open(info) as stream:
                while stream.read(1 << 20):
                    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--tests", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    rules = load_rules()
    with tempfile.TemporaryDirectory() as temporary:
        artifact = Path(temporary) / "allure-results.zip"
        make_artifact(artifact, size=options.size_mib << 20, tests=options.tests)
        report = analyze([str(artifact)], rules=rules)
        floor = measure(lambda: inflate_only(artifact), options.repeat)
        fast = measure(lambda: analyze([str(artifact)], rules=rules), options.repeat)
        original_init = scanner_module.CompiledRules.__init__

        def without_prefilter(self: scanner_module.CompiledRules, ruleset: object) -> None:
            original_init(self, ruleset)  # type: ignore[arg-type]
            self.prefilter = Prefilter(pattern=None)

        scanner_module.CompiledRules.__init__ = without_prefilter  # type: ignore[method-assign]
        try:
            plain_report = analyze([str(artifact)], rules=rules)
            plain = measure(lambda: analyze([str(artifact)], rules=rules), 1)
        finally:
            scanner_module.CompiledRules.__init__ = original_init  # type: ignore[method-assign]
    same = [v.root_cause.rule_id if v.root_cause else None for v in report.verdicts] == [
        v.root_cause.rule_id if v.root_cause else None for v in plain_report.verdicts
    ]
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"artifact: {options.size_mib} MiB of logs in {options.tests} tests, {len(rules)} rules, "
        f"median of {options.repeat} (plain path: 1 run)"
    )
    print(f"{'what':<34}{'wall s':>9}{'cpu s':>9}{'MiB/s':>9}{'× floor':>9}")
    for name, (wall, cpu) in (
        ("inflate only (floor)", floor),
        ("analyze, literal pre-filter", fast),
        ("analyze, every line × every rule", plain),
    ):
        print(f"{name:<34}{wall:>9.2f}{cpu:>9.2f}{options.size_mib / wall:>9.1f}{wall / floor[0]:>9.2f}")
    print(
        f"pre-filter speed-up: {plain[0] / fast[0]:.1f}×; same root causes on both paths: {same}; "
        f"explained {report.explained_count}/{len(report.failing)}; peak RSS {peak_mib:.0f} MiB"
    )


if __name__ == "__main__":
    main()
