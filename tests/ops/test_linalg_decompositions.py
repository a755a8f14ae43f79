"""of.linalg over the linear-algebra ops (ops/linalg_decompositions.py, opdefs/linalg/): TF's
spellings against NumPy eagerly and in graphs, the composites' float64 gradients, the typed
errors of bad input, static shapes of partially known inputs, gradients in graphs whose matrix
sizes are unknown until run, and, where TensorFlow is installed, values, static shapes and
gradients equal to TensorFlow's. (The ops' own references and numeric gradient checks are the
op matrix's: test_reference.py and test_gradients.py with linalg_cases.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import linalg_cases as L
import opforge as of
from composite_check import check_gradient, check_values


@pytest.fixture
def rng():
    return np.random.default_rng(3202)


def _sym(a):
    return 0.5 * (a + np.swapaxes(a, -1, -2))


# ------------------------------------------------------------------------------ values


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tf_spellings_against_numpy(rng, dtype):
    a = L.well_conditioned(rng, (2, 4, 4)).astype(dtype)
    spd = L.symmetric(rng, (2, 4, 4), positive=True).astype(dtype)
    b = rng.uniform(-1, 1, (2, 4, 3)).astype(dtype)
    tri = L.triangular(rng, (4, 4), lower=False).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    check_values(of.linalg.inv, np.linalg.inv, a, rtol=tol, atol=tol)
    check_values(lambda t: of.linalg.inv(t, adjoint=True), lambda x: np.linalg.inv(np.swapaxes(x, -1, -2)), a,
                 rtol=tol, atol=tol)
    check_values(of.linalg.det, np.linalg.det, a, rtol=tol)
    check_values(of.linalg.slogdet, lambda x: list(np.linalg.slogdet(x)), a, rtol=tol, atol=tol)
    check_values(of.linalg.cholesky, np.linalg.cholesky, spd, rtol=tol, atol=tol)
    check_values(of.linalg.solve, np.linalg.solve, a, b, rtol=tol, atol=tol)
    check_values(lambda m, r: of.linalg.triangular_solve(m, r, lower=False),
                 lambda m, r: np.linalg.solve(np.triu(m), r), tri, b, rtol=tol, atol=tol)
    check_values(of.linalg.logdet, lambda x: np.linalg.slogdet(x)[1], spd, rtol=tol, atol=tol)
    check_values(lambda c, r: of.linalg.cholesky_solve(of.linalg.cholesky(c), r), np.linalg.solve, spd, b,
                 rtol=tol * 10, atol=tol * 10)
    check_values(of.linalg.adjoint, lambda x: np.swapaxes(x, -1, -2), a, exact=True)
    check_values(of.linalg.eigvalsh, np.linalg.eigvalsh, spd, rtol=tol, atol=tol)
    check_values(lambda t: of.linalg.svd(t, compute_uv=False), lambda x: np.linalg.svd(x, compute_uv=False), b,
                 rtol=tol, atol=tol)


def test_decompositions_reconstruct(rng):
    """qr, eigh and svd return what TF's Python API returns, and the factors multiply back."""
    x = rng.standard_normal((2, 5, 3))
    q, r = of.linalg.qr(x)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), x, atol=1e-12)
    np.testing.assert_allclose(np.triu(r.numpy()), r.numpy())
    s, u, v = of.linalg.svd(x, full_matrices=True)
    assert (s.shape, u.shape, v.shape) == ((2, 3), (2, 5, 5), (2, 3, 3))
    np.testing.assert_allclose((u.numpy()[..., :3] * s.numpy()[:, None, :]) @ np.swapaxes(v.numpy(), -1, -2), x,
                               atol=1e-12)
    sym = L.symmetric(rng, (3, 3))
    e, v = of.linalg.eigh(sym)
    np.testing.assert_allclose(v.numpy() @ np.diag(e.numpy()) @ v.numpy().T, sym, atol=1e-12)
    assert np.all(np.diff(e.numpy()) > 0)


def test_only_the_lower_triangle_is_read(rng):
    """Cholesky and SelfAdjointEigV2 read the lower triangle (as TensorFlow and NumPy)."""
    spd = L.symmetric(rng, (4, 4), positive=True)
    junk = spd + np.triu(rng.uniform(5, 9, (4, 4)), 1)
    np.testing.assert_array_equal(of.linalg.cholesky(junk).numpy(), of.linalg.cholesky(spd).numpy())
    np.testing.assert_array_equal(of.linalg.eigvalsh(junk).numpy(), of.linalg.eigvalsh(spd).numpy())


