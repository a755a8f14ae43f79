"""Zero-copy interop: NumPy views, DLPack both ways, Session feeds and fetches."""

import gc
import sys

import numpy as np
import pytest

import opforge as of


@pytest.fixture
def rng():
    return np.random.default_rng(99)


def test_asarray_is_a_read_only_view_that_keeps_the_tensor_alive(rng):
    a = rng.standard_normal((64, 33)).astype(np.float32)
    t = of.constant(a)
    v = np.asarray(t)
    assert np.shares_memory(v, np.asarray(t))
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[0, 0] = 1.0
    del t
    gc.collect()
    of.square(of.constant(rng.standard_normal((64, 33)).astype(np.float32)))  # reuse freed blocks
    np.testing.assert_array_equal(v, a)


def test_array_protocol_copies_and_dtypes(rng):
    a = rng.standard_normal(10)
    t = of.constant(a)
    c = np.array(t)  # np.array copies by default: a writable array of its own
    assert c.flags.writeable and not np.shares_memory(c, np.asarray(t))
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float32), a.astype(np.float32))
    with pytest.raises(ValueError, match="needs a copy"):
        t.__array__(np.float32, copy=False)
    assert t.numpy().flags.writeable  # .numpy() stays a writable copy


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.bool_])
def test_dlpack_round_trip_with_numpy_shares_memory(dtype, rng):
    a = (rng.standard_normal((5, 7)) * 10).astype(dtype)
    t = of.from_dlpack(a)
    assert t.dtype.as_numpy_dtype == np.dtype(dtype)
    np.testing.assert_array_equal(t.numpy(), a)
    assert np.shares_memory(np.asarray(t), a)
    back = np.from_dlpack(t)
    assert np.shares_memory(back, a)
    assert not back.flags.writeable  # DLPack 1.0 read-only flag honoured by NumPy
    assert t.__dlpack_device__() == (1, 0)


def test_from_dlpack_keeps_the_producer_alive(rng):
    a = rng.standard_normal(1000)
    want = a.copy()
    t = of.from_dlpack(a)
    ref = sys.getrefcount(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(of.identity(t).numpy(), want)
    assert ref >= 3  # the capsule's owner holds the array


def test_from_dlpack_strided_and_offset_inputs_are_copied_correctly(rng):
    base = rng.standard_normal((6, 8))
    for view in (base[:, ::2], base[1:, 3:], base.T, base[::-1]):
        np.testing.assert_array_equal(of.from_dlpack(view).numpy(), view)


def test_from_dlpack_errors():
    with pytest.raises(TypeError, match="from_dlpack"):
        of.from_dlpack(42)
    a = np.zeros(3)
    cap = a.__dlpack__()
    of.from_dlpack(cap)
    with pytest.raises(ValueError, match="unused DLPack capsule"):
        of.from_dlpack(cap)  # a capsule is consumed once
    with pytest.raises((TypeError, of.errors.OpError)):
        of.from_dlpack(np.zeros(3, np.complex64))


def test_ops_on_imported_memory_and_bfloat16(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    t = of.from_dlpack(a)
    np.testing.assert_allclose(of.matmul(t, of.transpose(t)).numpy(), a @ a.T, rtol=1e-5)
    ml = pytest.importorskip("ml_dtypes")
    b = a.astype(ml.bfloat16)
    tb = of.constant(b)
    # NumPy has no bfloat16 DLPack dtype; opforge reads its own export (kDLBfloat, 16 bits).
    again = of.from_dlpack(tb)
    assert again.dtype == of.bfloat16
    np.testing.assert_array_equal(again.numpy().astype(np.float32), b.astype(np.float32))


def test_session_fetches_are_writable_and_unshared(rng):
    g = of.Graph()
    w = rng.standard_normal((4, 4)).astype(np.float32)
    with g.as_default():
        x = of.placeholder(of.float32, [None, 4], name="x")
        c = of.constant(w, name="w")
        y = of.matmul(x, c)
        ident = of.identity(x)
        v = of.Variable(of.constant(w), name="v")
        init = of.global_variables_initializer()
    sess = of.Session(graph=g)
    sess.run(init)
    xv = rng.standard_normal((3, 4)).astype(np.float32)
    out = sess.run(y, {x: xv})
    assert out.flags.writeable
    out[:] = 0  # the result is the caller's own
    np.testing.assert_allclose(sess.run(y, {x: xv}), xv @ w, rtol=1e-5)
    # Fetches that alias something else (a constant, a variable, the fed array) are copies.
    got_c, got_v, got_i = sess.run([c, v, ident], {x: xv})
    for arr in (got_c, got_v, got_i):
        arr[...] = -1
    np.testing.assert_array_equal(sess.run(c), w)
    np.testing.assert_array_equal(sess.run(v), w)
    assert not np.shares_memory(got_i, xv)
    np.testing.assert_array_equal(sess.run(ident, {x: xv}), xv)


def test_session_feeds_read_contiguous_arrays_in_place(rng):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float64, [None], name="x")
        y = of.reduce_sum(x)
    sess = of.Session(graph=g)
    a = rng.standard_normal(1000)
    assert sess.run(y, {x: a}) == pytest.approx(a.sum())
    assert sess.run(y, {x: a[::3]}) == pytest.approx(a[::3].sum())  # strided: copied
    assert sess.run(y, {x: a.astype(np.float32)}) == pytest.approx(a.sum(), rel=1e-5)  # cast


def test_torch_dlpack_both_ways(rng):
    torch = pytest.importorskip("torch")
    a = torch.randn(5, 6)
    t = of.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a.numpy())
    back = torch.from_dlpack(of.square(t))
    np.testing.assert_allclose(back.numpy(), (a * a).numpy(), rtol=1e-6)
