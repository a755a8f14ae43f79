"""GELU and Keras's Dense over rank > 2 inputs in the graph optimizer (runtime/src/optimizer):
each way TensorFlow and Keras write GELU after a MatMul and its bias fuses into _FusedMatMul's
"GeluExact" / "GeluApproximate" (TensorFlow's oneDNN names); near misses keep their ops; the
Reshape of tf.tensordot between a MatMul and its bias moves after the fused op; an identity
Transpose goes. Values against the unoptimized graph."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf

from optimizer_helpers import assert_close, optimized_graph, run_both  # tests/graph/optimizer_helpers.py

SQRT_HALF = 0.7071067811865476

# How GELU is written: tf.nn.gelu (TensorFlow 2.21, Keras 3, tf_keras), older TensorFlow's erf
# form (two ways), and the tanh approximation.
GELU_SPELLINGS = {
    "erfc": ("GeluExact", lambda t: (0.5 * t) * of.math.erfc(of.math.negative(t) * SQRT_HALF)),
    "erf_div": ("GeluExact", lambda t: (0.5 * t) * (1.0 + of.math.erf(t / 1.4142135623730951))),
    "erf_mul": ("GeluExact", lambda t: (t * 0.5) * (of.math.erf(t * SQRT_HALF) + 1.0)),
    "tanh": ("GeluApproximate",
             lambda t: (0.5 * t) * (1.0 + of.math.tanh(0.7978845608028654 * (t + 0.044715 * of.math.pow(t, 3.0))))),
}


def _dense(x, rng, n=6):
    y = of.matmul(x, rng.standard_normal((x.shape[-1], n)).astype(np.float32))
    return of.nn.bias_add(y, rng.standard_normal(n).astype(np.float32))


def _fused(sess):
    return [op for op in optimized_graph(sess).get_operations() if op.type.startswith("_Fused")]


@pytest.mark.parametrize("spelling", list(GELU_SPELLINGS))
def test_gelu_spellings_fuse(graph, rng, spelling):
    name, gelu = GELU_SPELLINGS[spelling]
    x = of.placeholder(of.float32, [None, 5], name="x")
    y = of.identity(gelu(_dense(x, rng)), name="y")
    got, want, sess = run_both(graph, y, {x: 2 * rng.standard_normal((7, 5)).astype(np.float32)})
    assert_close(got, want)
    ops = optimized_graph(sess).get_operations()
    assert not [op for op in ops if op.type in ("Erf", "Erfc", "Tanh", "Mul", "Neg", "Pow", "AddV2", "RealDiv")]
    fused = _fused(sess)
    assert len(fused) == 1 and fused[0].get_attr("fused_ops") == ["BiasAdd", name]


@pytest.mark.parametrize("case", ["not_half", "not_sqrt_half", "erf_fetched", "no_one"])
def test_gelu_lookalikes_stay(graph, rng, case):
    """Another constant, a fetched intermediate (it must keep its value), erf without the + 1:
    the GELU's ops stay; the MatMul and its bias still fuse."""
    x = of.placeholder(of.float32, [None, 5], name="x")
    t = _dense(x, rng)
    erf = of.math.erf(t * (0.7 if case == "not_sqrt_half" else SQRT_HALF))
    erf = of.identity(erf, name="erf") if case == "erf_fetched" else erf
    y = of.identity((t * (0.4 if case == "not_half" else 0.5)) * (erf if case == "no_one" else 1.0 + erf), name="y")
    fetches = [y, erf] if case == "erf_fetched" else y
    got, want, sess = run_both(graph, fetches, {x: rng.standard_normal((7, 5)).astype(np.float32)})
    assert_close(got, want)
    fused = _fused(sess)
    assert len(fused) == 1 and fused[0].get_attr("fused_ops") == ["BiasAdd"]


def _tensordot(x, w, n):
    """What a frozen Keras Dense over a rank-4 input holds: tf.tensordot's Transpose (by the
    identity), Reshape, MatMul, and the Reshape back to [free dims of x..., N]."""
    flat = tf.reshape(tf.transpose(x, [0, 1, 2, 3]), [-1, x.shape[-1]])
    shape = tf.concat([tf.gather(tf.shape(x), [0, 1, 2]), [n]], 0)
    return tf.reshape(tf.matmul(flat, w), shape)


@pytest.mark.parametrize("activation", ["none", "gelu", "relu"])
def test_tensordot_dense_fuses_and_reshapes_after(graph, rng, activation):
    x = tf.placeholder(tf.float32, [None, 4, 5, 8], name="x")
    t = tf.nn.bias_add(_tensordot(x, rng.standard_normal((8, 6)).astype(np.float32), 6),
                       rng.standard_normal(6).astype(np.float32))
    t = {"none": lambda v: v, "gelu": GELU_SPELLINGS["erfc"][1], "relu": tf.nn.relu}[activation](t)
    y = tf.identity(t, name="y")
    got, want, sess = run_both(graph, y, {x: rng.standard_normal((3, 4, 5, 8)).astype(np.float32)})
    assert_close(got, want)
    ops = optimized_graph(sess).get_operations()
    types = [op.type for op in ops]
    assert "Transpose" not in types and "BiasAdd" not in types and "MatMul" not in types
    fused = _fused(sess)
    want_ops = {"none": ["BiasAdd"], "gelu": ["BiasAdd", "GeluExact"], "relu": ["BiasAdd", "Relu"]}[activation]
    assert len(fused) == 1 and fused[0].get_attr("fused_ops") == want_ops
    reshape = [op for op in ops if op.type == "Reshape" and op.inputs[0].op.name == fused[0].name]
    assert len(reshape) == 1  # the Reshape now follows the fused product


def test_reshape_that_moves_columns_keeps_its_bias(graph, rng):
    """A Reshape whose last dimension is not the product's columns ([M, 6] -> [..., 3, 2]): the
    bias (2 values) would meet other values after the move, so nothing fuses."""
    x = tf.placeholder(tf.float32, [None, 8], name="x")
    prod = tf.matmul(x, rng.standard_normal((8, 6)).astype(np.float32))
    r = tf.reshape(prod, tf.concat([tf.shape(x)[:1], [3, 2]], 0))
    y = tf.identity(tf.nn.bias_add(r, rng.standard_normal(2).astype(np.float32)), name="y")
    got, want, sess = run_both(graph, y, {x: rng.standard_normal((4, 8)).astype(np.float32)})
    assert_close(got, want)
    assert not _fused(sess)


def test_transpose_by_a_permutation_stays(graph, rng):
    x = tf.placeholder(tf.float32, [None, 4, 5], name="x")
    y = tf.identity(tf.transpose(x, [0, 2, 1]) * 1.0, name="y")  # (the * 1 goes)
    got, want, sess = run_both(graph, y, {x: rng.standard_normal((2, 4, 5)).astype(np.float32)})
    assert_close(got, want)
    assert "Transpose" in [op.type for op in optimized_graph(sess).get_operations()]
