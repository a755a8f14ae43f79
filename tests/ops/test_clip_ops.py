"""ops/clip_ops.py (of.clip_by_norm, of.clip_by_global_norm, of.linalg.global_norm): NumPy
references on random data, eagerly and in a graph, float64 gradients, and the errors."""

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values


@pytest.fixture
def rng():
    return np.random.default_rng(2035)


def _np_clip_by_norm(t, clip, axes=None):
    norm = np.sqrt(np.sum(t * t, axis=None if axes is None else tuple(axes), keepdims=True))
    return t * clip / np.maximum(norm, clip)


@pytest.mark.parametrize("axes", [None, [0], [1], [0, 1]])
@pytest.mark.parametrize("clip", [0.5, 100.0])  # clipped, untouched
def test_clip_by_norm(rng, axes, clip):
    x = rng.standard_normal((4, 5))
    check_values(lambda t: of.clip_by_norm(t, clip, axes), lambda a: _np_clip_by_norm(a, clip, axes), x, rtol=1e-12)
    check_gradient(lambda t: of.clip_by_norm(t, clip, axes), lambda a: _np_clip_by_norm(a, clip, axes), x, rng)


def test_clip_by_norm_of_zero_has_a_finite_gradient():
    x = of.constant(np.zeros((2, 3)))
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(of.clip_by_norm(x, 1.0))
    np.testing.assert_array_equal(of.clip_by_norm(x, 1.0).numpy(), 0)
    assert np.all(np.isfinite(tape.gradient(y, x).numpy()))


def _np_global_norm(ts):
    return np.sqrt(sum(np.sum(t * t) for t in ts if t is not None))


@pytest.mark.parametrize("clip", [0.5, 1e3])
def test_clip_by_global_norm(rng, clip):
    a, b = rng.standard_normal((3, 2)), rng.standard_normal(4)

    def ref(x, y):
        n = _np_global_norm([x, y])
        s = clip / max(n, clip)
        return [x * s, y * s, np.float64(n)]

    def fn(x, y):
        clipped, norm = of.clip_by_global_norm([x, None, y], clip)
        assert clipped[1] is None
        return [clipped[0], clipped[2], norm]
    check_values(fn, ref, a, b, rtol=1e-12)
    check_gradient(lambda x: fn(x, b)[0], lambda x: ref(x, b)[0], a, rng)
    np.testing.assert_allclose(of.linalg.global_norm([a, None, b]).numpy(), _np_global_norm([a, b]), rtol=1e-12)


def test_clip_by_global_norm_with_use_norm_and_mixed_dtypes(rng):
    a = rng.standard_normal(3).astype(np.float32)
    b = rng.standard_normal(3)
    clipped, norm = of.clip_by_global_norm([a, b], 1.0, use_norm=of.constant(4.0, of.float64))
    assert norm.numpy() == 4.0 and clipped[0].dtype == of.float32
    np.testing.assert_allclose(clipped[1].numpy(), b / 4, rtol=1e-12)
    np.testing.assert_allclose(clipped[0].numpy(), a / 4, rtol=1e-6)


def test_clip_errors():
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        of.clip_by_global_norm(of.constant([1.0]), 1.0)
    with pytest.raises(ValueError, match="t_list holds no tensors"):
        of.linalg.global_norm([None])