@pytest.mark.parametrize("lower,upper", [(-1, 0), (0, -1), (1, 0), (0, 2), (1, 1), (-1, -1), (0, 0)])
def test_band_part(rng, lower, upper):
    x = rng.standard_normal((2, 4, 5))
    i, j = np.indices((4, 5))
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    check_values(lambda t: of.linalg.band_part(t, lower, upper), lambda a: np.where(keep, a, 0.0), x, exact=True)
    with of.Graph().as_default() as g:  # sizes and widths known only when run
        ph = of.placeholder(of.float64, [None, None, None])
        lo, up = of.placeholder(of.int64, []), of.placeholder(of.int32, [])
        out = of.linalg.band_part(ph, lo, up)
    with of.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(out, {ph: x, lo: lower, up: upper}), np.where(keep, x, 0.0))


def test_spectral_norm(rng):
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(of.norm(x, 2, axis=(1, 2)).numpy(), np.linalg.norm(x, 2, axis=(1, 2)), rtol=1e-12)


def test_empty_matrices():
    """A 0 x 0 matrix's determinant is 1 (its log 0); empty batches give empty results."""
    np.testing.assert_array_equal(of.linalg.det(np.zeros((3, 0, 0))).numpy(), np.ones(3))
    sign, logdet = of.linalg.slogdet(np.zeros((0, 0)))
    assert (float(sign.numpy()), float(logdet.numpy())) == (1.0, 0.0)
    assert of.linalg.inv(np.zeros((0, 2, 2))).shape == (0, 2, 2)
    q, r = of.linalg.qr(np.zeros((3, 0)), full_matrices=True)
    np.testing.assert_array_equal(q.numpy(), np.eye(3))
    assert r.shape == (3, 0)


# ------------------------------------------------------------------------------ gradients


def test_composite_gradients(rng):
    spd = L.symmetric(rng, (2, 3, 3), positive=True)
    b = rng.uniform(-1, 1, (2, 3, 2))

    def sym_of(t):
        return 0.5 * (t + of.linalg.adjoint(t))

    check_gradient(lambda t: of.linalg.logdet(sym_of(t)), lambda a: np.linalg.slogdet(_sym(a))[1], spd, rng)
    check_gradient(lambda t: of.linalg.cholesky_solve(of.linalg.cholesky(sym_of(t)), b),
                   lambda a: np.linalg.solve(_sym(a), b), spd, rng)
    check_gradient(lambda t: of.linalg.band_part(t, 1, 0), lambda a: np.tril(np.triu(a, -1)), b, rng)
    check_gradient(lambda t: of.norm(t, 2, axis=(1, 2)), lambda a: np.linalg.norm(a, 2, axis=(1, 2)), b, rng)


# name, builder of a float64 input of the given shape, function of it (a sign-free loss)
_GRAPH_GRADS = [
    ("cholesky", lambda r, s: L.symmetric(r, s, positive=True), of.linalg.cholesky),
    ("eigh", L.symmetric, lambda t: [of.square(v) for v in of.linalg.eigh(t)]),
    ("eigvalsh", L.symmetric, of.linalg.eigvalsh),
    ("triangular_solve", lambda r, s: L.triangular(r, s, lower=True),
     lambda t: of.linalg.triangular_solve(t, np.ones((3, 2)))),
    ("inv", L.well_conditioned, of.linalg.inv),
    ("slogdet", L.well_conditioned, lambda t: of.linalg.slogdet(t)[1]),
]


@pytest.mark.parametrize("known", [[None, None, None], None], ids=["unknown_dims", "unknown_rank"])
@pytest.mark.parametrize("name,make,fn", _GRAPH_GRADS, ids=[g[0] for g in _GRAPH_GRADS])
def test_graph_gradients_of_unknown_sizes(rng, name, make, fn, known):
    """of.gradients through the ops in a graph whose matrix sizes (or ranks) are unknown when it is
    built (the gradients' masks and transpositions are then computed at run time) equal the eager
    tape's."""
    x = make(rng, (2, 3, 3))
    xt = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(xt)
        outs = fn(xt)
        loss = sum(of.reduce_sum(o) for o in (outs if isinstance(outs, list) else [outs]))
    want = tape.gradient(loss, xt).numpy()
    with of.Graph().as_default() as g:
        ph = of.placeholder(of.float64, known)
        outs = fn(ph)
        loss = sum(of.reduce_sum(o) for o in (outs if isinstance(outs, list) else [outs]))
        (dx,) = of.gradients(loss, [ph])
    with of.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(dx, {ph: x}), want, rtol=1e-10, atol=1e-12)


