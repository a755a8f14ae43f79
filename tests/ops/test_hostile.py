"""The hostile-input matrix (hostile.py): every op the matrix drives, with the shapes, values
and attrs TensorFlow's security advisories are made of, each case eagerly and in two kinds of
graph, in worker processes so that a crash is a failure naming the op and case.

Prints the cases per op and the total (the terminal summary); CI runs it on the ASan + UBSan
build too (tools/sanitized_tests.sh), where an integer division by zero or a signed overflow
aborts the worker and so fails its case."""

from __future__ import annotations

import collections
import concurrent.futures
import os

import numpy as np
import pytest

import hostile
import opforge as of
from opmatrix import OPS

# Filled by test_hostile_matrix, printed by conftest.py's terminal summary.
SUMMARY: dict = {}


def _split(names, k):
    return [names[i::k] for i in range(k)]


def test_hostile_matrix():
    names = sorted(op.name for op in hostile.driven_ops(__import__("opmatrix")))
    workers = max(1, min(int(os.environ.get("OPFORGE_HOSTILE_WORKERS", os.cpu_count() or 1)), 4))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(hostile.run_ops, [p for p in _split(names, workers) if p]))
    records = [r for part in parts for r in part]
    per_op = collections.Counter(r["op"] for r in records)
    kinds = collections.Counter(r["outcome"].split()[0] for r in records)
    errors = collections.Counter()
    for r in records:
        if not r["outcome"].startswith("ok"):
            continue
        for part in r["outcome"].split()[1:]:
            if ":" in part and not part.endswith(":ok"):
                errors[part.split(":", 1)[1]] += 1
    SUMMARY.update(ops=len(per_op), cases=len(records), per_op=per_op, kinds=kinds, errors=errors)
    bad = [r for r in records if not r["outcome"].startswith("ok")]
    SUMMARY["bad"] = bad
    assert set(per_op) == set(names), sorted(set(names) - set(per_op))
    assert not bad, "\n".join(f"{r['op']} [{r['case']}]: {r['outcome'][:400]}" for r in bad[:40]) + (
        f"\n... and {len(bad) - 40} more" if len(bad) > 40 else "")


# ---- the advisories that found a crash, pinned as plain tests


def test_conv2d_backprop_filter_over_no_input_channels():
    """TF advisory 2021-013: an input of no channels under a filter of one divided by 0 groups."""
    with pytest.raises(of.InvalidArgumentError, match="Conv2DBackpropFilter.*divisible by filter depth"):
        of.raw_ops.Conv2DBackpropFilter(
            input=np.zeros((0, 0, 1, 0), np.float32), filter_sizes=np.array([1, 1, 1, 1], np.int32),
            out_backprop=np.zeros((0, 0, 1, 1), np.float32), strides=[1, 66, 18, 1], padding="SAME")


def test_every_driven_op_has_hostile_cases():
    import opmatrix  # noqa: PLC0415

    for op in OPS:
        _, _, _, cases = hostile.op_cases(op, opmatrix)
        assert cases, op.name
