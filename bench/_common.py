"""Timing helpers shared by the benchmark programs (not a test: no pass/fail on timings)."""

from __future__ import annotations

import contextlib
import importlib
import math
import resource
import subprocess
import sys
import time


def best_of(fn, number: int, repeat: int = 5) -> float:
    """Best mean seconds per call over `repeat` runs of `number` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def best_of_interleaved(fns: dict, number: int, repeat: int = 5) -> dict:
    """Like best_of for several callables, timed round-robin: every round times each callable
    once, so a machine that speeds up or slows down during the run (a shared VM) moves all the
    figures together instead of skewing the ratios. Returns {name: best seconds per call}."""
    best = {name: float("inf") for name in fns}
    for fn in fns.values():  # warm-up: first-call allocations, thread pools, caches
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t0) / number)
    return best


def times_interleaved(fns: dict, number: int, repeat: int = 5) -> dict:
    """The rounds of best_of_interleaved, every one kept: {name: [seconds per call, one per
    round]}, for a caller that wants the median (e.g. on a machine kept busy on purpose)."""
    rounds = {name: [] for name in fns}
    for fn in fns.values():  # warm-up
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            rounds[name].append((time.perf_counter() - t0) / number)
    return rounds


@contextlib.contextmanager
def busy_processes(count: int = 1):
    """Runs `count` CPU-bound processes (Python spin loops) for the duration of the block, as
    other work on a shared machine would: the "busy" figures of the benchmarks."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5)  # let them get going
        yield
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()


def optional(module: str):
    """Imports a comparison framework if installed, else None."""
    try:
        return importlib.import_module(module)
    except Exception:  # noqa: BLE001 (a broken install counts as absent)
        return None


def row(label: str, seconds: float, base: float | None, unit: str = "us", extra: str = "") -> str:
    scale = {"us": 1e6, "ms": 1e3, "s": 1.0}[unit]
    ratio = f"{seconds / base:6.2f}x NumPy" if base else ""
    return f"  {label:<28} {seconds * scale:10.3f} {unit}  {ratio} {extra}"


def geomean(values):
    """Geometric mean of the positive finite values (nan if none): the summary of ratios."""
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def peak_rss_mib() -> float:
    """This process's peak RSS. Linux's ru_maxrss survives exec (a child started by a 2 GiB
    parent reports 2 GiB), so read VmHWM, the high-water mark of the current address space."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
