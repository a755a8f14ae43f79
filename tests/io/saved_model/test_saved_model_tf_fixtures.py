"""SavedModels TensorFlow 2.21 wrote (tests/data/saved_model/, made by
tools/make_saved_model_fixtures.py), loaded by opforge: every serving signature answers as
TensorFlow did. TF2: a tf.Module (two outputs; a cond and a while loop reading variables), a
Keras functional model (``model.export``; one with Embedding and LSTM) and a subclassed one (``tf.saved_model.save``), all
resource variables and function calls. TF1: simple_save (resource variables) and
SavedModelBuilder (reference variables, assets, a legacy init op, two tag sets)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.compat import v1 as tf

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data",
                    "saved_model")
MODELS = ["tf2_module", "keras_export", "keras_sequence", "keras_subclassed", "tf1_simple_save", "tf1_builder"]


def _answers(name):
    with np.load(os.path.join(DATA, name + ".npz")) as z:
        arrays = {k: z[k] for k in z.files}
    sigs: dict[str, dict] = {}
    for key, value in arrays.items():
        sig, kind, tensor = key.split("/", 2)
        sigs.setdefault(sig, {"in": {}, "out": {}})[kind][tensor] = value
    return sigs


@pytest.mark.parametrize("name", MODELS)
def test_signatures_match_tensorflow(name):
    with of.saved_model.load(os.path.join(DATA, name)) as model:
        for sig_name, io in _answers(name).items():
            sig = model.signatures[sig_name]
            assert set(sig.inputs) == set(io["in"]) and set(sig.outputs) == set(io["out"])
            got = sig.run(io["in"])
            for key, want in io["out"].items():
                assert got[key].dtype == want.dtype and got[key].shape == want.shape, key
                np.testing.assert_allclose(got[key], want, rtol=1e-5, atol=1e-5, err_msg=f"{name} {sig_name} {key}")


def test_tf2_module_control_flow_both_branches():
    """The other branch of the cond, and several loop lengths, against NumPy (the variables'
    values come from the checkpoint)."""
    io = _answers("tf2_module")["control"]
    reader = of.train.load_checkpoint(os.path.join(DATA, "tf2_module", "variables", "variables"))
    names = {n.split("/")[0]: n for n in reader.get_variable_to_shape_map() if n.endswith("VARIABLE_VALUE")}
    w, b, scale = (reader.get_tensor(names[k]) for k in ("w", "b", "scale"))
    x = io["in"]["x"]
    with of.saved_model.load(os.path.join(DATA, "tf2_module")) as model:
        sig = model.signatures["control"]
        for flag in (True, False):
            for steps in (0, 1, 4):
                out = sig(x=x, flag=flag, steps=steps)
                y = x @ w if flag else (x @ w) * 2 + b
                acc = np.zeros_like(y)
                for _ in range(steps):
                    acc = acc * scale + y
                np.testing.assert_allclose(out["branch"], y, rtol=1e-5, atol=1e-5)
                np.testing.assert_allclose(out["loop"], acc, rtol=1e-5, atol=1e-5)


def test_tf2_signature_specs():
    with of.saved_model.load(os.path.join(DATA, "tf2_module")) as model:
        assert sorted(model.signatures) == ["control", "serving_default"]  # the init op's is hidden
        control = model.signatures["control"]
        assert {k: (s.dtype, s.shape) for k, s in control.inputs.items()} == {
            "x": (of.float32, (None, 3)), "flag": (of.bool_, ()), "steps": (of.int32, ())}
        dense = model.signatures["serving_default"]
        assert dense.outputs["total"].shape == (None,) and dense.outputs["relu"].shape == (None, 4)
        assert dense.method_name == "tensorflow/serving/predict"
        # a TF2 graph has no variables collection: every variable was restored from the plan
        assert model.meta_graph.saver_def.restore_op_name.startswith("StatefulPartitionedCall")


def test_tf1_builder_other_tag_set_and_assets():
    d = os.path.join(DATA, "tf1_builder")
    io = _answers("tf1_builder")["serving_default"]
    with of.saved_model.load(d, tags=["gpu", "serve"]) as model:
        assert sorted(model.signatures) == ["serving_default"]
        out = model.signatures["serving_default"](x=io["in"]["x"])
        np.testing.assert_allclose(out["score"], io["out"]["score"], rtol=1e-5, atol=1e-5)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, ["serve"], d)
        feeds = of.saved_model.loader.asset_feeds(meta, d, g)
        (path,) = feeds.values()
        assert path[()].decode() == os.path.join(d, "assets", "vocab.txt")
        with open(path[()].decode()) as f:
            assert f.read() == "alpha\nbeta\n"


def test_tf1_loader_spelling_on_a_tf2_model():
    """tf.compat.v1.saved_model.loader.load on a TF2 SavedModel: the signature's tensors by
    name in the session's graph (as TensorFlow Serving runs it)."""
    io = _answers("keras_export")["serving_default"]
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, [tf.saved_model.SERVING], os.path.join(DATA, "keras_export"))
        sig = meta.signature_def["serving_default"]
        (out_key,) = sig.outputs
        (in_key,) = sig.inputs
        out = s.run(sig.outputs[out_key].name, {sig.inputs[in_key].name: io["in"][in_key]})
    np.testing.assert_allclose(out, io["out"][out_key], rtol=1e-5, atol=1e-5)


