"""Array functions built from other ops (opforge/ops/manip_ops.py): sort, argsort, roll,
space_to_depth, depth_to_space, invert_permutation, batch_gather, space_to_batch,
batch_to_space, against NumPy on random data (eagerly and in a graph with unknown dims), and
against TensorFlow where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values
from opforge.ops import manip_ops as M

RNG = np.random.default_rng(325)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort(axis, direction):
    x = RNG.integers(0, 4, (3, 5, 4)).astype(np.float32)  # many ties: argsort must be stable
    sign = 1 if direction == "ASCENDING" else -1
    check_values(lambda t: M.sort(t, axis, direction), lambda v: sign * np.sort(sign * v, axis), x, exact=True)
    check_values(lambda t: M.argsort(t, axis, direction),
                 lambda v: np.argsort(sign * v, axis, kind="stable").astype(np.int32), x, exact=True)
    check_gradient(lambda t: M.sort(t, axis, direction), lambda v: sign * np.sort(sign * v, axis),
                   RNG.standard_normal((3, 5, 4)), RNG)
    with pytest.raises(ValueError, match="direction"):
        M.sort(x, direction="UP")


@pytest.mark.parametrize("shift,axis", [(2, 1), (-1, 0), ([1, -2], [0, 1]), (7, 2), ([1, 1], [1, 1])])
def test_roll(shift, axis):
    x = RNG.standard_normal((3, 4, 5))
    check_values(lambda t: M.roll(t, shift, axis), lambda v: np.roll(v, shift, axis), x, exact=True)
    check_gradient(lambda t: M.roll(t, shift, axis), lambda v: np.roll(v, shift, axis), x, RNG)
    g = of.Graph()
    with g.as_default():
        ph = of.placeholder(of.float64, [None, 4, None])
        s = of.placeholder(of.int32, [])
        out = M.roll(ph, s, 0)
    assert out.shape.as_list() == [None, 4, None]
    with of.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(out, {ph: x, s: -4}), np.roll(x, -4, 0))


def _np_space_to_depth(x, bs):
    b, h, w, c = x.shape
    return x.reshape(b, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5).reshape(b, h // bs, w // bs, -1)


@pytest.mark.parametrize("bs", [2, 3])
def test_space_to_depth_and_back(bs):
    x = RNG.standard_normal((2, 2 * bs, 3 * bs, 3))
    check_values(lambda t: M.space_to_depth(t, bs), lambda v: _np_space_to_depth(v, bs), x, exact=True)
    y = _np_space_to_depth(x, bs)
    check_values(lambda t: M.depth_to_space(t, bs), lambda v: x, y, exact=True)
    check_gradient(lambda t: M.space_to_depth(t, bs), lambda v: _np_space_to_depth(v, bs), x, RNG)
    g = of.Graph()
    with g.as_default():
        ph = of.placeholder(of.float64, [None, 2 * bs, None, 3])
        assert M.space_to_depth(ph, bs).shape.as_list() == [None, 2, None, 3 * bs * bs]
    with pytest.raises(of.errors.InvalidArgumentError, match="divisible"):
        M.space_to_depth(of.constant(np.zeros((1, 5, 4, 1))), 2)
    with pytest.raises(of.errors.InvalidArgumentError, match="divisible"):
        M.depth_to_space(of.constant(np.zeros((1, 2, 2, 3))), 2)
    with pytest.raises(of.errors.UnimplementedError, match="NHWC"):
        M.space_to_depth(of.constant(np.zeros((1, 2, 2, 4))), 2, data_format="NCHW")


def test_invert_permutation():
    for n in (0, 1, 6):
        p = RNG.permutation(n).astype(np.int32)
        check_values(M.invert_permutation, lambda v: np.argsort(v).astype(np.int32), p, exact=True)
    for bad in ([0, 0, 1], [0, 3, 1], [-1, 0, 1]):
        with pytest.raises(of.errors.InvalidArgumentError, match="permutation"):
            M.invert_permutation(of.constant(np.asarray(bad, np.int32)))


def test_batch_gather_and_square_block_space_batch():
    params = RNG.standard_normal((3, 5, 2))
    idx = RNG.integers(0, 5, (3, 4)).astype(np.int32)
    np.testing.assert_array_equal(M.batch_gather(of.constant(params), of.constant(idx)).numpy(),
                                  np.stack([params[i][idx[i]] for i in range(3)]))
    x = RNG.standard_normal((1, 4, 4, 1))
    pad = np.zeros((2, 2), np.int32)
    s2b = M.space_to_batch(of.constant(x), pad, block_size=2)
    np.testing.assert_array_equal(s2b.numpy(), of.space_to_batch_nd(x, np.array([2, 2], np.int32), pad).numpy())
    np.testing.assert_array_equal(M.batch_to_space(s2b, pad, block_size=2).numpy(), x)
    with pytest.raises(ValueError, match="both"):
        M.space_to_batch(x, pad, block_size=2, block_shape=[2, 2])


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((2, 6, 4, 8)).astype(np.float32)
    np.testing.assert_array_equal(M.space_to_depth(of.constant(x), 2).numpy(), tf.nn.space_to_depth(x, 2).numpy())
    np.testing.assert_array_equal(M.depth_to_space(of.constant(x), 2).numpy(), tf.nn.depth_to_space(x, 2).numpy())
    v = RNG.integers(0, 3, (4, 7)).astype(np.float32)
    np.testing.assert_array_equal(M.argsort(of.constant(v), stable=True).numpy(), tf.argsort(v, stable=True).numpy())
    np.testing.assert_array_equal(M.roll(of.constant(v), [2, -1], [1, 0]).numpy(),
                                  tf.roll(v, [2, -1], [1, 0]).numpy())