def test_unsupported_gradients_are_typed_errors(rng):
    """Where TensorFlow's gradient is not defined, opforge says so (UnimplementedError)."""
    for fn, shape in [(lambda t: of.linalg.qr(t, full_matrices=True)[0], (4, 2)),
                      (lambda t: of.linalg.svd(t, full_matrices=True)[1], (5, 2))]:
        xt = of.constant(rng.standard_normal(shape))
        with of.GradientTape() as tape:
            tape.watch(xt)
            y = of.reduce_sum(fn(xt))
        with pytest.raises(of.UnimplementedError, match="not implemented"):
            tape.gradient(y, xt)
    with of.Graph().as_default():
        ph = of.placeholder(of.float64, [None, None])
        s = of.linalg.svd(ph)[0]
        with pytest.raises(of.UnimplementedError, match="unknown size"):
            of.gradients(of.reduce_sum(s), [ph])


# ------------------------------------------------------------------------------ errors


_SQUARE_OPS = {
    "MatrixInverse": lambda x: of.linalg.inv(x),
    "MatrixDeterminant": lambda x: of.linalg.det(x),
    "LogMatrixDeterminant": lambda x: of.linalg.slogdet(x),
    "Cholesky": lambda x: of.linalg.cholesky(x),
    "SelfAdjointEigV2": lambda x: of.linalg.eigh(x),
    "MatrixSolve": lambda x: of.linalg.solve(x, np.ones(x.shape[:-1] + (1,))),
    "MatrixTriangularSolve": lambda x: of.linalg.triangular_solve(x, np.ones(x.shape[:-1] + (1,))),
}
_ALL_OPS = {**_SQUARE_OPS, "Qr": lambda x: of.linalg.qr(x), "Svd": lambda x: of.linalg.svd(x)}


@pytest.mark.parametrize("op", sorted(_SQUARE_OPS))
def test_non_square_is_an_error(op):
    with pytest.raises(of.InvalidArgumentError, match=rf"^{op}: (matrix|input) must be a batch of square matrices"):
        _SQUARE_OPS[op](np.ones((2, 3, 4)))


@pytest.mark.parametrize("op", sorted(_ALL_OPS))
@pytest.mark.parametrize("shape", [(3,), ()])
def test_rank_below_2_is_an_error(op, shape):
    with pytest.raises(of.InvalidArgumentError, match=rf"^{op}: .* must have rank >= 2"):
        _ALL_OPS[op](np.ones(shape))


