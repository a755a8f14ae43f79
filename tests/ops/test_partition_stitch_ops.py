"""DynamicPartition, DynamicStitch and ParallelDynamicStitch: NumPy on random data (numbers and
strings), TensorFlow's answers where installed, float64 gradients by central differences,
partial static shapes, and each diagnostic."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from numeric_check import numeric_grad  # tests/numeric_check.py
from opforge import ops


def _stitch_reference(indices, data):
    rows = max(int(np.max(i, initial=-1)) for i in indices) + 1
    out = np.zeros((rows,) + np.shape(data[0])[np.ndim(indices[0]):], np.asarray(data[0]).dtype)
    for i, d in zip(indices, data):
        out[np.asarray(i)] = d
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bytes_])
def test_partition_then_stitch_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    data = rng.integers(0, 100, (4, 3, 2)).astype(dtype)
    parts = rng.integers(0, 3, (4, 3)).astype(np.int32)
    got = ops.dynamic_partition(data, parts, num_partitions=3)
    for i, g in enumerate(got):
        np.testing.assert_array_equal(g.numpy(), data[parts == i])
        assert g.shape.as_list() == [int(np.sum(parts == i)), 2]
    positions = [np.flatnonzero(parts.ravel() == i).astype(np.int32) for i in range(3)]
    for stitch in (ops.dynamic_stitch, ops.parallel_dynamic_stitch):
        merged = stitch(positions, [g.numpy().astype(data.dtype) for g in got]).numpy()
        np.testing.assert_array_equal(merged, data.reshape(12, 2))


def test_stitch_duplicates_gaps_and_matrix_indices():
    rng = np.random.default_rng(2)
    indices = [np.array([[0, 5], [2, 5]], np.int32), np.array([5, 1], np.int32)]
    data = [rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3))]
    got = ops.dynamic_stitch(indices, data).numpy()
    np.testing.assert_array_equal(got, _stitch_reference(indices, data))
    assert got.shape == (6, 3) and not got[3].any()  # index 3 is named by no one: zeros


def test_matches_tensorflow():
    tfx = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(5)
    data = rng.standard_normal((6, 2)).astype(np.float32)
    parts = rng.integers(0, 4, 6).astype(np.int32)
    want = tfx.dynamic_partition(data, parts, 4)
    for g, w in zip(ops.dynamic_partition(data, parts, num_partitions=4), want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    indices = [np.array([3, 0], np.int32), np.array([[1], [3]], np.int32)]
    values = [data[:2], data[2:4].reshape(2, 1, 2)]
    np.testing.assert_array_equal(ops.dynamic_stitch(indices, values).numpy(),
                                  tfx.dynamic_stitch(indices, values).numpy())


def test_gradients_float64():
    rng = np.random.default_rng(4)
    data = rng.standard_normal((5, 2))
    parts = np.array([2, 0, 2, 1, 0], np.int32)
    w = [rng.standard_normal((int(np.sum(parts == i)), 2)) for i in range(3)]
    x = of.constant(data)
    with of.GradientTape() as tape:
        tape.watch(x)
        outs = ops.dynamic_partition(x, parts, num_partitions=3)
        y = ops.add_n([ops.sum(ops.mul(o, of.constant(wi)), np.int32([0, 1])) for o, wi in zip(outs, w)])
    f = lambda v: sum(float(np.sum(v[parts == i] * w[i])) for i in range(3))  # noqa: E731
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), numeric_grad(f, data), atol=1e-7)

    indices = [np.array([0, 3], np.int32), np.array([1, 2, 3], np.int32)]
    a, b = of.constant(rng.standard_normal((2, 2))), of.constant(rng.standard_normal((3, 2)))
    wm = rng.standard_normal((4, 2))
    with of.GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        y = ops.mul(ops.dynamic_stitch(indices, [a, b]), of.constant(wm))
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), wm[[0, 3]])  # TF's rule: each duplicate gets the gradient
    fb = lambda v: float(np.sum(_stitch_reference(indices, [a.numpy(), v]) * wm))  # noqa: E731
    np.testing.assert_allclose(gb.numpy(), numeric_grad(fb, b.numpy()), atol=1e-7)


def test_static_shapes(graph):
    data = tf.placeholder(tf.float32, [None, 4, 3])
    outs = tf.dynamic_partition(data, tf.placeholder(tf.int32, [None]), 2)
    assert [o.shape.as_list() for o in outs] == [[None, 4, 3]] * 2
    outs = tf.dynamic_partition(data, tf.placeholder(tf.int32), 2)
    assert outs[0].shape.rank is None
    merged = tf.dynamic_stitch([np.array([0, 7], np.int32), tf.placeholder(tf.int32, [3])],
                               [tf.placeholder(tf.float32, [2, None]), tf.placeholder(tf.float32, [3, 5])])
    assert merged.shape.as_list() == [None, 5]
    merged = tf.dynamic_stitch([np.array([[0], [7]], np.int32)], [tf.placeholder(tf.float32, [2, 1, 3])])
    assert merged.shape.as_list() == [8, 3]
    with pytest.raises(of.InvalidArgumentError, match="DynamicPartition: data.shape and partitions.shape"):
        tf.dynamic_partition(data, tf.placeholder(tf.int32, [None, 5]), 2)
    with pytest.raises(of.InvalidArgumentError, match="DynamicStitch: data\\[i\\].shape and indices\\[i\\].shape: "
                                                      "the inner shapes"):
        tf.dynamic_stitch([np.array([0], np.int32), np.array([1], np.int32)],
                          [tf.placeholder(tf.float32, [1, 2]), tf.placeholder(tf.float32, [1, 3])])


def test_diagnostics():
    data = np.arange(6, dtype=np.float32).reshape(3, 2)
    with pytest.raises(of.InvalidArgumentError, match=r"DynamicPartition: partitions\[2\] = 3 is not in \[0, 3\)"):
        ops.dynamic_partition(data, np.array([0, 1, 3], np.int32), num_partitions=3)
    with pytest.raises(of.InvalidArgumentError, match=r"DynamicPartition: partitions\[0\] = -1"):
        ops.dynamic_partition(data, np.array([-1, 1, 0], np.int32), num_partitions=3)
    with pytest.raises(of.InvalidArgumentError, match="DynamicPartition: data.shape"):
        ops.dynamic_partition(data, np.array([0, 1], np.int32), num_partitions=2)
    with pytest.raises(of.InvalidArgumentError, match=r"DynamicStitch: indices\[1\]\[0\] = -2 is negative"):
        ops.dynamic_stitch([np.array([0], np.int32), np.array([-2], np.int32)], [data[:1], data[1:2]])
    with pytest.raises(of.InvalidArgumentError, match=r"ParallelDynamicStitch: data\[i\].shape"):
        ops.parallel_dynamic_stitch([np.array([0, 1], np.int32)], [data])
    with pytest.raises(of.InvalidArgumentError, match="DynamicPartition.*num_partitions"):
        ops.dynamic_partition(data, np.array([0, 0, 0], np.int32), num_partitions=0)
