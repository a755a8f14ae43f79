"""The layout of opforge._C: test-only switches live in _C._testing, public calls stay public,
and every op whose opdef says shape_fn: "custom" has its hand-written shape function."""

from pathlib import Path

import numpy as np
import pytest

import codegen.model
import opforge as of
import opforge.compat.v1 as v1
from opforge import _C

REPO = Path(__file__).resolve().parents[2]
CUSTOM_SHAPE_OPS = sorted(
    op.name for op in codegen.model.load([str(REPO / "opdefs")])
    if op.shape_fn is not None and op.shape_fn.name == "custom"
)

TESTING_SWITCHES = [
    "sgemm_kernel", "set_sgemm_kernel", "gemm", "winograd_tile", "set_winograd_tile",
    "direct_conv_avx512", "set_direct_conv_avx512", "conv_gather", "set_conv_gather", "depthwise_avx512", "set_depthwise_avx512",
    "vec_avx512", "set_vec_avx512",
    "concurrent_executor", "set_concurrent_executor", "set_profiling", "profile_stats",
    "constant_cache_bytes", "gpu_copy", "custom_shape_ops",
]


@pytest.mark.parametrize("name", TESTING_SWITCHES)
def test_switch_lives_in_testing_submodule_only(name):
    assert callable(getattr(_C._testing, name))
    assert not hasattr(_C, name), f"_C.{name} should be _C._testing.{name}"


@pytest.mark.parametrize("name", ["execute", "Graph", "Session", "op_spec", "num_threads", "set_num_threads",
                                  "host_memory_stats", "crc32c", "parse_device", "gpu_count", "OpLibrary"])
def test_runtime_calls_stay_public(name):
    assert hasattr(_C, name)


def test_every_custom_shape_opdef_has_a_shape_function():
    assert len(CUSTOM_SHAPE_OPS) > 50  # the opdefs were found
    registered = set(_C._testing.custom_shape_ops())
    missing = [name for name in CUSTOM_SHAPE_OPS if name not in registered]
    assert not missing, f"opdefs say shape_fn: custom but no shape function is registered: {missing}"


def test_no_shape_function_without_a_custom_opdef():
    registered = set(_C._testing.custom_shape_ops())
    stray = sorted(registered - set(CUSTOM_SHAPE_OPS))
    assert not stray, f"custom shape functions for ops whose opdef does not say shape_fn: custom: {stray}"


def test_custom_shape_function_infers_partially_known_shapes():
    # Conv2D's shape function (runtime/ops/nn.cc) with an unknown batch and a known filter.
    g = of.Graph()
    with g.as_default():
        x = v1.placeholder(of.float32, [None, 9, 9, 3])
        w = of.constant(np.zeros([3, 3, 3, 5], np.float32))
        y = of.nn.conv2d(x, w, strides=2, padding="SAME")
        z = of.concat([x, x], axis=3)
    assert y.shape.as_list() == [None, 5, 5, 5]
    assert z.shape.as_list() == [None, 9, 9, 6]
