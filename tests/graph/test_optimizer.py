"""The graph optimizer (runtime/src/optimizer, reached through opforge.framework.optimizer and
the Session): constant folding, arithmetic, CSE and dependency passes on small hand-built graphs,
switches, random graphs, TF-written GraphDefs, the CLI, failing passes, shared constants.
Remapping and batch-norm folding: test_optimizer_remapper.py."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework import optimizer

from optimizer_helpers import (  # tests/graph/optimizer_helpers.py
    OFF,
    assert_close,
    optimize_graph,
    optimized_ops,
    rewriter_config,
    run_both,
)


# ---------------------------------------------------------------------------- constant folding


def test_constant_folding_folds_const_subgraphs(graph, rng):
    x = of.placeholder(of.float32, [None, 3], name="x")
    c = of.exp(of.constant(rng.random(3, dtype=np.float32))) * 2.0 + 1.0
    y = of.multiply(x, c, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert sorted(nd.op for nd in nodes.values()) == ["Const", "Mul", "Placeholder"]
    feed = {x: rng.random((4, 3), dtype=np.float32)}
    got, want, _ = run_both(graph, y, feed)
    assert_close(got, want)


def test_constant_folding_never_folds_state_random_placeholders(graph, rng):
    v = of.Variable(np.ones(3, np.float32), name="v")
    r = of.random.normal([3], seed=1, name="r")
    p = of.placeholder(of.float32, [3], name="p")
    y = of.add(v * 2.0 + r, p * of.exp(of.constant(np.zeros(3, np.float32))), name="y")
    nodes, _ = optimize_graph(graph, ["y", "p"])
    ops = [nd.op for nd in nodes.values()]
    assert {"VariableV2", "RandomStandardNormal", "Placeholder"} <= set(ops) and "Exp" not in ops
    sess = of.Session(graph=graph)
    sess.run(of.global_variables_initializer())
    a, b = sess.run(y, {p: np.zeros(3, np.float32)}), sess.run(y, {p: np.zeros(3, np.float32)})
    assert not np.array_equal(a, b)  # the random op still draws anew each run
    np.testing.assert_allclose(sess.run(y, {p: np.ones(3, np.float32), r: np.zeros(3, np.float32)}), 3.0)


def test_fed_constant_is_not_folded(graph):
    c = of.constant(np.float32(2.0), name="c")
    y = of.multiply(c, 3.0, name="y")
    sess = of.Session(graph=graph)
    assert sess.run(y) == 6.0
    assert sess.run(y, {c: np.float32(5.0)}) == 15.0


# ---------------------------------------------------------------------------- arithmetic, CSE, dependency


def test_arithmetic_removes_neutral_operations(graph, rng):
    x = of.placeholder(of.float32, [2, 3], name="x")
    y = of.identity(((x * 1.0) + 0.0 - 0.0) / 1.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert sorted(nd.op for nd in nodes.values()) == ["Identity", "Placeholder"]
    got, want, _ = run_both(graph, y, {x: rng.random((2, 3), dtype=np.float32)})
    assert_close(got, want)


def test_arithmetic_keeps_broadcasting_constants(graph):
    x = of.placeholder(of.float32, [3], name="x")
    of.multiply(x, np.ones((2, 3), np.float32), name="y")  # broadcasts x to [2, 3]
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert nodes["y"].op == "Mul"


def test_common_subgraph_elimination(graph, rng):
    x = of.placeholder(of.float32, [4], name="x")
    a, b = of.exp(x * 2.0), of.exp(x * 2.0)
    y = of.add(a, b, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert [nd.op for nd in nodes.values()].count("Exp") == 1
    got, want, _ = run_both(graph, y, {x: rng.random(4, dtype=np.float32)})
    assert_close(got, want)


def test_dependency_optimization_prunes_identity_keeps_fetched_and_control(graph, rng):
    x = of.placeholder(of.float32, [4], name="x")
    inner = of.identity(of.identity(x * 2.0), name="inner")
    with graph.control_dependencies([inner]):
        of.no_op(name="gate")
    y = of.identity(of.snapshot(inner) if hasattr(of, "snapshot") else inner, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x", "gate"])
    assert "y" in nodes and nodes["y"].op == "Identity"
    assert "inner" in nodes  # the source of a control edge stays
    assert "gate" in nodes and "^inner" in nodes["gate"].input
    got, want, _ = run_both(graph, y, {x: rng.random(4, dtype=np.float32)})
    assert_close(got, want)


def test_dependency_optimization_forwards_identity_n(graph, rng):
    """Each output's consumers read that output's input; a fetched IdentityN stays."""
    x = of.placeholder(of.float32, [4], name="x")
    z = of.placeholder(of.float32, [4], name="z")
    a, b = of.raw_ops.IdentityN(input=[x * 2.0, z + 1.0], name="pair")
    y = of.add(b, a, name="y")
    kept_a, _ = of.raw_ops.IdentityN(input=[x * 3.0, z], name="kept")
    nodes, _ = optimize_graph(graph, ["y", "x", "z", "kept"])
    assert "pair" not in nodes and "kept" in nodes and nodes["kept"].op == "IdentityN"
    assert all(not name.startswith("pair") for name in nodes["y"].input)
    feeds = {x: rng.random(4, dtype=np.float32), z: rng.random(4, dtype=np.float32)}
    got, want, _ = run_both(graph, [y, kept_a], feeds)
    assert_close(got, want)


def test_control_edges_from_constants_are_dropped(graph, rng):
    """A frozen TF2 graph's output Identity waits on one Identity(Const) per variable read:
    those edges go, and the nodes only they read; an edge from a computed value stays, once: on
    the block's first node (Const_1), which AddV2 and y read, so their own edges to it go as
    redundant."""
    x = of.placeholder(of.float32, [4], name="x")
    read = of.identity(of.identity(of.constant(np.float32(3.0), name="w")), name="read")
    computed = of.identity(x * 2.0, name="computed")
    with graph.control_dependencies([read, computed]):
        y = of.identity(x + 1.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert all("^read" not in nd.input for nd in nodes.values())
    assert [name for name, nd in nodes.items() if "^computed" in nd.input] == ["Const_1"]
    assert nodes["y"].input == ["add"] and "Const_1" in nodes["add"].input
    assert "read" not in nodes and "w" not in nodes
    got, want, _ = run_both(graph, y, {x: rng.random(4, dtype=np.float32)})
    assert_close(got, want)


def test_redundant_control_edges_go_and_identities_pass_data_on(graph, rng):
    """A control edge from a node the consumer reads through its data anyway goes (a frozen TF2
    graph's final Identity waits on every function call of the model). An Identity that is the
    source of a control edge stays for it, but its data consumers read its input: a bias after
    it still fuses into the convolution."""
    x = of.placeholder(of.float32, [1, 6, 6, 3], name="x")
    conv = of.nn.conv2d(x, rng.standard_normal((3, 3, 3, 4)).astype(np.float32), [1, 1, 1, 1], "SAME")
    call = of.identity(conv, name="call")  # an inlined call's output
    side = of.identity(x * 2.0, name="side")
    b = of.nn.bias_add(call, rng.standard_normal(4).astype(np.float32), name="b")
    with graph.control_dependencies([call, side]):
        y = of.identity(of.nn.relu(b), name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert "call" not in nodes  # its edge was redundant, and data no longer went through it
    assert any(nd.op == "_FusedConv2D" for nd in nodes.values())
    assert any("^side" in nd.input for nd in nodes.values())  # an edge that is not redundant stays
    got, want, _ = run_both(graph, y, {x: rng.standard_normal((1, 6, 6, 3)).astype(np.float32)})
    assert_close(got, want)


def test_identity_reading_a_variable_is_kept(graph):
    v = of.Variable(np.float32(1.0), name="v")
    read = of.identity(v, name="read")
    of.multiply(read, 2.0, name="y")
    nodes, _ = optimize_graph(graph, ["y"])
    assert nodes["read"].op == "Identity"


# ---------------------------------------------------------------------------- switches


PASS_PROBES = {
    "constant_folding": lambda nodes: "Exp" in {nd.op for nd in nodes.values()},
    "arithmetic_optimization": lambda nodes: any(nd.op == "Mul" for nd in nodes.values()),
    "dependency_optimization": lambda nodes: sum(nd.op == "Identity" for nd in nodes.values()) > 1,
    "remapping": lambda nodes: not any(nd.op.startswith("_Fused") for nd in nodes.values()),
    "common_subgraph_elimination": lambda nodes: sum(nd.op == "Tanh" for nd in nodes.values()) == 2,
}


def _probe_graph(rng):
    x = of.placeholder(of.float32, [2, 3], name="x")
    k = of.exp(of.constant(rng.random(3, dtype=np.float32)))                # constant folding
    h = of.identity(of.identity(x * 1.0))                                   # arithmetic, dependency
    m = of.nn.relu(of.nn.bias_add(of.matmul(h, rng.random((3, 3), dtype=np.float32)), k))  # remapping
    return of.identity(of.tanh(m) + of.tanh(m), name="y")                  # CSE


@pytest.mark.parametrize("name", list(PASS_PROBES))
def test_each_pass_switches_off(graph, rng, name):
    y = _probe_graph(rng)
    on, _ = optimize_graph(graph, ["y", "x"])
    assert not PASS_PROBES[name](on)
    off, report = optimize_graph(graph, ["y", "x"], config=rewriter_config(**{name: tf.RewriterConfig.OFF}))
    assert PASS_PROBES[name](off)
    assert name not in [r.name for r in report]
    feed = {"x:0": rng.random((2, 3), dtype=np.float32)}
    assert_close(of.Session(graph=graph, config=rewriter_config(**{name: tf.RewriterConfig.OFF})).run(y, feed),
                 of.Session(graph=graph, config=OFF).run(y, feed))


def test_experimental_options_and_disable(graph, rng):
    y = _probe_graph(rng)
    try:
        of.config.optimizer.set_experimental_options({"remapping": False})
        nodes, _ = optimize_graph(graph, ["y", "x"])
        assert PASS_PROBES["remapping"](nodes)
        with pytest.raises(ValueError, match="unknown graph optimizer option"):
            of.config.optimizer.set_experimental_options({"remaping": False})
    finally:
        of.config.optimizer._experimental.clear()
    sess = of.Session(graph=graph, config=OFF)
    sess.run(y, {"x:0": np.ones((2, 3), np.float32)})
    assert sess._optimized_graph_defs() == [] and sess._c.cached_plans == 1


# ---------------------------------------------------------------------------- random graphs


def _random_graph(rng):
    """A random DAG of elementwise ops, matmuls and convs over a placeholder and constants."""
    x = of.placeholder(of.float32, [2, 4, 4, 3], name="x")
    pool = [x]
    for _ in range(int(rng.integers(6, 14))):
        t = pool[int(rng.integers(len(pool)))]
        kind = rng.integers(9)
        c = lambda *s: of.constant(rng.standard_normal(s).astype(np.float32) * 0.5)  # noqa: E731
        ch = 3
        if kind == 0:
            t = of.nn.conv2d(t, c(3, 3, ch, ch), [1, 1, 1, 1], "SAME")
        elif kind == 1:
            t = of.raw_ops.DepthwiseConv2dNative(input=t, filter=c(3, 3, ch, 1), strides=[1, 1, 1, 1], padding="SAME")
        elif kind == 2:
            t = of.reshape(of.matmul(of.reshape(t, [-1, ch]), c(ch, ch)), [2, 4, 4, ch])
        elif kind == 3:
            t = of.nn.bias_add(t, c(ch))
        elif kind == 4:
            t = t * (c(ch) * 2.0 + 1.0)
        elif kind == 5:
            t = t + pool[int(rng.integers(len(pool)))]
        elif kind == 6:
            t = [of.nn.relu, of.tanh, of.sigmoid, of.nn.relu6, of.nn.elu][int(rng.integers(5))](t)
        elif kind == 7:
            t = of.identity(t) * 1.0
        else:
            t = t * of.sigmoid(t)
        pool.append(t)
    return x, of.identity(pool[-1] + pool[int(rng.integers(1, len(pool)))], name="y")


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_optimized_equal_unoptimized(graph, seed):
    rng = np.random.default_rng(seed)
    x, y = _random_graph(rng)
    feed = {x: rng.standard_normal((2, 4, 4, 3)).astype(np.float32)}
    got, want, _ = run_both(graph, y, feed)
    assert_close(got, want, tol=1e-3)


# ---------------------------------------------------------------------------- TF-written GraphDefs and the CLI


def test_tensorflow_fused_conv_graph_def_imports_and_runs(rng):
    """A _FusedConv2D node spelled as TensorFlow's Grappler writes it (TArgs, num_host_args,
    filter_format) imports and runs."""
    from opforge.io.graph_def import GraphDef, tensor_to_proto
    w = rng.standard_normal((1, 1, 2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    gd = GraphDef()
    for name, value in (("w", w), ("b", b)):
        nd = gd.node.add(name=name, op="Const")
        tensor_to_proto(of.constant(value), nd.attr["value"].tensor)
        nd.attr["dtype"].type = 1
    nd = gd.node.add(name="x", op="Placeholder")
    nd.attr["dtype"].type = 1
    nd = gd.node.add(name="y", op="_FusedConv2D", input=["x", "w", "b"])
    nd.attr["T"].type = 1
    nd.attr["TArgs"].list.type.append(1)
    nd.attr["num_args"].i = 1
    nd.attr["num_host_args"].i = 0
    nd.attr["strides"].list.i.extend([1, 1, 1, 1])
    nd.attr["padding"].s = b"VALID"
    nd.attr["data_format"].s = b"NHWC"
    nd.attr["filter_format"].s = b"HWIO"
    nd.attr["fused_ops"].list.s.extend([b"BiasAdd", b"Relu"])
    nd.attr["epsilon"].f = 0.0
    nd.attr["leakyrelu_alpha"].f = 0.2
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd, name="")
    xv = rng.standard_normal((1, 2, 2, 2)).astype(np.float32)
    got = of.Session(graph=g).run("y:0", {"x:0": xv})
    np.testing.assert_allclose(got, np.maximum(xv @ w[0, 0] + b, 0), rtol=1e-5, atol=1e-5)


def test_cli_optimize(tmp_path, rng, capsys):
    from opforge.codegen import cli
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 3], name="x")
        of.nn.relu(of.matmul(x, rng.random((3, 2), dtype=np.float32)) + of.constant(np.ones(2, np.float32)),
                       name="y")
    src = tmp_path / "in.pb"
    src.write_bytes(g.as_graph_def().SerializeToString())
    assert cli.main(["optimize", str(src), "-o", str(tmp_path / "out.pb")]) == 0
    out = capsys.readouterr().out
    assert "remapping" in out and "nodes before" in out
    gd = of.GraphDef()
    gd.ParseFromString((tmp_path / "out.pb").read_bytes())
    assert {nd.name: nd.op for nd in gd.node}["y"] == "_FusedMatMul"
    assert cli.main(["optimize", str(src), "-o", str(tmp_path / "o2.pbtxt"), "--disable", "remapping",
                     "--outputs", "y"]) == 0
    assert "_Fused" not in (tmp_path / "o2.pbtxt").read_text()
    assert cli.main(["optimize", str(src), "-o", str(tmp_path / "o3.pb"), "--disable", "remaping"]) == 2
    assert "unknown pass" in capsys.readouterr().err


# ---------------------------------------------------------------------------- failures, constants, imports


@pytest.fixture
def failing_pass():
    """Makes the named C++ pass fail as it starts (the runtime's testing hook)."""
    def fail(name):
        of._C._testing.set_failing_optimizer_pass(name)
    yield fail
    of._C._testing.set_failing_optimizer_pass("")


def _bias_relu_graph(rng):
    x = of.placeholder(of.float32, [None, 3], name="x")
    w = of.constant(rng.standard_normal((3, 2)).astype(np.float32), name="w")
    k = of.exp(of.constant(rng.random(2, dtype=np.float32)))  # folded by constant folding
    return x, of.nn.relu(of.nn.bias_add(of.matmul(x, w), k), name="y")


def test_failing_pass_is_reported_by_a_warning_naming_it(graph, rng, failing_pass):
    x, y = _bias_relu_graph(rng)
    failing_pass("remapping")
    feed = {x: rng.standard_normal((4, 3)).astype(np.float32)}
    sess = of.Session(graph=graph)
    with pytest.warns(RuntimeWarning, match="pass 'remapping' failed.*injected failure") as caught:
        got = sess.run(y, feed)
    assert caught[0].filename == __file__  # the warning points at the run
    assert_close(got, of.Session(graph=graph, config=OFF).run(y, feed))
    # The graph stays as the passes before made it: folded, not fused.
    ops = optimized_ops(sess)
    assert ops["y"] == "Relu" and "Exp" not in ops.values()
    # optimize() over a GraphDef reports it the same way, and in its report.
    with pytest.warns(RuntimeWarning, match="'remapping'"):
        gd, report = optimizer.optimize(graph.as_graph_def(), preserve=["y", "x"])
    assert [r.name for r in report if r.error] == ["remapping"]
    assert "_FusedMatMul" not in {nd.op for nd in gd.node}


@pytest.mark.parametrize("how", ["rewriter_config", "dict", "environment", "optimize"])
def test_failing_pass_raises_under_fail_on_optimizer_errors(graph, rng, failing_pass, monkeypatch, how):
    x, y = _bias_relu_graph(rng)
    failing_pass("constant_folding")
    feed = {x: np.ones((2, 3), np.float32)}
    with pytest.raises(of.errors.OpError, match="pass 'constant_folding' failed"):
        if how == "optimize":
            optimizer.optimize(graph.as_graph_def(), preserve=["y", "x"], fail_on_errors=True)
        elif how == "environment":
            monkeypatch.setenv("OPFORGE_OPTIMIZER_ERRORS", "raise")
            of.Session(graph=graph).run(y, feed)
        else:
            config = (rewriter_config(fail_on_optimizer_errors=True) if how == "rewriter_config"
                      else {"fail_on_optimizer_errors": True})
            of.Session(graph=graph, config=config).run(y, feed)


def test_optimized_graph_shares_the_users_constants(graph, rng):
    """One copy of every constant: a weight the optimizer leaves alone is the user graph's own
    buffer in the optimized graph; a folded result is a new tensor."""
    x, y = _bias_relu_graph(rng)
    sess = of.Session(graph=graph)
    sess.run(y, {x: np.ones((2, 3), np.float32)})
    (c_graph,) = sess._c.optimized_graphs()
    infos = {info["name"]: info for info in (c_graph.node_info(i) for i in range(c_graph.num_nodes))}
    user_w = graph.get_operation_by_name("w").get_attr("value")
    assert infos["w"]["attrs"]["value"]._shares_buffer_with(user_w)
    folded = [info for info in infos.values() if info["op"] == "Const" and info["name"] != "w"]
    assert len(folded) == 1 and not folded[0]["attrs"]["value"]._shares_buffer_with(user_w)
    assert infos["y"]["op"] == "_FusedMatMul"


def test_the_optimizer_does_not_import_session():
    """No import cycle through the optimizer: its Python face never imports the Session (the
    passes run kernels directly, in C++)."""
    import ast
    import pathlib
    for path in (pathlib.Path(optimizer.__file__),):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n.split(".")[-1] == "session" for n in names), (path.name, names)


