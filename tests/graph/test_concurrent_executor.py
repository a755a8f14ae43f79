"""The concurrent executor (inter-op parallelism, Session::run_concurrent): independent ready
steps of a stateless graph run at once. 'always' sends every wave of two or more steps to the
threads together; 'team' runs stateless graphs on the team loop a busy machine gets (each
thread takes the next ready step as it comes free, no waves); results must equal
one-step-at-a-time runs ('off') bit for bit, on branchy
random graphs whose tensors have several readers (release and in-place forwarding counted per
run), with fetches inside the graph, on errors, from several Python threads at once (this file
also runs under ThreadSanitizer in CI), and with 'auto' through its timing runs. Graphs with
variables (TF1 training steps) run on it too: updates after the reads of their wave."""

import threading

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge import _C

UNARY = [of.nn.relu, lambda t: -t, of.tanh, of.square, lambda t: t * 0.5 + 1.0]


@pytest.fixture
def executor():
    before = _C._testing.concurrent_executor()
    yield _C._testing.set_concurrent_executor
    _C._testing.set_concurrent_executor(before)


def _random_dag(rng, width=5, depth=6, shape=(4, 33)):
    """Branches that fork and join: every level reads one or two tensors of the levels before,
    so most tensors have several readers and several steps are ready at once."""
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, shape, name="x")
        level, fetches = [x], []
        for d in range(depth):
            nxt = []
            for b in range(width):
                a = level[int(rng.integers(len(level)))]
                if rng.random() < 0.5:
                    c = level[int(rng.integers(len(level)))]
                    t = of.add(a, c) if rng.random() < 0.5 else of.multiply(a, c)
                else:
                    t = UNARY[int(rng.integers(len(UNARY)))](a)
                nxt.append(t)
            level = nxt
            fetches.append(level[0])  # a fetch in the middle of the graph, read on after it
        out = of.add_n(level, name="out")
    return g, x, fetches + [out]


def _run(g, x, fetches, feed, mode, runs=3):
    _C._testing.set_concurrent_executor(mode)
    sess = of.Session(graph=g)
    return [sess.run(fetches, {x: feed}) for _ in range(runs)]


@pytest.mark.parametrize("mode", ["always", "team"])
@pytest.mark.parametrize("seed", range(8))
def test_random_graphs_match_one_step_at_a_time(executor, seed, mode):
    rng = np.random.default_rng(seed)
    g, x, fetches = _random_dag(rng)
    feed = rng.standard_normal((4, 33)).astype(np.float32)
    want = _run(g, x, fetches, feed, "off", runs=1)[0]
    for got in _run(g, x, fetches, feed, mode):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_auto_through_its_timing_runs(executor):
    rng = np.random.default_rng(11)
    g, x, fetches = _random_dag(rng, width=4, depth=4, shape=(64, 256))
    feed = rng.standard_normal((64, 256)).astype(np.float32)
    want = _run(g, x, fetches, feed, "off", runs=1)[0]
    for got in _run(g, x, fetches, feed, "auto", runs=14):  # timing runs, then the chosen one
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_auto_over_many_feed_shapes(executor):
    """'auto' tunes per feed shape, up to 64 shapes a plan; beyond, runs go one step at a time.
    Each shape's result stays right either way."""
    rng = np.random.default_rng(12)
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 16], name="x")
        y = of.add(of.nn.relu(x) * 2.0, of.tanh(x) - of.square(x), name="y")
    executor("auto")
    sess = of.Session(graph=g)
    for rows in list(range(1, 71)) + [5] * 12:
        xv = rng.standard_normal((rows, 16)).astype(np.float32)
        np.testing.assert_allclose(sess.run(y, {x: xv}), np.maximum(xv, 0) * 2 + (np.tanh(xv) - xv * xv), rtol=1e-6,
                                   atol=1e-6)


