"""Central-difference gradients for the graph tests (float64)."""

import numpy as np


def numeric_grad(f, x, eps=1e-6):
    """d f / d x by central differences, one element of x at a time."""
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g
