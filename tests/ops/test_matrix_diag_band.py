"""tf.linalg.diag / diag_part with MatrixDiagV3's band, sizes, padding and alignment
(opforge/ops/matrix_diag_band.py; compat.v1's tf.linalg.diag, tf.matrix_diag ...) against a NumPy
reference written from TensorFlow's documentation, and TensorFlow's answers where installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework.errors import InvalidArgumentError
from opforge.ops.matrix_diag_band import matrix_diag, matrix_diag_part

ALIGNS = ["LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT"]
rng = np.random.default_rng(11)


def _np_diag_part(m, lo, hi, pad, align):
    rows, cols = m.shape[-2:]
    max_len = min(rows + min(hi, 0), cols - max(lo, 0))
    out = np.full(m.shape[:-2] + (hi - lo + 1, max_len), pad, m.dtype)
    for r, d in enumerate(range(hi, lo - 1, -1)):
        diag = np.diagonal(m, d, -2, -1)
        n = diag.shape[-1]
        right = (d > 0 and align.startswith("RIGHT")) or (d < 0 and align.endswith("RIGHT")) or (
            d == 0 and align == "RIGHT_RIGHT")
        out[..., r, max_len - n if right else 0:(max_len if right else n)] = diag
    return out[..., 0, :] if lo == hi else out


@pytest.mark.parametrize("align", ALIGNS)
def test_diag_part_and_diag_round_trip(align):
    m = rng.normal(size=(2, 3, 5))
    for lo, hi in [(0, 0), (-2, 1), (1, 3), (-1, -1), (-2, 4)]:
        part = matrix_diag_part(m, k=(lo, hi), padding_value=9.0, align=align).numpy()
        np.testing.assert_array_equal(part, _np_diag_part(m, lo, hi, 9.0, align))
        back = matrix_diag(part, k=(lo, hi), num_rows=3, num_cols=5, align=align).numpy()
        band = np.where(np.logical_and(np.arange(5)[None] - np.arange(3)[:, None] >= lo,
                                       np.arange(5)[None] - np.arange(3)[:, None] <= hi), m, 0.0)
        np.testing.assert_array_equal(back, band)


def test_sizes_inferred_and_padding():
    np.testing.assert_array_equal(matrix_diag([1.0, 2.0]).numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_array_equal(matrix_diag([1.0, 2.0], k=1).numpy(), np.diag([1.0, 2.0], 1))
    np.testing.assert_array_equal(matrix_diag([1.0, 2.0], k=-1, padding_value=5.0).numpy(),
                                  np.where(np.eye(3, k=-1) == 1, np.diag([1.0, 2.0], -1), 5.0))
    np.testing.assert_array_equal(matrix_diag([1.0, 2.0], num_rows=2, num_cols=4).numpy(), np.eye(2, 4) * [1, 2, 0, 0])
    assert matrix_diag(np.ones((4, 2, 3)), k=(0, 1)).shape == (4, 3, 3)


def test_gradients_flow_through_the_gathers():
    d = of.Variable(np.array([1.0, 2.0, 3.0]))
    w = rng.normal(size=(3, 3))
    with of.GradientTape() as tape:
        loss = of.reduce_sum(matrix_diag(d) * w)
    np.testing.assert_allclose(tape.gradient(loss, d).numpy(), np.diag(w))
    m = of.Variable(rng.normal(size=(3, 4)))
    with of.GradientTape() as tape:
        loss = of.reduce_sum(matrix_diag_part(m, k=(0, 1)))
    np.testing.assert_allclose(tape.gradient(loss, m).numpy(), np.eye(3, 4) + np.eye(3, 4, 1))


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError, match="not consistent"):
        matrix_diag([1.0, 2.0], num_rows=3, num_cols=4)
    with pytest.raises(InvalidArgumentError, match="must not be larger"):
        matrix_diag_part(np.ones((3, 3)), k=(1, 0))
    with pytest.raises(InvalidArgumentError, match="align must be"):
        matrix_diag([1.0], align="CENTER")
    with pytest.raises(InvalidArgumentError, match="need 2 rows of diagonals"):
        matrix_diag(np.ones((3, 2)), k=(0, 1))
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        matrix_diag_part(np.ones((2, 3)), k=(-3, 0))
    with pytest.raises(InvalidArgumentError, match="at least 2-dim"):
        matrix_diag_part(np.ones(3))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    m = rng.normal(size=(2, 4, 3))
    for align in ALIGNS:
        for lo, hi in [(-3, 2), (-1, 0), (1, 1)]:
            want = tf.linalg.diag_part(m, k=(lo, hi), padding_value=-1.0, align=align).numpy()
            np.testing.assert_array_equal(matrix_diag_part(m, k=(lo, hi), padding_value=-1.0, align=align).numpy(),
                                          want)
            np.testing.assert_array_equal(
                matrix_diag(want, k=(lo, hi), num_cols=3, padding_value=2.0, align=align).numpy(),
                tf.linalg.diag(want, k=(lo, hi), num_cols=3, padding_value=2.0, align=align).numpy())
