"""tf.py_func / tf.numpy_function (PyFunc, PyFuncStateless) and tf.py_function (EagerPyFunc):
results against NumPy, Tout checks, exceptions as typed errors naming the op, several threads and
the concurrent executor, eager calls, py_function's gradient, and a graph run where the function
is not registered (another process)."""

import threading

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import _C
from opforge.framework import errors
from opforge.ops import script_ops


def _session_run(fetches, feed):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_py_func_matches_numpy_with_several_outputs(graph):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 4)).astype(np.float32)
    b = rng.integers(-5, 5, size=(4,)).astype(np.int64)
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.int64, [4])
    s, m = tf.py_func(lambda u, v: (np.sin(u) * v.astype(np.float32), v.max()), [x, y], [tf.float32, tf.int64])
    single = tf.numpy_function(lambda u: u.T.copy(), [x], tf.float32, stateful=False)
    assert s.op.type == "PyFunc" and single.op.type == "PyFuncStateless"
    assert s.shape.rank is None  # unknown until the function runs, as in TensorFlow
    got = _session_run([s, m, single], {x: a, y: b})
    np.testing.assert_allclose(got[0], np.sin(a) * b.astype(np.float32), rtol=1e-6)
    assert got[1] == b.max() and got[1].dtype == np.int64
    np.testing.assert_array_equal(got[2], a.T)


def test_py_func_strings_and_no_outputs(graph):
    seen = []
    x = tf.placeholder(tf.string, [2])
    up = tf.py_func(lambda s: np.array([v.upper() for v in s], dtype=object), [x], tf.string)
    side = tf.py_func(lambda s: seen.append(list(s)), [x], [])
    got, _ = _session_run([up, side], {x: [b"ab", b"cd"]})
    assert list(got) == [b"AB", b"CD"] and seen == [[b"ab", b"cd"]]


@pytest.mark.parametrize("fn, tout, message", [
    (lambda u: u * 2.0, tf.float32, "returned float64 for output 0, Tout says float32"),  # a float64 array
    (lambda u: (u, u), [tf.float64], "returned 2 values, Tout lists 1"),
])
def test_results_are_checked_against_tout(graph, fn, tout, message):
    x = tf.placeholder(tf.float64, [2])
    out = tf.py_func(fn, [x], tout)
    with pytest.raises(errors.InvalidArgumentError, match=message) as e:
        _session_run(out, {x: [1.0, 2.0]})
    assert "PyFunc" in str(e.value)


class _Custom(Exception):
    pass


@pytest.mark.parametrize("exc, cls", [
    (ValueError("bad value"), errors.InvalidArgumentError), (TypeError("bad type"), errors.InvalidArgumentError),
    (StopIteration(), errors.OutOfRangeError), (NotImplementedError("later"), errors.UnimplementedError),
    (_Custom("custom"), errors.UnknownError), (errors.DataLossError("lost", None), errors.DataLossError),
])
def test_exceptions_become_typed_errors_naming_the_op(graph, exc, cls):
    def fail(u):
        raise exc

    x = tf.placeholder(tf.float32, [2])
    out = tf.py_func(fail, [x], tf.float32, name="my_func")
    with pytest.raises(cls, match=f"PyFunc 'my_func': function 'pyfunc_[0-9]+' raised {type(exc).__name__}"):
        _session_run(out, {x: [1.0, 2.0]})


def test_a_graph_run_where_the_function_is_not_registered_fails_clearly(graph):
    # What an exported graph gives in another process: the token names no function there.
    x = tf.placeholder(tf.float32, [2])
    out = of.ops.py_func([x], token="pyfunc_from_another_process", Tout=[tf.float32])[0]
    with pytest.raises(errors.NotFoundError, match="can run only in the process that built it"):
        _session_run(out, {x: [1.0, 2.0]})
    with pytest.raises(TypeError, match="func must be callable"):
        tf.py_func(3, [x], tf.float32)


def test_several_threads_and_the_concurrent_executor(graph):
    x = tf.placeholder(tf.float32, [5])
    outs = [tf.py_func(lambda u, k=k: u * np.float32(k), [x], tf.float32, stateful=False) for k in range(4)]
    total = tf.add_n(outs)
    before = _C._testing.concurrent_executor()
    _C._testing.set_concurrent_executor("always")
    try:
        sess = tf.Session()
        results, failures = {}, []

        def work(i):
            try:
                feed = np.full(5, i, np.float32)
                results[i] = [sess.run(total, {x: feed}) for _ in range(5)]
            except Exception as e:  # noqa: BLE001
                failures.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        _C._testing.set_concurrent_executor(before)
    assert not failures
    for i, runs in results.items():
        for r in runs:
            np.testing.assert_array_equal(r, np.full(5, 6.0 * i, np.float32))


def test_eager_calls():
    got = script_ops.py_func(lambda u: u + 1, [of.constant([1, 2])], of.int32)
    np.testing.assert_array_equal(got.numpy(), [2, 3])
    got = script_ops.py_function(lambda u: of.square(u), [of.constant([3.0])], of.float32)
    np.testing.assert_array_equal(got.numpy(), [9.0])


def test_py_function_runs_its_body_eagerly_and_has_a_gradient(graph):
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4,))
    seen = []

    def body(u):
        seen.append(isinstance(u, of.Tensor))
        return tf.exp(u) * u  # compat.v1 ops run eagerly inside the body

    x = tf.placeholder(tf.float64, [4])
    y = tf.py_function(body, [x], tf.float64)
    (g,) = tf.gradients(tf.reduce_sum(y), x)
    got, grad = _session_run([y, g], {x: a})
    np.testing.assert_allclose(got, np.exp(a) * a)
    np.testing.assert_allclose(grad, np.exp(a) * (1 + a))
    assert seen and all(seen)


def test_py_function_gradient_on_the_eager_tape():
    w = of.constant([0.5, -1.5], dtype=of.float64)
    with of.GradientTape() as tape:
        tape.watch(w)
        y = script_ops.py_function(lambda u: u * u * u, [w], of.float64)
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), 3 * w.numpy() ** 2)


def test_a_graph_def_round_trip_runs_in_the_same_process():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        tf.py_func(lambda a: a * 3, [x], tf.float32, name="triple")
    with tf.Graph().as_default():
        tf.import_graph_def(g.as_graph_def(), name="")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run("triple:0", {"x:0": np.ones(2, np.float32)}), [3, 3])
