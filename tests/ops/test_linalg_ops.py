"""ops/linalg_ops.py (of.eye, of.norm, of.linalg.diag, diag_part, set_diag, trace, tensor_diag,
tensor_diag_part): NumPy references on random data, eagerly and in a graph, float64
gradients, and the errors."""

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values


@pytest.fixture
def rng():
    return np.random.default_rng(2036)


@pytest.mark.parametrize("rows,cols,batch", [(3, None, None), (2, 4, None), (4, 2, [3]), (1, 1, [2, 2])])
@pytest.mark.parametrize("dtype", [of.float32, of.int32, of.float64])
def test_eye(rows, cols, batch, dtype):
    want = np.eye(rows, cols, dtype=dtype.as_numpy_dtype)
    if batch:
        want = np.broadcast_to(want, tuple(batch) + want.shape)
    got = of.eye(rows, cols, batch, dtype=dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), want)
    assert of.linalg.eye is of.eye


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 2, 3)])
def test_diag(rng, shape):
    d = rng.standard_normal(shape)

    def ref(a):
        return a[..., :, None] * np.eye(a.shape[-1])
    check_values(of.linalg.diag, ref, d, exact=True)
    check_gradient(of.linalg.diag, ref, d, rng)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 4, 2)])
def test_diag_part_and_trace(rng, shape):
    x = rng.standard_normal(shape)
    part = lambda a: np.diagonal(a, axis1=-2, axis2=-1)  # noqa: E731
    trace = lambda a: np.trace(a, axis1=-2, axis2=-1)  # noqa: E731
    check_values(of.linalg.diag_part, part, x, exact=True)
    check_values(of.linalg.trace, trace, x, rtol=1e-12)
    check_gradient(of.linalg.diag_part, part, x, rng)
    check_gradient(of.linalg.trace, trace, x, rng)


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_tensor_diag_and_part(rng, shape):
    d = rng.standard_normal(shape)
    n = d.size

    def diag_ref(a):
        return (a.reshape(1, n) * np.eye(n)).reshape(shape + shape)

    def part_ref(a):
        return np.diagonal(a.reshape(n, n)).reshape(shape)
    check_values(of.linalg.tensor_diag, diag_ref, d, exact=True)
    full = rng.standard_normal(shape + shape)
    check_values(of.linalg.tensor_diag_part, part_ref, full, exact=True)
    check_gradient(of.linalg.tensor_diag, diag_ref, d, rng)
    check_gradient(of.linalg.tensor_diag_part, part_ref, full, rng)
    with pytest.raises(ValueError, match="must be s \\+ s"):
        of.linalg.tensor_diag_part(np.ones((2, 3)))


@pytest.mark.parametrize("shape,k", [((3, 3), 0), ((2, 3, 5), 0), ((2, 5, 3), 0), ((3, 5), 1), ((3, 5), 3),
                                     ((2, 5, 3), -2), ((3, 5), -1), ((4, 4), 2)])
def test_set_diag(rng, shape, k):
    m, n = shape[-2:]
    rows, cols = np.nonzero(np.eye(m, n, k))
    x = rng.standard_normal(shape)
    d = rng.standard_normal(shape[:-2] + (len(rows),))

    def ref(a, v):
        out = a.copy()
        out[..., rows, cols] = v
        return out

    check_values(lambda a, v: of.linalg.set_diag(a, v, k=k), ref, x, d, exact=True)
    check_gradient(lambda t: of.linalg.set_diag(t, d, k=k), lambda a: ref(a, d), x, rng)
    check_gradient(lambda t: of.linalg.set_diag(x, t, k=k), lambda v: ref(x, v), d, rng)


def test_set_diag_errors():
    with pytest.raises(ValueError, match=r"have shape \[2,3\], got diagonal of shape \[2,4\]"):
        of.linalg.set_diag(np.ones((2, 3, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"diagonal index 3 is out of bounds"):
        of.linalg.set_diag(np.ones((3, 3)), np.ones((2, 1)), k=(2, 3))


def test_set_diag_band():
    """A band k = (k0, k1): row r of diagonal holds diagonal k1 - r (MatrixSetDiagV3)."""
    x = np.arange(12.0).reshape(3, 4)
    d = np.array([[10.0, 11.0, 12.0], [20.0, 21.0, 22.0]])  # diagonals 1 and 0
    want = x.copy()
    want[[0, 1, 2], [1, 2, 3]] = d[0]
    want[[0, 1, 2], [0, 1, 2]] = d[1]
    np.testing.assert_array_equal(of.linalg.set_diag(x, d, k=(0, 1)).numpy(), want)


VECTOR = [("euclidean", None), ("euclidean", 1), (2, 0), (1, None), (1, -1), (np.inf, 1), (3, 1), (0.5, None)]
MATRIX = [("fro", (0, 1)), ("euclidean", (1, 2)), (1, (0, 1)), (1, (-1, -2)), (np.inf, (0, 1)), (np.inf, (2, 0)),
          (2, (0, 1)), (2, (2, 0))]  # ord 2: the spectral norm (the Svd op)


@pytest.mark.parametrize("ord_,axis", VECTOR + MATRIX)
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm(rng, ord_, axis, keepdims):
    x = rng.standard_normal((3, 4) if axis in (None, 0, 1, -1, (0, 1), (-1, -2)) else (2, 3, 4))

    def ref(a):
        if axis is None:
            out = np.linalg.norm(a.ravel(), 2 if ord_ == "euclidean" else ord_)
            return np.reshape(out, (1,) * a.ndim) if keepdims else out
        return np.linalg.norm(a, {"euclidean": None, "fro": "fro"}.get(ord_, ord_)
                              if isinstance(axis, tuple) else (2 if ord_ == "euclidean" else ord_),
                              axis=axis, keepdims=keepdims)
    check_values(lambda t: of.norm(t, ord_, axis, keepdims), ref, x, rtol=1e-12)
    if ord_ != np.inf and not (isinstance(axis, tuple) and ord_ == 1):  # max: a kink at ties only
        check_gradient(lambda t: of.norm(t, ord_, axis, keepdims), ref, x, rng)
    assert of.linalg.norm is of.norm


def test_norm_errors():
    with pytest.raises(ValueError, match="ord must be a supported vector norm"):
        of.norm(np.ones(3), "fro", axis=0)
    with pytest.raises(ValueError, match="ord -1 is not a supported matrix norm"):
        of.norm(np.ones((3, 3)), -1, axis=(0, 1))
    with pytest.raises(ValueError, match="2 distinct ints"):
        of.norm(np.ones((3, 3)), axis=(1, 1))
    with of.Graph().as_default():
        with pytest.raises(ValueError, match="needs the input's shape"):
            of.linalg.tensor_diag(of.placeholder(of.float32, [None]))
        # linalg.diag is the MatrixDiagV3 op: an unknown length is fine
        assert of.linalg.diag(of.placeholder(of.float32, [None])).shape.as_list() == [None, None]
