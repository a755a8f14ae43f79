"""Session.run: fetch structures, feeds, pruning, control dependencies, plan cache, errors."""

import collections

import numpy as np
import pytest

import opforge as of


@pytest.fixture
def net(graph, rng):
    x = of.placeholder(of.float32, [None, 3], name="x")
    w_val = rng.normal(size=(3, 2)).astype(np.float32)
    w = of.constant(w_val, name="w")
    h = of.matmul(x, w, name="h")
    y = of.relu(h, name="y")
    s = of.reduce_sum(y, name="s")
    xv = rng.normal(size=(4, 3)).astype(np.float32)
    return dict(g=graph, x=x, w=w, h=h, y=y, s=s, w_val=w_val, xv=xv,
                ref_h=xv @ w_val, ref_y=np.maximum(xv @ w_val, 0))


def test_single_fetch_values_and_types(net):
    with of.Session() as sess:
        y = sess.run(net["y"], {net["x"]: net["xv"]})
        assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == (4, 2)
        np.testing.assert_allclose(y, net["ref_y"], rtol=1e-5, atol=1e-6)
        s = sess.run(net["s"], {net["x"]: net["xv"]})
        assert np.ndim(s) == 0
        np.testing.assert_allclose(s, net["ref_y"].sum(), rtol=1e-5)
        w = sess.run(net["w"])  # needs no feed
        np.testing.assert_array_equal(w, net["w_val"])


def test_fetch_structures(net):
    Pair = collections.namedtuple("Pair", ["hidden", "out"])
    feed = {net["x"]: net["xv"]}
    with of.Session() as sess:
        lst = sess.run([net["h"], net["y"]], feed)
        assert isinstance(lst, list) and len(lst) == 2
        tup = sess.run((net["h"], net["y"]), feed)
        assert isinstance(tup, tuple) and len(tup) == 2
        dct = sess.run({"h": net["h"], "y": net["y"]}, feed)
        assert isinstance(dct, dict) and set(dct) == {"h", "y"}
        nt = sess.run(Pair(net["h"], net["y"]), feed)
        assert isinstance(nt, Pair)
        nested = sess.run({"a": [net["h"], (net["y"], {"s": net["s"]})], "b": Pair(net["s"], net["h"])}, feed)
        for hv in (lst[0], tup[0], dct["h"], nt.hidden, nested["a"][0], nested["b"].out):
            np.testing.assert_allclose(hv, net["ref_h"], rtol=1e-5, atol=1e-6)
        for yv in (lst[1], tup[1], dct["y"], nt.out, nested["a"][1][0]):
            np.testing.assert_allclose(yv, net["ref_y"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(nested["a"][1][1]["s"], net["ref_y"].sum(), rtol=1e-5)
        np.testing.assert_allclose(nested["b"].hidden, net["ref_y"].sum(), rtol=1e-5)
        assert sess.run([], feed) == []
        # Fetching the same tensor twice.
        a, b = sess.run([net["y"], net["y"]], feed)
        np.testing.assert_array_equal(a, b)


def test_fetch_by_name_and_operation(net):
    with of.Session() as sess:
        y = sess.run("y:0", {"x:0": net["xv"]})
        np.testing.assert_allclose(y, net["ref_y"], rtol=1e-5, atol=1e-6)
        out = sess.run(["h:0", net["y"].op, {"k": "s:0"}], {net["x"]: net["xv"]})
        np.testing.assert_allclose(out[0], net["ref_h"], rtol=1e-5, atol=1e-6)
        assert out[1] is None
        np.testing.assert_allclose(out[2]["k"], net["ref_y"].sum(), rtol=1e-5)
        assert sess.run("y", {net["x"]: net["xv"]}) is None  # a name without ":" is the operation
        with pytest.raises(KeyError):
            sess.run("nope:0")
        with pytest.raises(TypeError):
            sess.run(3.5)


def test_session_graph_argument_and_default(net):
    other = of.Graph()
    with other.as_default():
        c = of.constant(7.0)
    sess = of.Session(graph=other)
    assert sess.graph is other
    assert sess.run(c) == 7.0
    with pytest.raises(ValueError):
        sess.run(net["w"])  # belongs to another graph
    sess.close()
    s2 = of.Session()
    assert s2.graph is net["g"]


def test_context_manager_and_close(net):
    with of.Session() as sess:
        assert of.get_default_session() is sess
        np.testing.assert_array_equal(net["w"].eval(), net["w_val"])
    assert of.get_default_session() is not sess
    with pytest.raises(RuntimeError):
        sess.run(net["w"])
    s = of.Session()
    s.close()
    with pytest.raises(RuntimeError):
        s.run(net["w"])


def test_feed_python_lists_and_eager_tensors(graph):
    x = of.placeholder(of.float32, [None], name="x")
    y = x * 3.0
    with of.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [1, 2, 3]}), [3, 6, 9])
        np.testing.assert_allclose(sess.run(y, {x: np.array([1.5], np.float64)}), [4.5])
        np.testing.assert_allclose(sess.run(y, {x: of.convert_to_tensor(np.array([2.0], np.float32))}), [6.0])
        # Placeholders with unknown shape accept any shape, and the batch dim varies.
        for n in (1, 5, 17):
            assert sess.run(y, {x: np.ones(n)}).shape == (n,)


