"""Shape, Size, Rank, Reshape, ExpandDims, Squeeze and StopGradient take string tensors (as
TensorFlow's do: input pipelines reshape and measure batches of serialized records)."""

from __future__ import annotations

import numpy as np

import opforge as of

WORDS = np.array([[b"a", b"bc", b""], [b"d", b"e", b"fgh"]], dtype=object)


def test_eager():
    s = of.constant(WORDS)
    np.testing.assert_array_equal(of.shape(s).numpy(), [2, 3])
    assert int(of.size(s).numpy()) == 6 and int(of.rank(s).numpy()) == 2
    np.testing.assert_array_equal(of.reshape(s, [3, 2]).numpy(), WORDS.reshape(3, 2))
    np.testing.assert_array_equal(of.expand_dims(s, 1).numpy(), WORDS[:, None])
    np.testing.assert_array_equal(of.squeeze(of.reshape(s, [1, 6, 1])).numpy(), WORDS.reshape(6))
    np.testing.assert_array_equal(of.stop_gradient(s).numpy(), WORDS)


def test_graph_static_shapes_and_values():
    g = of.Graph()
    with g.as_default():
        p = of.placeholder(of.string, [None, 3])
        flat = of.reshape(p, [-1])
        n = of.shape(p)[0]
        assert flat.shape.as_list() == [None] and of.expand_dims(p, -1).shape.as_list() == [None, 3, 1]
        with of.Session(graph=g) as sess:
            got_flat, got_n = sess.run([flat, n], {p: WORDS})
    np.testing.assert_array_equal(got_flat, WORDS.reshape(-1))
    assert got_n == 2
