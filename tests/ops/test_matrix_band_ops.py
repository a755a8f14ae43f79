"""The band-diagonal matrix ops (opdefs/linalg/matrix_*: MatrixDiag*, MatrixDiagPart*,
MatrixSetDiag* in TensorFlow's three versions, MatrixBandPart) against the NumPy references
(matrix_reference.py) on random data of every dtype family, with bands, alignments, batches
and empty matrices; in graphs whose shapes are unknown until run; float64 gradients; the errors;
TensorFlow's raw ops where installed; and a frozen TensorFlow graph using them imported whole."""

from __future__ import annotations

import numpy as np
import pytest

import matrix_reference as ref
import opforge as of
import opforge.compat.v1 as tf
from composite_check import check_gradient
from opforge import ops
from opforge.framework.errors import InvalidArgumentError

ALIGNS = ["LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT"]
BANDS = [0, 2, -1, (0, 0), (-1, 2), (-3, 1), (1, 3), (-2, -1)]
DTYPES = [np.float32, np.float64, np.int32, np.int8, np.complex64, np.bool_]


def _random(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _pad(dtype):
    return np.asarray(True if dtype == np.bool_ else 7, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 6), (2, 1, 5, 3), (0, 3, 3)])
def test_diag_part_diag_set_diag(dtype, shape):
    rng = np.random.default_rng(hash((np.dtype(dtype).name, shape)) % 2**32)
    x = _random(rng, shape, dtype)
    rows, cols = shape[-2:]
    for k in BANDS:
        lo, hi = ref._band(k)
        if any(d != 0 and not -rows < d < cols for d in (lo, hi)):
            continue
        kk = np.asarray(k, np.int32)
        for align in ALIGNS:
            part = ops.matrix_diag_part_v3(x, kk, _pad(dtype), align=align).numpy()
            np.testing.assert_array_equal(part, ref.diag_part(x, k, _pad(dtype), align))
            new = _random(rng, part.shape, dtype)
            np.testing.assert_array_equal(ops.matrix_set_diag_v3(x, new, kk, align=align).numpy(),
                                          ref.set_diag(x, new, k, align))
            made = ops.matrix_diag_v3(new, kk, np.int32(rows), np.int32(cols), _pad(dtype), align=align).numpy()
            np.testing.assert_array_equal(made, ref.diag(new, k, rows, cols, _pad(dtype), align))
        # V2: LEFT_LEFT, V1: the main diagonal
        np.testing.assert_array_equal(ops.matrix_diag_part_v2(x, kk, _pad(dtype)).numpy(),
                                      ref.diag_part(x, k, _pad(dtype), "LEFT_LEFT"))
    np.testing.assert_array_equal(ops.matrix_diag_part(x).numpy(), ref.diag_part(x, 0, 0, "LEFT_LEFT"))
    d = _random(rng, shape[:-2] + (min(rows, cols),), dtype)
    np.testing.assert_array_equal(ops.matrix_set_diag(x, d).numpy(), ref.set_diag(x, d, 0, "LEFT_LEFT"))
    np.testing.assert_array_equal(ops.matrix_diag(d).numpy(), ref.diag(d, 0, -1, -1, 0, "LEFT_LEFT"))


@pytest.mark.parametrize("k,num_rows,num_cols", [(0, -1, -1), (2, -1, -1), (-1, 5, -1), ((-1, 1), -1, 6),
                                                  ((0, 2), -1, 7), ((-2, 0), -1, -1)])
