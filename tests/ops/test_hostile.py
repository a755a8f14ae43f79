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


# ---- the guards the matrix led to, each diagnostic pinned

BIG = 2**63 - 1


def test_window_larger_than_2_31_is_invalid():
    x = np.ones((1, 4, 4, 1), np.float32)
    with pytest.raises(of.InvalidArgumentError, match=r"MaxPool: the window along height .* larger than 2147483647"):
        of.raw_ops.MaxPool(input=x, ksize=[1, BIG, 2, 1], strides=[1, 1, 1, 1], padding="SAME")
    with pytest.raises(of.InvalidArgumentError, match=r"Conv2D: explicit paddings along width must be in \[0, 2147483647\]"):
        of.raw_ops.Conv2D(input=x, filter=np.ones((1, 1, 1, 1), np.float32), strides=[1, 1, 1, 1],
                          padding="EXPLICIT", explicit_paddings=[0, 0, 0, 0, 0, 2**40, 0, 0])


def test_huge_windows_and_strides_compute_what_they_mean():
    x = np.random.default_rng(0).standard_normal((2, 5, 6, 3)).astype(np.float32)
    # A SAME window of 2^31 - 1 covers the whole image from every position: a global pool.
    got = of.raw_ops.MaxPool(input=x, ksize=[1, 2**31 - 1, 2**31 - 1, 1], strides=[1, 1, 1, 1], padding="SAME")
    np.testing.assert_array_equal(got.numpy(), np.broadcast_to(x.max(axis=(1, 2), keepdims=True), x.shape))
    got = of.raw_ops.AvgPool(value=x, ksize=[1, 2**31 - 1, 2**31 - 1, 1], strides=[1, 1, 1, 1], padding="SAME")
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(x.mean(axis=(1, 2), keepdims=True), x.shape), rtol=1e-5)
    # A stride past the input leaves one window: the same as any other such stride.
    for op, arg in ((of.raw_ops.MaxPool, "input"), (of.raw_ops.AvgPool, "value")):
        a = op(**{arg: x}, ksize=[1, 3, 3, 1], strides=[1, 2, BIG, 1], padding="SAME").numpy()
        b = op(**{arg: x}, ksize=[1, 3, 3, 1], strides=[1, 2, 7, 1], padding="SAME").numpy()
        np.testing.assert_array_equal(a, b)
    f = np.random.default_rng(1).standard_normal((3, 3, 3, 4)).astype(np.float32)
    a = of.raw_ops.Conv2D(input=x, filter=f, strides=[1, 2, BIG, 1], padding="SAME").numpy()
    b = of.raw_ops.Conv2D(input=x, filter=f, strides=[1, 2, 50, 1], padding="SAME").numpy()
    np.testing.assert_allclose(a, b, rtol=1e-6)
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    got = of.raw_ops.StridedSlice(input=np.arange(10), begin=i64(2), end=i64(10), strides=i64(BIG))
    np.testing.assert_array_equal(got.numpy(), [2])
    got = of.raw_ops.StridedSlice(input=np.arange(10), begin=i64(9), end=i64(0), strides=i64(-(2**63)))
    np.testing.assert_array_equal(got.numpy(), [9])
    got = of.raw_ops.LRN(input=x, depth_radius=BIG)  # the window covers the depth
    np.testing.assert_allclose(got.numpy(), x / np.sqrt(1.0 + (x**2).sum(axis=3, keepdims=True)), rtol=1e-5)


def test_output_counts_and_window_volumes_are_bounded():
    with pytest.raises(of.InvalidArgumentError, match=r"Split: num_split=\d+ would make \d+ outputs .*at most 1048576"):
        of.raw_ops.Split(axis=np.int32(0), value=np.ones(4, np.float32), num_split=BIG)
    with pytest.raises(of.InvalidArgumentError, match=r"AvgPool3D: the window .* has more than 16777216 elements"):
        of.raw_ops.AvgPool3D(input=np.ones((1, 2, 2, 2, 1), np.float32), ksize=[1, 2**20, 2**20, 2, 1],
                             strides=[1, 1, 1, 1, 1], padding="SAME")
    with pytest.raises(of.InvalidArgumentError, match=r"Conv3DBackpropInputV2: the sizes must be non-negative"):
        of.raw_ops.Conv3DBackpropInputV2(input_sizes=np.array([1, -1, 4, 4, 2], np.int32),
                                         filter=np.ones((2, 2, 2, 2, 3), np.float32),
                                         out_backprop=np.ones((1, 4, 4, 4, 3), np.float32),
                                         strides=[1, 1, 1, 1, 1], padding="SAME")


def test_empty_batches_return_at_once():
    """A batch of 2^31 images of no channels is an empty tensor: the pool returns it without
    walking the batch (it looped for minutes)."""
    x = np.zeros((2**31, 5, 6, 0), np.float32)
    got = of.raw_ops.MaxPool(input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    assert got.shape == (2**31, 3, 3, 0)
