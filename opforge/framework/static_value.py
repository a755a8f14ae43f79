"""The value of a small graph computation when it is known while the graph is built: Const
nodes, and what TensorFlow's functions compute from static shapes (Shape, StridedSlice of a
vector, Cast, Pack, the arithmetic ops, Identity). tf.image.resize, for one, divides the size by
``Shape(images)[1:3]``, which a frozen graph keeps as ops; the compositions that need such a
value when they are built (ops/image_scale_translate.py) read it here. Anything else is None.
"""

from __future__ import annotations

import numpy as np

_ARITH = {"RealDiv": np.divide, "Div": np.divide, "Mul": np.multiply, "Sub": np.subtract, "AddV2": np.add,
          "Add": np.add, "Maximum": np.maximum, "Minimum": np.minimum}


def static_value(t, depth: int = 0):
    """t's value as a NumPy array, or None where any part is unknown before running."""
    if depth > 32:
        return None
    if isinstance(t, (np.ndarray, np.generic, int, float, list, tuple)):
        return np.asarray(t)
    op = getattr(t, "op", None)
    if op is None:
        return t.numpy() if hasattr(t, "numpy") else None  # an eager tensor
    kind = op.type
    if kind == "Const":
        return op.get_attr("value").numpy()
    if kind == "Shape":
        dims = op.inputs[0].shape.as_list() if op.inputs[0].shape.rank is not None else None
        if dims is None or any(d is None for d in dims):
            return None
        return np.asarray(dims, t.dtype.as_numpy_dtype)
    ins = [static_value(i, depth + 1) for i in op.inputs]
    if kind == "StridedSlice" and len(ins) == 4 and ins[0] is None:
        return _slice_of_shape(op, depth)
    if any(v is None for v in ins):
        return None
    if kind in ("Identity", "StopGradient"):
        return ins[0]
    if kind == "Cast":
        return ins[0].astype(t.dtype.as_numpy_dtype)
    if kind == "Pack":
        return np.stack(ins, axis=int(op.get_attr("axis")))
    if kind in _ARITH:
        return _ARITH[kind](ins[0], ins[1]).astype(t.dtype.as_numpy_dtype)
    if kind == "StridedSlice":
        return _strided(op, ins[0], ins[1], ins[2], ins[3])
    return None


def _strided(op, x, begin, end, strides):
    """A strided slice of a vector (TensorFlow's masks for its one dim)."""
    if x.ndim != 1 or begin.size != 1:
        return None
    bm, em, sm = (int(op.get_attr(k)) & 1 for k in ("begin_mask", "end_mask", "shrink_axis_mask"))
    if int(op.get_attr("ellipsis_mask")) or int(op.get_attr("new_axis_mask")):
        return None
    b, e, s = int(begin[0]), int(end[0]), int(strides[0])
    if sm:
        return x[b]
    return x[slice(None if bm else b, None if em else e, s)]


def _slice_of_shape(op, depth):
    """Shape(x)[a:b] where the dims in [a, b) are known though others are not (x's batch)."""
    src = op.inputs[0].op
    if src.type != "Shape" or src.inputs[0].shape.rank is None:
        return None
    dims = src.inputs[0].shape.as_list()
    begin, end, strides = (static_value(i, depth + 1) for i in op.inputs[1:])
    if begin is None or end is None or strides is None:
        return None
    picked = _strided(op, np.asarray([-1 if d is None else d for d in dims], np.int64), begin, end, strides)
    if picked is None or np.any(np.asarray(picked) < 0):
        return None
    return np.asarray(picked, op.outputs[0].dtype.as_numpy_dtype)
