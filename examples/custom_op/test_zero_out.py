"""Tests of the ZeroOut op library: build it first (see CMakeLists.txt), then
`python -m pytest examples/custom_op` (or set OPFORGE_OP_LIBRARY to the built zero_out.so)."""

import os

import numpy as np
import pytest

import opforge as of

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.environ.get("OPFORGE_OP_LIBRARY") or os.path.join(HERE, "build", "zero_out.so")
zero_out = of.load_op_library(LIBRARY).zero_out


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_keeps_the_first_element(dtype):
    x = np.array([[4, 3], [2, 1]], dtype)
    np.testing.assert_array_equal(zero_out(x).numpy(), [[4, 0], [0, 0]])


def test_gradient_keeps_the_first_element():
    x = of.constant([1.0, 2.0, 3.0])
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(zero_out(x) * 10.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [10.0, 0.0, 0.0])


def test_in_a_graph():
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.int32, [None])
        y = zero_out(x)
    with of.Session(graph=g) as sess:
        assert sess.run(y, {x: [7, 8, 9]}).tolist() == [7, 0, 0]


def test_other_dtypes_are_refused():
    with pytest.raises(of.InvalidArgumentError, match="ZeroOut"):
        zero_out(np.array([1, 2], np.int64))
