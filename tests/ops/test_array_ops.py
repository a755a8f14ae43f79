"""The composite functions of ops/array_ops.py (of.boolean_mask, of.sequence_mask,
of.meshgrid, of.linalg.matrix_transpose): NumPy references on random data, eagerly and in a
graph, float64 gradients, and the errors."""

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values


@pytest.fixture
def rng():
    return np.random.default_rng(2034)


@pytest.mark.parametrize("shape,mshape,axis", [((5,), (5,), 0), ((5, 3), (5,), 0), ((4, 5, 3), (5,), 1),
                                               ((4, 5, 3), (4, 5), 0), ((2, 4, 5), (4, 5), -2), ((3, 4), (3, 4), 0)])
def test_boolean_mask(rng, shape, mshape, axis):
    x = rng.standard_normal(shape)
    mask = rng.random(mshape) < 0.5
    ax = axis % len(shape)

    def ref(a):
        lead = a.shape[:ax]
        flat = a.reshape(lead + (-1,) + a.shape[ax + mask.ndim:])
        return np.take(flat, np.flatnonzero(mask), axis=ax)
    check_values(lambda t: of.boolean_mask(t, mask, axis=axis), ref, x, exact=True)
    check_gradient(lambda t: of.boolean_mask(t, mask, axis=axis), ref, x, rng)


def test_boolean_mask_takes_a_mask_tensor_and_a_python_list():
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(of.boolean_mask(x, [True, False, True]).numpy(), x[[0, 2]])
    g = of.Graph()
    with g.as_default():
        m = of.placeholder(of.bool, [3])
        out = of.boolean_mask(of.constant(x), m)
    with of.Session(graph=g) as s:
        np.testing.assert_array_equal(s.run(out, {m: [False, True, True]}), x[1:])


def test_boolean_mask_errors():
    with pytest.raises(ValueError, match="mask cannot be a scalar"):
        of.boolean_mask(np.ones(3), np.bool_(True))
    with pytest.raises(ValueError, match=r"the mask's shape \(4,\) does not match"):
        of.boolean_mask(np.ones((3, 2)), np.ones(4, bool))
    with pytest.raises(ValueError, match="does not fit a tensor of rank 1"):
        of.boolean_mask(np.ones(3), np.ones(3, bool), axis=1)


@pytest.mark.parametrize("lengths_shape,maxlen", [((5,), None), ((5,), 7), ((2, 3), None), ((2, 3), 2), ((4,), 0)])
@pytest.mark.parametrize("dtype", [of.bool, of.float32, of.int32])
def test_sequence_mask(rng, lengths_shape, maxlen, dtype):
    lengths = rng.integers(0, 6, lengths_shape).astype(np.int32)
    n = int(lengths.max()) if maxlen is None else maxlen
    want_dt = dtype.as_numpy_dtype
    check_values(lambda t: of.sequence_mask(t, maxlen, dtype=dtype),
                 lambda a: (np.arange(n) < a[..., None]).astype(want_dt), lengths, exact=True)


def test_sequence_mask_takes_python_lengths_and_a_maxlen_tensor():
    np.testing.assert_array_equal(of.sequence_mask([1, 3, 0], of.constant(4, of.int64)).numpy(),
                                  np.arange(4) < np.array([[1], [3], [0]]))
    with pytest.raises(of.errors.InvalidArgumentError, match="sequence_mask: lengths must be integers"):
        of.sequence_mask([1.5, 2.0])


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(3,), (3, 4), (2, 3, 4)])
def test_meshgrid(rng, indexing, sizes):
    vs = [rng.standard_normal(n) for n in sizes]
    check_values(lambda *ts: of.meshgrid(*ts, indexing=indexing), lambda *a: np.meshgrid(*a, indexing=indexing),
                 *vs, exact=True)
    if len(sizes) == 2:
        check_gradient(lambda t: of.meshgrid(t, vs[1], indexing=indexing)[0],
                       lambda a: np.meshgrid(a, vs[1], indexing=indexing)[0], vs[0], rng)


def test_meshgrid_errors():
    with pytest.raises(ValueError, match="indexing must be 'xy' or 'ij'"):
        of.meshgrid([1, 2], indexing="yx")
    with pytest.raises(TypeError, match="unexpected keyword"):
        of.meshgrid([1, 2], sparse=True)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (2, 1, 3, 5)])
def test_matrix_transpose(rng, shape):
    x = rng.standard_normal(shape)
    check_values(of.linalg.matrix_transpose, lambda a: np.swapaxes(a, -1, -2), x, exact=True)
    check_gradient(of.linalg.matrix_transpose, lambda a: np.swapaxes(a, -1, -2), x, rng)
    with pytest.raises(ValueError, match="rank of at least 2"):
        of.linalg.matrix_transpose(np.ones(3))
