"""TensorFlow 1's functional layers (tf.layers): dense, conv1d/2d, conv2d_transpose, pooling,
batch_normalization, dropout, flatten.

Each layer opens a variable scope named after it ("dense", "dense_1", ... or ``name``) and makes
its variables with get_variable there ("dense/kernel", "dense/bias"), so ``reuse`` shares them
as in TensorFlow. batch_normalization in training mode adds the moving-average updates to the
UPDATE_OPS collection; ``training`` may be a Python bool or a boolean tensor.
"""

from __future__ import annotations

import numpy as np

from . import initializers as _init
from ..ops import nn_impl as _nn_impl
from ..ops import nn_ops as _nn_ops
from .. import ops as _ops
from ..framework.graph import GraphTensor, get_default_graph
from ..framework.variable_scope import get_variable, variable_scope

from ..framework.collections import GLOBAL_VARIABLES, REGULARIZATION_LOSSES, UPDATE_OPS

__all__ = ["dense", "conv1d", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "separable_conv1d",
           "separable_conv2d", "max_pooling1d", "max_pooling2d",
           "average_pooling1d", "average_pooling2d", "max_pooling3d", "average_pooling3d", "batch_normalization",
           "dropout", "flatten"]


def _c(x, v):
    return np.asarray(v, x.dtype.as_numpy_dtype)


def _tuple(value, n, what):
    v = (int(value),) * n if np.ndim(value) == 0 else tuple(int(x) for x in value)
    if len(v) != n:
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: {value}")
    return v


def _padding(padding):
    p = padding.upper() if isinstance(padding, str) else padding
    if p not in ("SAME", "VALID"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: {padding}")
    return p


def _channels_first(data_format):
    if data_format not in ("channels_last", "channels_first", None):
        raise ValueError(f"The `data_format` argument must be one of 'channels_first', 'channels_last'. "
                         f"Received: {data_format}")
    return data_format == "channels_first"


def _as_tensor(inputs):
    if isinstance(inputs, GraphTensor) or hasattr(inputs, "_graph_for_dispatch"):
        return inputs
    return _ops.identity(np.asarray(inputs, np.float32) if not hasattr(inputs, "dtype") else inputs)


def _activate(y, activation, activity_regularizer):
    if activation is not None:
        y = activation(y)
    if activity_regularizer is not None:
        loss = activity_regularizer(y)
        if loss is not None:
            get_default_graph().add_to_collection(REGULARIZATION_LOSSES, loss)
    return y


def _kernel_and_bias(kernel_shape, dtype, use_bias, kernel_initializer, bias_initializer,
                     kernel_regularizer, bias_regularizer, trainable, bias_units=None):
    kernel = get_variable("kernel", kernel_shape, dtype, initializer=kernel_initializer,
                          regularizer=kernel_regularizer, trainable=trainable)
    bias = None
    if use_bias:
        bias = get_variable("bias", [bias_units or kernel_shape[-1]], dtype,
                            initializer=bias_initializer if bias_initializer is not None else _init.zeros_initializer(),
                            regularizer=bias_regularizer, trainable=trainable)
    return kernel, bias


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
          name=None, reuse=None):
    """activation(inputs @ kernel + bias) over the last axis of inputs (any rank >= 2)."""
    inputs = _as_tensor(inputs)
    shape = inputs.shape
    if shape.rank is None or shape.dims[-1] is None:
        raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel, bias = _kernel_and_bias([shape.dims[-1], units], inputs.dtype, use_bias, kernel_initializer,
                                        bias_initializer, kernel_regularizer, bias_regularizer, trainable)
        if shape.rank == 2:
            y = _ops.mat_mul(inputs, kernel)
        else:  # a tensordot over the last axis
            flat = _ops.reshape(inputs, np.array([-1, shape.dims[-1]], np.int64))
            y = _ops.mat_mul(flat, kernel)
            lead = _ops.strided_slice(_ops.shape(inputs, out_type="int64"), np.array([0], np.int32),
                                      np.array([-1], np.int32), np.array([1], np.int32))
            from ..ops.array_ops import concat  # noqa: PLC0415
            y = _ops.reshape(y, concat([lead, np.array([units], np.int64)], 0))
            if isinstance(y, GraphTensor):  # the leading dims are computed: keep what is known of them
                y.set_shape(list(shape.dims[:-1]) + [units])
        if bias is not None:
            y = _ops.bias_add(y, bias)
        return _activate(y, activation, activity_regularizer)


