"""segment_max/min/prod (sorted ids; an empty segment is 0, or 1 for the product) and the
UnsortedSegmentMax/Min/Prod ops under them, against NumPy; gradients numerically in float64."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from composite_check import check_gradient

RNG = np.random.default_rng(57)


def _sorted_reference(fn, empty, data, ids):
    n = int(ids.max()) + 1
    out = np.full((n,) + data.shape[1:], empty, data.dtype)
    for s in range(n):
        rows = data[ids == s]
        if len(rows):
            out[s] = fn(rows, axis=0)
    return out


@pytest.mark.parametrize("name,fn,empty", [("segment_max", np.max, 0), ("segment_min", np.min, 0),
                                           ("segment_prod", np.prod, 1)])
def test_sorted_segments(name, fn, empty):
    data = RNG.uniform(-2, 2, (7, 3)).astype(np.float32)
    ids = np.array([0, 0, 2, 2, 2, 4, 4])  # segments 1 and 3 are empty
    want = _sorted_reference(fn, empty, data, ids)
    np.testing.assert_allclose(getattr(of.math, name)(data, ids).numpy(), want, rtol=1e-6)
    with tf.Graph().as_default():  # TF1's tf.segment_max and tf.math.segment_max, in a graph
        x = tf.placeholder(tf.float32, [None, 3])
        outs = [getattr(tf, name)(x, ids), getattr(tf.math, name)(x, ids)]
        with tf.Session() as sess:
            for got in sess.run(outs, {x: data}):
                np.testing.assert_allclose(got, want, rtol=1e-6)


def _unsorted_reference(ufunc, empty):
    def ref(data, ids, n):
        out = np.full((n,) + data.shape[1:], empty, data.dtype)
        keep = ids >= 0
        ufunc.at(out, ids[keep], data[keep])
        return out
    return ref


UNSORTED = {"unsorted_segment_max": _unsorted_reference(np.maximum, -np.finfo(np.float64).max),
            "unsorted_segment_min": _unsorted_reference(np.minimum, np.finfo(np.float64).max),
            "unsorted_segment_prod": _unsorted_reference(np.multiply, 1.0)}


@pytest.mark.parametrize("op", sorted(UNSORTED))
def test_unsorted_gradients(op):
    data = RNG.uniform(0.5, 2.0, (6, 2))
    ids = np.array([0, 0, 2, -1, 2, 1], np.int32)  # a dropped row; every segment non-empty
    fn, ref = getattr(of.math, op), UNSORTED[op]
    check_gradient(lambda x: fn(x, ids, 3), lambda x: ref(x, ids, 3), data, RNG)


def test_max_gradient_is_shared_among_ties():
    data = np.array([[1.0, 5.0], [1.0, 2.0], [0.5, 5.0]])
    x = of.constant(data)
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(of.math.unsorted_segment_max(x, np.array([0, 0, 0], np.int32), 1))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0.5, 0.5], [0.5, 0.0], [0.0, 0.5]])


def test_prod_gradient_with_zeros():
    data = np.array([[0.0, 2.0], [3.0, 0.0], [4.0, 0.0], [5.0, 6.0]])
    ids = np.array([0, 0, 1, 1], np.int32)
    ref = UNSORTED["unsorted_segment_prod"]
    check_gradient(lambda x: of.math.unsorted_segment_prod(x, ids, 2), lambda x: ref(x, ids, 2), data, RNG)


def test_bad_ids_name_the_op():
    with pytest.raises(of.errors.InvalidArgumentError, match=r"UnsortedSegmentMax: segment_ids\[1\] = 3"):
        of.math.unsorted_segment_max(np.ones((2, 2), np.float32), np.array([0, 3]), 2)


def test_same_as_tensorflow():
    tfm = pytest.importorskip("tensorflow")
    data = RNG.standard_normal((8, 2)).astype(np.float32)
    ids = np.array([1, 0, 1, 3, 3, -1, 0, 1], np.int32)
    for op in ("unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"):
        np.testing.assert_allclose(getattr(of.math, op)(data, ids, 5).numpy(),
                                   getattr(tfm.math, op)(data, ids, 5).numpy(), rtol=1e-6)
    sorted_ids = np.sort(np.abs(ids))
    for op in ("segment_max", "segment_min", "segment_prod"):
        np.testing.assert_allclose(getattr(of.math, op)(data, sorted_ids).numpy(),
                                   getattr(tfm.math, op)(data, sorted_ids).numpy(), rtol=1e-6)
