"""complex64 / complex128: the element ops (Complex, Real, Imag, Conj, Angle, ComplexAbs),
Cast to and from complex, the complex kernels of the arithmetic, reductions, products and
data-movement ops, NumPy interop and TensorProto round trips, against NumPy on random data;
gradients checked numerically in complex128 through a real-valued loss."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge import ops
from opforge.io.graph_def import tensor_from_proto

RNG = np.random.default_rng(8)


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def test_dtypes_and_numpy_interop():
    assert of.complex64.as_datatype_enum == 8 and of.complex128.as_datatype_enum == 18
    assert of.complex64.is_complex and not of.float32.is_complex
    assert of.complex64.real_dtype == of.float32 and of.complex128.real_dtype == of.float64
    assert of.as_dtype(np.complex64) == of.complex64 and of.as_dtype("complex128") == of.complex128
    x = crandn(2, 3, dtype=np.complex64)
    t = of.constant(x)
    assert t.dtype == of.complex64
    np.testing.assert_array_equal(t.numpy(), x)
    assert of.constant(1 + 2j).dtype == of.complex128  # TensorFlow's default for Python complex
    with pytest.raises(of.InvalidArgumentError, match="complex"):
        of.convert_to_tensor(1 + 2j, dtype=of.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_element_ops_match_numpy(dtype):
    x = crandn(3, 4, dtype=dtype)
    rdt = np.float32 if dtype == np.complex64 else np.float64
    r = of.as_dtype(rdt)
    np.testing.assert_array_equal(ops.real(x, Tout=r).numpy(), x.real)
    np.testing.assert_array_equal(ops.imag(x, Tout=r).numpy(), x.imag)
    np.testing.assert_array_equal(ops.conj(x).numpy(), np.conj(x))
    np.testing.assert_allclose(ops.angle(x, Tout=r).numpy(), np.angle(x), rtol=1e-6)
    np.testing.assert_allclose(ops.complex_abs(x, Tout=r).numpy(), np.abs(x), rtol=1e-6)
    re, im = x.real[:, :1], x.imag  # broadcasting
    got = ops.complex(re, im, Tout=of.as_dtype(dtype)).numpy()
    np.testing.assert_array_equal(got, re + 1j * im)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_arithmetic_reductions_and_products(dtype):
    x, y = crandn(3, 4, dtype=dtype), crandn(4, dtype=dtype)
    t = 1e-5 if dtype == np.complex64 else 1e-12
    for fn, want in [(ops.add_v2, x + y), (ops.sub, x - y), (ops.mul, x * y), (ops.real_div, x / y)]:
        np.testing.assert_allclose(fn(x, y).numpy(), want, rtol=t)
    for fn, want in [(ops.neg, -x), (ops.square, x * x), (ops.exp, np.exp(x)), (ops.log, np.log(x)),
                     (ops.sqrt, np.sqrt(x)), (ops.reciprocal, 1 / x)]:
        np.testing.assert_allclose(fn(x).numpy(), want, rtol=t * 10)
    np.testing.assert_allclose(ops.sum(x, [0]).numpy(), x.sum(0), rtol=t)
    np.testing.assert_allclose(ops.mean(x, [0, 1]).numpy(), x.mean(), rtol=t)
    np.testing.assert_allclose(ops.prod(x, [1]).numpy(), x.prod(1), rtol=t * 10)
    np.testing.assert_array_equal(ops.equal(x, x[:1]).numpy(), x == x[:1])
    np.testing.assert_array_equal(ops.not_equal(x, x[:1]).numpy(), x != x[:1])
    np.testing.assert_array_equal(ops.select_v2(np.real(x) > 0, x, y).numpy(), np.where(np.real(x) > 0, x, y))
    b = crandn(4, 5, dtype=dtype)
    np.testing.assert_allclose(ops.mat_mul(x, b).numpy(), x @ b, rtol=t * 10)
    np.testing.assert_allclose(ops.mat_mul(b, x, transpose_a=True, transpose_b=True).numpy(), b.T @ x.T, rtol=t * 10)
    bx, by = crandn(2, 1, 3, 4, dtype=dtype), crandn(3, 5, 4, dtype=dtype)
    got = ops.batch_mat_mul_v2(bx, by, adj_y=True).numpy()  # adjoint: conjugate transpose
    np.testing.assert_allclose(got, bx @ np.conj(np.swapaxes(by, -1, -2)), rtol=t * 10)


def test_casts_and_data_movement():
    x = crandn(2, 3)
    np.testing.assert_array_equal(ops.cast(x, DstT=of.float64).numpy(), x.real)
    np.testing.assert_array_equal(ops.cast(x, DstT=of.complex64).numpy(), x.astype(np.complex64))
    np.testing.assert_array_equal(ops.cast(np.arange(3, dtype=np.int32), DstT=of.complex128).numpy(),
                                  np.arange(3).astype(np.complex128))
    np.testing.assert_array_equal(ops.cast(np.array([0j, 1j]), DstT=of.bool).numpy(), [False, True])
    np.testing.assert_array_equal(ops.transpose(x, [1, 0]).numpy(), x.T)
    np.testing.assert_array_equal(ops.concat_v2([x, x], 0).numpy(), np.concatenate([x, x]))
    np.testing.assert_array_equal(ops.pack([x, x], axis=1).numpy(), np.stack([x, x], 1))
    np.testing.assert_array_equal(ops.reshape(x, [3, 2]).numpy(), x.reshape(3, 2))
    np.testing.assert_array_equal(ops.slice(x, [0, 1], [2, 2]).numpy(), x[:, 1:])
    np.testing.assert_array_equal(ops.ones_like(x).numpy(), np.ones_like(x))
    np.testing.assert_array_equal(ops.fill([2], np.complex64(1 - 1j)).numpy(), [1 - 1j, 1 - 1j])


def test_graph_and_tensor_proto_round_trip():
    x = crandn(2, 2, dtype=np.complex64)
    g = of.Graph()
    with g.as_default():
        c = of.constant(x)
        p = of.placeholder(of.complex64, [2, 2])
        y = ops.add_v2(c, p)
    gd = g.as_graph_def()
    node = [n for n in gd.node if n.op == "Const"][0]
    np.testing.assert_array_equal(tensor_from_proto(node.attr["value"].tensor).numpy(), x)
    with of.Session(graph=g) as s:
        np.testing.assert_array_equal(s.run(y, {p: x}), x + x)
    # TensorFlow's scomplex_val / dcomplex_val form: (real, imag) pairs, the last value repeated
    tp = node.attr["value"].tensor
    tp.tensor_content = b""
    tp.scomplex_val.extend([1.0, 2.0])
    np.testing.assert_array_equal(tensor_from_proto(tp).numpy(), np.full((2, 2), 1 + 2j, np.complex64))
    tp.scomplex_val.append(3.0)
    with pytest.raises(of.InvalidArgumentError, match="odd number"):
        tensor_from_proto(tp)


def test_bad_dtype_pairs_raise():
    with pytest.raises(of.InvalidArgumentError, match="Real"):
        ops.real(crandn(2), Tout=of.float32)  # complex128 pairs with float64
    with pytest.raises(of.InvalidArgumentError, match="Complex"):
        ops.complex(np.ones(2, np.float32), np.ones(2, np.float32), Tout=of.complex128)
    with pytest.raises((of.InvalidArgumentError, TypeError), match="Conj"):
        ops.conj(np.ones(2, np.float32))


def _numeric(f, x, eps=1e-6):
    g = np.zeros(x.shape, x.dtype)
    for idx in np.ndindex(x.shape):
        for unit in ((1, 1j) if np.iscomplexobj(x) else (1,)):
            d = np.zeros(x.shape, x.dtype)
            d[idx] = eps * unit
            g[idx] += unit * (f(x + d) - f(x - d)) / (2 * eps)
    return g


W = crandn(2, 3)


def _loss(y):
    """A real-valued loss of a complex or real tensor: sum(Re(w * y))."""
    if of.as_dtype(y.dtype).is_complex:
        return ops.sum(ops.real(ops.mul(y, W), Tout=of.float64), [0, 1])
    return ops.sum(ops.mul(y, W.real), [0, 1])


@pytest.mark.parametrize("name,fn,real_input", [
    ("exp", ops.exp, False), ("log", ops.log, False), ("sqrt", ops.sqrt, False),
    ("reciprocal", ops.reciprocal, False), ("square", ops.square, False),
    ("mul", lambda x: ops.mul(x, ops.conj(x)), False), ("div", lambda x: ops.real_div(ops.exp(x), x), False),
    ("conj", ops.conj, False), ("real", lambda x: ops.real(x, Tout=of.float64), False),
    ("imag", lambda x: ops.imag(x, Tout=of.float64), False), ("angle", lambda x: ops.angle(x, Tout=of.float64), False),
    ("abs", lambda x: ops.complex_abs(x, Tout=of.float64), False),
    ("complex", lambda x: ops.complex(x, ops.square(x), Tout=of.complex128), True),
    ("cast", lambda x: ops.cast(x, DstT=of.complex128), True),
    ("prod", lambda x: ops.mul(ops.prod(x, [1], keep_dims=True), ops.ones_like(x)), False),
])
def test_gradients(name, fn, real_input):
    x = RNG.standard_normal((2, 3)) if real_input else crandn(2, 3)
    xt = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(xt)
        loss = _loss(fn(xt))
    got = tape.gradient(loss, xt).numpy()
    want = _numeric(lambda v: float(_loss(fn(of.constant(v))).numpy()), x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=name)


def test_matmul_gradient():
    a, b = crandn(2, 4), crandn(4, 3)
    at, bt = of.constant(a), of.constant(b)
    with of.GradientTape() as tape:
        tape.watch([at, bt])
        loss = _loss(ops.mat_mul(at, bt))
    ga, gb = tape.gradient(loss, [at, bt])
    np.testing.assert_allclose(ga.numpy(), _numeric(lambda v: float(_loss(ops.mat_mul(v, b)).numpy()), a), atol=1e-7)
    np.testing.assert_allclose(gb.numpy(), _numeric(lambda v: float(_loss(ops.mat_mul(a, v)).numpy()), b), atol=1e-7)


def test_variable_checkpoint_round_trip(tmp_path):
    import opforge.compat.v1 as tf
    x = crandn(4, dtype=np.complex64)
    with tf.Graph().as_default():
        v = tf.Variable(x)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros(4, np.complex64))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(v), x)


def test_python_numbers_mix_with_complex_tensors(recwarn):
    got = ops.add_v2(of.constant(np.array([1 + 1j], np.complex64)), 1)
    np.testing.assert_array_equal(got.numpy(), [2 + 1j])
    assert not [w for w in recwarn if "ComplexWarning" in type(w.message).__name__]
