"""TensorFlow ops a GraphDef may hold that opforge computes with other ops: one handler per op
type, each building the node's value from opforge's own composition of that TensorFlow function
(the ones ``tf.math.cumprod``, ``tf.roll``, ``tf.pad(mode="REFLECT")`` ... already use) and naming
the result for the node. importer.py calls them for op types the runtime has no kernel for.

A handler takes (graph, node_def, input tensors, control inputs, node name) and returns the
node's Operation (an Identity named for the node, its control inputs attached). An argument the
composition needs when the graph is built (an axis, MirrorPad's paddings) must be a constant in
the GraphDef, as TensorFlow's frozen graphs have them; otherwise the import fails naming the node.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from ..framework.static_value import static_value


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers)
    return ops


def _attr(nd, key, default=None):
    """A scalar attr of the node (int, float, bool, string, type) or default when absent."""
    if key not in nd.attr:
        return default
    av = nd.attr[key]
    kind = av.WhichOneof("value")
    if kind == "s":
        return av.s.decode()
    if kind == "type":
        return _dtypes.as_dtype(av.type)
    if kind == "list":
        return list(av.list.f) or list(av.list.i)
    return getattr(av, kind) if kind else default


def _const(nd, t, what):
    """The value of input t, known when the graph is built: a Const of the GraphDef, or what
    framework/static_value.py folds from static shapes."""
    value = static_value(t)
    if value is None:
        op = getattr(t, "op", None)
        raise UnimplementedError(f"opforge computes {nd.op} from other ops and needs its {what} to be a constant "
                                 f"of the GraphDef (or known from static shapes), got a "
                                 f"{getattr(op, 'type', type(t).__name__)} output", nd.op)
    return value


def _handler(build):
    """A handler from build(nd, *inputs) -> tensor."""

    def handle(graph, nd, data, control, name):
        with graph.name_scope(name + "/"):
            try:
                out = build(nd, *data)
            except (InvalidArgumentError, NotFoundError, UnimplementedError) as e:
                raise type(e)(f"{e} [[node {nd.name}]]", nd.op) from None
        return graph.create_op("Identity", [out], {}, name=name, control_inputs=control, exact_name=True)

    return handle


def _binary(fn_name, module):
    """A handler calling ops/<module>.py's fn_name(x, y)."""
    def build(nd, x, y):
        from ..ops import math, math_ops  # noqa: PLC0415
        return getattr({"math": math, "math_ops": math_ops}[module], fn_name)(x, y)
    return _handler(build)


def _cumprod(nd, x, axis):
    from ..ops.math_ops import cumprod  # noqa: PLC0415
    return cumprod(x, int(_const(nd, axis, "axis")), exclusive=bool(_attr(nd, "exclusive", False)),
                   reverse=bool(_attr(nd, "reverse", False)))


def _euclidean_norm(nd, x, axes):
    from ..ops.math import reduce_euclidean_norm  # noqa: PLC0415
    return reduce_euclidean_norm(x, [int(a) for a in np.ravel(_const(nd, axes, "reduction_indices"))],
                                 keepdims=bool(_attr(nd, "keep_dims", False)))


def _histogram(nd, values, value_range, nbins):
    from ..ops.histogram_ops import histogram_fixed_width  # noqa: PLC0415
    return histogram_fixed_width(values, value_range, nbins, dtype=_attr(nd, "dtype", _dtypes.int32).name)


def _segment(fn_name):
    def build(nd, data, ids):
        from ..ops import math_ops  # noqa: PLC0415
        return getattr(math_ops, fn_name)(data, ids)
    return _handler(build)


def _segment_mean(nd, data, ids):
    from ..ops.histogram_ops import segment_mean  # noqa: PLC0415
    return segment_mean(data, ids)


def _roll(nd, x, shift, axis):
    from ..ops.manip_ops import roll  # noqa: PLC0415
    axes = [int(a) for a in np.ravel(_const(nd, axis, "axis"))]
    known = static_value(shift)
    if known is not None:
        shifts = [int(v) for v in np.ravel(known)]
    elif shift.shape.rank == 0:
        shifts = [shift]
    else:  # one shift per axis, known when the graph runs
        shifts = _ops().unpack(shift, num=len(axes))
    return roll(x, shifts, axes)


def _mirror_pad(nd, x, paddings):
    from ..ops.array_ops import pad  # noqa: PLC0415
    return pad(x, _const(nd, paddings, "paddings"), mode=_attr(nd, "mode", "REFLECT"))


def _space_depth(fn_name):
    def build(nd, x):
        from ..ops import manip_ops  # noqa: PLC0415
        return getattr(manip_ops, fn_name)(x, int(_attr(nd, "block_size")), data_format=_attr(nd, "data_format",
                                                                                               "NHWC"))
    return _handler(build)


def _broadcast_args(nd, s0, s1):
    from ..ops.manip_ops import broadcast_dynamic_shape  # noqa: PLC0415
    return broadcast_dynamic_shape(s0, s1)


def _sparse_matmul(nd, a, b):
    """SparseMatMul: a MatMul (the sparsity flags are hints), bfloat16 operands in float32."""
    ops = _ops()
    a, b = (t if t.dtype == _dtypes.float32 else ops.cast(t, "float32") for t in (a, b))
    return ops.mat_mul(a, b, transpose_a=bool(_attr(nd, "transpose_a", False)),
                       transpose_b=bool(_attr(nd, "transpose_b", False)))