def test_singular_and_indefinite_matrices():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(of.InvalidArgumentError, match=r"^MatrixInverse: Input is not invertible\.$"):
        of.linalg.inv(singular)
    with pytest.raises(of.InvalidArgumentError, match=r"^MatrixSolve: Input matrix is not invertible\.$"):
        of.linalg.solve(singular, np.ones((2, 2, 1)))
    with pytest.raises(of.InvalidArgumentError, match=r"^Cholesky: Cholesky decomposition was not successful"):
        of.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    np.testing.assert_array_equal(of.linalg.det(singular).numpy(), [0.0, 1.0])
    sign, logdet = of.linalg.slogdet(singular)
    np.testing.assert_array_equal(sign.numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(logdet.numpy(), [-np.inf, 0.0])


def test_errors_when_running_a_graph():
    with of.Graph().as_default() as g:
        ph = of.placeholder(of.float32, [None, None])
        inv = of.linalg.inv(ph)
    with of.Session(graph=g) as sess:
        with pytest.raises(of.InvalidArgumentError, match="MatrixInverse: Input is not invertible"):
            sess.run(inv, {ph: np.zeros((2, 2), np.float32)})
        with pytest.raises(of.InvalidArgumentError, match="MatrixInverse: input must be a batch of square"):
            sess.run(inv, {ph: np.zeros((2, 3), np.float32)})


def test_solve_shape_errors():
    with pytest.raises(of.InvalidArgumentError, match=r"^MatrixSolve: the rows of matrix and rhs: .* 3 and 2"):
        of.linalg.solve(np.eye(3), np.ones((2, 1)))
    with pytest.raises(of.InvalidArgumentError, match=r"^MatrixSolve: the batch dimensions .* 2 and 1"):
        of.linalg.solve(np.stack([np.eye(2)] * 2), np.ones((1, 2, 1)))
    with pytest.raises(of.InvalidArgumentError, match=r"^MatrixSolve: matrix and rhs must have the same batch"):
        of.linalg.solve(np.eye(2), np.ones((3, 2, 1)))
    with pytest.raises(of.InvalidArgumentError, match=r"^MatrixTriangularSolve: the rows of matrix and rhs"):
        of.linalg.triangular_solve(np.eye(3), np.ones((2, 1)))
    with pytest.raises(of.InvalidArgumentError, match=r"MatrixTriangularSolve"):
        of.linalg.triangular_solve(np.stack([np.eye(2)] * 2), np.ones((3, 2, 1)))  # batches 2 and 3


def test_unsupported_dtype_is_an_error():
    with pytest.raises(of.OpError, match="MatrixInverse"):
        of.linalg.inv(np.eye(2, dtype=np.int32))


# ------------------------------------------------------------------------------ static shapes

# (function of a namespace (of or tf) and the placeholders, their shapes, the expected static
# output shapes; None: an unknown rank)
STATIC = [
    (lambda ns, x: [ns.linalg.inv(x)], [[None, 3, None]], [[None, 3, 3]]),
    (lambda ns, x: [ns.linalg.inv(x)], [None], [None]),
    (lambda ns, x: [ns.linalg.cholesky(x)], [[2, None, None]], [[2, None, None]]),
    (lambda ns, x: [ns.linalg.det(x)], [[None, 4, None]], [[None]]),
    (lambda ns, x: list(ns.linalg.slogdet(x)), [[5, None, 2]], [[5], [5]]),
    (lambda ns, x: list(ns.linalg.eigh(x)), [[None, 3, None]], [[None, 3], [None, 3, 3]]),
    (lambda ns, x: list(ns.raw_ops.SelfAdjointEigV2(input=x, compute_v=False)), [[None, 3, None]],
     [[None, 3], [0]]),
    (lambda ns, x: list(ns.linalg.qr(x)), [[None, 3, None]], [[None, 3, None], [None, None, None]]),
    (lambda ns, x: list(ns.linalg.qr(x, full_matrices=True)), [[4, 3]], [[4, 4], [4, 3]]),
    (lambda ns, x: list(ns.linalg.qr(x)), [[4, 3]], [[4, 3], [3, 3]]),
    (lambda ns, x: list(ns.linalg.svd(x)), [[None, 3, 5]], [[None, 3], [None, 3, 3], [None, 5, 3]]),
    (lambda ns, x: list(ns.linalg.svd(x, full_matrices=True)), [[None, 3, None]],
     [[None, None], [None, 3, 3], [None, None, None]]),
    (lambda ns, x: list(ns.raw_ops.Svd(input=x, compute_uv=False)), [[None, 3, None]], [[None, None], [0], [0]]),
    (lambda ns, a, b: [ns.linalg.solve(a, b)], [[None, 3, None], [2, None, 4]], [[2, 3, 4]]),
    (lambda ns, a, b: [ns.linalg.triangular_solve(a, b)], [[None, 3, None], [2, None, None, 4]],
     [[2, None, 3, 4]]),
    (lambda ns, a, b: [ns.linalg.triangular_solve(a, b)], [[3, 3], None], [None]),
]


def _static(ns, placeholder, fn, shapes):
    with ns.Graph().as_default():
        outs = fn(ns, *[placeholder(ns.float32, s) for s in shapes])
        return [None if o.shape.rank is None else o.shape.as_list() for o in outs]


@pytest.mark.parametrize("k", range(len(STATIC)))
def test_static_shapes(k):
    fn, shapes, want = STATIC[k]
    assert _static(of, of.placeholder, fn, shapes) == want


@pytest.mark.parametrize("k", range(len(STATIC)))
def test_static_shapes_equal_tensorflows(k):
    tf = pytest.importorskip("tensorflow")
    fn, shapes, _ = STATIC[k]
    assert _static(of, of.placeholder, fn, shapes) == _static(tf, tf.compat.v1.placeholder, fn, shapes)


# ------------------------------------------------------------------------------ TensorFlow


def _tf_grad(tf, fn, x, w):
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        outs = fn(xt)
        loss = tf.add_n([tf.reduce_sum(o * wi) for o, wi in zip(outs, w)])
    return tape.gradient(loss, xt).numpy()


def _of_grad(fn, x, w):
    xt = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(xt)
        outs = fn(xt)
        loss = sum(of.reduce_sum(o * wi) for o, wi in zip(outs, w))
    return tape.gradient(loss, xt).numpy()


# name, input builder, function over a linalg namespace (sign-free outputs)
_TF_GRADS = [
    ("inv", L.well_conditioned, (3, 3), lambda la, t: [la.inv(t)]),
    ("det", L.well_conditioned, (2, 3, 3), lambda la, t: [la.det(t)]),
    ("slogdet", L.well_conditioned, (3, 3), lambda la, t: [la.slogdet(t)[1]]),
    ("cholesky", lambda r, s: L.symmetric(r, s, positive=True), (2, 3, 3), lambda la, t: [la.cholesky(t)]),
    ("solve", L.well_conditioned, (3, 3), lambda la, t: [la.solve(t, np.ones((3, 2)))]),
    ("solve_adjoint", L.well_conditioned, (3, 3), lambda la, t: [la.solve(t, np.ones((3, 2)), adjoint=True)]),
    ("triangular_solve", lambda r, s: L.triangular(r, s, True), (2, 3, 3),
     lambda la, t: [la.triangular_solve(t, np.ones((2, 3, 2)))]),
    ("triangular_solve_upper_adjoint", lambda r, s: L.triangular(r, s, False), (3, 3),
     lambda la, t: [la.triangular_solve(t, np.ones((2, 3, 2)), lower=False, adjoint=True)]),
    ("qr_deep", L.well_conditioned, (4, 3), lambda la, t: [x * x for x in la.qr(t)]),
    ("qr_wide", L.well_conditioned, (3, 5), lambda la, t: [x * x for x in la.qr(t)]),
    ("eigh", L.symmetric, (3, 3), lambda la, t: [la.eigh(t)[0], la.eigh(t)[1] * la.eigh(t)[1]]),
    ("eigvalsh", L.symmetric, (3, 3), lambda la, t: [la.eigvalsh(t)]),
    ("svd", L.well_conditioned, (4, 3), lambda la, t: [x * x for x in la.svd(t)]),
    ("svd_full", L.well_conditioned, (3, 4), lambda la, t: [x * x for x in la.svd(t, full_matrices=True)]),
    ("svd_values", L.well_conditioned, (3, 4), lambda la, t: [la.svd(t, compute_uv=False)]),
]


@pytest.mark.parametrize("name,make,shape,fn", _TF_GRADS, ids=[g[0] for g in _TF_GRADS])
def test_gradients_equal_tensorflows(rng, name, make, shape, fn):
    """TensorFlow's gradient formulas, reproduced: the same gradients for the same input (sign-free
    losses: squares of vectors whose signs the two libraries pick differently)."""
    tf = pytest.importorskip("tensorflow")
    x = make(rng, shape)
    outs = fn(of.linalg, of.constant(x))
    w = [rng.uniform(-1, 1, o.shape) for o in outs]
    np.testing.assert_allclose(_of_grad(lambda t: fn(of.linalg, t), x, w),
                               _tf_grad(tf, lambda t: fn(tf.linalg, t), x, w), rtol=1e-8, atol=1e-10)


def test_values_equal_tensorflows(rng):
    """The TF2 spellings give TensorFlow's values (vectors up to sign)."""
    tf = pytest.importorskip("tensorflow")
    a = L.well_conditioned(rng, (2, 4, 4))
    spd = L.symmetric(rng, (2, 4, 4), positive=True)
    for name in ("inv", "det", "cholesky", "eigvalsh", "logdet"):
        x = spd if name in ("cholesky", "logdet") else a
        np.testing.assert_allclose(getattr(of.linalg, name)(x).numpy(), getattr(tf.linalg, name)(x).numpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=name)
    for ours, theirs in zip(of.linalg.slogdet(a), tf.linalg.slogdet(a)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    np.testing.assert_allclose(of.linalg.band_part(a, 1, 0).numpy(), tf.linalg.band_part(a, 1, 0).numpy())
    np.testing.assert_allclose(of.linalg.cholesky_solve(of.linalg.cholesky(spd), a).numpy(),
                               tf.linalg.cholesky_solve(tf.linalg.cholesky(spd), a).numpy(), rtol=1e-10)
    for ours, theirs, name in [(of.linalg.qr(a), tf.linalg.qr(a), "Qr"), (of.linalg.eigh(spd), tf.linalg.eigh(spd),
                                                                         "SelfAdjointEigV2")]:
        got = [t.numpy() for t in ours]
        want = L.align_signs(name, got, [t.numpy() for t in theirs], {}, atol=1e-10)
        for g, w_ in zip(got, want):
            np.testing.assert_allclose(g, w_, rtol=1e-10, atol=1e-12)
    got = [t.numpy() for t in of.linalg.svd(a)]
    want = L.align_signs("Svd", got, [t.numpy() for t in tf.linalg.svd(a)], {}, atol=1e-10)
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-10, atol=1e-12)