def test_diag_sizes_inferred(k, num_rows, num_cols):
    lo, hi = ref._band(k)
    rng = np.random.default_rng(3)
    d = rng.standard_normal((2, hi - lo + 1, 4) if lo < hi else (2, 4))
    got = ops.matrix_diag_v3(d, np.asarray(k, np.int32), np.int32(num_rows), np.int32(num_cols), np.float64(-1),
                             align="RIGHT_LEFT").numpy()
    np.testing.assert_array_equal(got, ref.diag(d, k, num_rows, num_cols, -1.0, "RIGHT_LEFT"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower,upper", [(0, -1), (-1, 0), (0, 0), (1, 2), (-1, -1), (3, 0), (4, 6)])
def test_band_part(dtype, lower, upper):
    rng = np.random.default_rng(5)
    x = _random(rng, (2, 4, 6), dtype)
    for index in (np.int64, np.int32):
        got = ops.matrix_band_part(x, index(lower), index(upper)).numpy()
        np.testing.assert_array_equal(got, ref.band_part(x, lower, upper))
    np.testing.assert_array_equal(of.linalg.band_part(x, lower, upper).numpy(), ref.band_part(x, lower, upper))


def test_large_batches_parallel():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((300, 40, 30)).astype(np.float32)
    np.testing.assert_array_equal(of.linalg.band_part(x, 3, 5).numpy(), ref.band_part(x, 3, 5))
    part = of.linalg.diag_part(x, k=(-4, 7), align="LEFT_RIGHT").numpy()
    np.testing.assert_array_equal(part, ref.diag_part(x, (-4, 7), 0, "LEFT_RIGHT"))
    np.testing.assert_array_equal(of.linalg.set_diag(x, part, k=(-4, 7), align="LEFT_RIGHT").numpy(), x)


def test_unknown_shapes_in_a_graph():
    """Shapes and k known only when the graph runs (the corpus program that needed it:
    nfmcclure's k-NN takes matrix_diag_part of a [None, None] distance matrix)."""
    rng = np.random.default_rng(9)
    xv = rng.standard_normal((2, 3, 5)).astype(np.float32)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, None, None])
        k = tf.placeholder(tf.int32, [2])
        lower = tf.placeholder(tf.int64, [])
        part = tf.matrix_diag_part(x)
        band = tf.linalg.diag_part(x, k=k, padding_value=9.0)
        back = tf.linalg.set_diag(x, band, k=k)
        made = tf.matrix_diag(part)
        bp = tf.matrix_band_part(x, lower, 0)
        assert part.shape.as_list() == [None, None] and band.shape.rank is None
        assert made.shape.as_list() == [None, None, None]
        with tf.Session(graph=g) as sess:
            got = sess.run([part, band, back, made, bp], {x: xv, k: [-1, 2], lower: 1})
    np.testing.assert_array_equal(got[0], ref.diag_part(xv, 0, 0, "LEFT_LEFT"))
    np.testing.assert_array_equal(got[1], ref.diag_part(xv, (-1, 2), 9.0, "RIGHT_LEFT"))
    np.testing.assert_array_equal(got[2], xv)
    np.testing.assert_array_equal(got[3], ref.diag(got[0], 0, -1, -1, 0, "LEFT_LEFT"))
    np.testing.assert_array_equal(got[4], ref.band_part(xv, 1, 0))
    with tf.Graph().as_default():  # static shapes still come out where they are known
        y = tf.placeholder(tf.float32, [None, 4, 6])
        assert tf.linalg.diag_part(y, k=(-1, 2)).shape.as_list() == [None, 4, 4]
        assert tf.linalg.diag(tf.placeholder(tf.float32, [3, 5]), k=1).shape.as_list() == [3, 6, 6]


def test_gradients():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 4, 5))
    for k, align in [((-1, 2), "LEFT_RIGHT"), (1, "RIGHT_LEFT"), (0, "LEFT_LEFT")]:
        check_gradient(lambda t, k=k, a=align: of.linalg.diag_part(t, k=k, padding_value=3.0, align=a),
                       lambda v, k=k, a=align: ref.diag_part(v, k, 3.0, a), x, rng)
        d = ref.diag_part(x, k, 0.0, align)
        check_gradient(lambda t, k=k, a=align: of.linalg.set_diag(x, t, k=k, align=a),
                       lambda v, k=k, a=align: ref.set_diag(x, v, k, a), d, rng)
        check_gradient(lambda t, k=k, a=align, d=d: of.linalg.set_diag(t, d, k=k, align=a),
                       lambda v, k=k, a=align, d=d: ref.set_diag(v, d, k, a), x, rng)
        check_gradient(lambda t, k=k, a=align: of.linalg.diag(t, k=k, num_rows=4, num_cols=5, align=a),
                       lambda v, k=k, a=align: ref.diag(v, k, 4, 5, 0.0, a), d, rng)
    check_gradient(lambda t: of.linalg.band_part(t, 1, 0), lambda v: ref.band_part(v, 1, 0), x, rng)
    check_gradient(lambda t: ops.matrix_diag_part(t), lambda v: ref.diag_part(v, 0, 0, "LEFT_LEFT"), x, rng)
    d = rng.standard_normal((3, 4))
    check_gradient(lambda t: ops.matrix_diag(t), lambda v: ref.diag(v, 0, -1, -1, 0, "LEFT_LEFT"), d, rng)


def test_errors_name_the_op():
    x = np.ones((3, 4), np.float32)
    cases = [
        (lambda: ops.matrix_diag_part_v3(x, np.int32([2, 1]), np.float32(0)), "MatrixDiagPartV3.*must not be larger"),
        (lambda: ops.matrix_diag_part_v3(x, np.int32([0, 1, 2]), np.float32(0)), "at most 2 elements"),
        (lambda: ops.matrix_diag_part_v3(x, np.int32(4), np.float32(0)), "diagonal index 4 is out of bounds"),
        (lambda: ops.matrix_diag_part_v3(x, np.int32(-3), np.float32(0)), "diagonal index -3 is out of bounds"),
        (lambda: ops.matrix_diag_part_v3(np.ones(3, np.float32), np.int32(0), np.float32(0)), "at least 2-dim"),
        (lambda: ops.matrix_diag_part_v3(x, np.int32(0), np.float32([0, 1])), "padding_value must be a scalar"),
        (lambda: ops.matrix_diag_part_v3(x, np.int32(0), np.float32(0), align="MIDDLE"), "align.*not one of the allowed values"),
        (lambda: ops.matrix_diag_v3(np.ones((3, 2), np.float32), np.int32([0, 1]), np.int32(-1), np.int32(-1),
                                    np.float32(0)), "MatrixDiagV3.*need 2 rows of diagonals"),
        (lambda: ops.matrix_diag_v3(np.ones(2, np.float32), np.int32(0), np.int32(3), np.int32(4),
                                    np.float32(0)), "not consistent"),
        (lambda: ops.matrix_diag_v3(np.ones(2, np.float32), np.int32(0), np.int32(-5), np.int32(-1),
                                    np.float32(0)), "must be -1 or non-negative"),
        (lambda: ops.matrix_set_diag_v3(x, np.ones(4, np.float32), np.int32(0)), "MatrixSetDiagV3.*got diagonal of"),
        (lambda: ops.matrix_set_diag(x, np.ones((2, 3), np.float32)), "MatrixSetDiag.*got diagonal of"),
        (lambda: ops.matrix_band_part(x, np.int64(4), np.int64(0)), "num_lower must be negative or less"),
        (lambda: ops.matrix_band_part(x, np.int64(0), np.int64(5)), "num_upper must be negative or less"),
        (lambda: ops.matrix_band_part(np.ones(3, np.float32), np.int64(0), np.int64(0)), "at least 2-dim"),
    ]
    for call, pattern in cases:
        with pytest.raises(InvalidArgumentError, match=pattern):
            call()


