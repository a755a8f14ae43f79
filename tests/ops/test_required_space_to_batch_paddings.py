"""tf.required_space_to_batch_paddings: the padded sizes are multiples of the block, on random
shapes, against the rule and TensorFlow's answers where installed; and its diagnostics."""

import numpy as np
import pytest

from opforge.ops.manip_ops import required_space_to_batch_paddings


def test_padded_sizes_divide_by_the_block():
    rng = np.random.default_rng(0)
    for _ in range(5):
        shape, block = rng.integers(1, 12, 3), rng.integers(1, 5, 3)
        base = rng.integers(0, 3, (3, 2))
        paddings, crops = (t.numpy() for t in required_space_to_batch_paddings(shape, block, base))
        extra = (block - (shape + base.sum(1)) % block) % block
        np.testing.assert_array_equal(paddings, np.stack([base[:, 0], base[:, 1] + extra], 1))
        np.testing.assert_array_equal(crops, np.stack([np.zeros(3, int), extra], 1))
        assert not ((shape + paddings.sum(1)) % block).any()


def test_matches_tensorflow():
    tfx = pytest.importorskip("tensorflow")
    for args in (([5, 7], [2, 3]), ([5, 7], [2, 3], [[1, 0], [2, 2]]), ([4], [4])):
        for got, want in zip(required_space_to_batch_paddings(*args), tfx.required_space_to_batch_paddings(*args)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_diagnostics():
    with pytest.raises(ValueError, match=r"input_shape must have shape \[2\]"):
        required_space_to_batch_paddings(np.array([5, 7, 9]), np.array([2, 3]))
    with pytest.raises(ValueError, match="block_shape must be a vector"):
        required_space_to_batch_paddings(np.array([5]), np.int32(2))
