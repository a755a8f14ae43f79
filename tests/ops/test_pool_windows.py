"""MaxPoolGrad / MaxPoolGradGrad with windows far larger than the image (a huge ksize over
huge explicit padding): the per-window scratch is sized by the window clipped to the image,
and the gradients equal NumPy's."""

import numpy as np

import opforge as of


def test_huge_window_over_huge_padding():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 4, 4, 2)).astype(np.float32)
    pad = 2 ** 30
    kw = dict(ksize=[1, 2 ** 31 - 1, 3, 1], strides=[1, 1, 1, 1], padding="EXPLICIT",
              explicit_paddings=[0, 0, pad, pad, 1, 1, 0, 0])
    y = of.raw_ops.MaxPool(input=of.constant(x), **kw)
    g = rng.standard_normal(y.shape).astype(np.float32)
    dx = of.raw_ops.MaxPoolGrad(orig_input=of.constant(x), orig_output=y, grad=of.constant(g), **kw).numpy()
    # Every window covers all rows, columns ow-1..ow+1 (clipped): route g to each window's argmax.
    want = np.zeros_like(x)
    for oh in range(y.shape[1]):
        for ow in range(y.shape[2]):
            cols = range(max(0, ow - 1), min(4, ow + 2))
            for c in range(2):
                window = [(r, q) for r in range(4) for q in cols]
                r, q = max(window, key=lambda rq: (x[0, rq[0], rq[1], c], -rq[0], -rq[1]))
                want[0, r, q, c] += g[0, oh, ow, c]
    np.testing.assert_allclose(dx, want, rtol=1e-6)


# (ksize, stride, padding, image h x w): windows that tile the image (written, nothing zeroed),
# disjoint windows leaving pixels uncovered (a VALID remainder, a stride above the window) and
# overlapping windows (accumulated).
GEOMETRIES = [(2, 2, "SAME", (8, 8)), (2, 2, "SAME", (7, 5)), (2, 2, "VALID", (7, 5)), (2, 3, "VALID", (8, 7)),
              (3, 3, "SAME", (7, 8)), (3, 2, "SAME", (7, 7)), (1, 2, "VALID", (5, 6))]


def test_max_pool_grad_routes_like_numpy_over_window_geometries():
    from nn_reference import max_pool_grad

    rng = np.random.default_rng(1)
    for k, s, padding, (h, w) in GEOMETRIES:
        for c in (3, 8, 21):  # vector tails and whole vectors of channels
            x = rng.standard_normal((2, h, w, c)).astype(np.float32)
            x[0, 0, :2] = 0.5  # ties: the first maximum (row-major) wins
            kw = dict(ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)
            y = of.raw_ops.MaxPool(input=of.constant(x), **kw)
            g = rng.standard_normal(y.shape).astype(np.float32)
            got = of.raw_ops.MaxPoolGrad(orig_input=of.constant(x), orig_output=y, grad=of.constant(g), **kw).numpy()
            want = max_pool_grad(x, y.numpy(), g, kw["ksize"], kw["strides"], padding)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=str((k, s, padding, h, w, c)))
            # The same in NCHW and in float64 (the scalar path).
            got64 = of.raw_ops.MaxPoolGrad(orig_input=of.constant(x.astype(np.float64)), orig_output=of.constant(
                y.numpy().astype(np.float64)), grad=of.constant(g.astype(np.float64)), **kw).numpy()
            np.testing.assert_allclose(got64, want, rtol=1e-5, atol=1e-6)
