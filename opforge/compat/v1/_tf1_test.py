"""tf.test: TensorFlow 1's test harness names over opforge.framework.test_util and the
gradient checker (opforge/gradients/gradient_checker.py)."""

from __future__ import annotations

from opforge.compat._namespace import Namespace
from opforge.framework import test_util as _tu
from opforge.gradients import gradient_checker as _gc

test = Namespace(
    "test", builds_graph=False, TestCase=_tu.TestCase, main=_tu.main, get_temp_dir=_tu.get_temp_dir,
    compute_gradient=_gc.compute_gradient, compute_gradient_error=_gc.compute_gradient_error,
    is_built_with_cuda=_tu.is_built_with_cuda, is_built_with_gpu_support=_tu.is_built_with_gpu_support,
    is_built_with_rocm=_tu.is_built_with_rocm, is_built_with_xla=_tu.is_built_with_xla,
    is_gpu_available=_tu.is_gpu_available, gpu_device_name=_tu.gpu_device_name,
    is_cpu_target_available=_tu.is_cpu_target_available, assert_equal_graph_def=_tu.assert_equal_graph_def,
    Benchmark=_tu.Benchmark, benchmark_config=_tu.benchmark_config, StubOutForTesting=_tu.StubOutForTesting,
    test_src_dir_path=_tu.test_src_dir_path, disable_with_predicate=_tu.disable_with_predicate,
    with_eager_op_as_function=_tu.with_eager_op_as_function)
