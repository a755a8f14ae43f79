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
