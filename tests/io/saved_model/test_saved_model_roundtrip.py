"""SavedModels opforge writes, read back by opforge (loader.load and of.saved_model.load) and
by TensorFlow (when installed), on random data."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import opforge as of
from opforge.compat import v1 as tf
from opforge.io.saved_model import constants


def _model(rng, graph):
    """y = relu(x @ w + b), z = sum(y, axis=1) with random w, b."""
    with graph.as_default():
        x = of.placeholder(of.float32, [None, 3], name="x")
        w = of.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        b = of.Variable(rng.normal(size=(4,)).astype(np.float32), name="b")
        y = of.nn.relu(of.matmul(x, w) + b, name="y")
        z = of.reduce_sum(y, axis=1, name="z")
        init = of.global_variables_initializer()
    return x, w, b, y, z, init


def _reference(sess, w, b, xv):
    wv, bv = sess.run([w.value(), b.value()])
    y = np.maximum(xv @ wv + bv, 0)
    return y, y.sum(axis=1)


@pytest.fixture
def exported(tmp_path):
    """(export_dir, reference function) of a simple_save'd random model."""
    rng = np.random.default_rng(7)
    g = of.Graph()
    x, w, b, y, z, init = _model(rng, g)
    d = str(tmp_path / "model")
    with of.Session(graph=g) as s:
        s.run(init)
        of.saved_model.simple_save(s, d, {"x": x}, {"y": y, "z": z})
        wv, bv = s.run([w.value(), b.value()])

    def ref(xv):
        yv = np.maximum(xv @ wv + bv, 0)
        return {"y": yv, "z": yv.sum(axis=1)}
    return d, ref


def test_layout_is_tensorflows(exported):
    d, _ = exported
    assert sorted(os.listdir(d)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(d, "variables"))) == ["variables.data-00000-of-00001", "variables.index"]
    saved = of.saved_model.loader.parse_saved_model(d)
    assert saved.saved_model_schema_version == 1
    (meta,) = saved.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    sig = meta.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sig.inputs["x"].name == "x:0" and sig.outputs["y"].name == "y:0"
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 3]


def test_round_trip_load(exported):
    d, ref = exported
    xv = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    with of.saved_model.load(d) as model:
        assert model.export_dir == d
        assert sorted(model.signatures) == ["serving_default"]
        sig = model.signatures["serving_default"]
        assert sig.name == "serving_default" and sig.method_name == "tensorflow/serving/predict"
        assert sig.inputs["x"].name == "x:0" and sig.inputs["x"].dtype == of.float32
        assert sig.inputs["x"].shape == (None, 3) and sig.inputs["x"].dtype.as_numpy_dtype == np.float32
        assert sig.outputs["z"].shape == (None,)
        out = sig(x=xv)
        want = ref(xv)
        assert sorted(out) == ["y", "z"]
        np.testing.assert_allclose(out["y"], want["y"], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(out["z"], want["z"], rtol=1e-5, atol=1e-5)
        only = sig.run({"x": xv.tolist()}, output_keys=["z"])  # lists convert to the input's dtype
        assert list(only) == ["z"]
        np.testing.assert_allclose(only["z"], want["z"], rtol=1e-5, atol=1e-5)


def test_round_trip_tf1_loader(exported):
    d, ref = exported
    xv = np.random.default_rng(2).normal(size=(2, 3)).astype(np.float32)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, [tf.saved_model.tag_constants.SERVING], d)
        sig = meta.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        y = s.run(sig.outputs["y"].name, {sig.inputs["x"].name: xv})
    np.testing.assert_allclose(y, ref(xv)["y"], rtol=1e-6, atol=1e-6)


def test_signature_run_from_many_threads(exported):
    d, ref = exported
    rng = np.random.default_rng(3)
    batches = [rng.normal(size=(int(rng.integers(1, 9)), 3)).astype(np.float32) for _ in range(64)]
    errors = []
    with of.saved_model.load(d) as model:
        sig = model.signatures["serving_default"]

        def work(k):
            try:
                for xv in batches[k::8]:
                    np.testing.assert_allclose(sig(x=xv)["y"], ref(xv)["y"], rtol=1e-6, atol=1e-6)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors


