"""GraphDef: export, import (input_map, return_elements, name prefix), write_graph/read_graph,
and hostile GraphDefs that must give typed errors naming the node and leave the graph unchanged."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opforge as of
from opforge.errors import DataLossError


def build_model(rng):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 3], name="x")
        w = of.constant(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        b = of.constant(rng.normal(size=(4,)).astype(np.float32), name="b")
        with of.name_scope("layer"):
            h = of.relu(of.matmul(x, w) + b, name="h")
        y = of.reduce_sum(of.tanh(h) * 2.0, axis=1, name="y")
        z = of.identity(y, name="z")
        with of.control_dependencies([z]):
            of.no_op(name="after_z")
    return g


def run(g, fetch, feeds):
    with of.Session(graph=g) as sess:
        return sess.run(fetch, feeds)


def test_export_structure(rng):
    g = build_model(rng)
    gd = g.as_graph_def()
    assert isinstance(gd, of.GraphDef)
    names = [n.name for n in gd.node]
    assert names == [o.name for o in g.get_operations()]
    by = {n.name: n for n in gd.node}
    assert by["x"].op == "Placeholder"
    assert by["layer/MatMul"].op == "MatMul" and list(by["layer/MatMul"].input) == ["x", "w"]
    assert by["after_z"].input == ["^z"]
    assert by["w"].attr["dtype"].type == of.float32.as_datatype_enum
    assert [d.size for d in by["x"].attr["shape"].shape.dim] == [-1, 3]
    assert by["layer/MatMul"].attr["transpose_a"].b is False
    assert gd.versions.producer > 0
    with_shapes = g.as_graph_def(add_shapes=True)
    dims = [d.size for d in {n.name: n for n in with_shapes.node}["layer/h"].attr["_output_shapes"].list.shape[0].dim]
    assert dims == [-1, 4]
    assert g.get_operation_by_name("layer/MatMul").node_def.op == "MatMul"


def test_round_trip_same_results(rng):
    g = build_model(rng)
    xv = rng.normal(size=(5, 3)).astype(np.float32)
    ref = run(g, ["y:0", "layer/h:0"], {"x:0": xv})
    gd = g.as_graph_def()
    for data in (gd, gd.SerializeToString()):
        g2 = of.Graph()
        with g2.as_default():
            assert of.import_graph_def(data, name="") is None
        assert [o.name for o in g2.get_operations()] == [o.name for o in g.get_operations()]
        assert g2.get_tensor_by_name("y:0").shape.as_list() == [None]
        out = run(g2, ["y:0", "layer/h:0"], {"x:0": xv})
        np.testing.assert_array_equal(out[0], ref[0])
        np.testing.assert_array_equal(out[1], ref[1])
        assert [c.name for c in g2.get_operation_by_name("after_z").control_inputs] == ["z"]
        assert [n.name for n in g2.as_graph_def().node] == [n.name for n in gd.node]




def test_round_trip_is_exact(rng):
    g = build_model(rng)
    gd = g.as_graph_def()
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(gd, name="")
    assert g2.as_graph_def() == gd


def test_scalar_constant_keeps_its_shape():
    g = of.Graph()
    with g.as_default():
        c = of.constant(np.float64(3.25), name="c")
        of.add(c, 1.0, name="d")
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(g.as_graph_def(), name="")
    assert g2.get_tensor_by_name("c:0").shape.as_list() == []
    assert g2.get_tensor_by_name("d:0").shape.as_list() == []
    out = run(g2, "c:0", {})
    assert np.shape(out) == () and out == 3.25


def test_import_prefix_input_map_return_elements(rng):
    g = build_model(rng)
    gd = g.as_graph_def()
    xv = rng.normal(size=(2, 3)).astype(np.float32)
    ref = run(g, "y:0", {"x:0": xv})
    g2 = of.Graph()
    with g2.as_default():
        inp = of.placeholder(of.float32, [None, 3], name="input")
        scaled = inp * 1.0
        y, h_op = of.import_graph_def(gd, input_map={"x:0": scaled}, return_elements=["y:0", "layer/h"],
                                      name="model")
        assert y.name == "model/y:0"
        assert isinstance(h_op, of.Operation) and h_op.name == "model/layer/h"
        assert g2.get_operation_by_name("model/layer/MatMul").inputs[0] is scaled
        # Default prefix is "import"; importing twice with distinct prefixes works.
        of.import_graph_def(gd)
        assert g2.get_operation_by_name("import/y").type == "Sum"
    np.testing.assert_allclose(run(g2, y, {inp: xv}), ref, rtol=1e-6)
    with g2.as_default():
        with pytest.raises(ValueError):
            of.import_graph_def(gd, return_elements=["nope:0"], name="again")


def test_import_same_prefix_twice_fails_cleanly(rng):
    gd = build_model(rng).as_graph_def()
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(gd, name="m")
        n = len(g2.get_operations())
        with pytest.raises(of.OpError):
            of.import_graph_def(gd, name="m")
        assert len(g2.get_operations()) == n


def test_round_trip_variables_and_training(rng):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float64, [None, 2], name="x")
        t = of.placeholder(of.float64, [None, 1], name="t")
        w = of.Variable(np.zeros((2, 1)), name="w")
        loss = of.reduce_mean(of.square(of.matmul(x, w) - t), name="loss")
        step = of.train.GradientDescentOptimizer(0.3).minimize(loss)
        init = of.global_variables_initializer()
    X = rng.normal(size=(20, 2))
    T = X @ np.array([[1.5], [-0.5]])
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(g.as_graph_def(), name="")
    with of.Session(graph=g2) as sess:
        sess.run(init.name)
        for _ in range(200):
            sess.run(step.name, {"x:0": X, "t:0": T})
        np.testing.assert_allclose(sess.run("w:0"), [[1.5], [-0.5]], atol=1e-6)


def test_constants_of_all_dtypes_round_trip():
    g = of.Graph()
    values = {
        "f16": np.array([1.5, -2.0], np.float16), "f32": np.array([[1.0, 2.5]], np.float32),
        "f64": np.array([3.25]), "i8": np.array([-3, 4], np.int8), "i16": np.array([300], np.int16),
        "i32": np.arange(6, dtype=np.int32).reshape(2, 3), "i64": np.array([2 ** 40], np.int64),
        "u8": np.array([255, 0], np.uint8), "b": np.array([True, False]),
        "empty": np.zeros((0, 3), np.float32),
    }
    with g.as_default():
        for k, v in values.items():
            of.constant(v, name=k)
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(g.as_graph_def(add_shapes=True), name="")
    with of.Session(graph=g2) as sess:
        for k, v in values.items():
            out = sess.run(f"{k}:0")
            assert np.asarray(out).dtype == v.dtype, k
            np.testing.assert_array_equal(out, v)


def test_write_and_read_graph(tmp_path, rng):
    g = build_model(rng)
    xv = rng.normal(size=(3, 3)).astype(np.float32)
    ref = run(g, "y:0", {"x:0": xv})
    p_txt = of.train.write_graph(g, str(tmp_path / "sub"), "model.pbtxt", as_text=True)
    p_bin = of.train.write_graph(g.as_graph_def(), str(tmp_path), "model.pb", as_text=False)
    assert open(p_txt).read().lstrip().startswith("node")
    assert (tmp_path / "model.pb").stat().st_size > 0
    gd_txt = of.train.read_graph(p_txt)
    gd_bin = of.train.read_graph(p_bin)
    assert gd_txt == gd_bin == g.as_graph_def()
    # Explicit as_text overrides the file name's suffix.
    p_odd = of.train.write_graph(g, str(tmp_path), "model.bin", as_text=True)
    assert of.train.read_graph(p_odd, as_text=True) == gd_txt
    for gd in (gd_txt, gd_bin):
        g2 = of.Graph()
        with g2.as_default():
            of.import_graph_def(gd, name="")
        np.testing.assert_array_equal(run(g2, "y:0", {"x:0": xv}), ref)


def test_read_graph_corrupt_files(tmp_path, rng):
    g = build_model(rng)
    data = g.as_graph_def().SerializeToString()
    bad_bin = tmp_path / "bad.pb"
    bad_bin.write_bytes(data[: len(data) // 2 + 3])
    with pytest.raises(of.OpError):
        of.train.read_graph(str(bad_bin))
    bad_txt = tmp_path / "bad.pbtxt"
    bad_txt.write_text("node { name: 'x' op: ")
    with pytest.raises(DataLossError):
        of.train.read_graph(str(bad_txt))
    garbage = tmp_path / "garbage.pbtxt"
    garbage.write_bytes(b"\xff\xfe\x00 not utf8")
    with pytest.raises(DataLossError):
        of.train.read_graph(str(garbage))


# ------------------------------------------------------------------ hostile GraphDefs


def _valid_gd():
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 2], name="x")
        w = of.constant(np.ones((2, 2), np.float32), name="w")
        out = of.relu(of.matmul(x, w, name="mm"), name="out")
        of.add_n([out, out], name="sum")
    return g.as_graph_def()


def _node(gd, name):
    return next(n for n in gd.node if n.name == name)


def _target():
    g = of.Graph()
    with g.as_default():
        of.placeholder(of.float32, [None, 2], name="existing")
        of.constant(1.0, name="c")
    return g


def _assert_rejected(gd, node_name, cls=of.OpError, name="imp", check_unchanged=True):
    g = _target()
    before = [(o.name, o.type) for o in g.get_operations()]
    with g.as_default():
        with pytest.raises(cls) as exc:
            of.import_graph_def(gd, name=name)
    assert isinstance(exc.value, of.OpError)
    if node_name is not None:
        assert node_name in str(exc.value), str(exc.value)
    if check_unchanged:
        assert [(o.name, o.type) for o in g.get_operations()] == before
    # The untouched graph still builds and runs.
    with g.as_default():
        y = of.constant(2.0) * 3.0
    assert run(g, y, {}) == 6.0
    return exc.value


def test_hostile_unknown_op():
    gd = _valid_gd()
    _node(gd, "mm").op = "NoSuchOpAnywhere"
    err = _assert_rejected(gd, "mm", of.NotFoundError)
    assert "NoSuchOpAnywhere" in str(err)


def test_hostile_missing_input():
    gd = _valid_gd()
    _node(gd, "mm").input[1] = "ghost"
    err = _assert_rejected(gd, "mm")
    assert "ghost" in str(err)
    gd = _valid_gd()
    _node(gd, "out").input.append("^ghost")
    err = _assert_rejected(gd, "out")
    assert "ghost" in str(err)


def _set_input(name, i, value):
    def mutate(gd):
        _node(gd, name).input[i] = value
    return mutate


def _append_input(name, value):
    def mutate(gd):
        _node(gd, name).input.append(value)
    return mutate


def _drop_input(name, i):
    def mutate(gd):
        del _node(gd, name).input[i]
    return mutate


def _set_dtype_int32(gd):
    _node(gd, "x").attr["dtype"].type = of.int32.as_datatype_enum


def _wrong_const_shape(gd):
    w = _node(gd, "w").attr["value"].tensor
    w.tensor_shape.dim[0].size = 3
    w.tensor_content = np.ones((3, 2), np.float32).tobytes()


def _matmul_with_one_input(gd):
    _node(gd, "out").op = "MatMul"


def _bad_name(gd):
    _node(gd, "sum").name = "bad name!"


def _set_n(n):
    def mutate(gd):
        if n is None:
            del _node(gd, "sum").attr["N"]
        else:
            _node(gd, "sum").attr["N"].i = n
    return mutate


def _set_sum_type_int32(gd):
    _node(gd, "sum").attr["T"].type = of.int32.as_datatype_enum


# Hostile cases only detected while the nodes are being added (after earlier, valid nodes of
# the same GraphDef were added): (mutation, node the error must name).
LATE_CASES = {
    "input_index_out_of_range": (_set_input("mm", 1, "w:3"), "mm"),
    "extra_input": (_append_input("out", "w"), "out"),
    "dtype_mismatch_between_nodes": (_set_dtype_int32, "mm"),
    "shape_mismatch": (_wrong_const_shape, "mm"),
    "op_with_missing_input": (_matmul_with_one_input, "out"),
    "invalid_node_name": (_bad_name, None),
    "missing_input": (_drop_input("mm", 1), "mm"),
    "list_attr_too_large": (_set_n(5), "sum"),
    "list_attr_negative": (_set_n(-3), "sum"),
    "list_attr_absurd": (_set_n(1 << 40), "sum"),
    "list_attr_missing": (_set_n(None), "sum"),
    "list_type_attr_wrong": (_set_sum_type_int32, "sum"),
}


@pytest.mark.parametrize("case", sorted(LATE_CASES))
def test_hostile_late_error_is_typed_and_names_node(case):
    mutate, node = LATE_CASES[case]
    gd = _valid_gd()
    mutate(gd)
    _assert_rejected(gd, node, check_unchanged=False)


@pytest.mark.parametrize("case", sorted(LATE_CASES))
def test_hostile_late_error_leaves_graph_unchanged(case):
    mutate, node = LATE_CASES[case]
    gd = _valid_gd()
    mutate(gd)
    _assert_rejected(gd, node)


def _relu_gd():
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 2], name="x")
        of.relu(x, name="y")
    return g.as_graph_def()


def test_input_map_dtype_mismatch_is_typed():
    g = of.Graph()
    with g.as_default():
        i = of.placeholder(of.int32, [None, 2], name="i")
        with pytest.raises(of.InvalidArgumentError) as exc:
            of.import_graph_def(_relu_gd(), input_map={"x:0": i}, name="a")
    assert "y" in str(exc.value)


def test_input_map_dtype_mismatch_leaves_graph_unchanged():
    g = of.Graph()
    with g.as_default():
        i = of.placeholder(of.int32, [None, 2], name="i")
        with pytest.raises(of.InvalidArgumentError):
            of.import_graph_def(_relu_gd(), input_map={"x:0": i}, name="a")
    assert [o.name for o in g.get_operations()] == ["i"]


def test_input_map_unknown_key_is_rejected():
    g = of.Graph()
    with g.as_default():
        f = of.placeholder(of.float32, [None, 2], name="f")
        with pytest.raises((ValueError, of.OpError)):
            of.import_graph_def(_relu_gd(), input_map={"nope:0": f}, name="b")
    assert [o.name for o in g.get_operations()] == ["f"]


def test_hostile_malformed_input_name():
    gd = _valid_gd()
    _node(gd, "mm").input[1] = "w:abc"
    _assert_rejected(gd, "mm")


def test_hostile_cycle():
    gd = _valid_gd()
    _node(gd, "mm").input[0] = "out"
    _assert_rejected(gd, None)
    gd = _valid_gd()
    _node(gd, "out").input[0] = "out"  # self loop
    _assert_rejected(gd, "out")
    gd = _valid_gd()
    _node(gd, "out").input.append("^out")  # control self loop
    _assert_rejected(gd, "out")


def test_hostile_duplicate_node_name():
    gd = _valid_gd()
    gd.node.add().CopyFrom(_node(gd, "mm"))
    _assert_rejected(gd, "mm")


def test_hostile_wrong_attr_type():
    gd = _valid_gd()
    _node(gd, "mm").attr["transpose_a"].i = 3
    _assert_rejected(gd, "mm")
    gd = _valid_gd()
    _node(gd, "x").attr["dtype"].s = b"float"
    _assert_rejected(gd, "x")
    gd = _valid_gd()
    _node(gd, "w").attr["value"].f = 1.0
    _assert_rejected(gd, "w")


def test_hostile_unknown_attr_and_bad_type_enum():
    gd = _valid_gd()
    _node(gd, "mm").attr["bogus_attr"].i = 1
    _assert_rejected(gd, "mm")
    gd = _valid_gd()
    _node(gd, "x").attr["dtype"].type = 999
    _assert_rejected(gd, "x")


def test_hostile_absurd_shapes():
    gd = _valid_gd()
    t = _node(gd, "w").attr["value"].tensor
    t.ClearField("tensor_content")
    del t.tensor_shape.dim[:]
    for _ in range(4):
        t.tensor_shape.dim.add().size = 1 << 40
    _assert_rejected(gd, "w")
    gd = _valid_gd()
    t = _node(gd, "w").attr["value"].tensor
    t.tensor_shape.dim[0].size = -5
    _assert_rejected(gd, "w")
    gd = _valid_gd()
    _node(gd, "x").attr["shape"].shape.dim[0].size = -7
    _assert_rejected(gd, "x")
    gd = _valid_gd()  # tensor_content that does not match the shape
    _node(gd, "w").attr["value"].tensor.tensor_content = b"\x00" * 5
    _assert_rejected(gd, "w")


def test_hostile_absurd_placeholder_shape_is_fine_until_fed():
    gd = _valid_gd()
    dims = _node(gd, "x").attr["shape"].shape.dim
    dims[0].size = 1 << 40
    _node(gd, "x").attr["shape"].shape.dim[1].size = 2
    g = _target()
    with g.as_default():
        try:
            of.import_graph_def(gd, name="imp")
        except of.OpError:
            return  # rejecting it is fine too
    with pytest.raises(of.InvalidArgumentError):
        run(g, "imp/out:0", {"imp/x:0": np.ones((2, 2), np.float32)})


def test_hostile_name_clash_with_target_graph():
    gd = _valid_gd()
    _node(gd, "x").name = "existing"
    _node(gd, "mm").input[0] = "existing"
    _assert_rejected(gd, "existing", name="")


def test_hostile_empty_node_name():
    gd = _valid_gd()
    _node(gd, "out").name = ""
    _assert_rejected(gd, None)


def test_hostile_truncated_bytes():
    data = _valid_gd().SerializeToString()
    for cut in (1, 7, len(data) // 2, len(data) - 1):
        g = _target()
        before = len(g.get_operations())
        with g.as_default():
            with pytest.raises(of.OpError):
                of.import_graph_def(data[:cut], name="imp")
        assert len(g.get_operations()) == before


def test_hostile_random_bytes_never_crash():
    rng = np.random.default_rng(7)
    data = bytearray(_valid_gd().SerializeToString())
    for _ in range(200):
        mutated = bytearray(data)
        for _ in range(rng.integers(1, 6)):
            mutated[rng.integers(len(mutated))] = rng.integers(256)
        g = _target()
        with g.as_default():
            try:
                of.import_graph_def(bytes(mutated), name="imp")
            except of.OpError:
                continue
        # Accepted: it must at least be runnable or fail with a typed error.
        try:
            run(g, [o.outputs[0] for o in g.get_operations() if o.outputs and o.type != "Placeholder"][:1], {})
        except of.OpError:
            pass


_SMALL_CONST_HUGE_SHAPE = textwrap.dedent("""
    import numpy as np, opforge as of
    g = of.Graph()
    with g.as_default():
        of.constant(np.ones((2, 2), np.float32), name="w")
    gd = g.as_graph_def()
    t = gd.node[0].attr["value"].tensor
    t.ClearField("tensor_content")
    del t.tensor_shape.dim[:]
    t.tensor_shape.dim.add().size = 1 << 17
    t.tensor_shape.dim.add().size = 1 << 17
    t.float_val.append(1.0)          # a ~40-byte GraphDef that declares 2**34 floats
    target = of.Graph()
    with target.as_default():
        try:
            of.import_graph_def(gd.SerializeToString(), name="")
            print("RESULT imported")
        except of.OpError as e:
            print("RESULT typed", type(e).__name__, "w" in str(e), len(target.get_operations()))
        except MemoryError:
            print("RESULT MemoryError")
""")


def test_hostile_small_const_with_huge_shape(tmp_path):
    import resource

    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("AddressSanitizer reserves terabytes of shadow memory: RLIMIT_AS cannot apply")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-c", _SMALL_CONST_HUGE_SHAPE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, preexec_fn=limit)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines and lines[0].startswith("RESULT typed") and lines[0].endswith("True 0"), proc.stdout + proc.stderr