def test_feed_intermediate_cuts_producers(net):
    """Feeding h means the unfed placeholder x is not needed."""
    hv = np.array([[1.0, -2.0], [-3.0, 4.0]], np.float32)
    with of.Session() as sess:
        y = sess.run(net["y"], {net["h"]: hv})
        np.testing.assert_array_equal(y, np.maximum(hv, 0))
        # Feed by name too.
        np.testing.assert_array_equal(sess.run("s:0", {"h:0": hv}), np.maximum(hv, 0).sum())
        # Fetching a fed tensor returns the fed value.
        np.testing.assert_array_equal(sess.run(net["h"], {net["h"]: hv}), hv)
        # Feeding a constant overrides it.
        w2 = np.zeros((3, 2), np.float32)
        np.testing.assert_array_equal(sess.run(net["y"], {net["x"]: net["xv"], net["w"]: w2}), np.zeros((4, 2)))


def test_pruning_ignores_unrelated_unfed_placeholder(graph):
    a = of.constant(np.arange(3, dtype=np.float32))
    b = a * 2.0
    unfed = of.placeholder(of.float32, [3], name="unfed")
    c = b + unfed
    boom = of.matmul(of.placeholder(of.float32, [None, None], name="other"),
                     of.placeholder(of.float32, [None, None], name="other2"))
    with of.Session() as sess:
        np.testing.assert_array_equal(sess.run(b), [0, 2, 4])
        np.testing.assert_array_equal(sess.run(c, {unfed: np.ones(3)}), [1, 3, 5])
        del boom


def test_control_dependencies_run_first(graph):
    v = of.Variable(np.float32(1.0), name="v")
    assign = v.assign(5.0)
    with of.control_dependencies([assign]):
        read = v.read_value()
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        assert sess.run(v) == 1.0
        assert sess.run(read) == 5.0
        assert sess.run(v) == 5.0


def test_control_dependency_on_target_runs_it(graph):
    v = of.Variable(np.zeros(2, np.float32), name="counter")
    inc = v.assign_add(np.ones(2, np.float32))
    with of.control_dependencies([inc]):
        noop = of.no_op(name="step")
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        for _ in range(3):
            assert sess.run(noop) is None
        np.testing.assert_array_equal(sess.run(v), [3, 3])
        grp = of.group(inc, inc)
        sess.run(grp)
        np.testing.assert_array_equal(sess.run(v), [4, 4])  # one node runs once per step


def test_identity_of_variable_after_assign(graph):
    v = of.Variable(np.float32(1.0), name="v")
    assign = v.assign(5.0)
    with of.control_dependencies([assign]):
        read = of.identity(v)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        assert sess.run(read) == 5.0