def test_builder_two_meta_graphs_and_text(tmp_path):
    rng = np.random.default_rng(4)
    g = of.Graph()
    x, w, b, y, z, init = _model(rng, g)
    d = str(tmp_path / "m")
    with of.Session(graph=g) as s:
        s.run(init)
        builder = tf.saved_model.builder.SavedModelBuilder(d)
        builder.add_meta_graph_and_variables(
            s, ["serve"], {"predict": tf.saved_model.predict_signature_def({"x": x}, {"z": z})},
            strip_default_attrs=True)
        with g.as_default():
            builder.add_meta_graph(["serve", "gpu"], {"sum": tf.saved_model.predict_signature_def({"x": x}, {"z": z})})
        path = builder.save(as_text=True)
        xv = rng.normal(size=(3, 3)).astype(np.float32)
        want = _reference(s, w, b, xv)[1]
    assert path.endswith(b"saved_model.pbtxt")
    saved = of.saved_model.loader.parse_saved_model(d)
    assert saved.meta_graphs[0].meta_info_def.stripped_default_attrs
    matmul = next(n for n in saved.meta_graphs[0].graph_def.node if n.op == "MatMul")
    assert "transpose_a" not in matmul.attr  # equal to its default: stripped
    with of.saved_model.load(d, tags=["gpu", "serve"]) as model:
        np.testing.assert_allclose(model.signatures["sum"](x=xv)["z"], want, rtol=1e-5, atol=1e-5)
    with of.saved_model.load(d) as model:
        np.testing.assert_allclose(model.signatures["predict"](x=xv)["z"], want, rtol=1e-5, atol=1e-5)


