"""TensorList ops and the variant dtype: building, reading, writing, stacking lists eagerly and
in graphs (through loops), their gradients, and the errors of bad calls (typed, naming the op)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge import ops
from opforge.errors import InvalidArgumentError

SHAPE = np.array([2], np.int32)


def test_from_tensor_get_set_stack_length():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 2)).astype(np.float32)
    lst = ops.tensor_list_from_tensor(x, SHAPE)
    assert lst.dtype == of.variant and lst.shape == ()
    np.testing.assert_array_equal(ops.tensor_list_get_item(lst, 2, SHAPE, element_dtype=of.float32).numpy(), x[2])
    item = rng.normal(size=2).astype(np.float32)
    changed = ops.tensor_list_set_item(lst, 1, item)
    want = x.copy()
    want[1] = item
    np.testing.assert_array_equal(ops.tensor_list_stack(changed, SHAPE, element_dtype=of.float32).numpy(), want)
    # The input list is unchanged: lists are values.
    np.testing.assert_array_equal(ops.tensor_list_stack(lst, SHAPE, element_dtype=of.float32).numpy(), x)
    assert int(ops.tensor_list_length(changed)) == 4
    np.testing.assert_array_equal(ops.tensor_list_element_shape(lst, shape_type=of.int32).numpy(), [2])
    assert "variant" in repr(lst)


def test_reserve_reads_zeros_and_push_pop():
    lst = ops.tensor_list_reserve(SHAPE, 3, element_dtype=of.float64)
    np.testing.assert_array_equal(ops.tensor_list_stack(lst, SHAPE, element_dtype=of.float64).numpy(), np.zeros((3, 2)))
    empty = ops.empty_tensor_list(np.int32(-1), 2, element_dtype=of.int32)
    one = ops.tensor_list_push_back(empty, np.array([1, 2, 3], np.int32))
    two = ops.tensor_list_push_back(one, np.array([4, 5, 6], np.int32))
    rest, last = ops.tensor_list_pop_back(two, np.int32(-1), element_dtype=of.int32)
    np.testing.assert_array_equal(last.numpy(), [4, 5, 6])
    assert int(ops.tensor_list_length(rest)) == 1
    with pytest.raises(InvalidArgumentError, match="full list"):
        ops.tensor_list_push_back(two, np.array([7, 8, 9], np.int32))


def test_bad_calls_name_the_op():
    lst = ops.tensor_list_from_tensor(np.zeros((2, 2), np.float32), SHAPE)
    with pytest.raises(InvalidArgumentError, match=r"TensorListGetItem.*element 5 in a list with 2"):
        ops.tensor_list_get_item(lst, 5, SHAPE, element_dtype=of.float32)
    with pytest.raises(InvalidArgumentError, match=r"TensorListGetItem.*op elements int32 but list elements float32"):
        ops.tensor_list_get_item(lst, 0, SHAPE, element_dtype=of.int32)
    with pytest.raises(InvalidArgumentError, match=r"TensorListSetItem.*incompatible shape"):
        ops.tensor_list_set_item(lst, 0, np.zeros(3, np.float32))
    with pytest.raises(InvalidArgumentError, match=r"TensorListPopBack.*empty list"):
        ops.tensor_list_pop_back(ops.empty_tensor_list(SHAPE, -1, element_dtype=of.float32), SHAPE,
                                 element_dtype=of.float32)
    with pytest.raises(InvalidArgumentError, match=r"TensorListReserve.*non negative"):
        ops.tensor_list_reserve(SHAPE, -1, element_dtype=of.float32)
    with pytest.raises(InvalidArgumentError, match=r"TensorListStack.*not fully defined|non-fully-defined"):
        ops.tensor_list_stack(ops.tensor_list_reserve(np.int32(-1), 2, element_dtype=of.float32), np.int32(-1),
                              element_dtype=of.float32)
    with pytest.raises(InvalidArgumentError, match=r"TensorListFromTensor"):
        ops.tensor_list_from_tensor(np.zeros((2, 3), np.float32), SHAPE)
    with pytest.raises(TypeError, match="variant"):
        lst.numpy()


def test_lists_through_a_loop_with_gradients():
    rng = np.random.default_rng(1)
    xv = rng.normal(size=(5, 3))
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [5, 3])
        src = ops.tensor_list_from_tensor(x, np.array([3], np.int32))
        dst = ops.tensor_list_reserve(np.array([3], np.int32), 5, element_dtype=of.float64)

        def body(t, acc, out):
            v = ops.tensor_list_get_item(src, t, np.array([3], np.int32), element_dtype=of.float64)
            acc = acc * 0.5 + of.sin(v)
            return t + 1, acc, ops.tensor_list_set_item(out, t, acc)

        _, _, dst = of.while_loop(lambda t, a, o: t < 5, body, [0, of.zeros([3], of.float64), dst])
        y = ops.tensor_list_stack(dst, np.array([3], np.int32), element_dtype=of.float64)
        # The list is a loop invariant: its gradient (a list) is summed over the iterations.
        (gx_list,) = of.gradients(of.reduce_sum(y * y), [x])
        # Read with GatherV2 instead, the same gradient flows.
        dst2 = ops.tensor_list_reserve(np.array([3], np.int32), 5, element_dtype=of.float64)

        def body2(t, acc, out):
            acc = acc * 0.5 + of.sin(ops.gather_v2(x, t, 0))
            return t + 1, acc, ops.tensor_list_set_item(out, t, acc)

        _, _, dst2 = of.while_loop(lambda t, a, o: t < 5, body2, [0, of.zeros([3], of.float64), dst2])
        y2 = ops.tensor_list_stack(dst2, np.array([3], np.int32), element_dtype=of.float64)
        (gx,) = of.gradients(of.reduce_sum(y2 * y2), [x])
    s = tf1.Session(graph=g)

    def f(xx):
        acc, total = np.zeros(3), 0.0
        for t in range(5):
            acc = acc * 0.5 + np.sin(xx[t])
            total += (acc * acc).sum()
        return total

    got_y, got_g, got_g_list = s.run([y, gx, gx_list], {x: xv})
    acc, rows = np.zeros(3), []
    for t in range(5):
        acc = acc * 0.5 + np.sin(xv[t])
        rows.append(acc)
    np.testing.assert_allclose(got_y, np.stack(rows), atol=1e-12)
    eps, num = 1e-6, np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        e = np.zeros_like(xv)
        e[i] = eps
        num[i] = (f(xv + e) - f(xv - e)) / (2 * eps)
    np.testing.assert_allclose(got_g, num, atol=1e-7)
    np.testing.assert_allclose(got_g_list, num, atol=1e-7)


def test_a_list_read_twice_in_a_graph_is_never_changed_under_a_reader():
    """Push and pop reuse a list the executor holds alone; a list with another reader is copied."""
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [3, 2])
        base = ops.tensor_list_from_tensor(x, SHAPE)
        pushed = ops.tensor_list_push_back(base, np.ones(2, np.float32))
        rest, last = ops.tensor_list_pop_back(base, SHAPE, element_dtype=of.float32)
        n_base = ops.tensor_list_length(base)
        n_pushed = ops.tensor_list_length(pushed)
        n_rest = ops.tensor_list_length(rest)
        stacked = ops.tensor_list_stack(base, SHAPE, element_dtype=of.float32)
    xv = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = tf1.Session(graph=g).run([n_base, n_pushed, n_rest, last, stacked], {x: xv})
    assert got[:3] == [3, 4, 2]
    np.testing.assert_array_equal(got[3], xv[2])
    np.testing.assert_array_equal(got[4], xv)
