"""tf.pad with mode REFLECT / SYMMETRIC (TensorFlow's MirrorPad), built from slices, reversals and
concatenations: values against NumPy's np.pad, the gradient against the padding's adjoint, static
shapes for partly known inputs, and the errors for paddings too large or not constant."""
import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError, UnimplementedError

RNG = np.random.RandomState(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)


@pytest.mark.parametrize("mode, pads", [
    ("REFLECT", [[1, 1], [2, 1], [1, 3]]),
    ("SYMMETRIC", [[0, 2], [3, 1], [4, 0]]),
    ("reflect", [[0, 0], [0, 2], [0, 0]]),
])
def test_values_match_numpy(mode, pads):
    np_mode = "reflect" if mode.upper() == "REFLECT" else "symmetric"
    np.testing.assert_array_equal(of.pad(X, pads, mode=mode).numpy(), np.pad(X, pads, mode=np_mode))


def test_gradient_is_the_adjoint_and_shapes_propagate():
    pads = [[0, 0], [1, 2], [2, 2]]
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float64, [None, 3, 4])
        y = tf1.pad(x, pads, "SYMMETRIC")
        assert y.shape.as_list() == [None, 6, 8]
        w = RNG.standard_normal((2, 6, 8))
        (g,) = tf1.gradients(tf1.reduce_sum(y * w), [x])
        with tf1.Session() as sess:
            got = sess.run(g, {x: X.astype(np.float64)})
    # The adjoint of padding: each output weight flows back to the input element it copies.
    index = np.pad(np.arange(X.size).reshape(X.shape), pads, mode="symmetric")
    expected = np.bincount(index.ravel(), weights=w.ravel(), minlength=X.size).reshape(X.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_errors():
    with pytest.raises(InvalidArgumentError, match="REFLECT paddings must be at most 2 on dimension 1"):
        of.pad(X, [[0, 0], [3, 0], [0, 0]], mode="REFLECT")
    with pytest.raises(InvalidArgumentError, match="paddings has 2 rows for an input of rank 3"):
        of.pad(X, [[0, 0], [1, 0]], mode="SYMMETRIC")
    with pytest.raises(InvalidArgumentError, match="mode must be CONSTANT, REFLECT or SYMMETRIC"):
        of.pad(X, [[0, 0]] * 3, mode="WRAP")
    with tf1.Graph().as_default():
        with pytest.raises(UnimplementedError, match="needs constant paddings"):
            tf1.pad(tf1.ones([2, 2]), tf1.placeholder(tf1.int32, [2, 2]), "REFLECT")


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    pads = [[1, 0], [2, 2], [0, 3]]
    for mode in ("REFLECT", "SYMMETRIC"):
        np.testing.assert_array_equal(of.pad(X, pads, mode=mode).numpy(), tf.pad(X, pads, mode=mode).numpy())
