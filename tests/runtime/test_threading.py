"""The one CPU thread budget: of.config.threading and GEMMs split over the runtime's pool."""

import numpy as np
import pytest

import opforge as of


@pytest.fixture
def restore_threads():
    yield
    of.config.threading.set_intra_op_parallelism_threads(0)


def test_budget_can_be_set_and_restored(restore_threads):
    default = of.config.threading.num_threads()
    of.config.threading.set_intra_op_parallelism_threads(1)
    assert of.config.threading.num_threads() == 1
    assert of.config.threading.get_intra_op_parallelism_threads() == 1
    of.config.threading.set_intra_op_parallelism_threads(3)
    assert of.config.threading.num_threads() == 3
    of.config.threading.set_intra_op_parallelism_threads(0)
    assert of.config.threading.num_threads() == default
    with pytest.raises(ValueError, match="num_threads"):
        of.config.threading.set_intra_op_parallelism_threads(-2)
    of.config.threading.set_inter_op_parallelism_threads(2)
    assert of.config.threading.get_inter_op_parallelism_threads() == 2


# Shapes that take each path of the split GEMM: small (inline), tall (row blocks), wide
# (column blocks), and odd sizes that leave ragged blocks.
SHAPES = [(8, 8, 8), (3136, 16, 72), (1000, 300, 37), (37, 300, 1000), (257, 513, 129), (1, 4096, 4096)]


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemm_matches_numpy_for_every_split(threads, ta, tb, dtype, restore_threads):
    of.config.threading.set_intra_op_parallelism_threads(threads)
    rng = np.random.default_rng(threads)
    for m, k, n in SHAPES:
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
        want = (a.T if ta else a) @ (b.T if tb else b)
        got = of.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
        tol = 1e-4 if dtype == np.float32 else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k))


def test_batched_and_conv_gemms_agree_across_budgets(restore_threads):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 20, 20, 16)).astype(np.float32)
    f = rng.standard_normal((3, 3, 16, 24)).astype(np.float32)
    a = rng.standard_normal((6, 64, 96)).astype(np.float32)
    b = rng.standard_normal((6, 96, 80)).astype(np.float32)
    results = []
    for threads in (1, 2):
        of.config.threading.set_intra_op_parallelism_threads(threads)
        results.append((of.nn.conv2d(x, f, strides=1, padding="VALID").numpy(), of.matmul(a, b).numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(results[0][1], a @ b, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(results[1][1], a @ b, rtol=1e-4, atol=1e-3)
