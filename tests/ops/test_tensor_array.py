"""TensorArray (tf.TensorArray on TensorList ops) eagerly (a value: write gives a new array),
and the errors of bad calls (typed, naming the op). Graph mode, TensorFlow's own programs and
GraphDef import are in test_tensor_array_graph.py."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge import ops
from opforge.errors import InvalidArgumentError

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.nn.rnn_cell needs Keras 2


# ---------------------------------------------------------------------------- eager


def test_eager_write_read_stack_and_value_semantics():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    ta = of.TensorArray(of.float32, size=4)
    assert ta.dtype == of.float32 and not ta.dynamic_size and ta.element_shape.rank is None
    assert "TensorArray" in repr(ta)
    ta1 = ta.write(1, x[0])
    ta2 = ta1.write(3, x[2]).write(np.int64(0), x[1])  # an int64 index is taken too
    np.testing.assert_array_equal(ta2.read(1).numpy(), x[0])
    np.testing.assert_array_equal(ta2.read(np.int64(3)).numpy(), x[2])
    want = np.zeros((4, 3), np.float32)
    want[[1, 3, 0]] = x[[0, 2, 1]]
    np.testing.assert_array_equal(ta2.stack().numpy(), want)  # unwritten elements read as zeros
    # A TensorArray is a value: the arrays written from are unchanged.
    np.testing.assert_array_equal(ta.stack().numpy(), np.zeros((4, 3), np.float32))
    only = np.zeros((4, 3), np.float32)
    only[1] = x[0]
    np.testing.assert_array_equal(ta1.stack().numpy(), only)
    # Overwriting an element is allowed (a new value) and leaves the old array alone.
    ta3 = ta2.write(1, x[3])
    np.testing.assert_array_equal(ta3.read(1).numpy(), x[3])
    np.testing.assert_array_equal(ta2.read(1).numpy(), x[0])
    assert int(ta3.size()) == 4
    assert ta3.flow.dtype == of.variant and ta3.handle is ta3.flow
    # identity keeps the contents; close is nothing eagerly.
    np.testing.assert_array_equal(ta3.identity().stack().numpy(), ta3.stack().numpy())
    assert ta3.close() is None
    # Integer arrays.
    iv = rng.integers(-50, 50, size=(3, 2)).astype(np.int32)
    ti = of.TensorArray(of.int32, size=3).write(2, iv[0]).write(0, iv[2])
    np.testing.assert_array_equal(ti.stack().numpy(), np.stack([iv[2], np.zeros(2, np.int32), iv[0]]))


def test_eager_unstack_read_gather_size():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 2, 3)).astype(np.float32)
    ta = of.TensorArray(of.float32, size=5).unstack(x)
    assert int(ta.size()) == 5
    assert ta.element_shape.as_list() == [2, 3]
    for i in range(5):
        np.testing.assert_array_equal(ta.read(i).numpy(), x[i])
    idx = np.array([4, 0, 2, 2, 1], np.int32)
    np.testing.assert_array_equal(ta.gather(idx).numpy(), x[idx])
    np.testing.assert_array_equal(ta.stack().numpy(), x)
    # Written after unstack: the list itself is read (not the unstacked tensor).
    v = rng.normal(size=(2, 3)).astype(np.float32)
    tw = ta.write(3, v)
    want = x.copy()
    want[3] = v
    np.testing.assert_array_equal(tw.stack().numpy(), want)
    np.testing.assert_array_equal(tw.gather([3, 4]).numpy(), want[[3, 4]])
    np.testing.assert_array_equal(tw.read(3).numpy(), v)
    np.testing.assert_array_equal(ta.read(3).numpy(), x[3])


def test_eager_scatter():
    rng = np.random.default_rng(2)
    v = rng.normal(size=(3, 4)).astype(np.float64)
    first = rng.normal(size=4)
    base = of.TensorArray(of.float64, size=6).write(5, first)
    ta = base.scatter(np.array([4, 0, 2], np.int32), v)
    want = np.zeros((6, 4))
    want[5] = first
    want[[4, 0, 2]] = v
    np.testing.assert_array_equal(ta.stack().numpy(), want)
    np.testing.assert_array_equal(ta.gather([2, 5]).numpy(), want[[2, 5]])
    assert int(ta.size()) == 6
    # The array scattered into is unchanged.
    np.testing.assert_array_equal(base.read(4).numpy(), np.zeros(4))
    # Scattering over elements already written replaces them.
    w = rng.normal(size=(2, 4))
    again = ta.scatter([5, 4], w)
    want[[5, 4]] = w
    np.testing.assert_array_equal(again.stack().numpy(), want)


def test_eager_split_concat_unequal_lengths():
    rng = np.random.default_rng(3)
    v = rng.normal(size=(9, 2)).astype(np.float32)
    lengths = [2, 0, 4, 3]
    ta = of.TensorArray(of.float32, size=4).split(v, lengths)
    assert int(ta.size()) == 4
    assert ta.element_shape.as_list() == [None, 2]
    offsets = np.cumsum([0] + lengths)
    for i, n in enumerate(lengths):
        got = ta.read(i).numpy()
        assert got.shape == (n, 2)
        np.testing.assert_array_equal(got, v[offsets[i]:offsets[i + 1]])
    np.testing.assert_array_equal(ta.concat().numpy(), v)
    # Writing a longer element changes the concatenation.
    w = rng.normal(size=(5, 2)).astype(np.float32)
    tw = ta.write(1, w)
    np.testing.assert_array_equal(tw.concat().numpy(), np.concatenate([v[:2], w, v[2:]]))
    np.testing.assert_array_equal(ta.concat().numpy(), v)
    # Lengths as an int64 array work too.
    t64 = of.TensorArray(of.float32, size=2).split(v, np.array([7, 2], np.int64))
    np.testing.assert_array_equal(t64.read(1).numpy(), v[7:])


def test_eager_dynamic_size_growth():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    ta = of.TensorArray(of.float32, size=0, dynamic_size=True)
    assert ta.dynamic_size and int(ta.size()) == 0
    for i in range(3):
        ta = ta.write(i, x[i])
        assert int(ta.size()) == i + 1
    np.testing.assert_array_equal(ta.stack().numpy(), x[:3])
    # A write far past the end grows the array, with zeros between.
    grown = ta.write(6, x[3])
    assert int(grown.size()) == 7
    want = np.zeros((7, 3), np.float32)
    want[:3] = x[:3]
    want[6] = x[3]
    np.testing.assert_array_equal(grown.stack().numpy(), want)
    assert int(ta.size()) == 3
    # dynamic_size without a size starts empty.
    empty = of.TensorArray(of.float32, dynamic_size=True)
    assert int(empty.size()) == 0
    np.testing.assert_array_equal(empty.write(1, x[0]).read(1).numpy(), x[0])


def test_element_shape_inference():
    rng = np.random.default_rng(5)
    ta = of.TensorArray(of.float32, size=3)
    assert ta.element_shape.rank is None
    ta.write(0, rng.normal(size=(2, 5)).astype(np.float32))
    assert ta.element_shape.as_list() == [2, 5]  # the first write fixes it (TF1's rule)
    given = of.TensorArray(of.float32, size=3, element_shape=[None, 4])
    assert given.element_shape.as_list() == [None, 4]
    w = given.write(1, rng.normal(size=(3, 4)).astype(np.float32))
    assert w.element_shape.as_list() == [3, 4]
    sp = of.TensorArray(of.float32, size=2).split(rng.normal(size=(5, 3)).astype(np.float32), [2, 3])
    assert sp.element_shape.as_list() == [None, 3]
    # infer_shape=False: elements of any shape.
    free = of.TensorArray(of.float32, size=2, infer_shape=False)
    a = rng.normal(size=3).astype(np.float32)
    b = rng.normal(size=(2, 2)).astype(np.float32)
    free = free.write(0, a).write(1, b)
    assert free.element_shape.rank is None
    np.testing.assert_array_equal(free.read(0).numpy(), a)
    np.testing.assert_array_equal(free.read(1).numpy(), b)
    # An empty array of known element shape stacks to (0, ...).
    e = of.TensorArray(of.float32, size=0, element_shape=[3])
    assert e.stack().numpy().shape == (0, 3)
    # In a graph, reads and stacks get the static shape.
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [None, 2, 3])
        ta = tf1.TensorArray(of.float32, size=of.shape(x)[0]).unstack(x)
        assert ta.read(0).shape.as_list() == [2, 3]
        out = tf1.TensorArray(of.float32, size=4).write(0, tf1.placeholder(of.float32, [None, 7]))
        assert out.read(1).shape.as_list() == [None, 7]
        assert out.stack().shape.as_list() == [4, None, 7]  # a constant size is the first dim (TF's too)


def test_eager_while_loop_and_cond_carry_tensor_array():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, 3))
    src = of.TensorArray(of.float64, size=5).unstack(x)

    def body(t, acc, out):
        acc = acc * 0.5 + src.read(t)
        return t + 1, acc, out.write(t, acc * acc)

    _, _, out = of.while_loop(lambda t, a, o: t < 5, body, [0, of.zeros([3], of.float64),
                                                             of.TensorArray(of.float64, size=5)])
    assert isinstance(out, of.TensorArray)
    acc, rows = np.zeros(3), []
    for t in range(5):
        acc = acc * 0.5 + x[t]
        rows.append(acc * acc)
    np.testing.assert_allclose(out.stack().numpy(), np.stack(rows), rtol=1e-12)
    for p, want_row, idx in ((True, x[3] * 2.0, 0), (False, -x[1], 2)):
        r = of.cond(of.constant(p), lambda: src.write(0, src.read(3) * 2.0), lambda: src.write(2, -src.read(1)))
        assert isinstance(r, of.TensorArray)
        want = x.copy()
        want[idx] = want_row
        np.testing.assert_allclose(r.stack().numpy(), want, rtol=1e-12)


# ---------------------------------------------------------------------------- errors


def test_errors_eager():
    rng = np.random.default_rng(17)
    x = rng.normal(size=(3, 2)).astype(np.float32)
    ta = of.TensorArray(of.float32, size=3).unstack(x)
    written = of.TensorArray(of.float32, size=3).write(0, x[0])
    with pytest.raises(InvalidArgumentError, match=r"TensorListGetItem.*element 3 in a list with 3"):
        written.read(3)
    with pytest.raises(InvalidArgumentError):
        ta.read(5)
    with pytest.raises(InvalidArgumentError, match=r"TensorListSetItem.*element 4 in a list with 3"):
        written.write(4, x[1])
    with pytest.raises(TypeError, match="float32.*int32"):
        written.write(1, of.constant(np.array([1, 2], np.int32)))
    with pytest.raises(TypeError, match="float64"):
        written.write(1, of.constant(x[1].astype(np.float64)))
    with pytest.raises(TypeError, match="index must be int32"):
        written.read(np.float32(1))
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        written.write(1, x[:2])
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        of.TensorArray(of.float32, size=2, element_shape=[3]).unstack(x)
    with pytest.raises(ValueError, match="size must be provided"):
        of.TensorArray(of.float32)
    with pytest.raises(ValueError, match="scalar"):
        of.TensorArray(of.float32, size=2).unstack(np.float32(1.0))
    with pytest.raises(TypeError, match="variant"):
        of.TensorArray(of.float32, flow=of.constant(1.0))
    # TensorListSplit: lengths must sum to the rows.
    v = rng.normal(size=(6, 2)).astype(np.float32)
    with pytest.raises(InvalidArgumentError, match="TensorListSplit"):
        of.TensorArray(of.float32, size=2).split(v, [1, 3])
    with pytest.raises(InvalidArgumentError, match="TensorListSplit"):
        ops.tensor_list_split(v, np.array([-1, 2], np.int64), np.array([4, 3], np.int64))
    # TensorListGather: an index out of range.
    lst = ops.tensor_list_from_tensor(v, np.array([2], np.int32))
    with pytest.raises(InvalidArgumentError, match=r"TensorListGather.*element 7 in a list with 6"):
        ops.tensor_list_gather(lst, np.array([0, 7], np.int32), np.array([2], np.int32), element_dtype=of.float32)
    with pytest.raises(InvalidArgumentError, match="TensorListGather"):
        written.gather([1, 9])


def test_errors_in_session_name_the_node():
    rng = np.random.default_rng(18)
    g = of.Graph()
    with g.as_default():
        i = tf1.placeholder(of.int32, [])
        v = of.constant(rng.normal(size=2).astype(np.float32))
        ta = tf1.TensorArray(of.float32, size=2).write(0, v)
        r = ta.read(i, name="my_read")
        w = ta.write(i, v, name="my_write").stack()
        lengths = tf1.placeholder(of.int64, [None])
        sp = tf1.TensorArray(of.float32, size=2).split(of.constant(rng.normal(size=(5, 2)).astype(np.float32)),
                                                       lengths, name="my_split").concat()
    s = tf1.Session(graph=g)
    np.testing.assert_array_equal(s.run(r, {i: 0}), s.run(v))
    with pytest.raises(InvalidArgumentError, match=r"TensorListGetItem.*my_read"):
        s.run(r, {i: 2})
    with pytest.raises(InvalidArgumentError, match=r"TensorListSetItem.*my_write"):
        s.run(w, {i: 3})
    with pytest.raises(InvalidArgumentError, match=r"TensorListSplit.*my_split"):
        s.run(sp, {lengths: [2, 2]})
    assert s.run(sp, {lengths: [2, 3]}).shape == (5, 2)


def test_scatter_v2_repeated_indices_value_and_gradient():
    """TensorListScatterV2 (a new list from rows): the last row written to an element wins, and
    only that row gets the element's gradient."""
    rng = np.random.default_rng(21)
    w = rng.normal(size=(4, 2))
    zv = rng.normal(size=(3, 2))
    g = of.Graph()
    with g.as_default():
        z = tf1.placeholder(of.float64, [3, 2])
        lst = of.ops.tensor_list_scatter_v2(z, np.array([3, 0, 3], np.int32), np.array([2], np.int32), np.int32(4))
        st = of.ops.tensor_list_stack(lst, np.array([2], np.int32), element_dtype=of.float64)
        (gz,) = tf1.gradients(of.reduce_sum(st * w), [z])
    got_st, got_gz = tf1.Session(graph=g).run([st, gz], {z: zv})
    np.testing.assert_array_equal(got_st, np.stack([zv[1], np.zeros(2), np.zeros(2), zv[2]]))
    np.testing.assert_allclose(got_gz, np.stack([np.zeros(2), w[0], w[3]]), rtol=1e-12)
