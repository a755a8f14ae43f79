"""of.einsum (tf.einsum, and TensorFlow's Einsum op in imported GraphDefs): equations against
np.einsum eagerly and in graphs with unknown dimensions, float64 gradients checked
numerically, and the errors of bad equations."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("aecd,abcd->acbe", [(2, 5, 3, 4), (2, 6, 3, 4)]),   # MultiHeadAttention's scores
    ("acbe,aecd->abcd", [(2, 3, 6, 5), (2, 5, 3, 4)]),   # ... and its weighted values
    ("abc,cde->abde", [(2, 3, 4), (4, 5, 6)]),            # ... and its projections
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),    # broadcast batch
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ijk,k->ij", [(2, 3, 4), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bij->b", [(2, 3, 4), (2, 3, 4)]),
    ("ij,jk", [(3, 4), (4, 5)]),                          # implicit output
    ("abc,abd->acd", [(2, 3, 4), (2, 3, 5)]),
    ("bi,bj->bij", [(2, 3), (2, 4)]),
]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy_eagerly_and_in_a_graph(equation, shapes):
    rng = np.random.default_rng(len(equation))
    xs = [rng.normal(size=s) for s in shapes]
    ref = np.einsum(equation, *xs)
    np.testing.assert_allclose(of.einsum(equation, *[of.constant(x) for x in xs]).numpy(), ref, atol=1e-12)
    g = of.Graph()
    with g.as_default():
        # The first dimension unknown when the graph is built, as a frozen model's batch.
        ph = [tf1.placeholder(of.float64, [None] + list(s[1:])) for s in shapes]
        out = tf1.einsum(equation, *ph)
    got = tf1.Session(graph=g).run(out, dict(zip(ph, xs)))
    np.testing.assert_allclose(got, ref, atol=1e-12)


@pytest.mark.parametrize("equation,shapes", CASES[:5], ids=[c[0] for c in CASES[:5]])
def test_gradients_match_numeric(equation, shapes):
    rng = np.random.default_rng(7)
    xs = [rng.normal(size=s) for s in shapes]
    w = rng.normal(size=np.einsum(equation, *xs).shape)
    g = of.Graph()
    with g.as_default():
        ph = [tf1.placeholder(of.float64, s) for s in shapes]
        loss = of.reduce_sum(of.einsum(equation, *ph) * w)
        grads = of.gradients(loss, ph)
    got = tf1.Session(graph=g).run(grads, dict(zip(ph, xs)))
    for k, x in enumerate(xs):  # loss is linear in each input: the gradient is exact
        others = [xx for j, xx in enumerate(xs) if j != k]
        eps, num = 1e-6, np.zeros_like(x)
        for i in np.ndindex(x.shape):
            e = np.zeros_like(x)
            e[i] = eps
            args_p = [x + e if j == k else xs[j] for j in range(len(xs))]
            args_m = [x - e if j == k else xs[j] for j in range(len(xs))]
            num[i] = ((np.einsum(equation, *args_p) * w).sum() - (np.einsum(equation, *args_m) * w).sum()) / (2 * eps)
        np.testing.assert_allclose(got[k], num, atol=1e-6)
        del others


def test_bad_equations():
    a, b = of.constant(np.ones((2, 3))), of.constant(np.ones((3, 4)))
    with pytest.raises(InvalidArgumentError, match="Einsum.*2 operands, got 1"):
        of.einsum("ij,jk->ik", a)
    with pytest.raises(InvalidArgumentError, match="Einsum.*3 labels but the input has rank 2"):
        of.einsum("ijk,kl->il", a, b)
    with pytest.raises(InvalidArgumentError, match="Einsum.*output label 'z'"):
        of.einsum("ij,jk->iz", a, b)
    with pytest.raises(InvalidArgumentError, match="Einsum: label 'i' repeated within an operand.*2 and 3"):
        of.einsum("ii->i", of.constant(np.ones((2, 3))))
    with pytest.raises(InvalidArgumentError, match="Einsum.*invalid operand"):
        of.einsum("i1,jk->ik", a, b)


@pytest.mark.parametrize("equation,shapes", [("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("bii->bi", [(2, 3, 3)]),
                                             ("bii->b", [(2, 3, 3)]), ("iij,jk->ik", [(3, 3, 4), (4, 2)]),
                                             ("ijij->ij", [(2, 3, 2, 3)]), ("bij,bjj->bi", [(2, 3, 4), (2, 4, 4)])])
def test_diagonals(equation, shapes):
    """A label repeated within an operand takes its diagonal (MatrixDiagPart), as NumPy; the
    gradient flows back onto the diagonal."""
    rng = np.random.default_rng(len(equation))
    args = [rng.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(of.einsum(equation, *args).numpy(), np.einsum(equation, *args), rtol=1e-12)
    v = of.Variable(args[0])
    with of.GradientTape() as tape:
        y = of.reduce_sum(of.einsum(equation, v, *args[1:]))
    eps, num = 1e-6, np.zeros_like(args[0])
    for i in np.ndindex(args[0].shape):
        d = np.zeros_like(args[0])
        d[i] = eps
        num[i] = (np.einsum(equation, args[0] + d, *args[1:]).sum() - np.einsum(equation, args[0] - d,
                                                                               *args[1:]).sum()) / (2 * eps)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), num, atol=1e-6)
