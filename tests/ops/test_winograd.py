"""Float32 3x3 stride-1 convolutions through Winograd, F(2x2, 3x3) and F(4x4, 3x3) each forced
in turn, against the NumPy reference in float64: blocks cut by the bottom/right border, both
ways of sharing the work (chunks per thread for a small transformed filter; phases over the
threads when it is over 1 MiB), several chunks, and the fused epilogues (applied in the output
transform, or after it for other activations)."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
import opforge.raw_ops as raw
from opforge import _C
from tests.ops import nn_reference as ref


@pytest.fixture(autouse=True, params=[2, 4], ids=["F2x2", "F4x4"])
def tile(request):
    before = _C._testing.winograd_tile()
    assert _C._testing.set_winograd_tile(request.param) == request.param
    yield request.param
    _C._testing.set_winograd_tile(before)


# (batch, height, width, cin, cout, padding): Winograd needs >= 16 channels each way and >= 64
# 2x2 blocks. The transformed filter (36 or 16 x cin x cout floats) is under 1 MiB for the first
# three, over it for the last two; (2, 64, 64, 16, 16) and (3, 44, 44, 96, 96) take two or more
# chunks with either tile.
CASES = [(2, 17, 13, 24, 20, "SAME"), (1, 19, 22, 16, 33, "VALID"), (2, 64, 64, 16, 16, "SAME"),
         (2, 10, 11, 96, 112, "SAME"), (3, 44, 44, 96, 96, "SAME")]


def _check(got, want):
    # Winograd rounds the transforms in float32: ~1e-5 of the output's scale for F(4x4).
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@pytest.mark.parametrize("n,h,w,cin,cout,padding", CASES)
def test_conv_matches_numpy(n, h, w, cin, cout, padding):
    rng = np.random.default_rng(h * 100 + cin + cout)
    x = rng.standard_normal((n, h, w, cin)).astype(np.float32)
    f = (rng.standard_normal((3, 3, cin, cout)) / np.sqrt(9 * cin)).astype(np.float32)
    got = raw.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding=padding).numpy()
    want = ref.conv2d(x.astype(np.float64), f.astype(np.float64), [1, 1, 1, 1], padding, [], "NHWC", [1, 1, 1, 1])
    _check(got, want)


@pytest.mark.parametrize("act", ["Relu", "Relu6", "Elu"])
@pytest.mark.parametrize("case", [CASES[0], CASES[3]], ids=["small-filter", "large-filter"])
def test_fused_epilogue(case, act):
    n, h, w, cin, cout, padding = case
    rng = np.random.default_rng(cout)
    x = rng.standard_normal((n, h, w, cin)).astype(np.float32)
    f = (rng.standard_normal((3, 3, cin, cout)) / np.sqrt(9 * cin)).astype(np.float32)
    bias = rng.standard_normal(cout).astype(np.float32)
    got = raw._FusedConv2D(input=x, filter=f, args=[bias], host_args=[], num_args=1, strides=[1, 1, 1, 1],
                           padding=padding, fused_ops=["BiasAdd", act]).numpy()
    y = ref.conv2d(x.astype(np.float64), f.astype(np.float64), [1, 1, 1, 1], padding, [], "NHWC", [1, 1, 1, 1]) + bias
    want = {"Relu": np.maximum(y, 0), "Relu6": np.clip(y, 0, 6), "Elu": np.where(y < 0, np.expm1(y), y)}[act]
    _check(got, want)


def test_constant_filter_in_a_graph(tile):
    """A graph's constant filter is transformed once and kept (per tile size): runs agree."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 16, 16, 32)).astype(np.float32)
    f = (rng.standard_normal((3, 3, 32, 48)) / 17).astype(np.float32)
    g = of.Graph()
    with g.as_default():
        xp = tf1.placeholder(of.float32, x.shape)
        y = of.nn.conv2d(xp, of.constant(f), [1, 1, 1, 1], "SAME")
    sess = tf1.Session(graph=g)
    want = ref.conv2d(x.astype(np.float64), f.astype(np.float64), [1, 1, 1, 1], "SAME", [], "NHWC", [1, 1, 1, 1])
    for _ in range(2):
        _check(sess.run(y, {xp: x}), want)


def test_setting():
    """2 and 4 force a tile, 0 restores the per-shape choice, anything else is ignored."""
    assert _C._testing.set_winograd_tile(3) in (2, 4)  # not a tile size: ignored
    assert _C._testing.set_winograd_tile(0) == 0