def _conv(rank, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
          use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
          activity_regularizer, trainable, name, reuse, default_name):
    inputs = _as_tensor(inputs)
    first = _channels_first(data_format)
    shape = inputs.shape
    if shape.rank != rank + 2:
        raise ValueError(f"Input 0 of layer {default_name} is incompatible with the layer: expected ndim={rank + 2}, "
                         f"found ndim={shape.rank}. Full shape received: {shape}")
    channels = shape.dims[1] if first else shape.dims[-1]
    if channels is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    ks = _tuple(kernel_size, rank, "kernel_size")
    st = _tuple(strides, rank, "strides")
    dil = _tuple(dilation_rate, rank, "dilation_rate")
    with variable_scope(name, default_name=default_name, reuse=reuse):
        kernel, bias = _kernel_and_bias(list(ks) + [channels, filters], inputs.dtype, use_bias, kernel_initializer,
                                        bias_initializer, kernel_regularizer, bias_regularizer, trainable)
        if rank == 1:
            y = _nn_impl.conv1d(inputs, kernel, st[0], _padding(padding), data_format="NCW" if first else "NWC",
                           dilations=dil[0])
        elif rank == 2:
            y = _nn_ops.conv2d(inputs, kernel, list(st), _padding(padding), data_format="NCHW" if first else "NHWC",
                           dilations=list(dil))
        else:
            wrap = (lambda v: [1, 1, *v]) if first else (lambda v: [1, *v, 1])
            y = _nn_ops.conv3d(inputs, kernel, wrap(st), _padding(padding), data_format="NCDHW" if first else "NDHWC",
                               dilations=wrap(dil))
        if bias is not None:
            y = _add_bias(y, bias, filters, rank, first)
        return _activate(y, activation, activity_regularizer)


def _add_bias(y, bias, filters, rank, first):
    """y + bias over the channel axis (BiasAdd, or an add of the bias reshaped for channels-first
    1-D and 3-D layers)."""
    if first and rank != 2:
        return _ops.add_v2(y, _ops.reshape(bias, np.array([1, filters] + [1] * rank, np.int64)))
    return _ops.bias_add(y, bias, data_format="NCHW" if first else "NHWC")


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """2-D convolution layer (kernel [kh, kw, in, filters])."""
    return _conv(2, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, trainable, name, reuse, "conv2d")


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
           dilation_rate=1, activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """1-D convolution layer (kernel [k, in, filters])."""
    return _conv(1, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, trainable, name, reuse, "conv1d")


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """3-D convolution layer (kernel [kd, kh, kw, in, filters])."""
    return _conv(3, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, trainable, name, reuse, "conv3d")


def _deconv_length(size, stride, kernel, padding):
    if size is None:
        return None
    if padding == "VALID":
        return size * stride + max(kernel - stride, 0)
    return size * stride