def test_errors_at_run_time_in_a_graph():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, None])
        d = tf.placeholder(tf.float32, [None])
        y = tf.linalg.set_diag(x, d)
        with tf.Session(graph=g) as sess:
            with pytest.raises(InvalidArgumentError, match="MatrixSetDiagV3"):
                sess.run(y, {x: np.ones((3, 4)), d: np.ones(5)})
            np.testing.assert_array_equal(sess.run(y, {x: np.zeros((2, 3)), d: [1, 2]}), np.eye(2, 3) * [1, 2, 0])


def test_against_tensorflow_raw_ops():
    tfr = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 4, 6)).astype(np.float32)
    raw = tfr.raw_ops
    for k in [(-2, 3), (1, 1), (-3, -1)]:
        kk = np.asarray(k, np.int32)
        for align in ALIGNS:
            want = raw.MatrixDiagPartV3(input=x, k=kk, padding_value=np.float32(5), align=align).numpy()
            np.testing.assert_array_equal(ops.matrix_diag_part_v3(x, kk, np.float32(5), align=align).numpy(), want)
            new = rng.standard_normal(want.shape).astype(np.float32)
            np.testing.assert_array_equal(ops.matrix_set_diag_v3(x, new, kk, align=align).numpy(),
                                          raw.MatrixSetDiagV3(input=x, diagonal=new, k=kk, align=align).numpy())
            np.testing.assert_array_equal(
                ops.matrix_diag_v3(new, kk, np.int32(-1), np.int32(7), np.float32(1), align=align).numpy(),
                raw.MatrixDiagV3(diagonal=new, k=kk, num_rows=-1, num_cols=7, padding_value=np.float32(1),
                                 align=align).numpy())
        np.testing.assert_array_equal(ops.matrix_diag_part_v2(x, kk, np.float32(5)).numpy(),
                                      raw.MatrixDiagPartV2(input=x, k=kk, padding_value=np.float32(5)).numpy())
    for lower, upper in [(1, 2), (-1, 0), (0, -1)]:
        np.testing.assert_array_equal(ops.matrix_band_part(x, np.int64(lower), np.int64(upper)).numpy(),
                                      raw.MatrixBandPart(input=x, num_lower=lower, num_upper=upper).numpy())


def test_frozen_tensorflow_graph_imports():
    """A graph TensorFlow wrote with the four V3 ops and MatrixBandPart (a causal attention mask
    is tf.linalg.band_part) imports and runs, and agrees with TensorFlow."""
    tfr = pytest.importorskip("tensorflow")

    @tfr.function(input_signature=[tfr.TensorSpec([None, 5, 5], tfr.float32)], autograph=False)
    def fn(x):
        mask = tfr.linalg.band_part(tfr.ones_like(x), -1, 0)
        band = tfr.linalg.diag_part(x, k=(-1, 1), align="LEFT_RIGHT")
        diag = tfr.linalg.diag(tfr.linalg.diag_part(x))
        top = tfr.linalg.set_diag(x, band[:, 0, :4] * 2.0, k=1)  # (TF's graph shapes refuse a band here)
        return x * mask + top + diag + tfr.reduce_sum(band, axis=[1, 2])[:, None, None]

    graph_def = fn.get_concrete_function().graph.as_graph_def()
    assert {"MatrixBandPart", "MatrixDiagPartV3", "MatrixSetDiagV3", "MatrixDiagV3"} <= {n.op for n in graph_def.node}
    xv = np.random.default_rng(4).standard_normal((2, 5, 5)).astype(np.float32)
    want = fn(xv).numpy()
    out = [n.name for n in graph_def.node if n.op == "Identity"][-1]
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        with tf.Session(graph=g) as sess:
            got = sess.run(out + ":0", {"x:0": xv})
    np.testing.assert_allclose(got, want, rtol=1e-6)
