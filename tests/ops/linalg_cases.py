"""The op matrix's tables for the linear-algebra ops (opmatrix.py's "linalg" family reads them).

Random matrices are rarely what these ops want: an inverse or a solve needs a well-conditioned
matrix, Cholesky a positive-definite one, an eigen decomposition a symmetric one whose
eigenvalues are apart (its gradient divides by their differences), an SVD's gradient singular
values apart. ``build`` therefore replaces the random data with matrices made from random
orthogonal factors and chosen spectra: U diag(s) V^T with s in [0.5, 2] (condition number
<= 4), random signs where the op allows them. Plain NumPy: no opforge import.
"""

from __future__ import annotations

import numpy as np

# (id, {input: shape}, attrs, extra) per op. extra["no_grad"]: TensorFlow's gradient does not
# support the case (the gradient check skips it).
_SQUARE = [(4, 4), (1, 1), (2, 3, 3), (2, 1, 3, 3), (0, 0), (2, 0, 0), (0, 3, 3)]
_SQUARE_LARGE = [(64, 24, 24), (100, 100)]


def _sid(s):
    return "s" if len(s) == 0 else "x".join(map(str, s))


def _flag(attrs):
    return ",".join(f"{k}={int(v)}" for k, v in attrs.items())


def _square_rows(name, attr=None, large=False):
    shapes = _SQUARE_LARGE if large else _SQUARE
    values = (False, True) if attr else (None,)
    out = []
    for s in shapes:
        for v in values:
            attrs = {attr: v} if attr else {}
            out.append((f"{_sid(s)}{'-' + _flag(attrs) if attrs else ''}", {name: s}, attrs, {}))
    return out


