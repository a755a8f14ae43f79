"""of.nn functions that compat.v1.nn used to implement (silu/swish, conv2d_backprop_filter)
against NumPy references, and tf.compat.v1.nn's TF1 spellings over of.nn (filter=/filters=,
dim=, rate=, value=/input=, keep_prob=, _sentinel): each maps to the of.nn call it names."""

import numpy as np
import pytest

import nn_reference
import opforge as of
import opforge.compat.v1 as tf1
from composite_check import check_gradient, check_values


@pytest.fixture
def rng():
    return np.random.default_rng(2037)


def _v1(build):
    with tf1.Graph().as_default(), tf1.Session() as sess:
        return sess.run(build())


@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_silu(rng, beta):
    x = rng.standard_normal((3, 5)) * 4
    ref = lambda a: a / (1 + np.exp(-beta * a))  # noqa: E731
    check_values(lambda t: of.nn.silu(t, beta), ref, x, rtol=1e-12)
    check_gradient(lambda t: of.nn.silu(t, beta), ref, x, rng)
    assert of.nn.swish is of.nn.silu
    np.testing.assert_allclose(_v1(lambda: tf1.nn.swish(x)), x / (1 + np.exp(-x)), rtol=1e-12)


@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [1, 0], [2, 1], [0, 0]]])
@pytest.mark.parametrize("strides,dilations", [(1, 1), (2, 1), (1, 2)])
def test_conv2d_backprop_filter(rng, padding, strides, dilations):
    x = rng.standard_normal((2, 7, 8, 3))
    sizes = np.array([3, 2, 3, 4], np.int32)
    dy_shape = of.nn.conv2d(x, np.zeros((3, 2, 3, 4)), strides, padding, dilations=dilations).shape
    dy = rng.standard_normal(tuple(dy_shape))
    pad, explicit = (padding, ()) if isinstance(padding, str) else ("EXPLICIT", sum(padding, []))
    s4, d4 = [1, strides, strides, 1], [1, dilations, dilations, 1]
    want = nn_reference.conv2d_backprop_filter(x, sizes, dy, s4, pad, explicit, "NHWC", d4)
    got = of.nn.conv2d_backprop_filter(x, sizes, dy, strides, padding, dilations=dilations)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_v1(lambda: tf1.nn.conv2d_backprop_filter(x, sizes, dy, s4, padding, dilations=d4)),
                               want, rtol=1e-10, atol=1e-12)
    want_dx = nn_reference.conv2d_backprop_input(np.array(x.shape, np.int32), want * 0 + 1, dy, s4, pad, explicit,
                                                 "NHWC", d4)
    np.testing.assert_allclose(
        _v1(lambda: tf1.nn.conv2d_backprop_input(x.shape, filter=np.ones((3, 2, 3, 4)), out_backprop=dy,
                                                 strides=s4, padding=padding, dilations=d4)), want_dx, rtol=1e-10)


def test_v1_nn_argument_spellings(rng):
    x = rng.standard_normal((1, 5, 5, 2))
    w = rng.standard_normal((3, 3, 2, 3))
    want = of.nn.conv2d(x, w, 1, "SAME").numpy()
    np.testing.assert_allclose(_v1(lambda: tf1.nn.conv2d(x, filter=w, strides=[1, 1, 1, 1], padding="SAME")), want)
    np.testing.assert_allclose(_v1(lambda: tf1.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1], padding="SAME")), want)
    with pytest.raises(ValueError, match="Cannot specify both 'filters' and 'filter'"):
        tf1.nn.conv2d(x, filter=w, filters=w, strides=1, padding="SAME")
    np.testing.assert_allclose(_v1(lambda: tf1.nn.max_pool(value=x, ksize=2, strides=2, padding="VALID")),
                               _v1(lambda: tf1.nn.max_pool(input=x, ksize=2, strides=2, padding="VALID")))
    np.testing.assert_allclose(_v1(lambda: tf1.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")),
                               of.nn.avg_pool2d(x, 2, 1, "VALID").numpy())
    dw = rng.standard_normal((3, 3, 2, 1))
    np.testing.assert_allclose(_v1(lambda: tf1.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME", rate=[2, 2])),
                               of.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME", dilations=[2, 2]).numpy())
    logits = rng.standard_normal((4, 3))
    np.testing.assert_allclose(_v1(lambda: tf1.nn.softmax(logits, dim=0)), nn_reference.softmax(logits.T).T, rtol=1e-12)
    np.testing.assert_allclose(_v1(lambda: tf1.nn.log_softmax(logits, axis=1)), nn_reference.log_softmax(logits),
                               rtol=1e-12)
    labels = np.eye(3)[[0, 2, 1, 1]]
    want_xent = nn_reference.softmax_cross_entropy_with_logits(logits, labels)[0]
    np.testing.assert_allclose(_v1(lambda: tf1.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)),
                               want_xent, rtol=1e-12)
    np.testing.assert_allclose(_v1(lambda: tf1.nn.softmax_cross_entropy_with_logits_v2(labels, logits, dim=-1)),
                               want_xent, rtol=1e-12)
    np.testing.assert_allclose(
        _v1(lambda: tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, 2, 1, 1]), logits=logits)),
        want_xent, rtol=1e-12)
    with pytest.raises(of.errors.InvalidArgumentError, match="takes keyword arguments"):
        tf1.nn.softmax_cross_entropy_with_logits(labels, logits)
    with pytest.raises(of.errors.InvalidArgumentError, match="takes keyword arguments"):
        tf1.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)


def test_v1_dropout_keep_prob(rng):
    x = np.ones((200, 50), np.float32)
    y = _v1(lambda: tf1.nn.dropout(x, keep_prob=0.75, seed=3))
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.70 < np.mean(y != 0) < 0.80
    np.testing.assert_array_equal(_v1(lambda: tf1.nn.dropout(x, rate=0.0)), x)
    with pytest.raises(ValueError, match="Cannot specify both 'rate' and 'keep_prob'"):
        tf1.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match=r"keep_prob must be a scalar tensor or a float in the range \(0, 1\]"):
        tf1.nn.dropout(x, keep_prob=0.0)
    with pytest.raises(ValueError, match="give rate"):
        tf1.nn.dropout(x)


def test_softmax_cross_entropy_casts_labels_to_the_logits_dtype():
    """float64 one-hot labels (NumPy's default) with float32 logits: TensorFlow casts the labels."""
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((4, 3)).astype(np.float32)
    labels = np.eye(3)[[0, 2, 1, 1]]  # float64
    got = of.nn.softmax_cross_entropy_with_logits(labels=labels, logits=of.constant(logits))
    assert got.dtype == of.float32
    shifted = logits - logits.max(1, keepdims=True)
    want = -(labels * (shifted - np.log(np.exp(shifted).sum(1, keepdims=True)))).sum(1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