def _conv_transpose(rank, inputs, filters, kernel_size, strides, padding, data_format, activation, use_bias,
                    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                    trainable, name, reuse, default_name):
    inputs = _as_tensor(inputs)
    first = _channels_first(data_format)
    shape = inputs.shape
    if shape.rank != rank + 2:
        raise ValueError(f"Inputs should have rank {rank + 2}. Received input shape: {shape}")
    channels = shape.dims[1] if first else shape.dims[-1]
    ks, st, pad = _tuple(kernel_size, rank, "kernel_size"), _tuple(strides, rank, "strides"), _padding(padding)
    with variable_scope(name, default_name=default_name, reuse=reuse):
        kernel, bias = _kernel_and_bias(list(ks) + [filters, channels], inputs.dtype, use_bias, kernel_initializer,
                                        bias_initializer, kernel_regularizer, bias_regularizer, trainable,
                                        bias_units=filters)
        dyn = _ops.shape(inputs)
        spatial = list(range(2, 2 + rank)) if first else list(range(1, 1 + rank))

        def out_dim(axis, k, s):
            d = shape.dims[axis]
            if d is not None:
                return np.int32(_deconv_length(d, s, k, pad))
            size = _ops.strided_slice(dyn, np.array([axis], np.int32), np.array([axis + 1], np.int32),
                                      np.array([1], np.int32), shrink_axis_mask=1)
            extra = np.int32(max(k - s, 0) if pad == "VALID" else 0)
            return _ops.add_v2(_ops.mul(size, np.int32(s)), extra)
        batch = _ops.strided_slice(dyn, np.array([0], np.int32), np.array([1], np.int32), np.array([1], np.int32),
                                   shrink_axis_mask=1)
        outs = [out_dim(axis, k, s_) for axis, k, s_ in zip(spatial, ks, st)]
        from ..ops.array_ops import stack  # noqa: PLC0415
        dims = [batch, np.int32(filters), *outs] if first else [batch, *outs, np.int32(filters)]
        out_shape = stack([d if hasattr(d, "dtype") and not isinstance(d, np.generic) else np.int32(d) for d in dims])
        if rank == 2:
            y = _nn_impl.conv2d_transpose(inputs, kernel, out_shape, list(st), pad,
                                          data_format="NCHW" if first else "NHWC")
        else:
            y = _nn_impl.conv3d_transpose(inputs, kernel, out_shape, list(st), pad,
                                          data_format="NCDHW" if first else "NDHWC")
        known = [int(v) if isinstance(v, np.generic) else None for v in outs]
        y.set_shape([shape.dims[0], filters, *known] if first else [shape.dims[0], *known, filters])
        if bias is not None:
            y = _add_bias(y, bias, filters, rank, first)
        return _activate(y, activation, activity_regularizer)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None):
    """Transposed 2-D convolution (kernel [kh, kw, filters, in]); output size = input * stride
    (+ max(kernel - stride, 0) with 'valid' padding)."""
    return _conv_transpose(2, inputs, filters, kernel_size, strides, padding, data_format, activation, use_bias,
                           kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                           activity_regularizer, trainable, name, reuse, "conv2d_transpose")


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None):
    """Transposed 3-D convolution (kernel [kd, kh, kw, filters, in])."""
    return _conv_transpose(3, inputs, filters, kernel_size, strides, padding, data_format, activation, use_bias,
                           kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                           activity_regularizer, trainable, name, reuse, "conv3d_transpose")


def _separable(rank, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
               activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
               depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer, trainable, name,
               reuse, default_name):
    inputs = _as_tensor(inputs)
    first = _channels_first(data_format)
    shape = inputs.shape
    if shape.rank != rank + 2:
        raise ValueError(f"Input 0 of layer {default_name} is incompatible with the layer: expected ndim={rank + 2}, "
                         f"found ndim={shape.rank}. Full shape received: {shape}")
    channels = shape.dims[1] if first else shape.dims[-1]
    if channels is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    ks, st = _tuple(kernel_size, rank, "kernel_size"), _tuple(strides, rank, "strides")
    dil = _tuple(dilation_rate, rank, "dilation_rate")
    with variable_scope(name, default_name=default_name, reuse=reuse):
        depthwise = get_variable("depthwise_kernel", list(ks) + [channels, depth_multiplier], inputs.dtype,
                                 initializer=depthwise_initializer, regularizer=depthwise_regularizer,
                                 trainable=trainable)
        pointwise = get_variable("pointwise_kernel", [1] * rank + [channels * depth_multiplier, filters],
                                 inputs.dtype, initializer=pointwise_initializer, regularizer=pointwise_regularizer,
                                 trainable=trainable)
        bias = get_variable("bias", [filters], inputs.dtype, initializer=bias_initializer or _init.zeros_initializer(),
                            regularizer=bias_regularizer, trainable=trainable) if use_bias else None
        x = inputs
        if rank == 1:  # as a 2-D separable convolution over a height of 1
            axis = np.int32(2 if first else 1)
            x = _ops.expand_dims(x, axis)
            depthwise = _ops.expand_dims(depthwise, np.int32(0))
            pointwise = _ops.expand_dims(pointwise, np.int32(0))
            ks, st, dil = (1, *ks), (1, *st), (1, *dil)
        fmt = "NCHW" if first else "NHWC"
        strides4 = [1, 1, *st] if first else [1, *st, 1]
        y = _nn_impl.separable_conv2d(x, depthwise, pointwise, strides4, _padding(padding), data_format=fmt,
                                      dilations=list(dil))
        if rank == 1:
            y = _ops.squeeze(y, axis=[int(axis)])
        if bias is not None:
            y = _add_bias(y, bias, filters, rank, first)
        return _activate(y, activation, activity_regularizer)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                     depthwise_initializer=None, pointwise_initializer=None, bias_initializer=_init.zeros_initializer(),
                     depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Depthwise-separable 2-D convolution layer: a depthwise convolution (depthwise_kernel
    [kh, kw, in, depth_multiplier]) then a 1x1 one (pointwise_kernel [1, 1, in*dm, filters])."""
    return _separable(2, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
                      depth_multiplier, activation, use_bias, depthwise_initializer, pointwise_initializer,
                      bias_initializer, depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                      activity_regularizer, trainable, name, reuse, "separable_conv2d")


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                     dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                     depthwise_initializer=None, pointwise_initializer=None, bias_initializer=_init.zeros_initializer(),
                     depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Depthwise-separable 1-D convolution layer (depthwise_kernel [k, in, dm], pointwise_kernel
    [1, in*dm, filters])."""
    return _separable(1, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
                      depth_multiplier, activation, use_bias, depthwise_initializer, pointwise_initializer,
                      bias_initializer, depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                      activity_regularizer, trainable, name, reuse, "separable_conv1d")


