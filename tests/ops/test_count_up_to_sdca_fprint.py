"""CountUpTo (the epoch counter of limit_epochs) and SdcaFprint (FarmHash Fingerprint128 keys of
SDCA): values, TensorFlow's answers, and the diagnostics."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_count_up_to(graph, dtype):
    v = of.Variable(dtype(1), _graph=True)
    c = tf.count_up_to(v, 3)
    assert c.dtype == tf.as_dtype(dtype) and c.shape.as_list() == []
    with of.Session(graph=graph) as sess:
        with pytest.raises(of.FailedPreconditionError, match="CountUpTo.*uninitialized"):
            sess.run(c)
        sess.run(of.global_variables_initializer())
        assert [sess.run(c), sess.run(v.count_up_to(3))] == [1, 2]
        with pytest.raises(of.OutOfRangeError, match="CountUpTo: Reached limit of 3"):
            sess.run(c)
        assert sess.run(v) == 3


def test_count_up_to_needs_a_scalar_variable(graph):
    v = of.Variable(np.zeros(2, np.int64), _graph=True)
    c = ops.count_up_to(v, limit=3)
    with of.Session(graph=graph) as sess:
        sess.run(of.global_variables_initializer())
        with pytest.raises(of.InvalidArgumentError, match="CountUpTo.*not a scalar"):
            sess.run(c)
    with pytest.raises(of.InvalidArgumentError, match="CountUpTo"):
        ops.count_up_to(of.Variable(np.float32(0), _graph=True), limit=1)


# tf.raw_ops.SdcaFprint's answers (TensorFlow 2.21) for these strings.
_TF_PRINTS = {
    b"": [4463240938071824939, 4374473821787594281],
    b"a": [7969074168056553668, 5955762262185338209],
    b"hello world": [2911873174415414509, 6996746284954752264],
}


def test_sdca_fprint_values():
    got = ops.sdca_fprint(np.array(list(_TF_PRINTS), dtype=object)).numpy()
    np.testing.assert_array_equal(got, np.array(list(_TF_PRINTS.values()), np.int64))
    g = tf.Graph()
    with g.as_default():
        out = tf.train.sdca_fprint(tf.placeholder(tf.string, [None]))
        assert out.shape.as_list() == [None, 2] and out.dtype == tf.int64
    with pytest.raises(of.InvalidArgumentError, match="SdcaFprint"):
        ops.sdca_fprint(np.array([[b"a"]], dtype=object))


def test_sdca_fprint_matches_tensorflow(rng):
    real = pytest.importorskip("tensorflow")
    words = np.array([bytes(rng.integers(0, 256, rng.integers(0, 80)).astype(np.uint8)) for _ in range(40)],
                     dtype=object)
    np.testing.assert_array_equal(ops.sdca_fprint(words).numpy(), real.raw_ops.SdcaFprint(input=words).numpy())