def _bucketize(nd, x):
    """The bucket of each value: how many boundaries are <= it (an UpperBound search)."""
    ops = _ops()
    bounds = np.asarray(_attr(nd, "boundaries", []), np.float32)
    flat = ops.reshape(ops.cast(x, "float32"), np.array([1, -1], np.int32))
    idx = ops.upper_bound(bounds.reshape(1, -1), flat, out_type="int32")
    return ops.reshape(idx, ops.shape(x, out_type="int32"))


def _dense_bincount(nd, values, size, weights):
    """Counts (or summed weights) of each value below size, per row of a 2-D input; values
    outside [0, size) are left out; binary_output gives 1 where a value occurs."""
    ops = _ops()
    rank = values.shape.rank
    if rank not in (1, 2):
        raise InvalidArgumentError(f"DenseBincount: input must be 1-D or 2-D, got shape {values.shape}", nd.op)
    ids = ops.reshape(values, np.array([-1], np.int32))
    size = ops.cast(size, ids.dtype.name)
    rows = np.ones((), ids.dtype.as_numpy_dtype) if rank == 1 else ops.cast(ops.shape(values)[0], ids.dtype.name)
    if rank == 2:  # row r's values count in segments r * size + value
        per_row = ops.cast(ops.shape(values)[1], ids.dtype.name)
        row = ops.floor_div(ops.range(np.zeros((), ids.dtype.as_numpy_dtype), ops.size(ids, out_type=ids.dtype.name),
                                      np.ones((), ids.dtype.as_numpy_dtype)), per_row)
        seg = ops.add_v2(ops.mul(row, size), ids)
    else:
        seg = ids
    zero = np.zeros((), ids.dtype.as_numpy_dtype)
    inside = ops.logical_and(ops.greater_equal(ids, zero), ops.less(ids, size))
    seg = ops.select_v2(inside, seg, ops.fill(ops.shape(seg), -np.ones((), ids.dtype.as_numpy_dtype)))
    out_dtype = _attr(nd, "T", _dtypes.float32)
    binary = bool(_attr(nd, "binary_output", False))
    if weights.shape.num_elements() == 0 or binary:
        w = ops.cast(ops.ones_like(ids), out_dtype.name)
    else:
        w = ops.reshape(weights, np.array([-1], np.int32))
    counts = ops.unsorted_segment_sum(w, seg, ops.mul(rows, size))
    if binary:
        counts = ops.minimum(counts, ops.ones_like(counts))
    shape = ops.reshape(size, np.array([1], np.int32)) if rank == 1 else ops.pack([rows, size])
    return ops.reshape(counts, shape)


def _scale_and_translate(nd, images, size, scale, translation):
    from ..ops.image_scale_translate import scale_and_translate  # noqa: PLC0415
    return scale_and_translate(images, size, scale, translation, kernel_type=_attr(nd, "kernel_type", "lanczos3"),
                               antialias=bool(_attr(nd, "antialias", True)))


COMPOSITES = {
    "Cumprod": _handler(_cumprod),
    "EuclideanNorm": _handler(_euclidean_norm),
    "HistogramFixedWidth": _handler(_histogram),
    "SegmentSum": _segment("segment_sum"),
    "SegmentMax": _segment("segment_max"),
    "SegmentMin": _segment("segment_min"),
    "SegmentProd": _segment("segment_prod"),
    "SegmentMean": _handler(_segment_mean),
    "Roll": _handler(_roll),
    "MirrorPad": _handler(_mirror_pad),
    "DepthToSpace": _space_depth("depth_to_space"),
    "SpaceToDepth": _space_depth("space_to_depth"),
    "BroadcastArgs": _handler(_broadcast_args),
    "TruncateDiv": _binary("truncatediv", "math_ops"),
    "TruncateMod": _binary("truncatemod", "math_ops"),
    "Xlogy": _binary("xlogy", "math"),
    "Xdivy": _binary("xdivy", "math"),
    "Xlog1py": _binary("xlog1py", "math"),
    "DivNoNan": _binary("divide_no_nan", "math"),
    "MulNoNan": _binary("multiply_no_nan", "math"),
    "SparseMatMul": _handler(_sparse_matmul),
    "Bucketize": _handler(_bucketize),
    "DenseBincount": _handler(_dense_bincount),
    "ScaleAndTranslate": _handler(_scale_and_translate),
}

# Each composed op's one output argument, as TensorFlow's OpDef names it: function bodies
# (FunctionDefs) refer to outputs as "node:arg:index" (framework/functions.py).
OUTPUT_ARG = {"Einsum": "output", "Cumprod": "out", "EuclideanNorm": "output", "HistogramFixedWidth": "out",
              "SegmentSum": "output", "SegmentMean": "output", "SegmentMax": "output", "SegmentMin": "output",
              "SegmentProd": "output", "Roll": "output", "MirrorPad": "output", "DepthToSpace": "output",
              "SpaceToDepth": "output", "BroadcastArgs": "r0", "TruncateDiv": "z", "TruncateMod": "z", "Xlogy": "z",
              "Xdivy": "z", "Xlog1py": "z", "DivNoNan": "z", "MulNoNan": "z", "SparseMatMul": "product",
              "Bucketize": "output", "DenseBincount": "output", "ScaleAndTranslate": "resized_images"}
