"""Learning-rate schedules: tensors of the global step (TensorFlow 1's tf.train.*_decay)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops


def _step_and_rate(learning_rate, step, dtype=None):
    """(step as a float tensor, learning_rate as a tensor of the same dtype)."""
    if step is None:
        raise ValueError("global_step is required for a learning-rate schedule.")
    lr_dtype = learning_rate.dtype if hasattr(learning_rate, "dtype") and not isinstance(learning_rate, (float, int)) \
        else None
    dt = lr_dtype or dtype or "float32"
    lr = learning_rate if lr_dtype is not None else np.asarray(learning_rate, np.float32)
    s = _ops.cast(step, dt)
    return s, lr


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps) (floored when staircase)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    p = _ops.real_div(s, np.float32(decay_steps))
    if staircase:
        p = _ops.floor(p)
    return _ops.mul(lr, _ops.pow(np.float32(decay_rate), p), name=name or "ExponentialDecay")


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    p = _ops.real_div(s, np.float32(decay_steps))
    if staircase:
        p = _ops.floor(p)
    return _ops.mul(lr, _ops.exp(_ops.mul(p, np.float32(-decay_rate))), name=name or "NaturalExpDecay")


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    p = _ops.real_div(s, np.float32(decay_steps))
    if staircase:
        p = _ops.floor(p)
    return _ops.real_div(lr, _ops.add_v2(np.float32(1), _ops.mul(p, np.float32(decay_rate))),
                         name=name or "InverseTimeDecay")


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    """(lr - end) * (1 - step / decay_steps) ^ power + end, with step clipped to decay_steps
    (or decay_steps stretched to the next multiple when cycle)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    steps = np.float32(decay_steps)
    if cycle:
        mult = _ops.ceil(_ops.real_div(s, steps))
        mult = _ops.select_v2(_ops.equal(s, np.float32(0)), np.float32(1), mult)
        steps = _ops.mul(steps, mult)
    else:
        s = _ops.minimum(s, steps)
    frac = _ops.sub(np.float32(1), _ops.real_div(s, steps))
    return _ops.add_v2(_ops.mul(_ops.sub(lr, np.float32(end_learning_rate)), _ops.pow(frac, np.float32(power))),
                       np.float32(end_learning_rate), name=name or "PolynomialDecay")


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    frac = _ops.real_div(_ops.minimum(s, np.float32(decay_steps)), np.float32(decay_steps))
    cosine = _ops.mul(np.float32(0.5), _ops.add_v2(np.float32(1), _ops.cos(_ops.mul(np.float32(np.pi), frac))))
    return _ops.mul(lr, _ops.add_v2(_ops.mul(np.float32(1 - alpha), cosine), np.float32(alpha)),
                    name=name or "CosineDecay")


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1], ..., values[-1]
    after the last boundary."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    vdt = np.asarray(values[0]).dtype
    vdt = np.float32 if vdt == np.float64 else vdt
    x_dtype = x.dtype.as_numpy_dtype
    out = np.asarray(values[-1], vdt)
    for b, v in reversed(list(zip(boundaries, values[:-1]))):
        out = _ops.select_v2(_ops.less_equal(x, np.asarray(b, x_dtype)), np.asarray(v, vdt), out)
    return _ops.identity(out, name=name or "PiecewiseConstant")


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """learning_rate * ((alpha + linear) * cosine + beta) with linear = (decay_steps - step) /
    decay_steps and cosine = 0.5 * (1 + cos(2 pi num_periods step / decay_steps)), step clipped
    to decay_steps (tf.train.linear_cosine_decay)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    steps = np.float32(decay_steps)
    s = _ops.minimum(s, steps)
    linear = _ops.real_div(_ops.sub(steps, s), steps)
    cosine = _ops.mul(np.float32(0.5), _ops.add_v2(np.float32(1), _ops.cos(
        _ops.mul(np.float32(2 * np.pi * num_periods), _ops.real_div(s, steps)))))
    decayed = _ops.add_v2(_ops.mul(_ops.add_v2(np.float32(alpha), linear), cosine), np.float32(beta))
    return _ops.mul(lr, decayed, name=name or "LinearCosineDecay")


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """linear_cosine_decay with Gaussian noise of variance initial_variance / (1 + step) **
    variance_decay added to the linear part (tf.train.noisy_linear_cosine_decay): a new draw
    each time the tensor is evaluated."""
    s, lr = _step_and_rate(learning_rate, global_step)
    steps = np.float32(decay_steps)
    s = _ops.minimum(s, steps)
    linear = _ops.real_div(_ops.sub(steps, s), steps)
    variance = _ops.real_div(np.float32(initial_variance),
                             _ops.pow(_ops.add_v2(np.float32(1), s), np.float32(variance_decay)))
    noise = _ops.mul(_ops.random_standard_normal(np.zeros(0, np.int32), dtype="float32"), _ops.sqrt(variance))
    cosine = _ops.mul(np.float32(0.5), _ops.add_v2(np.float32(1), _ops.cos(
        _ops.mul(np.float32(2 * np.pi * num_periods), _ops.real_div(s, steps)))))
    decayed = _ops.add_v2(_ops.mul(_ops.add_v2(np.float32(alpha), _ops.add_v2(linear, noise)), cosine), np.float32(beta))
    return _ops.mul(lr, decayed, name=name or "NoisyLinearCosineDecay")


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None):
    """Cosine decay with warm restarts (SGDR): period i lasts first_decay_steps * t_mul**i steps
    and starts at learning_rate * m_mul**i (tf.train.cosine_decay_restarts)."""
    s, lr = _step_and_rate(learning_rate, global_step)
    frac = _ops.real_div(s, np.float32(first_decay_steps))
    if t_mul == 1.0:
        restart = _ops.floor(frac)
        frac = _ops.sub(frac, restart)
    else:
        t = np.float32(t_mul)
        restart = _ops.floor(_ops.real_div(_ops.log(_ops.sub(np.float32(1), _ops.mul(frac, np.float32(1 - t_mul)))),
                                           np.log(t)))
        done = _ops.real_div(_ops.sub(np.float32(1), _ops.pow(t, restart)), np.float32(1 - t_mul))
        frac = _ops.real_div(_ops.sub(frac, done), _ops.pow(t, restart))
    m_fac = _ops.pow(np.float32(m_mul), restart)
    cosine = _ops.mul(_ops.mul(np.float32(0.5), m_fac),
                      _ops.add_v2(np.float32(1), _ops.cos(_ops.mul(np.float32(np.pi), frac))))
    return _ops.mul(lr, _ops.add_v2(_ops.mul(np.float32(1 - alpha), cosine), np.float32(alpha)),
                    name=name or "SGDRDecay")
