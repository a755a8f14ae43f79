"""tests/ops: records unexpected failures per op and prints the op matrix coverage."""

import os
import sys

import pytest

# The test modules import their shared machinery as `opmatrix` under any --import-mode.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import opmatrix  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when != "call" or not rep.failed:
        return
    params = getattr(getattr(item, "callspec", None), "params", {})
    op_name = params.get("op_name")
    categories = getattr(item.module, "COVERAGE_CATEGORIES", ())
    if op_name:
        for c in categories:
            opmatrix.FAILED[c].add(op_name)


def pytest_terminal_summary(terminalreporter):
    _hostile_summary(terminalreporter)
    if not any(opmatrix.COVERAGE.values()) and not any(opmatrix.FAILED.values()):
        return
    m = len(opmatrix.ALL_OPS)
    n = len(opmatrix.covered("reference"))
    k = len(opmatrix.covered("gradient"))
    e = len(opmatrix.covered("errors"))
    nd = len(opmatrix.covered("not_differentiable"))
    fz = len(opmatrix.covered("fuzz"))
    terminalreporter.write_line(
        f"ops coverage: {n}/{m} ops with reference, {k}/{m} with gradient check, "
        f"{e}/{m} with error inputs ({nd}/{m} checked not differentiable, {fz}/{m} fuzzed)")
    # ---- random ops (issue 4): no value-by-value reference; distributions, seeds and bits
    random_ops = sorted(n for n, op in opmatrix.ALL_OPS_BY_NAME.items() if op.group == "random")
    if random_ops:
        st = len(opmatrix.covered("statistical") & set(random_ops))
        terminalreporter.write_line(
            f"random ops: {st}/{len(random_ops)} with statistical tests (tests/ops/test_random.py: "
            f"distribution moments and bounds, seeds, Philox bits) instead of a NumPy reference")
    if opmatrix.NOT_DRIVEN:
        terminalreporter.write_line("ops the matrix does not drive: " + "; ".join(
            f"{name} ({why})" for name, why in sorted(opmatrix.NOT_DRIVEN.items())))
    for category in ("reference", "gradient", "errors", "statistical"):
        bad = sorted(opmatrix.FAILED[category])
        if bad:
            terminalreporter.write_line(f"ops with failing {category} checks: {', '.join(bad)}")


def _hostile_summary(terminalreporter):
    """The hostile matrix's counts (tests/ops/test_hostile.py), when it ran."""
    mod = sys.modules.get("test_hostile")
    summary = getattr(mod, "SUMMARY", None)
    if not summary:
        return
    per_op = summary["per_op"]
    counts = sorted(per_op.values())
    terminalreporter.write_line(
        f"hostile matrix: {summary['cases']} cases over {summary['ops']} ops (per op: min {counts[0]}, "
        f"median {counts[len(counts) // 2]}, max {counts[-1]}), each eagerly and in two graphs; "
        f"outcomes {dict(summary['kinds'])}; typed errors raised {dict(summary['errors'].most_common())}")
    terminalreporter.write_line("hostile cases per op: " + ", ".join(f"{k} {v}" for k, v in sorted(per_op.items())))
