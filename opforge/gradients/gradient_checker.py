"""Numeric against symbolic Jacobians of a graph (tf.test.compute_gradient and
compute_gradient_error, TensorFlow 1's gradient_checker): the symbolic one by back-propagating
each one-hot output cotangent, the numeric one by central differences of each input element."""

from __future__ import annotations

import numpy as np

from ..framework.default_session import get_default_session
from .graph_grad import gradients


def _session():
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: run it inside `with tf.Session():`")
    return sess


def _jacobians(x, x_shape, x_data, y, y_shape, delta, extra_feed_dict):
    """(theoretical, numerical) Jacobians of y with respect to x, each of shape (x size, y size)."""
    sess = _session()
    x_size, y_size = int(np.prod(x_shape)), int(np.prod(y_shape))
    dtype = np.dtype(x.dtype.as_numpy_dtype)
    y_dtype = np.dtype(y.dtype.as_numpy_dtype)
    theoretical = np.zeros((x_size, y_size), dtype=dtype)
    numerical = np.zeros((x_size, y_size), dtype=dtype)
    from ..framework.api import placeholder  # noqa: PLC0415
    dy = placeholder(y.dtype, list(y_shape))
    grad = gradients(y, x, grad_ys=dy)[0]
    feed = dict(extra_feed_dict or {})
    if grad is not None:
        for col in range(y_size):
            dy_data = np.zeros(y_size, y_dtype)
            dy_data[col] = 1
            g = sess.run(grad, {**feed, x: x_data, dy: dy_data.reshape(y_shape)})
            if hasattr(g, "indices"):  # IndexedSlicesValue
                dense = np.zeros(x_shape, dtype)
                np.add.at(dense, g.indices, g.values)
                g = dense
            theoretical[:, col] = np.asarray(g).ravel()
    flat = x_data.ravel()
    for row in range(x_size):
        orig = flat[row]
        flat[row] = orig + delta
        y_pos = np.asarray(sess.run(y, {**feed, x: flat.reshape(x_shape)}), np.float64)
        flat[row] = orig - delta
        y_neg = np.asarray(sess.run(y, {**feed, x: flat.reshape(x_shape)}), np.float64)
        flat[row] = orig
        numerical[row, :] = ((y_pos - y_neg) / (2 * delta)).ravel()
    return theoretical, numerical


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """The (theoretical, numerical) Jacobians of y with respect to x (a tensor, or a list of
    tensors: then one pair per x), evaluated at x_init_value (random in [-0.5, 0.5) when
    not given) in the default session; ``init_targets`` are run first."""
    sess = _session()
    if init_targets is not None:
        sess.run(init_targets)
    if isinstance(x, (list, tuple)):
        shapes = x_shape
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        values = [_init(xi, si, vi) for xi, si, vi in zip(x, shapes, inits)]
        out = []
        for i, (xi, si) in enumerate(zip(x, shapes)):
            others = {x[j]: values[j] for j in range(len(x)) if j != i}
            out.append(_jacobians(xi, si, values[i].copy(), y, y_shape, delta, {**(extra_feed_dict or {}), **others}))
        return out
    return _jacobians(x, x_shape, _init(x, x_shape, x_init_value), y, y_shape, delta, extra_feed_dict)


def _init(x, x_shape, value):
    dtype = np.dtype(x.dtype.as_numpy_dtype)
    if value is not None:
        value = np.array(value, dtype=dtype)
        if tuple(value.shape) != tuple(x_shape):
            raise ValueError(f"x_init_value has shape {value.shape}, x_shape is {tuple(x_shape)}")
        return value
    return (np.random.random_sample(x_shape) - 0.5).astype(dtype)


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    if isinstance(grads, tuple):
        grads = [grads]
    error = 0.0
    for theoretical, numerical in grads:
        if theoretical.size or numerical.size:
            error = max(error, float(np.fabs(theoretical.astype(np.float64) - numerical).max()))
    return error