@pytest.mark.parametrize("mode", ["always", "team"])
def test_conv_branches(executor, mode):
    """Inception-like: parallel convolution branches concatenated."""
    rng = np.random.default_rng(3)
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [2, 12, 12, 8], name="x")
        branches = [of.nn.relu(of.nn.conv2d(x, rng.standard_normal((k, k, 8, 6)).astype(np.float32), 1, "SAME"))
                    for k in (1, 3, 5)]
        branches.append(of.nn.avg_pool2d(x, 3, 1, "SAME"))
        y = of.concat(branches, axis=3, name="y")
    feed = rng.standard_normal((2, 12, 12, 8)).astype(np.float32)
    want = _run(g, x, [y], feed, "off", runs=1)[0][0]
    for got in _run(g, x, [y], feed, mode):
        np.testing.assert_array_equal(got[0], want)


@pytest.mark.parametrize("mode", ["always", "team"])
def test_conv_gradients_bit_for_bit(executor, mode):
    """A convolution's filter gradient sums per-range partials over the pixels. Run beside the
    input gradient in a concurrent group, its ranges must be the ones it gets alone (a nested
    region runs the same parts inline), or the sums round differently from run to run."""
    rng = np.random.default_rng(5)
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [50, 14, 14, 16], name="x")
        w = of.constant(rng.standard_normal((5, 5, 16, 32)).astype(np.float32) * 0.1)
        y = of.nn.relu(of.nn.conv2d(x, w, 1, "SAME"))
        dx, dw = of.gradients(of.reduce_sum(of.square(y)), [x, w])
    feed = rng.standard_normal((50, 14, 14, 16)).astype(np.float32)
    want = _run(g, x, [dx, dw], feed, "off", runs=1)[0]
    for got in _run(g, x, [dx, dw], feed, mode):
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("mode", ["always", "team"])
def test_error_in_a_concurrent_group(executor, mode):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None], name="x")
        shape = of.placeholder(of.int32, [1], name="shape")
        ok = of.nn.relu(x)
        bad = of.reshape(-x, shape, name="bad_reshape")
        y = of.add(of.reduce_sum(ok), of.reduce_sum(bad), name="y")
    executor(mode)
    sess = of.Session(graph=g)
    with pytest.raises(of.InvalidArgumentError, match="bad_reshape"):
        sess.run(y, {x: np.ones(6, np.float32), shape: np.array([7], np.int32)})
    xv = np.arange(6, dtype=np.float32) - 2  # relu sums to 6, the negation to -3
    assert sess.run(y, {x: xv, shape: np.array([6], np.int32)}) == 3.0


@pytest.mark.parametrize("mode", ["always", "team"])
def test_many_threads_on_one_session(executor, mode):
    rng = np.random.default_rng(5)
    g, x, fetches = _random_dag(rng, width=4, depth=5, shape=(8, 40))
    feeds = [rng.standard_normal((8, 40)).astype(np.float32) for _ in range(4)]
    want = [_run(g, x, fetches, f, "off", runs=1)[0] for f in feeds]
    executor(mode)
    sess = of.Session(graph=g)
    failures = []

    def work(i):
        try:
            for _ in range(25):
                for a, b in zip(sess.run(fetches, {x: feeds[i]}), want[i]):
                    np.testing.assert_array_equal(a, b)
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]


def test_variable_updates_follow_their_edges(executor):
    """A graph with variables runs on the concurrent executor too, ordered by its data and
    control edges (as TensorFlow's): two updates and a read, chained, every run."""
    g = of.Graph()
    with g.as_default():
        v = tf1.Variable(np.float32(1.0), name="v")
        up = tf1.assign_add(v, 1.0)
        with g.control_dependencies([up]):
            twice = tf1.assign(v, v * 2.0)
        init = tf1.global_variables_initializer()
    executor("always")
    sess = tf1.Session(graph=g)
    sess.run(init)
    assert [float(sess.run(twice)) for _ in range(3)] == [4.0, 10.0, 22.0]


