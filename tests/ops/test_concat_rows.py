"""ConcatV2 with many rows (a channel concat of NHWC images) writes each output row whole, in
one pass: every dtype size, empty pieces, and inner axes, against np.concatenate."""

import numpy as np
import pytest

import opforge as of


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.bool_])
@pytest.mark.parametrize("shapes,axis", [
    ([(8, 5, 5, 3), (8, 5, 5, 0), (8, 5, 5, 7), (8, 5, 5, 1)], 3),  # 200 rows, an empty piece
    ([(64, 2, 3), (64, 1, 3), (64, 4, 3)], 1),                       # an inner axis
    ([(4, 9, 11, 2), (4, 9, 11, 2)], -1),
])
def test_many_rows_match_numpy(dtype, shapes, axis):
    rng = np.random.default_rng(len(shapes))
    xs = [(rng.standard_normal(s) * 50).astype(dtype) for s in shapes]
    got = of.concat([of.constant(x) for x in xs], axis).numpy()
    np.testing.assert_array_equal(got, np.concatenate(xs, axis))
