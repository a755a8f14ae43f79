"""TensorFlow 1's control flow: the raw ops (Switch, Merge, Enter, Exit, NextIteration,
LoopCond) run by the Session's dataflow executor, of.cond / of.case / of.while_loop eagerly and
in graphs, their gradients (checked numerically in float64), GraphDef round trips (and
TensorFlow running our loops, when it is installed), and hostile graphs that must give typed
errors naming the node."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge import ops
from opforge.errors import InvalidArgumentError
from numeric_check import numeric_grad as _numeric_grad


def _session(graph):
    return tf1.Session(graph=graph)


# ---------------------------------------------------------------------------- raw ops


def _raw_loop(graph, n, w, parallel_iterations=10):
    """sum over i < n of w * i, with i and the sum as loop variables, built from the raw ops."""
    with graph.as_default():
        i0 = ops.enter(of.constant(0), frame_name="loop", parallel_iterations=parallel_iterations)
        a0 = ops.enter(of.constant(np.zeros(2, np.float32)), frame_name="loop",
                       parallel_iterations=parallel_iterations)
        n_in = ops.enter(n, frame_name="loop", is_constant=True, parallel_iterations=parallel_iterations)
        w_in = ops.enter(w, frame_name="loop", is_constant=True, parallel_iterations=parallel_iterations)
        one = ops.enter(of.constant(1), frame_name="loop", is_constant=True,
                        parallel_iterations=parallel_iterations)
        mi, _ = ops.merge([i0, i0])
        ma, _ = ops.merge([a0, a0])
        c = ops.loop_cond(ops.less(mi, n_in))
        fi, ti = ops.switch(mi, c)
        fa, ta = ops.switch(ma, c)
        ti, ta = ops.identity(ti), ops.identity(ta)
        graph._update_input(mi.op, 1, ops.next_iteration(ops.add_v2(ti, one)))
        graph._update_input(ma.op, 1, ops.next_iteration(ops.add_v2(ta, ops.mul(w_in, ops.cast(ti, of.float32)))))
        return ops.exit(fi), ops.exit(fa)


@pytest.mark.parametrize("parallel_iterations", [1, 2, 10])
def test_raw_loop_runs_each_iteration(parallel_iterations):
    g = of.Graph()
    with g.as_default():
        n = tf1.placeholder(of.int32, [])
        w = tf1.placeholder(of.float32, [2])
    i, a = _raw_loop(g, n, w, parallel_iterations)
    s = _session(g)
    wv = np.random.default_rng(0).normal(size=2).astype(np.float32)
    for k in (0, 1, 7, 40):
        iv, av = s.run([i, a], {n: k, w: wv})
        assert iv == k
        np.testing.assert_allclose(av, wv * (k * (k - 1) / 2), rtol=1e-5)


def test_switch_merge_dead_branch():
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [3])
        p = tf1.placeholder(of.bool, [])
        f, t = ops.switch(x, p)
        m, idx = ops.merge([ops.add_v2(f, 100.0), ops.mul(t, 2.0)])
        taken_only = ops.mul(t, 3.0)
    s = _session(g)
    xv = np.random.default_rng(1).normal(size=3).astype(np.float32)
    mv, iv = s.run([m, idx], {x: xv, p: True})
    np.testing.assert_allclose(mv, xv * 2)
    assert iv == 1
    mv, iv = s.run([m, idx], {x: xv, p: False})
    np.testing.assert_allclose(mv, xv + 100)
    assert iv == 0
    with pytest.raises(InvalidArgumentError, match="dead"):
        s.run(taken_only, {x: xv, p: False})


def test_merge_with_no_live_input_is_an_error_naming_the_fetch():
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [])
        f, t = ops.switch(x, False)
        _, t2 = ops.switch(x, False)
        m, _ = ops.merge([t, t2])
    with pytest.raises(InvalidArgumentError, match="Merge"):
        _session(g).run(m, {x: 1.0})


def test_switch_eagerly_says_where_it_runs():
    with pytest.raises(InvalidArgumentError, match="only in a graph"):
        ops.switch(of.constant(1.0), of.constant(True))
    out, idx = ops.merge([of.constant(2.0), of.constant(3.0)])
    assert float(out) == 2.0 and int(idx) == 0


def test_hostile_graphs_give_typed_errors_naming_the_node():
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [])
        stray = ops.next_iteration(x, name="stray_next")
        exit_root = ops.exit(x, name="root_exit")
        inside = ops.enter(x, frame_name="f")
        mixed = ops.add_v2(inside, of.constant(2.0), name="mixed")
        v = of.constant(1.0)
        m, _ = ops.merge([v, v], name="head")
        cyc = ops.add_v2(m, 1.0, name="cyc")
        g._update_input(m.op, 1, cyc)  # a cycle that does not go through NextIteration
    s = _session(g)
    with pytest.raises(InvalidArgumentError, match=r"NextIteration.*not inside a loop.*stray_next"):
        s.run(stray, {x: 1.0})
    with pytest.raises(InvalidArgumentError, match=r"Exit.*not inside a loop.*root_exit"):
        s.run(exit_root, {x: 1.0})
    with pytest.raises(InvalidArgumentError, match=r"different frames.*mixed"):
        s.run(mixed, {x: 1.0})
    with pytest.raises(InvalidArgumentError, match="cycle"):
        s.run(cyc, {x: 1.0})
    with pytest.raises(InvalidArgumentError, match="inside frame 'f'"):
        s.run(inside, {x: 1.0})


def test_update_input_checks_the_dtype():
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [])
        y = tf1.placeholder(of.int32, [])
        m, _ = ops.merge([x, x])
    with pytest.raises(InvalidArgumentError, match="must stay float32"):
        g._update_input(m.op, 1, y)


def test_concurrent_runs_of_a_loop():
    g = of.Graph()
    with g.as_default():
        n = tf1.placeholder(of.int32, [])
        w = tf1.placeholder(of.float32, [2])
    i, a = _raw_loop(g, n, w)
    s = _session(g)
    errors = []

    def work(k):
        try:
            for _ in range(20):
                iv, av = s.run([i, a], {n: k, w: np.ones(2, np.float32)})
                assert iv == k and av[0] == k * (k - 1) / 2
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (3, 11, 25, 40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---------------------------------------------------------------------------- cond / case


def test_cond_eager_calls_one_branch():
    calls = []
    out = of.cond(of.constant(False), lambda: calls.append("t") or of.constant(1.0),
                  lambda: calls.append("f") or of.constant(2.0))
    assert float(out) == 2.0 and calls == ["f"]


def test_cond_in_a_graph_runs_the_taken_branch_with_nested_structures():
    rng = np.random.default_rng(2)
    xv = rng.normal(size=(2, 3)).astype(np.float32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [2, 3])
        p = tf1.placeholder(of.bool, [])
        out = of.cond(p, lambda: {"a": x * 2.0, "b": (of.reduce_sum(x), x)},
                      lambda: {"a": x - 1.0, "b": (of.reduce_max(x), of.zeros_like(x))})
        const_branch = of.cond(p, lambda: of.constant(5.0), lambda: of.constant(7.0))
    s = _session(g)
    got = s.run(out, {x: xv, p: True})
    np.testing.assert_allclose(got["a"], xv * 2)
    np.testing.assert_allclose(got["b"][0], xv.sum(), rtol=1e-5)
    got = s.run(out, {x: xv, p: False})
    np.testing.assert_allclose(got["a"], xv - 1)
    assert got["b"][0] == xv.max() and not got["b"][1].any()
    assert s.run(const_branch, {p: True}) == 5.0 and s.run(const_branch, {p: False}) == 7.0


def test_cond_branches_must_agree():
    with of.Graph().as_default():
        p = tf1.placeholder(of.bool, [])
        with pytest.raises(ValueError, match="same nested structure"):
            of.cond(p, lambda: (of.constant(1.0), of.constant(2.0)), lambda: of.constant(1.0))
        with pytest.raises(ValueError, match="same type"):
            of.cond(p, lambda: of.constant(1.0), lambda: of.constant(1))
        with pytest.raises(InvalidArgumentError, match="bool"):
            of.cond(of.constant(1.0), lambda: of.constant(1.0), lambda: of.constant(2.0))


def test_case_picks_the_first_true_predicate():
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.int32, [])
        y = of.case([(x < 0, lambda: of.constant(-1)), (x < 10, lambda: of.constant(1))],
                    default=lambda: of.constant(100))
    s = _session(g)
    assert [s.run(y, {x: v}) for v in (-5, 3, 50)] == [-1, 1, 100]
    assert int(of.case([(of.constant(False), lambda: of.constant(1))], default=lambda: of.constant(2))) == 2


@pytest.mark.parametrize("taken", [True, False])
def test_cond_gradient_matches_numeric(taken):
    rng = np.random.default_rng(3)
    xv, wv = rng.normal(size=3), rng.normal(size=3)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [3])
        w = tf1.placeholder(of.float64, [3])
        p = tf1.placeholder(of.bool, [])
        y = of.cond(p, lambda: of.reduce_sum(of.sin(x) * w), lambda: of.reduce_sum(x * x))
        gx, gw = of.gradients(y, [x, w])
    got_x, got_w = _session(g).run([gx, gw], {x: xv, w: wv, p: taken})

    def f(xx, ww):
        return np.sum(np.sin(xx) * ww) if taken else np.sum(xx * xx)

    np.testing.assert_allclose(got_x, _numeric_grad(lambda v: f(v, wv), xv), atol=1e-7)
    np.testing.assert_allclose(got_w, _numeric_grad(lambda v: f(xv, v), wv), atol=1e-7)


# ---------------------------------------------------------------------------- while_loop


def test_while_loop_eager_is_a_python_loop():
    i, s = of.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [of.constant(0), of.constant(0)])
    assert int(i) == 5 and int(s) == 10
    assert int(of.while_loop(lambda i: True, lambda i: i + 1, of.constant(0), maximum_iterations=4)) == 4


def test_while_loop_in_a_graph():
    rng = np.random.default_rng(4)
    xv, wv = rng.normal(size=3).astype(np.float32), rng.normal(size=3).astype(np.float32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [3])
        w = tf1.placeholder(of.float32, [3])
        n = tf1.placeholder(of.int32, [])
        i, acc = of.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 0.5 + w), [of.constant(0), x])
        # A loop that would never end stops at maximum_iterations.
        j = of.while_loop(lambda j: of.constant(True), lambda j: j + 1, [of.constant(0)], maximum_iterations=9)
    s = _session(g)
    for k in (0, 1, 6):
        ref = xv.copy()
        for _ in range(k):
            ref = ref * 0.5 + wv
        iv, av = s.run([i, acc], {x: xv, w: wv, n: k})
        assert iv == k
        np.testing.assert_allclose(av, ref, rtol=1e-5)
    assert s.run(j) == [9]


def test_nested_loops_and_loops_in_conds():
    g = of.Graph()
    with g.as_default():
        p = tf1.placeholder(of.bool, [])
        x = tf1.placeholder(of.float32, [2])

        def outer_body(a, t):
            _, inner = of.while_loop(lambda b, u: b < a, lambda b, u: (b + 1, u + 1), [of.constant(0), t])
            return a + 1, inner

        _, total = of.while_loop(lambda a, t: a < 5, outer_body, [of.constant(0), of.constant(0)])
        z = of.cond(p, lambda: of.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, v + x), [0, x])[1],
                    lambda: x * -1.0)
    s = _session(g)
    assert s.run(total) == 0 + 1 + 2 + 3 + 4
    xv = np.array([1.0, -2.0], np.float32)
    np.testing.assert_allclose(s.run(z, {p: True, x: xv}), 4 * xv)
    np.testing.assert_allclose(s.run(z, {p: False, x: xv}), -xv)


def test_shape_invariants():
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [2])
        body = lambda k, v: (k + 1, of.concat([v, v], 0))  # noqa: E731
        with pytest.raises(ValueError, match="shape_invariants"):
            of.while_loop(lambda k, v: k < 3, body, [of.constant(0), x])
        _, grown = of.while_loop(lambda k, v: k < 3, body, [of.constant(0), x],
                                 shape_invariants=[of.TensorShape([]), of.TensorShape([None])])
    assert grown.shape.as_list() == [None]
    assert _session(g).run(grown, {x: np.ones(2, np.float32)}).shape == (16,)


@pytest.mark.parametrize("iterations", [0, 1, 4])
def test_while_loop_gradient_matches_numeric(iterations):
    rng = np.random.default_rng(5)
    xv, wv = rng.normal(size=3), rng.normal(size=3)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [3])
        w = tf1.placeholder(of.float64, [3])
        n = tf1.placeholder(of.int32, [])
        _, h, c = of.while_loop(lambda i, h, c: i < n,
                                lambda i, h, c: (i + 1, of.tanh(h * w + c), c * 0.9 + h),
                                [of.constant(0), x, x * 0.5])
        y = of.reduce_sum(h * h) + of.reduce_sum(c)
        gx, gw = of.gradients(y, [x, w])

    def f(xx, ww):
        h, c = xx, xx * 0.5
        for _ in range(iterations):
            h, c = np.tanh(h * ww + c), c * 0.9 + h
        return np.sum(h * h) + np.sum(c)

    got_x, got_w = _session(g).run([gx, gw], {x: xv, w: wv, n: iterations})
    np.testing.assert_allclose(got_x, _numeric_grad(lambda v: f(v, wv), xv), atol=1e-7)
    np.testing.assert_allclose(got_w, _numeric_grad(lambda v: f(xv, v), wv), atol=1e-7)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_through_conds_in_a_loop(seed):
    """A cond in the body (one nested in it, a branch that ignores the loop variable): values of
    the taken branches are stacked per iteration; the gradient equals the numeric one."""
    rng = np.random.default_rng(seed)
    xv, wv = rng.normal(size=(7, 4)), rng.normal(size=4)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [7, 4])
        w = tf1.placeholder(of.float64, [4])

        def body(t, acc):
            xt = of.gather(x, t)

            def inner():
                return of.cond(of.reduce_mean(acc) > 0.0, lambda: acc * xt, lambda: of.sin(acc) + w)
            return t + 1, of.cond(of.reduce_sum(xt) > -1.0, inner, lambda: w * 2.0)

        _, acc = of.while_loop(lambda t, a: t < 7, body, [0, of.ones([4], of.float64) * 0.5])
        loss = of.reduce_sum(acc * acc)
        gx, gw = of.gradients(loss, [x, w])

    def f(xx, ww):
        a = np.full(4, 0.5)
        for t in range(7):
            if xx[t].sum() > -1.0:
                a = a * xx[t] if a.mean() > 0.0 else np.sin(a) + ww
            else:
                a = ww * 2.0
        return np.sum(a * a)

    got_loss, got_x, got_w = _session(g).run([loss, gx, gw], {x: xv, w: wv})
    np.testing.assert_allclose(got_loss, f(xv, wv), rtol=1e-12)
    np.testing.assert_allclose(got_x, _numeric_grad(lambda v: f(v, wv), xv), atol=1e-7)
    np.testing.assert_allclose(got_w, _numeric_grad(lambda v: f(xv, v), wv), atol=1e-7)


@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_through_loops_in_a_loop(seed):
    """A loop in a loop's body whose trip count depends on the outer iteration and which reads
    the outer body's value (an invariant that is also its loop variable's start), and a third
    loop inside that one: gradients equal the numeric ones."""
    rng = np.random.default_rng(seed)
    xv, wv = rng.normal(size=3) * 0.5, rng.normal(size=3) * 0.5
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [3])
        w = tf1.placeholder(of.float64, [3])

        def inner_body(j, u, v):
            _, z = of.while_loop(lambda k, z: k < 2, lambda k, z: (k + 1, z * 0.5 + of.cos(u)), [0, u])
            return j + 1, of.sin(z * w) + v

        def body(i, v):
            _, inner = of.while_loop(lambda j, u: j < i + 1, lambda j, u: inner_body(j, u, v), [0, v])
            return i + 1, inner * 0.9

        _, y = of.while_loop(lambda i, v: i < 3, body, [0, x])
        loss = of.reduce_sum(y * y)
        gx, gw = of.gradients(loss, [x, w])

    def f(xx, ww):
        v = xx
        for i in range(3):
            u = v
            for _ in range(i + 1):
                z = u
                for _ in range(2):
                    z = z * 0.5 + np.cos(u)
                u = np.sin(z * ww) + v
            v = u * 0.9
        return np.sum(v * v)

    got_loss, got_x, got_w = _session(g).run([loss, gx, gw], {x: xv, w: wv})
    np.testing.assert_allclose(got_loss, f(xv, wv), rtol=1e-12)
    np.testing.assert_allclose(got_x, _numeric_grad(lambda v: f(v, wv), xv), atol=1e-7)
    np.testing.assert_allclose(got_w, _numeric_grad(lambda v: f(xv, v), wv), atol=1e-7)


def test_a_tensor_entering_a_loop_twice_gets_both_gradients():
    with of.Graph().as_default() as g:
        x = tf1.placeholder(of.float64, [])
        _, a, b = of.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a * x, b + a), [0, x, x])
        (gx,) = of.gradients(a + b, [x])
    # a = x^4, b = x + x + x^2 + x^3: d/dx = 4x^3 + 2 + 2x + 3x^2
    got = _session(g).run(gx, {x: 1.3})
    np.testing.assert_allclose(got, 4 * 1.3 ** 3 + 2 + 2 * 1.3 + 3 * 1.3 ** 2, rtol=1e-12)


def test_training_through_a_loop_reduces_the_loss():
    rng = np.random.default_rng(6)
    x0v, true_w = rng.normal(size=(8, 2)), rng.normal(size=(2, 2))
    target = x0v
    for _ in range(3):
        target = np.tanh(target @ true_w)
    g = of.Graph()
    with g.as_default():
        w = of.Variable(rng.normal(size=(2, 2)) * 0.3)
        x0 = of.constant(x0v)
        _, h = of.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, of.tanh(of.matmul(h, w))), [0, x0])
        loss = of.reduce_mean(of.square(h - target))
        step = tf1.train.GradientDescentOptimizer(0.5).minimize(loss)
        init = tf1.global_variables_initializer()
    s = _session(g)
    s.run(init)
    first = s.run(loss)
    for _ in range(100):
        s.run(step)
    assert s.run(loss) < 0.6 * first


# ---------------------------------------------------------------------------- GraphDef


def test_loop_graph_def_round_trip():
    g = of.Graph()
    with g.as_default():
        n = tf1.placeholder(of.int32, [], name="n")
        x = tf1.placeholder(of.float32, [2], name="x")
        _, out = of.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 2.0 + 1.0), [0, x])
        out = of.identity(out, name="out")
    gd = g.as_graph_def()
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(gd, name="")
    xv = np.array([1.0, -1.0], np.float32)
    got = _session(g2).run("out:0", {"n:0": 3, "x:0": xv})
    np.testing.assert_allclose(got, ((xv * 2 + 1) * 2 + 1) * 2 + 1)
    tf = pytest.importorskip("tensorflow")
    tg = tf.Graph()
    with tg.as_default():
        tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString(gd.SerializeToString()), name="")
        with tf.compat.v1.Session(graph=tg) as ts:
            np.testing.assert_allclose(ts.run("out:0", {"n:0": 3, "x:0": xv}), got)