def test_assets_round_trip(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\nc\n")
    d = str(tmp_path / "m")
    g = of.Graph()
    with g.as_default():
        path = of.constant(str(vocab).encode(), name="vocab_path")
        g.add_to_collection(constants.ASSET_FILEPATHS_KEY, path)
        out = of.identity(path, name="asset_path")
        dummy = of.placeholder(of.float32, [], name="dummy")
        with g.control_dependencies([out]):
            init = of.no_op(name="init_op")
    with of.Session(graph=g) as s:
        of.saved_model.simple_save(s, d, {"dummy": dummy}, {"path": out}, legacy_init_op=init)
    assert os.listdir(os.path.join(d, "assets")) == ["vocab.txt"]
    meta = of.saved_model.loader.parse_saved_model(d).meta_graphs[0]
    assert [(a.filename, a.tensor_info.name) for a in meta.asset_file_def] == [("vocab.txt", "vocab_path:0")]
    assert list(meta.collection_def[constants.ASSET_FILEPATHS_KEY].node_list.value) == ["vocab_path:0"]
    assert list(meta.collection_def[constants.MAIN_OP_KEY].node_list.value) == ["init_op"]
    vocab.unlink()  # the model reads its own copy
    with tf.Graph().as_default() as g2, tf.Session(graph=g2) as s2:
        tf.saved_model.loader.load(s2, ["serve"], d)
        feeds = of.saved_model.loader.asset_feeds(meta, d, g2)
        assert s2.run("asset_path:0", feeds).decode() == os.path.join(d, "assets", "vocab.txt")
        with open(os.path.join(d, "assets", "vocab.txt")) as f:
            assert f.read() == "a\nb\nc\n"


def test_tensorflow_loads_what_opforge_writes(exported):
    tf2 = pytest.importorskip("tensorflow")
    d, ref = exported
    xv = np.random.default_rng(5).normal(size=(6, 3)).astype(np.float32)
    with tf2.Graph().as_default() as g, tf2.compat.v1.Session(graph=g) as s:
        meta = tf2.compat.v1.saved_model.loader.load(s, ["serve"], d)
        sig = meta.signature_def["serving_default"]
        y, z = s.run([sig.outputs["y"].name, sig.outputs["z"].name], {sig.inputs["x"].name: xv})
    want = ref(xv)
    np.testing.assert_allclose(y, want["y"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(z, want["z"], rtol=1e-5, atol=1e-5)


def test_tensorflow_reads_text_format_and_stripped_attrs(tmp_path):
    tf2 = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(6)
    g = of.Graph()
    x, w, b, y, z, init = _model(rng, g)
    d = str(tmp_path / "m")
    xv = rng.normal(size=(3, 3)).astype(np.float32)
    with of.Session(graph=g) as s:
        s.run(init)
        builder = of.saved_model.SavedModelBuilder(d)
        builder.add_meta_graph_and_variables(s, ["serve"], {"p": of.saved_model.predict_signature_def({"x": x}, {"z": z})},
                                             strip_default_attrs=True)
        with g.as_default():
            builder.add_meta_graph(["serve", "tpu"], {"q": of.saved_model.predict_signature_def({"x": x}, {"y": y})})
        builder.save(as_text=True)
        want_y, want_z = _reference(s, w, b, xv)
    with tf2.Graph().as_default() as tg, tf2.compat.v1.Session(graph=tg) as ts:
        meta = tf2.compat.v1.saved_model.loader.load(ts, ["serve"], d)
        np.testing.assert_allclose(ts.run(meta.signature_def["p"].outputs["z"].name, {"x:0": xv}), want_z, rtol=1e-5)
    with tf2.Graph().as_default() as tg, tf2.compat.v1.Session(graph=tg) as ts:
        meta = tf2.compat.v1.saved_model.loader.load(ts, ["tpu", "serve"], d)
        np.testing.assert_allclose(ts.run(meta.signature_def["q"].outputs["y"].name, {"x:0": xv}), want_y, rtol=1e-5)


def test_compat_v1_spelling():
    """tf.saved_model as TensorFlow 1 spells it: submodules, top-level helpers and constants;
    tf.saved_model.load is the loader's load(sess, tags, dir)."""
    sm = tf.saved_model
    assert sm.load is sm.loader.load and sm.Builder is sm.builder.SavedModelBuilder
    assert sm.SERVING == sm.tag_constants.SERVING == "serve" and sm.TRAINING == "train"
    assert sm.GPU == "gpu" and sm.TPU == "tpu"
    assert sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert sm.PREDICT_METHOD_NAME == sm.signature_constants.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    assert sm.CLASSIFY_METHOD_NAME == "tensorflow/serving/classify" and sm.REGRESS_METHOD_NAME == "tensorflow/serving/regress"
    assert sm.ASSETS_DIRECTORY == "assets" and sm.VARIABLES_DIRECTORY == "variables"
    assert sm.MAIN_OP_KEY == "saved_model_main_op" and sm.LEGACY_INIT_OP_KEY == "legacy_init_op"
    assert sm.utils.build_tensor_info is sm.build_tensor_info
    assert sm.signature_def_utils.predict_signature_def is sm.predict_signature_def
    assert callable(sm.simple_save) and callable(sm.maybe_saved_model_directory)
    with pytest.raises(AttributeError, match="opforge does not have tf.saved_model.no_such_thing"):
        sm.no_such_thing  # noqa: B018


def test_main_op_initializes_global_and_local_variables():
    with tf.Graph().as_default() as g:
        v = tf.Variable(np.float32(2.0), name="v")
        local = tf.Variable(np.float32(5.0), name="local", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        op = tf.saved_model.main_op.main_op()
        with tf.Session(graph=g) as s:
            s.run(op)
            assert s.run([v.value(), local.value()]) == [2.0, 5.0]
            s.run(tf.assign(v, 7.0))
            after = tf.saved_model.main_op.main_op_with_restore(op.name)
            s.run(after)
            assert s.run(v.value()) == 2.0


def test_assets_with_one_basename_from_two_folders(tmp_path):
    """Two different files named vocab.txt become vocab.txt and vocab.txt_1 (TensorFlow's
    rule); a file given twice is copied once."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "vocab.txt").write_text("one")
    (tmp_path / "b" / "vocab.txt").write_text("two")
    g = of.Graph()
    with g.as_default():
        paths = [of.constant(str(tmp_path / d / "vocab.txt").encode(), name=f"p{k}")
                 for k, d in enumerate(["a", "b", "b"])]
        x = of.placeholder(of.float32, [], name="x")
    d = str(tmp_path / "m")
    with of.Session(graph=g) as s:
        b = of.saved_model.SavedModelBuilder(d)
        b.add_meta_graph_and_variables(s, ["serve"], {"p": of.saved_model.predict_signature_def({"x": x}, {"x": x})},
                                       assets_collection=paths)
        b.save()
    assert sorted(os.listdir(os.path.join(d, "assets"))) == ["vocab.txt", "vocab.txt_1"]
    meta = of.saved_model.loader.parse_saved_model(d).meta_graphs[0]
    assert [(a.filename, a.tensor_info.name) for a in meta.asset_file_def] == [
        ("vocab.txt", "p0:0"), ("vocab.txt_1", "p1:0"), ("vocab.txt_1", "p2:0")]
    with open(os.path.join(d, "assets", "vocab.txt_1")) as f:
        assert f.read() == "two"


def test_models_load_from_many_threads_at_once(exported):
    d, ref = exported
    xv = np.random.default_rng(8).normal(size=(2, 3)).astype(np.float32)
    results, errors = [], []

    def work():
        try:
            with of.saved_model.load(d) as m:
                results.append(m.signatures["serving_default"](x=xv)["y"])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for r in results:
        np.testing.assert_allclose(r, ref(xv)["y"], rtol=1e-6, atol=1e-6)