def test_tf1_loader_names_every_output_of_a_tf2_signature():
    """A TF2 signature with two outputs names them "StatefulPartitionedCall:0" and ":1"; the
    call imports lowered, and the MetaGraphDef the loader returns names the tensors the graph
    has, so sess.run of every signature name works (it failed for output 1)."""
    for sig_name, io in _answers("tf2_module").items():
        with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
            meta = tf.saved_model.loader.load(s, [tf.saved_model.SERVING], os.path.join(DATA, "tf2_module"))
            sig = meta.signature_def[sig_name]
            assert len(sig.outputs) == len(io["out"])
            got = s.run({k: v.name for k, v in sig.outputs.items()},
                        {sig.inputs[k].name: v for k, v in io["in"].items()})
        for key, want in io["out"].items():
            np.testing.assert_allclose(got[key], want, rtol=1e-5, atol=1e-5)


def test_import_scope(tmp_path):
    io = _answers("tf1_simple_save")["serving_default"]
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, ["serve"], os.path.join(DATA, "tf1_simple_save"), import_scope="m")
        sig = meta.signature_def["serving_default"]
        out = s.run("m/" + sig.outputs["probs"].name, {"m/" + sig.inputs["x"].name: io["in"]["x"]})
    np.testing.assert_allclose(out, io["out"]["probs"], rtol=1e-5, atol=1e-5)


def test_fixtures_match_tensorflow_now():
    """Where TensorFlow is installed: the saved answers are still what TF computes."""
    tf2 = pytest.importorskip("tensorflow")
    for name in ("tf2_module", "keras_subclassed"):
        loaded = tf2.saved_model.load(os.path.join(DATA, name))
        for sig_name, io in _answers(name).items():
            out = loaded.signatures[sig_name](**{k: tf2.constant(v) for k, v in io["in"].items()})
            for key, want in io["out"].items():
                np.testing.assert_allclose(out[key].numpy(), want, rtol=1e-5, atol=1e-5)


def test_tf2_signature_from_many_threads():
    import threading
    io = _answers("keras_export")["serving_default"]
    x, want = io["in"]["image"], io["out"]["output_0"]
    errors = []
    with of.saved_model.load(os.path.join(DATA, "keras_export")) as model:
        sig = model.signatures["serving_default"]

        def work(k):
            try:
                for i in range(6):
                    rows = [(k + i) % len(x), (k * 2 + i) % len(x)]
                    np.testing.assert_allclose(sig(image=x[rows])["output_0"], want[rows], rtol=1e-5, atol=1e-6)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors


def test_capture_plan_restores_what_the_restore_function_leaves_out():
    """keras_subclassed's restore function assigns one set of handles, its serving function
    reads another: the second set is restored through the functions' captures
    (SavedObjectGraph.bound_inputs -> the checkpoint's object graph). Without that plan the
    serving function reads uninitialized variables."""
    from opforge.io.saved_model import loader, restore
    d = os.path.join(DATA, "keras_subclassed")
    meta = loader.parse_saved_model(d).meta_graphs[0]
    _, saver_only = restore.split_saver(meta)
    _, full = restore.split_saver(meta, loader._checkpoint_object_graph(os.path.join(d, "variables", "variables")))
    assert set(saver_only) < set(full)
    call = next(n for n in meta.graph_def.node if n.name == "StatefulPartitionedCall")
    read_by_serving = {i for i in call.input if i in full}
    assert read_by_serving and not read_by_serving & set(saver_only)
    # each captured variable restores from the entry of the object it is bound to
    reader = of.train.load_checkpoint(os.path.join(d, "variables", "variables"))
    for var in read_by_serving:
        assert reader.has_tensor(full[var])
