"""blas::gemm's float32 kernels (also with B prepared once as a blas::PackedMatrix) (the runtime's AVX-512 GEMM and OpenBLAS) against NumPy:
shapes that cross every blocking edge of the AVX-512 kernel (12-row and 32-column micro-tiles,
6-row and 64-column ones over pairs of panels, B read in place for up to 128 rows,
144-row A blocks, 256-deep K blocks, 1024-column B blocks), all four transposes, alpha and beta,
leading dimensions of strided views, and every thread budget's split."""

import numpy as np
import pytest

import opforge as of
from opforge import _C

KERNELS = ["openblas"] + (["avx512"] if _C._testing.set_sgemm_kernel("avx512") else [])

# (m, k, n): micro-tile tails in m and n, K past one and several depth blocks, N past a B
# block, M past an A block, the few-row kernels, and degenerate sizes.
SHAPES = [(1, 1, 1), (30, 20, 16), (29, 33, 44), (17, 9, 1040), (200, 40, 1000), (50, 300, 700), (1, 2048, 1000), (3, 40, 70), (4, 19, 130), (2, 300, 17), (12, 256, 32), (13, 257, 33), (11, 5, 17), (145, 300, 1025), (49, 4608, 64),
          (3136, 16, 72), (2, 1000, 3), (300, 7, 1), (1, 513, 2049), (40, 0, 24),
          # 5 to 8 rows: B streamed in 32-column strips (column tails of 1, 15, 8, none, one vector)
          (5, 70, 33), (6, 300, 47), (8, 2048, 1000), (7, 17, 32), (8, 9, 16), (5, 3, 60),
          # pairs of 32-column panels, 6 rows at a time: a short second panel, row tails of 2 and 1
          (14, 50, 60), (25, 300, 113), (9, 20, 64),
          # up to 128 rows: B read in place (depth past one 1024-deep pass, column tails)
          (100, 1100, 81), (128, 64, 200), (129, 40, 70), (33, 2100, 17),
          # ... and packed when B holds over 1M values
          (20, 1100, 1000)]


@pytest.fixture
def kernel(request):
    before = _C._testing.sgemm_kernel()
    assert _C._testing.set_sgemm_kernel(request.param)
    yield request.param
    _C._testing.set_sgemm_kernel(before)
    of.config.threading.set_intra_op_parallelism_threads(0)


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("packed", [False, True])
def test_gemm_matches_numpy(kernel, ta, tb, threads, packed):
    of.config.threading.set_intra_op_parallelism_threads(threads)
    rng = np.random.default_rng(hash((ta, tb, threads)) % 2**32)
    for m, k, n in SHAPES:
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
        c0 = rng.standard_normal((m, n)).astype(np.float32)
        for alpha, beta in [(1.0, 0.0), (0.5, 1.0), (-2.0, 0.25)]:
            c = c0.copy()
            _C._testing.gemm(ta, tb, alpha, a, b, beta, c, packed=packed)
            want = alpha * ((a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64))
            want += beta * c0
            np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4 * np.sqrt(max(k, 1)) * (abs(alpha) + 1),
                                       err_msg=f"{kernel} packed={packed} m={m} k={k} n={n} ta={ta} tb={tb} alpha={alpha} beta={beta}")


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
def test_beta_zero_ignores_what_c_held(kernel):
    # beta = 0 means C is written, never read: NaN or Inf already in C must not leak through.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((37, 70)).astype(np.float32)
    b = rng.standard_normal((70, 45)).astype(np.float32)
    c = np.full((37, 45), np.nan, np.float32)
    c[::3] = np.inf
    _C._testing.gemm(False, False, 1.0, a, b, 0.0, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
def test_nan_and_inf_propagate(kernel):
    a = np.ones((20, 40), np.float32)
    b = np.ones((40, 50), np.float32)
    a[3, 7] = np.nan
    b[5, 44] = np.inf
    c = np.zeros((20, 50), np.float32)
    _C._testing.gemm(False, False, 1.0, a, b, 0.0, c)
    with np.errstate(invalid="ignore"):
        want = a @ b
    np.testing.assert_array_equal(np.isnan(c), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(c), np.isinf(want))


def test_kernel_choice():
    assert _C._testing.sgemm_kernel() in ("avx512", "openblas")
    assert not _C._testing.set_sgemm_kernel("no-such-kernel")
    with pytest.raises(ValueError, match="shapes"):
        _C._testing.gemm(False, False, 1.0, np.ones((2, 3), np.float32), np.ones((4, 5), np.float32), 0.0,
                np.zeros((2, 5), np.float32))
    with pytest.raises(TypeError, match="float32 or float64"):
        _C._testing.gemm(False, False, 1.0, np.ones((2, 3), np.float32), np.ones((3, 5)), 0.0, np.zeros((2, 5)))


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
def test_models_agree_across_kernels(kernel):
    # The kernels the ops use (conv via im2col and Winograd, matmul) agree with NumPy.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 17, 15, 24)).astype(np.float32)
    f = rng.standard_normal((3, 3, 24, 40)).astype(np.float32)
    got = of.nn.conv2d(x, f, strides=1, padding="SAME").numpy()
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))).astype(np.float64)
    want = np.zeros((2, 17, 15, 40))
    for i in range(3):
        for j in range(3):
            want += np.einsum("nhwc,cd->nhwd", xp[:, i:i + 17, j:j + 15], f[i, j])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