def _pool(rank, kind, inputs, pool_size, strides, padding, data_format, name):
    inputs = _as_tensor(inputs)
    first = _channels_first(data_format)
    ps, st, pad = _tuple(pool_size, rank, "pool_size"), _tuple(strides, rank, "strides"), _padding(padding)
    g = get_default_graph()
    with g.name_scope(name or f"{kind}_pooling{rank}d"):
        pool = _ops.max_pool if kind == "max" else _ops.avg_pool
        if rank == 1:
            axis = np.int32(2 if first else 1)
            x = _ops.expand_dims(inputs, axis)
            fmt = "NCHW" if first else "NHWC"
            k = [1, 1, 1, ps[0]] if first else [1, 1, ps[0], 1]
            s = [1, 1, 1, st[0]] if first else [1, 1, st[0], 1]
            return _ops.squeeze(pool(x, k, s, pad, data_format=fmt), axis=[int(axis)])
        k = [1, 1, *ps] if first else [1, *ps, 1]
        s = [1, 1, *st] if first else [1, *st, 1]
        if rank == 3:
            pool3d = _ops.max_pool3d if kind == "max" else _ops.avg_pool3d
            return pool3d(inputs, k, s, pad, data_format="NCDHW" if first else "NDHWC")
        return pool(inputs, k, s, pad, data_format="NCHW" if first else "NHWC")


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pool(2, "max", inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pool(2, "average", inputs, pool_size, strides, padding, data_format, name)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pool(1, "max", inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pool(1, "average", inputs, pool_size, strides, padding, data_format, name)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pool(3, "max", inputs, pool_size, strides, padding, data_format, name)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pool(3, "average", inputs, pool_size, strides, padding, data_format, name)


def flatten(inputs, name=None, data_format="channels_last"):
    """[batch, ...] -> [batch, prod(...)] (channels_first inputs are made channels-last first)."""
    inputs = _as_tensor(inputs)
    g = get_default_graph()
    with g.name_scope(name or "flatten"):
        shape = inputs.shape
        if _channels_first(data_format) and shape.rank is not None and shape.rank > 2:
            perm = [0] + list(range(2, shape.rank)) + [1]
            inputs = _ops.transpose(inputs, np.array(perm, np.int32))
            shape = inputs.shape
        rest = shape.dims[1:] if shape.rank is not None else None
        if rest is not None and all(d is not None for d in rest):
            return _ops.reshape(inputs, np.array([-1, int(np.prod(rest, dtype=np.int64))], np.int64))
        batch = _ops.strided_slice(_ops.shape(inputs, out_type="int64"), np.array([0], np.int32),
                                   np.array([1], np.int32), np.array([1], np.int32))
        from ..ops.array_ops import concat  # noqa: PLC0415
        return _ops.reshape(inputs, concat([batch, np.array([-1], np.int64)], 0))


def _is_tensor(v):
    return isinstance(v, GraphTensor) or hasattr(v, "_graph_for_dispatch")


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout when training (a bool or a boolean tensor), the identity otherwise."""
    inputs = _as_tensor(inputs)
    g = get_default_graph()
    with g.name_scope(name or "dropout"):
        if not _is_tensor(training):
            return _nn_impl.dropout(inputs, rate, noise_shape, seed) if training else _ops.identity(inputs)
        from ..framework.control_flow import cond  # noqa: PLC0415
        return cond(training, lambda: _nn_impl.dropout(inputs, rate, noise_shape, seed), lambda: _ops.identity(inputs))


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=_init.zeros_initializer(), gamma_initializer=_init.ones_initializer(),
                        moving_mean_initializer=_init.zeros_initializer(),
                        moving_variance_initializer=_init.ones_initializer(), beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization over every axis but `axis`. Training normalizes with the batch's
    statistics and adds moving-average updates (moving = moving - (moving - batch) * (1 -
    momentum)) to UPDATE_OPS; inference uses the moving averages. As TensorFlow's fused kernel
    does for 4-D inputs, the moving variance is updated with the unbiased batch variance."""
    if renorm or virtual_batch_size or adjustment:
        raise NotImplementedError("batch_normalization: renorm, virtual_batch_size and adjustment are not "
                                  "supported by opforge yet")
    inputs = _as_tensor(inputs)
    shape = inputs.shape
    if shape.rank is None:
        raise ValueError("Input has undefined rank.")
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    axes = [a % shape.rank for a in axes]
    if len(axes) != 1:
        raise NotImplementedError("batch_normalization over several axes is not supported by opforge yet")
    ax = axes[0]
    depth = shape.dims[ax]
    if depth is None:
        raise ValueError(f"Input has undefined `axis` dimension. Received input with shape {shape} and axis={axis}")
    reduce_axes = [i for i in range(shape.rank) if i != ax]
    dt = inputs.dtype
    g = get_default_graph()
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        gamma = get_variable("gamma", [depth], dt, initializer=gamma_initializer, regularizer=gamma_regularizer,
                             trainable=trainable) if scale else None
        beta = get_variable("beta", [depth], dt, initializer=beta_initializer, regularizer=beta_regularizer,
                            trainable=trainable) if center else None
        moving_mean = get_variable("moving_mean", [depth], dt, initializer=moving_mean_initializer,
                                   trainable=False, collections=[GLOBAL_VARIABLES])
        moving_var = get_variable("moving_variance", [depth], dt, initializer=moving_variance_initializer,
                                  trainable=False, collections=[GLOBAL_VARIABLES])
        bshape = np.ones(shape.rank, np.int64)
        bshape[ax] = depth

        def bcast(v):
            return v if ax == shape.rank - 1 else _ops.reshape(v, bshape)

        if not _is_tensor(training) and not training:
            mean, var = moving_mean, moving_var
        else:
            from ..ops.math_ops import reduce_mean  # noqa: PLC0415
            batch_mean = reduce_mean(inputs, reduce_axes)
            batch_var = reduce_mean(_ops.squared_difference(inputs, _ops.stop_gradient(bcast(batch_mean))), reduce_axes)
            if _is_tensor(training):
                from ..framework.control_flow import cond  # noqa: PLC0415
                mean, var = cond(training, lambda: (_ops.identity(batch_mean), _ops.identity(batch_var)),
                                 lambda: (_ops.identity(moving_mean), _ops.identity(moving_var)))
            else:
                mean, var = batch_mean, batch_var
            # moving updates (UPDATE_OPS)
            count = _ops.real_div(_ops.cast(_ops.size(inputs), dt), _c(inputs, depth))
            unbiased = batch_var
            if shape.rank == 4 and fused is not False:
                unbiased = _ops.mul(batch_var, _ops.real_div(count, _ops.maximum(_ops.sub(count, _c(count, 1)),
                                                                                _c(count, 1))))
            decay = _c(inputs, 1.0 - momentum)
            if _is_tensor(training):
                decay = _ops.mul(decay, _ops.cast(training, dt))
            with g.name_scope("AssignMovingAvg"):
                upd_mean = _ops.assign_sub(moving_mean, _ops.mul(_ops.sub(moving_mean, _ops.stop_gradient(batch_mean)),
                                                                 decay))
            with g.name_scope("AssignMovingAvg_1"):
                upd_var = _ops.assign_sub(moving_var, _ops.mul(_ops.sub(moving_var, _ops.stop_gradient(unbiased)),
                                                               decay))
            g.add_to_collection(UPDATE_OPS, upd_mean)
            g.add_to_collection(UPDATE_OPS, upd_var)
        inv = _ops.rsqrt(_ops.add_v2(var, _c(inputs, epsilon)))
        if gamma is not None:
            inv = _ops.mul(inv, gamma)
        shift = _ops.neg(_ops.mul(mean, inv))
        if beta is not None:
            shift = _ops.add_v2(shift, beta)
        return _ops.add_v2(_ops.mul(inputs, bcast(inv)), bcast(shift))
