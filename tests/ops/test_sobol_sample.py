"""SobolSample (tf.math.sobol_sample): TensorFlow's values (the committed answers of
tools/make_miscops_fixtures.py, up to the table's last dimension 21200), the sequence's
defining properties (van der Corput in the first dimension, one point per dyadic interval),
static shapes and the errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.ops.quasi_random import sobol_sample

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "miscops_expected.npz")


def test_tensorflows_values():
    expected = np.load(DATA)
    for i in range(4):
        dim, n, skip = (int(v) for v in expected[f"sobol_{i}_args"])
        step = dim // 128 + 1  # the columns stored
        got = sobol_sample(dim, n, skip, dtype="float64").numpy()[:, ::step]
        np.testing.assert_array_equal(got, expected[f"sobol_{i}"])
        got32 = sobol_sample(dim, n, skip).numpy()[:, ::step]
        assert got32.dtype == np.float32
        np.testing.assert_array_equal(got32, expected[f"sobol_{i}"].astype(np.float32))


def test_sequence_properties():
    x = sobol_sample(6, 63, dtype="float64").numpy()
    # the first coordinate is the van der Corput sequence in Gray-code order: points 1 .. 63
    assert x[:4, 0].tolist() == [0.5, 0.75, 0.25, 0.375]
    # the first 2^k - 1 points plus the origin put one point in each interval of width 2^-k
    for j in range(6):
        assert sorted(np.floor(np.append(x[:, j], 0.0) * 64).astype(int).tolist()) == list(range(64))
    # skip continues the same sequence
    np.testing.assert_array_equal(sobol_sample(6, 13, skip=50, dtype="float64").numpy(), x[50:])


def test_static_shape_and_errors():
    with of.Graph().as_default():
        n = of.placeholder(of.int32, [])
        assert sobol_sample(5, n).shape.as_list() == [None, 5]
        assert sobol_sample(5, 7).shape.as_list() == [7, 5]
    for args, match in [((0, 3), "SobolSample: dim must be in"), ((21201, 3), "SobolSample: dim must be in"),
                        ((3, 0), "SobolSample: num_results must be at least one"),
                        ((3, 2, -1), "SobolSample: skip must be non-negative"),
                        ((3, 2**31 - 5, 10), "SobolSample: num_results \\+ skip")]:
        with pytest.raises(of.errors.InvalidArgumentError, match=match):
            sobol_sample(*args)
