"""3-D convolution and pooling (Conv3D and its V2 backprops, MaxPool3D, AvgPool3D and their
gradient ops): against a direct NumPy convolution, against TensorFlow when installed, float64
gradients checked numerically through of.gradients, and typed errors for bad calls."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

GEOMETRIES = [  # (strides, dilations, padding)
    ([1, 1, 1, 1, 1], [1, 1, 1, 1, 1], "SAME"),
    ([1, 2, 1, 2, 1], [1, 1, 1, 1, 1], "VALID"),
    ([1, 1, 1, 1, 1], [1, 2, 1, 2, 1], "SAME"),
    ([1, 2, 2, 1, 1], [1, 1, 1, 1, 1], "SAME"),
]



def _run_v1(build):
    """Runs what TF1-style build() returns in a Session (compat.v1 functions build graph nodes)."""
    with tf1.Graph().as_default(), tf1.Session() as sess:
        return sess.run(build())

def _np_conv3d(x, f, strides, dilations, padding):
    n, d, h, w, _ = x.shape
    kd, kh, kw, _, co = f.shape
    s, dl = strides[1:4], dilations[1:4]
    eff = [(k - 1) * q + 1 for k, q in zip((kd, kh, kw), dl)]
    if padding == "SAME":
        out = [(i + st - 1) // st for i, st in zip((d, h, w), s)]
        pads = [max(0, (o - 1) * st + e - i) for o, st, e, i in zip(out, s, eff, (d, h, w))]
        before = [p // 2 for p in pads]
    else:
        out = [(i - e) // st + 1 for i, e, st in zip((d, h, w), eff, s)]
        pads, before = [0, 0, 0], [0, 0, 0]
    xp = np.pad(x, [(0, 0)] + [(b, p - b) for b, p in zip(before, pads)] + [(0, 0)])
    y = np.zeros([n] + out + [co], x.dtype)
    for a in range(kd):
        for b in range(kh):
            for c in range(kw):
                patch = xp[:, a * dl[0]: a * dl[0] + (out[0] - 1) * s[0] + 1: s[0],
                           b * dl[1]: b * dl[1] + (out[1] - 1) * s[1] + 1: s[1],
                           c * dl[2]: c * dl[2] + (out[2] - 1) * s[2] + 1: s[2]]
                y += patch @ f[a, b, c]
    return y


@pytest.mark.parametrize("strides,dilations,padding", GEOMETRIES)
def test_conv3d_matches_numpy(strides, dilations, padding):
    rng = np.random.default_rng(0)
    x, f = rng.normal(size=(2, 6, 5, 7, 3)), rng.normal(size=(3, 2, 3, 3, 4))
    got = of.raw_ops.Conv3D(input=x, filter=f, strides=strides, padding=padding, dilations=dilations).numpy()
    np.testing.assert_allclose(got, _np_conv3d(x, f, strides, dilations, padding), atol=1e-10)


@pytest.mark.parametrize("strides,dilations,padding", GEOMETRIES[:3])
def test_conv3d_gradients_match_numeric(strides, dilations, padding):
    rng = np.random.default_rng(1)
    xv, fv = rng.normal(size=(1, 4, 3, 5, 2)), rng.normal(size=(2, 2, 3, 2, 3))
    w = rng.normal(size=_np_conv3d(xv, fv, strides, dilations, padding).shape)
    g = of.Graph()
    with g.as_default():
        x, f = tf1.placeholder(of.float64, xv.shape), tf1.placeholder(of.float64, fv.shape)
        y = of.raw_ops.Conv3D(input=x, filter=f, strides=strides, padding=padding, dilations=dilations)
        gx, gf = of.gradients(of.reduce_sum(y * w), [x, f])
    got_x, got_f = tf1.Session(graph=g).run([gx, gf], {x: xv, f: fv})
    # The loss is linear in x (and in f): its gradient is exact as a finite difference of 1.
    loss = lambda a, b: (_np_conv3d(a, b, strides, dilations, padding) * w).sum()  # noqa: E731
    for got, arr, which in ((got_x, xv, 0), (got_f, fv, 1)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            e = np.zeros_like(arr)
            e[i] = 1.0
            num[i] = (loss(xv + e, fv) - loss(xv, fv)) if which == 0 else (loss(xv, fv + e) - loss(xv, fv))
        np.testing.assert_allclose(got, num, atol=1e-9)


@pytest.mark.parametrize("name", ["MaxPool3D", "AvgPool3D"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool3d_gradients_match_numeric(name, padding):
    rng = np.random.default_rng(2)
    xv = rng.normal(size=(1, 4, 5, 3, 2)).astype(np.float32)
    k, s = [1, 2, 3, 2, 1], [1, 2, 2, 1, 1]
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, xv.shape)
        y = getattr(of.raw_ops, name)(input=x, ksize=k, strides=s, padding=padding)
        w = rng.normal(size=y.shape.as_list()).astype(np.float32)
        loss = of.reduce_sum(y * w)
        (gx,) = of.gradients(loss, [x])
    sess = tf1.Session(graph=g)
    got = sess.run(gx, {x: xv})
    eps, num = 1e-2, np.zeros_like(xv)
    for i in np.ndindex(xv.shape):  # max pooling is piecewise linear: small steps stay on one piece
        e = np.zeros_like(xv)
        e[i] = eps
        num[i] = (sess.run(loss, {x: xv + e}) - sess.run(loss, {x: xv - e})) / (2 * eps)
    np.testing.assert_allclose(got, num, atol=2e-3)


def test_same_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    x, f = rng.normal(size=(2, 6, 5, 7, 3)).astype(np.float32), rng.normal(size=(3, 2, 3, 3, 4)).astype(np.float32)
    for strides, dilations, padding in GEOMETRIES:
        kw = dict(strides=strides, padding=padding, dilations=dilations)
        try:
            y = tf.raw_ops.Conv3D(input=x, filter=f, **kw).numpy()
        except tf.errors.InvalidArgumentError as e:
            # TF's Eigen Conv3D has no dilations; only its oneDNN kernel does, which TF may leave
            # out (it did in the AddressSanitizer run). The NumPy tests above cover these.
            assert max(dilations) > 1 and "dilat" in str(e), e
            continue
        np.testing.assert_allclose(of.raw_ops.Conv3D(input=x, filter=f, **kw).numpy(), y, atol=1e-4)
        g = rng.normal(size=y.shape).astype(np.float32)
        args = dict(input_sizes=np.array(x.shape, np.int32), filter=f, out_backprop=g, **kw)
        np.testing.assert_allclose(of.raw_ops.Conv3DBackpropInputV2(**args).numpy(),
                                   tf.raw_ops.Conv3DBackpropInputV2(**args).numpy(), atol=1e-4)
        args = dict(input=x, filter_sizes=np.array(f.shape, np.int32), out_backprop=g, **kw)
        np.testing.assert_allclose(of.raw_ops.Conv3DBackpropFilterV2(**args).numpy(),
                                   tf.raw_ops.Conv3DBackpropFilterV2(**args).numpy(), atol=1e-3)
    for padding in ("SAME", "VALID"):
        for k, s in (([1, 2, 2, 2, 1], [1, 2, 2, 2, 1]), ([1, 3, 2, 3, 1], [1, 1, 2, 1, 1])):
            for name in ("MaxPool3D", "AvgPool3D"):
                kw = dict(ksize=k, strides=s, padding=padding)
                a = getattr(of.raw_ops, name)(input=x, **kw).numpy()
                np.testing.assert_allclose(a, getattr(tf.raw_ops, name)(input=x, **kw).numpy(), atol=1e-6)
                g = rng.normal(size=a.shape).astype(np.float32)
                if name == "MaxPool3D":
                    args = dict(orig_input=x, orig_output=a, grad=g, **kw)
                else:
                    args = dict(orig_input_shape=np.array(x.shape, np.int32), grad=g, **kw)
                grad_op = name + "Grad"
                np.testing.assert_allclose(getattr(of.raw_ops, grad_op)(**args).numpy(),
                                           getattr(tf.raw_ops, grad_op)(**args).numpy(), atol=1e-5)


def test_bad_calls_name_the_op():
    x, f = np.zeros((1, 4, 4, 4, 2), np.float32), np.zeros((2, 2, 2, 2, 3), np.float32)
    with pytest.raises(InvalidArgumentError, match="Conv3D.*NDHWC"):
        of.raw_ops.Conv3D(input=x, filter=f, strides=[1] * 5, padding="SAME", data_format="NCDHW")
    with pytest.raises(InvalidArgumentError, match="Conv3D.*in_channels"):
        of.raw_ops.Conv3D(input=x, filter=np.zeros((2, 2, 2, 1, 3), np.float32), strides=[1] * 5, padding="SAME")
    with pytest.raises(InvalidArgumentError, match="Conv3D.*batch and channel"):
        of.raw_ops.Conv3D(input=x, filter=f, strides=[2, 1, 1, 1, 1], padding="SAME")
    with pytest.raises(InvalidArgumentError, match="MaxPool3D.*ksize.*5"):
        of.raw_ops.MaxPool3D(input=x, ksize=[1, 2, 2, 1], strides=[1] * 5, padding="SAME")
    with pytest.raises(InvalidArgumentError, match="AvgPool3D.*5-dimensional"):
        of.raw_ops.AvgPool3D(input=np.zeros((4, 4, 4, 2), np.float32), ksize=[1, 2, 2, 2, 1], strides=[1] * 5,
                             padding="VALID")


def test_nn_wrappers():
    rng = np.random.default_rng(5)
    x, f = rng.normal(size=(1, 4, 5, 6, 3)), rng.normal(size=(2, 2, 2, 3, 4))
    np.testing.assert_allclose(of.nn.conv3d(x, f, 1, "SAME").numpy(),
                               _np_conv3d(x, f, [1] * 5, [1] * 5, "SAME"), atol=1e-10)
    np.testing.assert_allclose(_run_v1(lambda: tf1.nn.conv3d(x, filter=f, strides=[1, 1, 1, 1, 1], padding="VALID")),
                               _np_conv3d(x, f, [1] * 5, [1] * 5, "VALID"), atol=1e-10)
    xf = x.astype(np.float32)
    pooled = of.nn.max_pool3d(xf, 2, 2, "VALID").numpy()
    np.testing.assert_array_equal(pooled, xf[:, :4, :4, :6].reshape(1, 2, 2, 2, 2, 3, 2, 3).max(axis=(2, 4, 6)))
    avg = of.nn.avg_pool3d(x, [2, 2, 2], [2, 2, 2], "VALID").numpy()
    np.testing.assert_allclose(avg, x[:, :4, :4, :6].reshape(1, 2, 2, 2, 2, 3, 2, 3).mean(axis=(2, 4, 6)), atol=1e-12)
