"""The nn kernels against TensorFlow's own (tf.raw_ops) on the same inputs: padding rules, the
max-pool tie rule, NCHW bias, batch norm's running statistics and reserve spaces. Skipped when
TensorFlow is not installed."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
raw = tf.raw_ops


def _same(ours, theirs, atol=1e-4):
    ours = list(ours) if isinstance(ours, (tuple, list)) else [ours]
    theirs = list(theirs) if isinstance(theirs, (tuple, list)) else [theirs]
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        a, b = a.numpy(), b.numpy()
        assert a.shape == b.shape, (i, a.shape, b.shape)
        np.testing.assert_allclose(a, b, atol=atol, rtol=1e-4, err_msg=f"output {i}")


CONV_ATTRS = [dict(strides=[1, 2, 1, 1], padding="SAME"),
              dict(strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 2, 1]),
              dict(strides=[1, 2, 2, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])]


@pytest.mark.parametrize("attrs", CONV_ATTRS, ids=["same-stride", "valid-dilated", "explicit"])
def test_conv2d_and_gradients(attrs):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    f = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    y = of.ops.conv2d(x, f, **attrs)
    _same(y, raw.Conv2D(input=x, filter=f, **attrs))
    dy = rng.standard_normal(y.shape).astype(np.float32)
    _same(of.ops.conv2d_backprop_input(np.array(x.shape, np.int32), f, dy, **attrs),
          raw.Conv2DBackpropInput(input_sizes=x.shape, filter=f, out_backprop=dy, **attrs))
    _same(of.ops.conv2d_backprop_filter(x, np.array(f.shape, np.int32), dy, **attrs),
          raw.Conv2DBackpropFilter(input=x, filter_sizes=f.shape, out_backprop=dy, **attrs))
    fd = rng.standard_normal((3, 2, 3, 2)).astype(np.float32)
    _same(of.ops.depthwise_conv2d_native(x, fd, **attrs), raw.DepthwiseConv2dNative(input=x, filter=fd, **attrs))


@pytest.mark.parametrize("attrs", [dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"),
                                   dict(ksize=[1, 2, 3, 1], strides=[1, 1, 2, 1], padding="VALID")],
                         ids=["same", "valid"])
def test_pools_with_ties(attrs):
    rng = np.random.default_rng(1)
    x = np.round(rng.standard_normal((2, 7, 6, 3)) * 2).astype(np.float32)  # many ties
    y = of.ops.max_pool(x, **attrs)
    _same(y, raw.MaxPool(input=x, **attrs))
    dy = rng.standard_normal(y.shape).astype(np.float32)
    _same(of.ops.max_pool_grad(x, y, dy, **attrs),
          raw.MaxPoolGrad(orig_input=x, orig_output=y.numpy(), grad=dy, **attrs))
    g2 = rng.standard_normal(x.shape).astype(np.float32)
    _same(of.ops.max_pool_grad_grad(x, y, g2, **attrs),
          raw.MaxPoolGradGrad(orig_input=x, orig_output=y.numpy(), grad=g2, **attrs))
    _same(of.ops.avg_pool(x, **attrs), raw.AvgPool(value=x, **attrs))
    _same(of.ops.avg_pool_grad(np.array(x.shape, np.int32), dy, **attrs),
          raw.AvgPoolGrad(orig_input_shape=x.shape, grad=dy, **attrs))


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 4), (2, 3, 4, 5, 6)])
def test_bias_add_nchw(shape):
    rng = np.random.default_rng(2)
    v = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    _same(of.ops.bias_add(v, b, data_format="NCHW"), raw.BiasAdd(value=v, bias=b, data_format="NCHW"))
    _same(of.ops.bias_add_grad(v, data_format="NCHW"), raw.BiasAddGrad(out_backprop=v, data_format="NCHW"))


@pytest.mark.parametrize("training,factor", [(True, 1.0), (True, 0.3), (False, 1.0)])
def test_fused_batch_norm(training, factor):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    scale, offset, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    var = np.abs(mean) + 0.5
    ours = of.ops.fused_batch_norm_v3(x, scale, offset, mean, var, epsilon=0.001,
                                      exponential_avg_factor=factor, is_training=training)
    theirs = raw.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var, epsilon=0.001,
                                  exponential_avg_factor=factor, is_training=training)
    _same(ours, theirs)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    _same(of.ops.fused_batch_norm_grad_v3(dy, x, scale, *ours[3:], epsilon=0.001, is_training=training)[:3],
          raw.FusedBatchNormGradV3(y_backprop=dy, x=x, scale=scale, reserve_space_1=theirs[3],
                                   reserve_space_2=theirs[4], reserve_space_3=theirs[5], epsilon=0.001,
                                   is_training=training)[:3])


def test_losses_and_activations():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((3, 4)).astype(np.float32)
    labels = rng.random((3, 4)).astype(np.float32)
    _same(of.ops.softmax_cross_entropy_with_logits(logits, labels),
          raw.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels))
    _same(of.ops.softmax_cross_entropy_with_logits(logits, labels[:1]),
          raw.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels[:1]))
    sparse = np.array([0, 3, 1])
    _same(of.ops.sparse_softmax_cross_entropy_with_logits(logits, sparse),
          raw.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=sparse))
    x = rng.standard_normal(40).astype(np.float32) * 4
    for name in ("Relu6", "Elu", "Selu", "Softplus", "Softsign", "LeakyRelu"):
        _same(getattr(of.raw_ops, name)(features=x), getattr(raw, name)(features=x))
    _same(of.nn.gelu(x), tf.nn.gelu(x))
    _same(of.nn.gelu(x, approximate=True), tf.nn.gelu(x, approximate=True))
