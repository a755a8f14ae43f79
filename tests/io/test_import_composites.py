"""GraphDefs holding TensorFlow ops that opforge computes from other ops (io/import_composites.py):
graphs TensorFlow writes for tf.math.cumprod, tf.roll, tf.pad(REFLECT), tf.nn.depth_to_space,
Keras's CategoryEncoding ... import, run and agree with TensorFlow; a non-constant argument the
composition needs is an error naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as otf

tf = pytest.importorskip("tensorflow")

F32 = tf.float32


def _graph(fn, *specs):
    return tf.function(fn, autograph=False).get_concrete_function(*specs).graph.as_graph_def()


def _run(graph_def, feeds):
    outs = [n.name for n in graph_def.node if n.op == "Identity"][-1:]
    with otf.Graph().as_default() as g:
        otf.import_graph_def(graph_def, name="")
        with otf.Session(graph=g) as sess:
            return sess.run(outs[0] + ":0", {f"{k}:0": v for k, v in feeds.items()})


rng = np.random.default_rng(0)
X = rng.standard_normal((2, 4, 6, 8)).astype(np.float32)
POS = rng.uniform(0.5, 2.0, (3, 5)).astype(np.float32)
INTS = rng.integers(-20, 20, (3, 5)).astype(np.int32)
NONZERO = np.where(INTS == 0, 3, INTS).astype(np.int32)

CASES = {
    "Cumprod": (lambda x: tf.math.cumprod(x, axis=2, exclusive=True, reverse=True), [X]),
    "EuclideanNorm": (lambda x: tf.math.reduce_euclidean_norm(x, axis=[1, 3], keepdims=True), [X]),
    "HistogramFixedWidth": (lambda x: tf.histogram_fixed_width(x, [-1.0, 1.0], nbins=7), [X]),
    "SegmentSum": (lambda x: tf.math.segment_sum(x, [0, 0, 1, 3]), [X[0]]),
    "SegmentMax": (lambda x: tf.math.segment_max(x, [0, 1, 1, 2]), [X[0]]),
    "SegmentMean": (lambda x: tf.math.segment_mean(x, [0, 0, 0, 2]), [X[0]]),
    "Roll": (lambda x: tf.roll(x, shift=[2, -1], axis=[1, 3]), [X]),
    "MirrorPad": (lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]], "REFLECT")
                  + tf.pad(x, [[0, 0], [2, 2], [0, 3], [0, 0]], "SYMMETRIC")[:, :7], [X]),
    "DepthToSpace": (lambda x: tf.nn.depth_to_space(x, 2), [X]),
    "SpaceToDepth": (lambda x: tf.nn.space_to_depth(x, 2), [X]),
    "BroadcastArgs": (lambda x: tf.reshape(tf.linspace(x[:, :1], x[:, 1:2], 5), [-1]), [POS]),
    "TruncateDivMod": (lambda a, b: tf.truncatediv(a, b) * 100 + tf.truncatemod(a, b), [INTS, NONZERO]),
    "XlogyDivNoNan": (lambda a, b: tf.math.xlogy(a, b) + tf.math.divide_no_nan(a, b - 1.0) + tf.math.xdivy(a, b)
                      + tf.math.xlog1py(a, b) + tf.math.multiply_no_nan(a, b), [POS - 1.0, POS]),
    "Bucketize": (lambda x: tf.raw_ops.Bucketize(input=x, boundaries=[-1.0, 0.0, 0.5, 2.0]), [X]),
    "DenseBincount": (lambda x: tf.raw_ops.DenseBincount(input=x, size=7, weights=tf.zeros([0]),
                                                         binary_output=False), [np.abs(INTS) % 9]),
    "DenseBincountWeighted": (lambda x, w: tf.raw_ops.DenseBincount(input=x, size=6, weights=w, binary_output=False),
                              [np.abs(INTS) % 8, POS]),
    "DenseBincountBinary": (lambda x: tf.raw_ops.DenseBincount(input=x[0], size=5, weights=tf.zeros([0]),
                                                               binary_output=True), [np.abs(INTS) % 7]),
    "SparseMatMul": (lambda a, b: tf.raw_ops.SparseMatMul(a=a, b=b, transpose_b=True, a_is_sparse=True), [POS, POS]),
    "ScaleAndTranslate": (lambda x: tf.image.resize(x, [3, 11], method="lanczos3")
                          + tf.image.resize(x, [3, 11], antialias=True), [X]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_imports_and_agrees_with_tensorflow(name):
    fn, args = CASES[name]
    names = [f"in{i}" for i in range(len(args))]
    specs = [tf.TensorSpec(a.shape, tf.as_dtype(a.dtype), name=n) for a, n in zip(args, names)]
    graph_def = _graph(fn, *specs)
    want = fn(*[tf.constant(a) for a in args]).numpy()
    got = _run(graph_def, dict(zip(names, args)))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def test_unknown_batch_dims():
    """The compositions take shapes known only when the graph runs (a frozen model's batch)."""
    fn = lambda x: tf.nn.depth_to_space(tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT"), 2)  # noqa: E731
    graph_def = _graph(fn, tf.TensorSpec([None, None, None, 8], F32, name="in0"))
    for batch in (1, 3):
        x = rng.standard_normal((batch, 3, 5, 8)).astype(np.float32)
        np.testing.assert_allclose(_run(graph_def, {"in0": x}), fn(tf.constant(x)).numpy(), rtol=1e-6)
    # tf.image.resize's scale is size / Shape(images)[1:3]: known where height and width are
    fn = lambda x: tf.image.resize(x, [7, 2], method="gaussian", antialias=True)  # noqa: E731
    graph_def = _graph(fn, tf.TensorSpec([None, 3, 5, 8], F32, name="in0"))
    for batch in (1, 3):
        x = rng.standard_normal((batch, 3, 5, 8)).astype(np.float32)
        np.testing.assert_allclose(_run(graph_def, {"in0": x}), fn(tf.constant(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_a_non_constant_argument_names_the_node():
    fn = lambda x, p: tf.raw_ops.MirrorPad(input=x, paddings=p, mode="REFLECT")  # noqa: E731
    graph_def = _graph(fn, tf.TensorSpec([3, 4], F32, name="in0"), tf.TensorSpec([2, 2], tf.int32, name="in1"))
    with otf.Graph().as_default():
        with pytest.raises(otf.errors.UnimplementedError, match=r"MirrorPad.*paddings to be a constant.*\[\[node"):
            otf.import_graph_def(graph_def, name="")


def test_inside_a_saved_model_function(tmp_path):
    """In a SavedModel the composed ops sit in FunctionDef bodies, whose references name their
    output argument ("node:output:0"): they load and run as from a frozen graph."""
    import opforge as of

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec((None, 5, 6), F32, name="x")])
        def serve(self, x):
            y = tf.einsum("bij,bkj->bik", x, x) + tf.roll(tf.pad(x, [[0, 0], [1, 1], [2, 2]], "REFLECT"),
                                                         2, 1)[:, :5, :5]
            return {"y": y, "c": tf.math.cumprod(x, axis=1), "z": tf.math.xlogy(x, tf.abs(x) + 1.0)}

    m = M()
    tf.saved_model.save(m, str(tmp_path), signatures=m.serve)
    xv = rng.uniform(-1, 1, (2, 5, 6)).astype(np.float32)
    want = tf.saved_model.load(str(tmp_path)).signatures["serving_default"](x=tf.constant(xv))
    got = of.saved_model.load(str(tmp_path)).signatures["serving_default"](x=xv)
    for key in ("y", "c", "z"):
        np.testing.assert_allclose(got[key], want[key].numpy(), rtol=1e-5, atol=1e-6)
