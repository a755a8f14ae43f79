"""tests/ops: prints the op matrix coverage at the end of the run."""

import opmatrix


def pytest_terminal_summary(terminalreporter):
    if not any(opmatrix.COVERAGE.values()) and not any(opmatrix.FAILED.values()):
        return
    m = len(opmatrix.OPS)
    n = len(opmatrix.covered("reference"))
    k = len(opmatrix.covered("gradient"))
    e = len(opmatrix.covered("errors"))
    nd = len(opmatrix.covered("not_differentiable"))
    fz = len(opmatrix.covered("fuzz"))
    terminalreporter.write_line(
        f"ops coverage: {n}/{m} ops with reference, {k}/{m} with gradient check, "
        f"{e}/{m} with error inputs ({nd}/{m} checked not differentiable, {fz}/{m} fuzzed)")
    missing = sorted(set(opmatrix.OP_NAMES) - opmatrix.covered("reference"))
    if missing:
        terminalreporter.write_line(f"ops without a passing reference check: {', '.join(missing)}")