def _solve_rows(large=False, broadcast=False):
    # (matrix shape, rhs shape)
    pairs = ([((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((1, 1), (1, 3)), ((2, 3, 3), (2, 3, 0)),
              ((0, 2, 2), (0, 2, 3)), ((0, 0), (0, 2))] if not large
             else [((64, 16, 16), (64, 16, 8)), ((120, 120), (120, 40))])
    if broadcast and not large:
        pairs += [((3, 3), (2, 3, 2)), ((2, 1, 3, 3), (4, 3, 1)), ((1, 2, 2), (3, 2, 2))]
    out = []
    for m, r in pairs:
        for attrs in ([{"lower": lo, "adjoint": adj} for lo in (True, False) for adj in (False, True)]
                      if broadcast else [{"adjoint": False}, {"adjoint": True}]):
            out.append((f"{_sid(m)}-{_sid(r)}-{_flag(attrs)}", {"matrix": m, "rhs": r}, attrs, {}))
    return out


def _rect_rows(name, large=False):
    return ([(5, 3), (3, 5), (4, 4), (2, 4, 3), (2, 3, 4), (1, 1), (3, 0), (0, 3), (0, 4, 2)] if not large
            else [(48, 20, 12), (100, 40)])  # (float32 vectors err by ~eps / the spectral gap)


def _qr_rows(large=False):
    out = []
    for s in _rect_rows("input", large):
        m, n = s[-2:]
        for full in (False, True):
            extra = {"no_grad": True} if full and m > n else {}
            out.append((f"{_sid(s)}-full_matrices={int(full)}", {"input": s}, {"full_matrices": full}, extra))
    return out


def _svd_rows(large=False):
    out = []
    for s in _rect_rows("input", large):
        m, n = s[-2:]
        for uv, full in ((True, False), (True, True), (False, False)):
            extra = {"no_grad": True} if uv and full and abs(m - n) > 1 else {}
            attrs = {"compute_uv": uv, "full_matrices": full}
            out.append((f"{_sid(s)}-{_flag(attrs)}", {"input": s}, attrs, extra))
    return out


def _rows(op_name, large=False):
    if op_name in ("MatrixInverse",):
        return _square_rows("input", "adjoint", large)
    if op_name in ("MatrixDeterminant", "LogMatrixDeterminant", "Cholesky", "Lu", "MatrixSquareRoot"):
        return _square_rows("input", None, large)
    if op_name == "SelfAdjointEigV2":
        return _square_rows("input", "compute_v", large)
    if op_name == "MatrixSolve":
        return _solve_rows(large)
    if op_name == "MatrixTriangularSolve":
        return _solve_rows(large, broadcast=True)
    if op_name == "Qr":
        return _qr_rows(large)
    if op_name == "Svd":
        return _svd_rows(large)
    raise KeyError(op_name)


CASES = {name: _rows(name) for name in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant",
                                        "Cholesky", "MatrixSolve", "MatrixTriangularSolve", "Qr",
                                        "SelfAdjointEigV2", "Svd", "Lu", "MatrixSquareRoot")}
LARGE_CASES = {name: _rows(name, large=True) for name in CASES}


# ------------------------------------------------------------------------------ values


def _orthogonal(rng, batch, n):
    """Random orthogonal n x n matrices (QR of Gaussian matrices, signs fixed by R's diagonal)."""
    g = rng.standard_normal(tuple(batch) + (n, n))
    q, r = np.linalg.qr(g)
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _spectrum(rng, batch, k, spread=True):
    """k values in [0.5, 2] per matrix; with spread, at least 1.5 / k apart (sorted at random)."""
    if not spread or k <= 1:
        return rng.uniform(0.5, 2.0, tuple(batch) + (k,))
    base = np.linspace(0.5, 2.0, k)
    jitter = rng.uniform(-0.2, 0.2, tuple(batch) + (k,)) * (1.5 / k)
    return rng.permuted(np.broadcast_to(base, tuple(batch) + (k,)) + jitter, axis=-1)


def well_conditioned(rng, shape, signed=True):
    """U diag(s) V^T of the given shape, s in [0.5, 2] and apart; a random determinant sign."""
    *batch, m, n = shape
    k = min(m, n)
    u = _orthogonal(rng, batch, m)[..., :, :k]
    v = _orthogonal(rng, batch, n)[..., :, :k]
    s = _spectrum(rng, batch, k)
    if signed:
        u = u * rng.choice([-1.0, 1.0], tuple(batch) + (1, k))
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


def symmetric(rng, shape, positive=False):
    """Q diag(e) Q^T with e apart (in [0.5, 2], or of both signs unless positive)."""
    *batch, n, _ = shape
    q = _orthogonal(rng, batch, n)
    e = _spectrum(rng, batch, n)
    if not positive:
        e = e * rng.choice([-1.0, 1.0], e.shape)
    return (q * e[..., None, :]) @ np.swapaxes(q, -1, -2)


def triangular(rng, shape, lower):
    """A triangular matrix with a diagonal in +-[1, 2] and small entries off it (the other
    triangle holds random values the op must not read)."""
    x = rng.uniform(-0.5, 0.5, shape)
    n = shape[-1]
    d = rng.uniform(1.0, 2.0, tuple(shape[:-1])) * rng.choice([-1.0, 1.0], tuple(shape[:-1]))
    x[..., np.arange(n), np.arange(n)] = d
    return x


def build(rng, op, case, data):
    """Replaces the random data inputs with matrices the op is meant for (see the module doc),
    in the dtype of the random data."""
    out = {}
    name = op.name
    for arg, v in data.items():
        v = np.asarray(v)
        shape = v.shape
        if 0 in shape:
            continue
        if name in ("Cholesky",):
            x = symmetric(rng, shape, positive=True)
        elif name == "MatrixSquareRoot":  # eigenvalues near 2: none on the negative real axis
            x = 2 * np.eye(shape[-1]) + rng.uniform(-0.5, 0.5, shape) / np.sqrt(shape[-1])
        elif name == "SelfAdjointEigV2":
            x = symmetric(rng, shape)
        elif name == "MatrixTriangularSolve" and arg == "matrix":
            x = triangular(rng, shape, case.attrs.get("lower", True))
        elif arg == "rhs":
            x = rng.uniform(-1.0, 1.0, shape)
        else:
            x = well_conditioned(rng, shape)
        out[arg] = x.astype(v.dtype)
    return out


def symmetrize(g):
    """(g + g^T) / 2 per matrix."""
    return 0.5 * (g + np.swapaxes(g, -1, -2))


# The numeric gradient of an op that reads one triangle, projected onto what TensorFlow's
# gradient formula returns. Cholesky's formula is the gradient w.r.t. a symmetric matrix (its
# perturbations move both triangles), so it equals the symmetrized central differences.
GRADIENT_PROJECTIONS = {"Cholesky": symmetrize}


# ------------------------------------------------------------------------------ sign freedom

# Decompositions whose vectors are defined up to sign (and, for the columns a full_matrices
# result adds past min(M, N), up to a rotation of the subspace they span): LAPACK builds differ
# in the signs they pick, and TensorFlow's Eigen in others again. The matrix compares them with
# the reference after ``align_signs``.
SIGN_FREE = ("Qr", "SelfAdjointEigV2", "Svd")


def _column_signs(got, want):
    """+-1 per column k (broadcastable over want's rows): the sign that best maps want[..., k]
    onto got[..., k]."""
    dots = np.sum(got.astype(np.float64) * want.astype(np.float64), axis=-2, keepdims=True)
    return np.where(dots < 0, -1.0, 1.0)


def _align_tail(got, want, p, atol):
    """want with its columns past p replaced by got's, after checking they span the same
    subspace (equal projectors) with orthonormal columns."""
    if want.shape[-1] <= p:
        return want
    g, w = got[..., :, p:].astype(np.float64), want[..., :, p:].astype(np.float64)
    np.testing.assert_allclose(g @ np.swapaxes(g, -1, -2), w @ np.swapaxes(w, -1, -2), atol=atol,
                               err_msg="the extra columns span another subspace")
    eye = np.broadcast_to(np.eye(g.shape[-1]), g.shape[:-2] + (g.shape[-1],) * 2)
    np.testing.assert_allclose(np.swapaxes(g, -1, -2) @ g, eye, atol=atol,
                               err_msg="the extra columns are not orthonormal")
    out = want.copy()
    out[..., :, p:] = got[..., :, p:]
    return out


def align_signs(op_name, got, want, attrs, atol):
    """The reference outputs `want` (a list, as opmatrix.reference returns) with the sign of
    each vector chosen as in the op's outputs `got` (NumPy arrays), flipping what belongs
    together (a column of Q with the row of R, a column of u with the column of v)."""
    want = [np.array(w) for w in want]
    if op_name == "SelfAdjointEigV2" and attrs.get("compute_v", True) and want[1].size:
        want[1] = (want[1] * _column_signs(got[1], want[1])).astype(want[1].dtype)
    elif op_name == "Qr" and want[0].size:
        q, r = want
        p = min(q.shape[-2], r.shape[-1])
        signs = _column_signs(got[0][..., :, :p], q[..., :, :p])  # [..., 1, p]
        q = q.copy()
        q[..., :, :p] *= signs
        r = r.copy()
        r[..., :p, :] *= np.swapaxes(signs, -1, -2)
        want = [_align_tail(got[0], q, p, atol), r]
    elif op_name == "Svd" and attrs.get("compute_uv", True) and want[1].size:
        s, u, v = want
        p = s.shape[-1]
        signs = _column_signs(got[1][..., :, :p], u[..., :, :p])
        u, v = u.copy(), v.copy()
        u[..., :, :p] *= signs
        v[..., :, :p] *= signs
        want = [s, _align_tail(got[1], u, p, atol), _align_tail(got[2], v, p, atol)]
    return want


def undefined_outputs(op_name, attrs) -> tuple[int, ...]:
    """Outputs the op leaves empty and TensorFlow fills with scratch (v without compute_v, u and v
    without compute_uv): not compared with TensorFlow's."""
    if op_name == "SelfAdjointEigV2" and not attrs.get("compute_v", True):
        return (1,)
    if op_name == "Svd" and not attrs.get("compute_uv", True):
        return (1, 2)
    return ()


def comparable_with_tensorflow(op_name, attrs, ours, theirs, atol):
    """(ours, theirs) as lists of arrays to compare with each other: undefined outputs dropped,
    TensorFlow's vectors (Eigen's signs) aligned to ours."""
    drop = undefined_outputs(op_name, attrs)
    ours = [o for i, o in enumerate(ours) if i not in drop]
    theirs = [t for i, t in enumerate(theirs) if i not in drop]
    if op_name in SIGN_FREE and all(o.shape == t.shape for o, t in zip(ours, theirs)):
        full = list(theirs)
        for i in drop:  # align_signs reads outputs by position
            full.insert(i, np.zeros(0, theirs[0].dtype))
        mine = list(ours)
        for i in drop:
            mine.insert(i, np.zeros(0, ours[0].dtype))
        theirs = [t for i, t in enumerate(align_signs(op_name, mine, full, attrs, atol)) if i not in drop]
    return ours, theirs
