"""Session.run from many threads at once: every result checked against NumPy.

Runs in CI on the normal build and on the AddressSanitizer build (tools/sanitized_tests.sh),
where a data race that frees or reuses a buffer twice shows up as a report.
"""

import threading

import numpy as np
import pytest

import opforge as of

THREADS = 6
RUNS = 40


def _mlp_graph(rng):
    g = of.Graph()
    w1 = rng.standard_normal((16, 32)).astype(np.float32)
    w2 = rng.standard_normal((32, 4)).astype(np.float32)
    with g.as_default():
        x = of.placeholder(of.float32, [None, 16], name="x")
        h = of.nn.relu(of.matmul(x, of.constant(w1)))
        y = of.reduce_sum(of.matmul(h, of.constant(w2)), axis=1, name="y")
        z = of.square(y, name="z")

    def ref(xv):
        yv = (np.maximum(xv @ w1, 0) @ w2).sum(axis=1)
        return yv, yv * yv
    return g, x, (y, z), ref


def _conv_graph(rng):
    g = of.Graph()
    f = rng.standard_normal((3, 3, 3, 8)).astype(np.float32)
    with g.as_default():
        x = of.placeholder(of.float32, [None, 12, 12, 3], name="img")
        c = of.nn.conv2d(x, of.constant(f), strides=1, padding="SAME")
        y = of.reduce_mean(of.nn.relu(c), axis=[1, 2], name="pooled")
    return g, x, (y,), None


def _check(failures, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - collected and reported by the main thread
        failures.append(e)


def _run_threads(fns):
    """Runs each function on its own thread; re-raises the first failure."""
    failures = []
    threads = [threading.Thread(target=_check, args=(failures, fn)) for fn in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]


def test_many_threads_one_session_different_feeds():
    rng = np.random.default_rng(7)
    g, x, (y, z), ref = _mlp_graph(rng)
    sess = of.Session(graph=g)
    feeds = [rng.standard_normal((int(rng.integers(1, 9)), 16)).astype(np.float32) for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)

    def worker(i):
        barrier.wait()
        want_y, want_z = ref(feeds[i])
        for r in range(RUNS):
            # Alternate fetch signatures so plans are built and looked up concurrently.
            if r % 2:
                got_y, got_z = sess.run([y, z], {x: feeds[i]})
                np.testing.assert_allclose(got_z, want_z, rtol=1e-4, atol=1e-3)
            else:
                got_y = sess.run(y, {x: feeds[i]})
            np.testing.assert_allclose(got_y, want_y, rtol=1e-4, atol=1e-4)

    _run_threads([lambda i=i: worker(i) for i in range(THREADS)])


def test_threads_over_several_graphs_and_sessions():
    rng = np.random.default_rng(11)
    g1, x1, (y1, _), ref1 = _mlp_graph(rng)
    g2, x2, (p2,), _ = _conv_graph(rng)
    s1, s2 = of.Session(graph=g1), of.Session(graph=g2)
    imgs = [rng.standard_normal((2, 12, 12, 3)).astype(np.float32) for _ in range(THREADS)]
    # Single-threaded answers first; the threaded runs must reproduce them exactly.
    want_conv = [s2.run(p2, {x2: im}) for im in imgs]
    vecs = [rng.standard_normal((3, 16)).astype(np.float32) for _ in range(THREADS)]

    def worker(i):
        for _ in range(RUNS // 2):
            np.testing.assert_array_equal(s2.run(p2, {x2: imgs[i]}), want_conv[i])
            np.testing.assert_allclose(s1.run(y1, {x1: vecs[i]}), ref1(vecs[i])[0], rtol=1e-4, atol=1e-4)

    _run_threads([lambda i=i: worker(i) for i in range(THREADS)])


def test_variables_updated_from_many_threads():
    """AssignAdd from several threads: no update is lost (each holds the variable's lock)."""
    g = of.Graph()
    with g.as_default():
        v = of.Variable(of.zeros([4], dtype=of.float32), name="counter")
        inc = v.assign_add(of.ones([4], dtype=of.float32))
        init = of.global_variables_initializer()
    sess = of.Session(graph=g)
    sess.run(init)
    per_thread = 50

    def worker():
        for _ in range(per_thread):
            sess.run(inc.op)

    _run_threads([worker] * THREADS)
    np.testing.assert_array_equal(sess.run(v), np.full(4, THREADS * per_thread, np.float32))


def test_graph_grows_while_other_threads_run_it():
    rng = np.random.default_rng(3)
    g, x, (y, _), ref = _mlp_graph(rng)
    sess = of.Session(graph=g)
    xv = rng.standard_normal((5, 16)).astype(np.float32)
    want = ref(xv)[0]
    stop = threading.Event()
    failures = []

    def runner():
        while not stop.is_set():
            np.testing.assert_allclose(sess.run(y, {x: xv}), want, rtol=1e-4, atol=1e-4)

    threads = [threading.Thread(target=_check, args=(failures, runner)) for _ in range(3)]
    for t in threads:
        t.start()
    added = []
    try:
        with g.as_default():
            for i in range(300):
                added.append(of.add(y, float(i), name=f"grow_{i}"))
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not failures, failures[0]
    np.testing.assert_allclose(sess.run(added[-1], {x: xv}), want + 299, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("share", [True, False])
def test_sessions_can_share_a_variable_store(share):
    from opforge import _C
    g = of.Graph()
    with g.as_default():
        of.Variable(of.constant([1.0, 2.0]), name="v")
        init = of.global_variables_initializer()
    sess = of.Session(graph=g)
    sess.run(init)
    other = _C.Session(g._c, resources_from=sess._c if share else None)
    assert ("v" in other.variable_names()) == share
