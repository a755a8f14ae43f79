"""Gradients of the complex element ops (Complex, Angle, ComplexAbs; the others are opdef
expressions), as TensorFlow defines them: for a real-valued loss L of complex z = x + iy the
gradient flowing back is dL/dx + i dL/dy."""

from __future__ import annotations

from .helpers import unbroadcast


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def complex_grad(op, grads):
    """Complex(real, imag): the real and imaginary parts of the gradient, summed back over
    broadcast dims."""
    ops = _ops()
    real, imag = op.inputs
    g = grads[0]
    t = op.attrs["T"]
    return [unbroadcast(ops.real(g, Tout=t), real, imag), unbroadcast(ops.imag(g, Tout=t), imag, real)]


def angle_grad(op, grads):
    """Angle(z) = atan2(y, x): d/dx = -y / |z|^2 and d/dy = x / |z|^2, which TensorFlow writes
    as -grad / (y + i x)."""
    ops = _ops()
    z = op.inputs[0]
    ct = op.attrs["T"]
    re, im = ops.real(z, Tout=op.attrs["Tout"]), ops.imag(z, Tout=op.attrs["Tout"])
    zr = ops.reciprocal(ops.complex(im, re, Tout=ct))
    g = ops.complex(grads[0], ops.zeros_like(grads[0]), Tout=ct)
    return [ops.neg(ops.mul(g, zr))]


def complex_abs_grad(op, grads):
    """|z|: grad * z / |z| (0 where z = 0, TensorFlow's div_no_nan)."""
    ops = _ops()
    z, r = op.inputs[0], op.outputs[0]
    ct = op.attrs["T"]
    g = ops.complex(grads[0], ops.zeros_like(grads[0]), Tout=ct)
    zero = ops.equal(r, ops.zeros_like(r))
    safe = ops.select_v2(zero, ops.ones_like(r), r)
    scale = ops.select_v2(zero, ops.zeros_like(r), ops.reciprocal(safe))
    return [ops.mul(ops.mul(g, z), ops.complex(scale, ops.zeros_like(scale), Tout=ct))]
