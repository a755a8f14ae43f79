"""tf.test: TensorFlow 1's unittest harness over opforge (TestCase with its assert helpers and
sessions, main, get_temp_dir, build and device queries, graph comparison, benchmarks and a
stub helper). Programs' own test files import these; opforge's tests use pytest."""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import platform
import sys
import tempfile
import time
import unittest

import numpy as np

from . import devices as _devices
from .graph import Graph, get_default_graph
from .session import Session

_log = logging.getLogger("tensorflow")
_TEMP_DIR = None


def get_temp_dir():
    """A temporary folder for this test process (made once)."""
    global _TEMP_DIR
    if _TEMP_DIR is None:
        _TEMP_DIR = tempfile.mkdtemp(prefix="opforge_test_")
    return _TEMP_DIR


def main(argv=None):
    """Runs the tests of __main__ (unittest.main)."""
    return unittest.main(argv=argv)


def is_built_with_cuda():
    return "cuda" in _devices.built_backends()


def is_built_with_rocm():
    return "hip" in _devices.built_backends()


def is_built_with_gpu_support():
    return is_built_with_cuda() or is_built_with_rocm()


def is_built_with_xla():
    return False  # opforge has no XLA compiler


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether a GPU backend is loaded and sees a GPU (the compute capability is not checked)."""
    del min_cuda_compute_capability
    if cuda_only and _devices.backend() != "cuda":
        return False
    return _devices.num_gpus() > 0


def gpu_device_name():
    return "/device:GPU:0" if is_gpu_available() else ""


def is_cpu_target_available(target):
    """Whether code can be generated for the CPU family ``target`` (x86, aarch64, ...): opforge's
    kernels are compiled for the host only."""
    machine = platform.machine().lower()
    families = {"x86": ("x86_64", "amd64", "i386", "i686"), "aarch64": ("aarch64", "arm64"), "arm": ("armv7l",),
                "powerpc": ("ppc64le", "ppc64"), "systemz": ("s390x",)}
    return machine in families.get(target.lower(), (target.lower(),))


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """AssertionError naming the first difference unless the GraphDefs have the same nodes
    (in any order) with the same inputs, devices and attrs."""
    del checkpoint_v2, hash_table_shared_name
    for g, what in ((actual, "actual"), (expected, "expected")):
        if not hasattr(g, "node"):
            raise TypeError(f"Expected tf.GraphDef for {what}, got {type(g).__name__}")
    a = {n.name: n for n in actual.node}
    e = {n.name: n for n in expected.node}
    if set(a) != set(e):
        raise AssertionError(f"Graph nodes differ: only in actual {sorted(set(a) - set(e))}, only in expected "
                             f"{sorted(set(e) - set(a))}")
    for name in sorted(a):
        if a[name].SerializeToString(deterministic=True) != e[name].SerializeToString(deterministic=True):
            raise AssertionError(f"Node {name!r} differs:\nactual:\n{a[name]}\nexpected:\n{e[name]}")


def benchmark_config():
    """A ConfigProto for benchmarks: the graph optimizer's passes off, so the graph runs as built."""
    from ..codegen._proto import config_pb2  # noqa: PLC0415
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    return config


