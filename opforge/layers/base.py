"""TensorFlow 1's layer objects (tf.layers.Dense, Conv2D, MaxPooling2D, BatchNormalization, ...)
over the functional layers of core.py.

A layer object picks its variable scope on its first call (``dense``, ``dense_1``, ... under the
variable scope it is called in, or its ``name``) and re-enters that scope with reuse on every
later call, so one object used twice shares its variables, as in TensorFlow. What each call
computes is the functional layer's (core.dense, core.conv2d, ...).
"""

from __future__ import annotations

from ..framework.collections import GLOBAL_VARIABLES, TRAINABLE_VARIABLES
from ..framework.graph import get_default_graph
from ..framework.variable_scope import variable_scope
from . import core as _core
from . import initializers as _init


class InputSpec:
    """What a layer expects of its inputs (dtype, shape, ndim, ...): a record, as TensorFlow's."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype, self.shape, self.max_ndim, self.min_ndim = dtype, shape, max_ndim, min_ndim
        self.ndim = len(shape) if shape is not None else ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze, self.name, self.optional = allow_last_axis_squeeze, name, optional

    def __repr__(self):
        fields = {k: v for k, v in vars(self).items() if v not in (None, {}, False)}
        return "InputSpec(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


class Layer:
    """A callable layer with its own variable scope (tf.layers.Layer). Subclasses implement
    ``call(inputs, scope, reuse, **kwargs)`` by calling a functional layer with name=scope."""

    _default_name = "layer"

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unknown arguments {sorted(kwargs)}")
        self.trainable, self.dtype, self._given_name = trainable, dtype, name
        self._scope = None
        self.built = False
        self.input_spec = None

    @property
    def name(self):
        if self._scope is not None:
            return self._scope.name.rsplit("/", 1)[-1]
        return self._given_name or self._default_name

    @property
    def scope_name(self):
        return None if self._scope is None else self._scope.name

    def __call__(self, inputs, *args, **kwargs):
        reuse = None
        if self._scope is None:
            with variable_scope(self._given_name, default_name=self._default_name) as scope:
                self._scope = scope
        else:
            reuse = True
        out = self.call(inputs, self._scope, reuse, *args, **kwargs)
        self.built = True
        return out

    apply = __call__

    def call(self, inputs, scope, reuse, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement call()")

    def _collection(self, key):
        if self._scope is None:
            return []
        prefix = self._scope.name + "/"
        return [v for v in get_default_graph().get_collection(key) if v.op.name.startswith(prefix)]

    @property
    def variables(self):
        return self._collection(GLOBAL_VARIABLES)

    weights = variables

    @property
    def trainable_variables(self):
        return self._collection(TRAINABLE_VARIABLES)

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self):
        trainable = {id(v) for v in self.trainable_variables}
        return [v for v in self.variables if id(v) not in trainable]

    non_trainable_weights = non_trainable_variables

    def _variable(self, short_name):
        found = [v for v in self.variables if v.op.name == f"{self._scope.name}/{short_name}"] if self._scope else []
        return found[0] if found else None


class _WeightedLayer(Layer):
    """A layer whose functional form takes (inputs, **config, trainable, name, reuse)."""

    _function = None

    def __init__(self, trainable=True, name=None, **config):
        super().__init__(trainable=trainable, name=name)
        self._config = config

    def call(self, inputs, scope, reuse):
        return type(self)._function(inputs, **self._config, trainable=self.trainable, name=scope, reuse=reuse)

    @property
    def kernel(self):
        return self._variable("kernel")

    @property
    def bias(self):
        return self._variable("bias")


class Dense(_WeightedLayer):
    """tf.layers.Dense: activation(inputs @ kernel + bias)."""

    _default_name, _function = "dense", staticmethod(_core.dense)

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable, name, units=units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        self.units = units


def _conv_class(name, function, default_name, strides_default):
    def __init__(self, filters, kernel_size, strides=strides_default, padding="valid", data_format="channels_last",
                 dilation_rate=strides_default, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=_init.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        _WeightedLayer.__init__(self, trainable, name, filters=filters, kernel_size=kernel_size, strides=strides,
                                padding=padding, data_format=data_format, dilation_rate=dilation_rate,
                                activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                                bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                                bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                                kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs)
        self.filters = filters

    return type(name, (_WeightedLayer,), {"__init__": __init__, "_default_name": default_name,
                                          "_function": staticmethod(function), "__module__": __name__,
                                          "__doc__": f"tf.layers.{name}: the {default_name} layer as an object."})


Conv1D = _conv_class("Conv1D", _core.conv1d, "conv1d", 1)
Conv2D = _conv_class("Conv2D", _core.conv2d, "conv2d", (1, 1))
Conv3D = _conv_class("Conv3D", _core.conv3d, "conv3d", (1, 1, 1))


def _separable_class(name, function, default_name, ones):
    def __init__(self, filters, kernel_size, strides=ones, padding="valid", data_format="channels_last",
                 dilation_rate=ones, depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_init.zeros_initializer(), depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        _WeightedLayer.__init__(
            self, trainable, name, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, depth_multiplier=depth_multiplier,
            activation=activation, use_bias=use_bias, depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint, **kwargs)
        self.filters = filters

    return type(name, (_WeightedLayer,), {
        "__init__": __init__, "_default_name": default_name, "_function": staticmethod(function),
        "__module__": __name__, "__doc__": f"tf.layers.{name}: the {default_name} layer as an object.",
        "depthwise_kernel": property(lambda self: self._variable("depthwise_kernel")),
        "pointwise_kernel": property(lambda self: self._variable("pointwise_kernel"))})


SeparableConv1D = _separable_class("SeparableConv1D", _core.separable_conv1d, "separable_conv1d", 1)
SeparableConv2D = _separable_class("SeparableConv2D", _core.separable_conv2d, "separable_conv2d", (1, 1))


class _ConvTranspose(_WeightedLayer):
    """A transposed-convolution layer object (the functional layer in _function)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                 activation=None, use_bias=True, kernel_initializer=None, bias_initializer=_init.zeros_initializer(),
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable, name, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        self.filters = filters