def test_writers_run_after_the_readers_of_their_wave(executor):
    """Steps that change a variable run after the other ready steps, which may read it: a read
    with no edge to the assignment sees the value before it, as one step at a time does (in
    creation order), and two updates of one variable in one wave both land."""
    g = of.Graph()
    with g.as_default():
        v = tf1.Variable(np.arange(6, dtype=np.float32), name="v")
        w = tf1.Variable(np.float32(0.0), name="w")
        read = v * 1.0
        total = tf1.reduce_sum(v)
        setv = tf1.assign(v, np.full(6, 7.0, np.float32))
        add1, add2 = tf1.assign_add(w, 1.0), tf1.assign_add(w, 2.0)
        init = tf1.global_variables_initializer()
    results = {}
    for mode in ("off", "always"):
        executor(mode)
        sess = tf1.Session(graph=g)
        sess.run(init)
        runs = [sess.run([read, total, setv, add1, add2]) for _ in range(2)]
        results[mode] = runs + [sess.run([v, w])]
    first, second, final = results["always"]
    np.testing.assert_array_equal(first[0], np.arange(6, dtype=np.float32))
    assert float(first[1]) == 15.0
    np.testing.assert_array_equal(second[0], np.full(6, 7.0, np.float32))
    np.testing.assert_array_equal(final[0], np.full(6, 7.0, np.float32))
    assert float(final[1]) == 6.0
    for a, b in zip(results["always"], results["off"]):
        for x, y in zip(a[:2], b[:2]):
            np.testing.assert_array_equal(x, y)


def test_uninitialized_variable_on_the_concurrent_executor(executor):
    g = of.Graph()
    with g.as_default():
        v = tf1.Variable(np.ones((2, 2), np.float32), name="never_initialized")
        y = tf1.matmul(v, v) + tf1.reduce_sum(v)
    executor("always")
    sess = tf1.Session(graph=g)
    with pytest.raises(of.errors.FailedPreconditionError, match="never_initialized"):
        sess.run(y)


def _train_mlp(mode, steps=6):
    _C._testing.set_concurrent_executor(mode)
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((32, 20)).astype(np.float32)
    ys = rng.integers(0, 5, 32).astype(np.int32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(tf1.float32, [None, 20])
        y = tf1.placeholder(tf1.int32, [None])
        h = x
        for i, n in enumerate((64, 48)):
            w = tf1.Variable(rng.standard_normal((int(h.shape[1]), n)).astype(np.float32) * 0.2, name=f"w{i}")
            b = tf1.Variable(np.zeros(n, np.float32), name=f"b{i}")
            h = tf1.nn.relu(tf1.matmul(h, w) + b)
        w_out = tf1.Variable(rng.standard_normal((48, 5)).astype(np.float32) * 0.2, name="w_out")
        logits = tf1.matmul(h, w_out)
        loss = tf1.reduce_mean(tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf1.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
        init = tf1.global_variables_initializer()
    sess = tf1.Session(graph=g)
    sess.run(init)
    losses = [float(sess.run([train, loss], {x: xs, y: ys})[1]) for _ in range(steps)]
    return losses, [sess.run(t) for t in g.get_collection("trainable_variables")]


def test_a_training_step_matches_one_step_at_a_time(executor):
    """A TF1 training step (forward, gradients, Momentum updates) on the concurrent executor
    trains as one step at a time does: each update runs after every read of its variable."""
    want_losses, want_vars = _train_mlp("off")
    for mode in ("always", "auto", "team"):  # (a graph with variables: 'team' tunes as 'auto' does)
        losses, variables = _train_mlp(mode, steps=14)  # 'auto' tunes over runs 3-10
        np.testing.assert_allclose(losses[:6], want_losses, rtol=1e-5)
        assert losses[-1] < losses[0]
    np.testing.assert_allclose(_train_mlp("always")[1][0], want_vars[0], rtol=1e-5, atol=1e-6)


def test_mode_names(executor):
    for mode in ("off", "auto", "always", "team"):
        executor(mode)
        assert _C._testing.concurrent_executor() == mode
    with pytest.raises(ValueError, match="'off', 'auto', 'always' or 'team'"):
        _C._testing.set_concurrent_executor("sometimes")