def test_neutral_operation_that_is_a_control_source_stays(graph, rng):
    """x * 1 whose node others wait on (a control edge) is kept: waiting on it means something.
    (The pass must also finish: it reports no rewrite for it.)"""
    x = of.placeholder(of.float32, [3], name="x")
    m = of.multiply(x, 1.0, name="m")
    with graph.control_dependencies([m]):
        y = of.identity(x + 2.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    # (the edge stays on the block's first node, the constant 2.0, which y reads)
    assert nodes["m"].op == "Mul" and any("^m" in nd.input for nd in nodes.values())
    got, want, _ = run_both(graph, y, {x: rng.random(3, dtype=np.float32)})
    assert_close(got, want)


def test_folded_batch_norm_mul_that_is_a_control_source_becomes_identity(graph, rng):
    x = of.placeholder(of.float32, [None, 4], name="x")
    mm = of.matmul(x, rng.standard_normal((4, 3)).astype(np.float32))
    scaled = of.multiply(mm, rng.random(3, dtype=np.float32) + 0.5, name="scaled")
    with graph.control_dependencies([scaled]):
        y = of.identity(of.nn.relu(scaled) + 1.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert nodes["scaled"].op in ("Identity", "_FusedMatMul") and "^scaled" in nodes["y"].input
    got, want, _ = run_both(graph, y, {x: rng.standard_normal((2, 4)).astype(np.float32)})
    assert_close(got, want)


def test_unknown_pass_name_is_refused_by_the_runtime(graph):
    with pytest.raises(ValueError, match="unknown graph optimizer pass 'constfold'"):
        of.Session(graph=graph)._c.set_optimizer(["constfold"])


def test_loop_graph_runs_optimized(graph):
    """A while loop (Merge <- NextIteration back edge) goes through the optimizer's rebuild."""
    i0 = of.placeholder(of.int32, [], name="i0")
    k = of.exp(of.constant(np.float32(0.0)))  # folded: the loop body reads a constant 1.0
    _, acc = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a + k), [i0, of.constant(np.float32(0.0))])
    y = of.identity(acc, name="y")
    sess = of.Session(graph=graph)
    assert sess.run(y, {i0: np.int32(1)}) == 4.0
    assert sess.run(y, {i0: np.int32(1)}) == of.Session(graph=graph, config=OFF).run(y, {i0: np.int32(1)})
    ops = optimized_ops(sess)
    assert "Merge" in ops.values() and "Exp" not in ops.values()