class Conv2DTranspose(_ConvTranspose):
    """tf.layers.Conv2DTranspose: the conv2d_transpose layer as an object."""

    _default_name, _function = "conv2d_transpose", staticmethod(_core.conv2d_transpose)


class Conv3DTranspose(_ConvTranspose):
    """tf.layers.Conv3DTranspose: the conv3d_transpose layer as an object."""

    _default_name, _function = "conv3d_transpose", staticmethod(_core.conv3d_transpose)

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                 activation=None, use_bias=True, kernel_initializer=None, bias_initializer=_init.zeros_initializer(),
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)


def _pool_class(name, function, default_name):
    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        Layer.__init__(self, name=name, **kwargs)
        self.pool_size, self.strides, self.padding, self.data_format = pool_size, strides, padding, data_format

    def call(self, inputs, scope, reuse):
        return function(inputs, self.pool_size, self.strides, self.padding, self.data_format, name=self.name)

    return type(name, (Layer,), {"__init__": __init__, "call": call, "_default_name": default_name,
                                 "__module__": __name__, "__doc__": f"tf.layers.{name}: {default_name} as an object."})


MaxPooling1D = _pool_class("MaxPooling1D", _core.max_pooling1d, "max_pooling1d")
MaxPooling2D = _pool_class("MaxPooling2D", _core.max_pooling2d, "max_pooling2d")
MaxPooling3D = _pool_class("MaxPooling3D", _core.max_pooling3d, "max_pooling3d")
AveragePooling1D = _pool_class("AveragePooling1D", _core.average_pooling1d, "average_pooling1d")
AveragePooling2D = _pool_class("AveragePooling2D", _core.average_pooling2d, "average_pooling2d")
AveragePooling3D = _pool_class("AveragePooling3D", _core.average_pooling3d, "average_pooling3d")


class Dropout(Layer):
    """tf.layers.Dropout: call(inputs, training=False)."""

    _default_name = "dropout"

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, scope, reuse, training=False):
        return _core.dropout(inputs, self.rate, self.noise_shape, self.seed, training, name=self.name)


class Flatten(Layer):
    """tf.layers.Flatten: [batch, ...] to [batch, prod(...)]."""

    _default_name = "flatten"

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"

    def call(self, inputs, scope, reuse):
        return _core.flatten(inputs, name=self.name, data_format=self.data_format)


class BatchNormalization(_WeightedLayer):
    """tf.layers.BatchNormalization: call(inputs, training=False); the moving-average updates
    go to UPDATE_OPS, as the functional layer's."""

    _default_name, _function = "batch_normalization", staticmethod(_core.batch_normalization)

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=_init.zeros_initializer(), gamma_initializer=_init.ones_initializer(),
                 moving_mean_initializer=_init.zeros_initializer(),
                 moving_variance_initializer=_init.ones_initializer(), beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None, adjustment=None,
                 name=None, **kwargs):
        super().__init__(trainable, name, axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         moving_mean_initializer=moving_mean_initializer,
                         moving_variance_initializer=moving_variance_initializer, beta_regularizer=beta_regularizer,
                         gamma_regularizer=gamma_regularizer, beta_constraint=beta_constraint,
                         gamma_constraint=gamma_constraint, renorm=renorm, renorm_clipping=renorm_clipping,
                         renorm_momentum=renorm_momentum, fused=fused, virtual_batch_size=virtual_batch_size,
                         adjustment=adjustment, **kwargs)

    def call(self, inputs, scope, reuse, training=False):
        return _core.batch_normalization(inputs, **self._config, training=training, trainable=self.trainable,
                                         name=scope, reuse=reuse)

    @property
    def moving_mean(self):
        return self._variable("moving_mean")

    @property
    def moving_variance(self):
        return self._variable("moving_variance")

    @property
    def gamma(self):
        return self._variable("gamma")

    @property
    def beta(self):
        return self._variable("beta")


__all__ = ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BatchNormalization", "Conv1D", "Conv2D",
           "Conv2DTranspose", "Conv3D", "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D", "Dense", "Dropout", "Flatten", "InputSpec", "Layer", "MaxPooling1D", "MaxPooling2D",
           "MaxPooling3D"]