def test_plan_cache(net):
    feed = {net["x"]: net["xv"]}
    with of.Session() as sess:
        assert sess._c.cached_plans == 0
        sess.run(net["y"], feed)
        assert sess._c.cached_plans == 1
        for _ in range(20):
            sess.run(net["y"], {net["x"]: np.ones((5, 3), np.float32)})
        assert sess._c.cached_plans == 1
        sess.run([net["y"], net["s"]], feed)
        assert sess._c.cached_plans == 2
        for _ in range(5):
            sess.run([net["y"], net["s"]], feed)
            sess.run(net["y"], feed)
        assert sess._c.cached_plans == 2
        sess.run(net["y"], {net["h"]: np.ones((1, 2), np.float32)})  # other feeds: new plan
        assert sess._c.cached_plans == 3
        # A node added after planning still runs correctly.
        with net["g"].as_default():
            z = net["y"] * 2.0
        np.testing.assert_allclose(sess.run(z, feed), 2 * net["ref_y"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sess.run(net["y"], feed), net["ref_y"], rtol=1e-5, atol=1e-6)


def test_make_callable(net):
    with of.Session() as sess:
        f = sess.make_callable([net["y"], net["s"]], feed_list=[net["x"]])
        y, s = f(net["xv"])
        np.testing.assert_allclose(y, net["ref_y"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(s, net["ref_y"].sum(), rtol=1e-5)


# ------------------------------------------------------------------ errors


def test_unfed_placeholder_error_names_it(net):
    with of.Session() as sess:
        with pytest.raises(of.InvalidArgumentError) as exc:
            sess.run(net["y"])
    msg = str(exc.value)
    assert "'x'" in msg or "node x" in msg
    assert "feed" in msg.lower()
    assert isinstance(exc.value, of.OpError)


def test_wrong_feed_shape(net):
    with of.Session() as sess:
        with pytest.raises(of.InvalidArgumentError) as exc:
            sess.run(net["y"], {net["x"]: np.ones((2, 4), np.float32)})
        assert "x:0" in str(exc.value)
        with pytest.raises(of.InvalidArgumentError):
            sess.run(net["y"], {net["x"]: np.ones((3,), np.float32)})  # wrong rank
        # The session is still usable afterwards.
        np.testing.assert_allclose(sess.run(net["y"], {net["x"]: net["xv"]}), net["ref_y"], rtol=1e-5, atol=1e-6)


def test_wrong_feed_dtype(net):
    with of.Session() as sess:
        with pytest.raises(of.InvalidArgumentError) as exc:
            sess.run(net["y"], {net["x"]: of.convert_to_tensor(np.ones((2, 3), np.int32))})
        assert "x:0" in str(exc.value)
        with pytest.raises(of.InvalidArgumentError):
            sess.run(net["y"], {net["x"]: [["a", "b", "c"]]})


def test_bad_feed_keys(net):
    with of.Session() as sess:
        with pytest.raises(TypeError):
            sess.run(net["y"], {net["y"].op: net["xv"]})
        with pytest.raises(TypeError):
            sess.run(net["y"], {net["x"]: net["h"]})
        other = of.Graph()
        with other.as_default():
            p = of.placeholder(of.float32, [None, 3])
        with pytest.raises(ValueError):
            sess.run(net["y"], {p: net["xv"]})


def test_runtime_shape_error_names_the_node(graph):
    a = of.placeholder(of.float32, [None, None], name="a")
    b = of.placeholder(of.float32, [None, None], name="b")
    c = of.matmul(a, b, name="late_matmul")
    with of.Session() as sess:
        with pytest.raises(of.InvalidArgumentError) as exc:
            sess.run(c, {a: np.ones((2, 3)), b: np.ones((4, 2))})
        assert "late_matmul" in str(exc.value)


def test_uninitialized_variable_error(graph):
    v = of.Variable(np.ones(3, np.float32), name="weights")
    y = v * 2.0
    with of.Session() as sess:
        with pytest.raises(of.FailedPreconditionError) as exc:
            sess.run(y)
        assert "weights" in str(exc.value)
        with pytest.raises(of.FailedPreconditionError):
            sess.run(v)
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(y), [2, 2, 2])


def test_fetch_ordered_dict_keeps_type(net):
    fetches = collections.OrderedDict([("y", net["y"]), ("h", net["h"])])
    with of.Session() as sess:
        out = sess.run(fetches, {net["x"]: net["xv"]})
    assert type(out) is collections.OrderedDict and list(out) == ["y", "h"]
