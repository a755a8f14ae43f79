"""tf.nn.with_space_to_batch: an op run on a space-to-batch transformed input and transformed
back, so that a VALID op with stride 1 computes its dilated ("atrous") form, as TensorFlow's
_WithSpaceToBatch does (SpaceToBatchND, the op, BatchToSpaceND). The dilation rate and, for
SAME padding, the filter shape must be constants; the input's spatial shape may be unknown."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops


def _ints(value, what):
    arr = np.asarray(getattr(value, "numpy", lambda: value)())
    if arr.dtype == object or arr.dtype.kind not in "iu":
        raise ValueError(f"with_space_to_batch: {what} must be a constant vector of ints, got {value!r}")
    return arr.astype(np.int64)


def _adjust(orig, fill_value, spatial_dims):
    """orig's rows placed at the spatial dims (1-based from the batch), gaps filled."""
    parts, prev, i = [], 0, 0
    fill_dims = list(orig.shape[1:])
    while i < len(spatial_dims):
        start_i, start = i, spatial_dims[i]
        if start > 1:
            parts.append(np.full([start - 1 - prev] + fill_dims, fill_value, orig.dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(orig[start_i:i + 1])
        prev = spatial_dims[i]
        i += 1
    return np.concatenate(parts)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """``op(converted_input, num_spatial_dims, "VALID")`` on the input space-to-batch'ed by
    dilation_rate (padded for SAME by the dilated filter's extent), then batch-to-space'd back."""
    rate = _ints(dilation_rate, "dilation_rate")
    if rate.ndim != 1:
        raise ValueError(f"with_space_to_batch: dilation_rate must be a vector, got shape {rate.shape}")
    n = rate.shape[0]
    first = 2 if data_format is not None and data_format.startswith("NC") else 1
    dims = list(range(first, n + first)) if spatial_dims is None else [int(d) for d in spatial_dims]
    if dims != sorted(set(dims)) or any(d < 1 for d in dims):
        raise ValueError("spatial_dims must be a monotonically increasing sequence of positive integers")
    if len(dims) != n:
        raise ValueError(f"with_space_to_batch: {len(dims)} spatial_dims for a dilation_rate of {n} values")
    if np.any(rate < 1):
        raise ValueError("dilation_rate must be positive")
    if np.all(rate == 1):
        return op(input, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        extent = (_ints(filter_shape, "filter_shape")[:n] - 1) * rate
        base = np.stack([extent // 2, extent - extent // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros((n, 2), np.int64)
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    shape = input.shape.as_list() if input.shape.rank is not None else None
    spatial = [shape[d] for d in dims] if shape is not None else None
    if spatial is None or None in spatial:
        whole = _ops.shape(input)
        spatial_t = _ops.pack([_ops.gather_v2(whole, np.int32(d), np.int32(0)) for d in dims], axis=0)
        full = _ops.add_v2(spatial_t, (base[:, 0] + base[:, 1]).astype(np.int32))
        extra = _ops.floor_mod(_ops.sub(rate.astype(np.int32), _ops.floor_mod(full, rate.astype(np.int32))),
                               rate.astype(np.int32))
        zeros = np.zeros(n, np.int32)
        paddings = _ops.pack([base[:, 0].astype(np.int32), _ops.add_v2(base[:, 1].astype(np.int32), extra)], axis=1)
        crops = _ops.pack([zeros, extra], axis=1)
        fill = np.zeros((1, 2), np.int32)
        parts_p, parts_c, prev = [], [], 0
        for k, d in enumerate(dims):  # gaps between spatial dims get zero rows
            if d - 1 - prev > 0:
                parts_p.append(np.repeat(fill, d - 1 - prev, axis=0))
                parts_c.append(np.repeat(fill, d - 1 - prev, axis=0))
            parts_p.append(_ops.strided_slice(paddings, np.array([k, 0], np.int32), np.array([k + 1, 2], np.int32),
                                              np.array([1, 1], np.int32)))
            parts_c.append(_ops.strided_slice(crops, np.array([k, 0], np.int32), np.array([k + 1, 2], np.int32),
                                              np.array([1, 1], np.int32)))
            prev = d
        paddings = _ops.concat_v2(parts_p, np.int32(0))
        crops = _ops.concat_v2(parts_c, np.int32(0))
    else:
        full = np.asarray(spatial) + base[:, 0] + base[:, 1]
        extra = (rate - full % rate) % rate
        paddings = _adjust(np.stack([base[:, 0], base[:, 1] + extra], axis=1), 0, dims)
        crops = _adjust(np.stack([np.zeros(n, np.int64), extra], axis=1), 0, dims)
    block = _adjust(rate, 1, dims)
    converted = _ops.space_to_batch_nd(input, block, paddings)
    result = op(converted, n, "VALID")
    return _ops.batch_to_space_nd(result, block, crops)


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None, filters=None,  # noqa: A002
               dilations=None):
    """Grayscale morphological dilation (tf.compat.v1.nn.dilation2d): for each window, the max of
    input + filter. NHWC input, [height, width, depth] filter; strides and rates 4-lists."""
    from ..framework.arguments import legacy_argument  # noqa: PLC0415

    filter = legacy_argument("filters", filters, "filter", filter)  # noqa: A001
    rates = legacy_argument("dilations", dilations, "rates", rates)
    return _ops.dilation2d(input, filter, strides=list(strides), rates=list(rates), padding=padding, name=name)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale morphological erosion (tf.nn.erosion2d): for each window, the min of
    value - kernel (the dilation of -value by the reflected kernel, negated)."""
    flipped = _ops.reverse_v2(kernel, np.array([0, 1], np.int32))
    return _ops.neg(_ops.dilation2d(_ops.neg(value), flipped, strides=list(strides), rates=list(rates),
                                    padding=padding), name=name)