def test_src_dir_path(relative_path):
    """relative_path under the opforge source tree (the repository root)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), relative_path)


def disable_with_predicate(pred, skip_message):
    """A decorator skipping the test (or every test of a class) when pred() is true."""
    def decorator(func):
        if inspect.isclass(func):
            return unittest.skipIf(pred(), skip_message)(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if pred():
                raise unittest.SkipTest(skip_message)
            return func(*args, **kwargs)
        return wrapper
    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """TensorFlow's switch to also run eager ops as functions: opforge's TF1 tests run graphs,
    so the class is returned as it is."""
    del only_as_function
    return (lambda c: c) if cls is None else cls


class StubOutForTesting:
    """Replaces attributes for a test and puts them back (``Set``, ``SmartSet``, ``UnsetAll``)."""

    def __init__(self):
        self.cache, self.stubs = [], []

    def __del__(self):
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802 (TensorFlow's names)
        """Like Set, restoring what the attribute was where it was defined (class or instance)."""
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in obj.__dict__):
            orig_obj, orig_attr = obj, getattr(obj, attr_name)
        else:
            mro = list(inspect.getmro(obj if inspect.isclass(obj) else obj.__class__))
            orig_obj, orig_attr = obj, getattr(obj, attr_name)
            for cls in mro:
                if attr_name in cls.__dict__:
                    orig_obj, orig_attr = cls, cls.__dict__[attr_name]
                    break
        self.stubs.append((orig_obj, attr_name, orig_attr))
        setattr(obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802
        for obj, name, value in reversed(self.stubs):
            setattr(obj, name, value)
        self.stubs = []

    def Set(self, parent, child_name, new_child):  # noqa: N802
        old_child = getattr(parent, child_name)
        old_attribute = parent.__dict__.get(child_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []

    def CleanUp(self):  # noqa: N802
        self.SmartUnsetAll()
        self.UnsetAll()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.CleanUp()


def _as_numpy(x):
    if isinstance(x, (list, tuple)) and x and not np.isscalar(x[0]) and not isinstance(x[0], (list, tuple)):
        return x
    if hasattr(x, "numpy") and callable(x.numpy):
        return x.numpy()
    return x


class TestCase(unittest.TestCase):
    """tf.test.TestCase: a fresh default graph per test, sessions on it, and TensorFlow's
    array assertions (assertAllClose on nested structures, assertAllEqual, ranges, sets)."""

    def __init__(self, methodName="runTest"):  # noqa: N803 (unittest's name)
        super().__init__(methodName)
        self._cached_session = None
        self._graph_cm = None

    def setUp(self):
        self._graph_cm = Graph().as_default()
        self._graph_cm.__enter__()
        np.random.seed(87654321)

    def tearDown(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
        if self._graph_cm is not None:
            self._graph_cm.__exit__(None, None, None)
            self._graph_cm = None

    def get_temp_dir(self):
        """A temporary folder for this test method (under the process's one)."""
        path = os.path.join(get_temp_dir(), self.id().replace("/", "_"))
        os.makedirs(path, exist_ok=True)
        return path

    # ---- sessions
    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new Session on graph (the default graph), its default for the block."""
        if force_gpu and not is_gpu_available():
            self.skipTest("force_gpu=True and no GPU is available")
        sess = Session(graph=graph if graph is not None else get_default_graph(), config=config)
        with sess.graph.as_default(), sess.as_default():
            try:
                yield sess
            finally:
                sess.close()

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """The same Session for every call of this test (made on first use)."""
        if force_gpu and not is_gpu_available():
            self.skipTest("force_gpu=True and no GPU is available")
        if self._cached_session is None or (graph is not None and self._cached_session.graph is not graph):
            if self._cached_session is not None:
                self._cached_session.close()
            self._cached_session = Session(graph=graph if graph is not None else get_default_graph(), config=config)
        sess = self._cached_session
        with sess.graph.as_default(), sess.as_default():
            yield sess

    # TF1's older name of cached_session; a property, so unittest does not collect it as a test
    test_session = property(lambda self: self.cached_session)

    def evaluate(self, tensors):
        """The values of tensors (any nest Session.run takes) in the default session, or a
        cached one on the default graph; eager tensors as NumPy."""
        from .default_session import get_default_session  # noqa: PLC0415
        sess = get_default_session()
        if sess is None:
            with self.cached_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    # ---- assertions
    def _structure_close(self, a, b, rtol, atol, msg, path):
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertIsInstance(a, dict, f"{msg} at {path}: {type(a).__name__} vs dict")
            self.assertIsInstance(b, dict, f"{msg} at {path}: dict vs {type(b).__name__}")
            self.assertEqual(set(a), set(b), f"{msg} at {path}: mismatched keys")
            for k in a:
                self._structure_close(a[k], b[k], rtol, atol, msg, path + [k])
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) != len(b):
            raise AssertionError(f"{msg} at {path}: lengths differ, {len(a)} vs {len(b)}")
        a_arr, b_arr = np.asarray(_as_numpy(a)), np.asarray(_as_numpy(b))
        if a_arr.dtype == object or b_arr.dtype == object:
            for i, (x, y) in enumerate(zip(a, b)):
                self._structure_close(x, y, rtol, atol, msg, path + [i])
            return
        self._assertArrayLikeAllClose(a_arr, b_arr, rtol, atol, f"{msg} at {path}" if path else msg)

    def _assertArrayLikeAllClose(self, a, b, rtol, atol, msg):  # noqa: N802
        self.assertEqual(a.shape, b.shape, f"{msg or ''} Shape mismatch: expected {a.shape}, got {b.shape}.")
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
            where = np.argwhere(cond)[:10]
            raise AssertionError(f"{msg or ''}\nNot equal to tolerance rtol={rtol}, atol={atol}\n"
                                 f"not close where = {where.tolist()}\nnot close lhs = {a[cond][:10]}\n"
                                 f"not close rhs = {b[cond][:10]}")

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """a and b (arrays, numbers, or nested lists / tuples / dicts of them) are elementwise close."""
        self._structure_close(a, b, rtol, atol, msg or "", [])

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,  # noqa: N802
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        a, b = np.asarray(_as_numpy(a)), np.asarray(_as_numpy(b))
        if a.dtype == np.float32 or b.dtype == np.float32:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        elif a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements.")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        a, b = np.asarray(_as_numpy(a)), np.asarray(_as_numpy(b))
        if a.ndim and b.ndim:
            self.assertEqual(a.shape, b.shape, f"{msg or ''} Shape mismatch: expected {a.shape}, got {b.shape}.")
        same = a == b
        if a.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            diff = np.logical_not(same)
            raise AssertionError(f"{msg or ''}\nArrays are not equal\nnot equal where = {np.argwhere(diff)[:10].tolist()}\n"
                                 f"not equal lhs = {np.broadcast_to(a, diff.shape)[diff][:10]}\n"
                                 f"not equal rhs = {np.broadcast_to(b, diff.shape)[diff][:10]}")

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are equal at all elements.")

    def _compare_all(self, a, comparison, bound, what):
        a = np.asarray(_as_numpy(a))
        if not np.all(comparison(a, bound)):
            raise AssertionError(f"{a} is not {what} {bound}")

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.greater, comparison_target, "all greater than")

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.less, comparison_target, "all less than")

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.greater_equal, comparison_target, "all greater than or equal to")

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.less_equal, comparison_target, "all less than or equal to")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        """Every element of target is in the (closed unless told open) range."""
        target = np.asarray(_as_numpy(target))
        if not np.issubdtype(target.dtype, np.number):
            raise AssertionError(f"The value of {target} does not have an ordered numeric type, instead it has "
                                 f"type: {target.dtype}")
        lower_ok = target > lower_bound if open_lower_bound else target >= lower_bound
        upper_ok = target < upper_bound if open_upper_bound else target <= upper_bound
        bad = np.logical_not(np.logical_and(lower_ok, upper_ok))
        if np.any(bad):
            range_str = (("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}" +
                         (")" if open_upper_bound else "]"))
            raise AssertionError(f"{np.argwhere(bad).tolist()[:10]} elements of {target.shape} are not in "
                                 f"{range_str}: {target[bad][:10]}")

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        target = np.asarray(_as_numpy(target))
        diff = np.setdiff1d(target.ravel(), np.asarray(list(expected_set)))
        if diff.size:
            raise AssertionError(f"{diff} unexpected values not in {set(expected_set)}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        f"{f1!r} != {f2!r} +/- {err!r}" + (f" ({msg})" if msg is not None else ""))

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        self.assertTrue(np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) <= err, msg=msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        """The NumPy array input_a has the static shape of the tensor input_b."""
        if not isinstance(input_a, np.ndarray):
            raise TypeError("input_a must be a NumPy ndarray.")
        shape = input_b.get_shape().as_list() if hasattr(input_b, "get_shape") else list(input_b.shape)
        self.assertAllEqual(input_a.shape, shape, msg=msg)

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        from .dtypes import as_dtype  # noqa: PLC0415
        want = as_dtype(expected_dtype).as_numpy_dtype
        for t in target if isinstance(target, (list, tuple)) else [target]:
            self.assertEqual(np.asarray(t).dtype, want)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        from .devices import canonical  # noqa: PLC0415
        self.assertEqual(canonical(device1 or ""), canonical(device2 or ""), msg)

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        if not actual.startswith(expected_start):
            raise AssertionError(f"{actual!r} does not start with {expected_start!r}" + (f": {msg}" if msg else ""))

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):  # noqa: N802
        """message equals the expected proto (a message, or its text format)."""
        from google.protobuf import text_format  # noqa: PLC0415
        expected = expected_message_maybe_ascii
        if isinstance(expected, str):
            expected = text_format.Parse(expected, type(message)())
        self.assertEqual(text_format.MessageToString(expected), text_format.MessageToString(message), msg)

    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            import re  # noqa: PLC0415
            pattern = expected_err_re_or_predicate
            predicate = lambda e: re.search(pattern, str(e)) is not None  # noqa: E731

        @contextlib.contextmanager
        def check():
            try:
                yield
            except exception_type as e:
                if not predicate(e):
                    raise AssertionError(f"Exception of type {type(e).__name__}: {e} does not match") from e
                return
            raise AssertionError(f"{exception_type.__name__} not raised")
        return check()

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        from .errors import OpError  # noqa: PLC0415
        return self.assertRaisesWithPredicateMatch(OpError, expected_err_re_or_predicate)


class Benchmark:
    """tf.test.Benchmark: ``report_benchmark`` logs a result; ``run_op_benchmark`` times a
    Session.run (burn-in runs first) and reports the median wall time."""

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, name=None,
                         metrics=None):
        name = name or f"{type(self).__name__}.{sys._getframe(1).f_code.co_name}"
        result = {"name": name, "iters": iters, "cpu_time": cpu_time, "wall_time": wall_time,
                  "throughput": throughput, "extras": extras or {}, "metrics": metrics or []}
        _log.info("Benchmark [%s] iters: %s, wall_time: %s, cpu_time: %s, throughput: %s, extras: %s", name, iters,
                  wall_time, cpu_time, throughput, extras)
        self.last_report = result
        return result

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10, store_trace=False,
                         store_memory_usage=True, name=None, extras=None, mbs=0):
        """Times min_iters runs of op_or_tensor after burn_iters; returns what it reports."""
        del store_trace, store_memory_usage
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        wall_time = float(np.median(deltas))
        throughput = mbs / wall_time if mbs and wall_time > 0 else None
        return self.report_benchmark(iters=min_iters, wall_time=wall_time, throughput=throughput, extras=extras,
                                     name=name)

    def evaluate(self, tensors):
        from .default_session import get_default_session  # noqa: PLC0415
        return get_default_session().run(tensors)
