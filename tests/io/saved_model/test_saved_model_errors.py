"""Every way a SavedModel or a request can be wrong gives a typed error naming what is wrong."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge import errors
from opforge.compat import v1 as tf


@pytest.fixture
def model_dir(tmp_path):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 2], name="x")
        k = of.placeholder(of.int32, [], name="k")
        w = of.Variable(np.arange(4, dtype=np.float32).reshape(2, 2), name="w")
        y = of.matmul(x, w, name="y") * of.cast(k, of.float32)
        init = of.global_variables_initializer()
    d = str(tmp_path / "m")
    with of.Session(graph=g) as s:
        s.run(init)
        b = of.saved_model.SavedModelBuilder(d)
        kdef = of.saved_model.utils.build_tensor_info(k)
        sig = of.saved_model.build_signature_def(
            {"x": of.saved_model.build_tensor_info(x), "k": kdef}, {"y": of.saved_model.build_tensor_info(y)},
            "tensorflow/serving/predict", defaults={"k": np.array(3, np.int32)})
        b.add_meta_graph_and_variables(s, ["serve"], {"serving_default": sig})
        b.save()
    return d


def test_missing_directory_is_not_found_and_os_error(tmp_path):
    d = str(tmp_path / "nowhere")
    assert not of.saved_model.maybe_saved_model_directory(d)
    with pytest.raises(errors.NotFoundError, match="SavedModel file does not exist at: .*nowhere"):
        of.saved_model.load(d)
    with pytest.raises(OSError, match="saved_model.pbtxt|saved_model.pb"):
        with tf.Session(graph=tf.Graph()) as s:
            tf.saved_model.loader.load(s, ["serve"], d)


def test_directory_without_saved_model_pb(tmp_path):
    (tmp_path / "variables").mkdir()
    with pytest.raises(errors.NotFoundError, match="SavedModel file does not exist"):
        of.saved_model.load(str(tmp_path))


def test_wrong_tags_name_the_available_tag_sets(model_dir):
    with pytest.raises(RuntimeError, match=r"tags \['train'\] could not be found.*available tags '\[\['serve'\]\]'"):
        of.saved_model.load(model_dir, tags=["train"])
    with pytest.raises(RuntimeError, match="could not be found"):
        of.saved_model.load(model_dir, tags=["serve", "gpu"])


def test_corrupt_saved_model_pb_is_data_loss(model_dir):
    with open(os.path.join(model_dir, "saved_model.pb"), "wb") as f:
        f.write(b"\xff\xff\xff\xff not a proto")
    with pytest.raises(errors.DataLossError, match="Cannot parse file .*saved_model.pb"):
        of.saved_model.load(model_dir)


def test_corrupt_pbtxt_is_data_loss(tmp_path):
    (tmp_path / "saved_model.pbtxt").write_text("meta_graphs { bogus_field: 1 }")
    with pytest.raises(errors.DataLossError, match="Cannot parse file .*saved_model.pbtxt"):
        of.saved_model.load(str(tmp_path))


def test_empty_saved_model_is_data_loss(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"")
    with pytest.raises(errors.DataLossError, match="no MetaGraphDef"):
        of.saved_model.load(str(tmp_path))


def test_missing_variables_is_not_found(model_dir):
    for f in os.listdir(os.path.join(model_dir, "variables")):
        os.remove(os.path.join(model_dir, "variables", f))
    with pytest.raises(errors.NotFoundError, match="has variables but no .*variables.index"):
        of.saved_model.load(model_dir)


def test_corrupt_variables_is_data_loss(model_dir):
    path = os.path.join(model_dir, "variables", "variables.data-00000-of-00001")
    data = bytearray(open(path, "rb").read())
    data[0] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(errors.DataLossError, match="checksum mismatch for 'w'"):
        of.saved_model.load(model_dir)


def test_existing_non_empty_export_dir_is_refused(model_dir, tmp_path):
    with pytest.raises(errors.AlreadyExistsError, match="already exists, and isn't empty"):
        of.saved_model.SavedModelBuilder(model_dir)
    empty = tmp_path / "empty"
    empty.mkdir()
    of.saved_model.SavedModelBuilder(str(empty))  # an empty directory is fine, as in TensorFlow


def test_builder_order_and_reserved_keys(tmp_path):
    b = of.saved_model.SavedModelBuilder(str(tmp_path / "m"))
    with pytest.raises(AssertionError, match="has not been saved yet"):
        b.add_meta_graph(["serve"])
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None], name="x")
    with of.Session(graph=g) as s:
        bad = of.saved_model.predict_signature_def({"x": x}, {"y": x})
        with pytest.raises(KeyError, match="__saved_model_init_op.*reserved"):
            b.add_meta_graph_and_variables(s, ["serve"], {"__saved_model_init_op": bad})
        no_dtype = of.saved_model.build_signature_def({"x": of.saved_model.utils.TensorInfo(name="x:0")}, {})
        with pytest.raises(AssertionError, match="TensorInfo 'x' of inputs of signature 'p' has no dtype"):
            b.add_meta_graph_and_variables(s, ["serve"], {"p": no_dtype})
        with pytest.raises(TypeError, match="tags must be a list of strings"):
            b.add_meta_graph_and_variables(s, "serve")
        with pytest.raises(TypeError, match="to be an Operation"):
            b.add_meta_graph_and_variables(s, ["serve"], main_op=x)
        b.add_meta_graph_and_variables(s, ["serve"])
        with pytest.raises(AssertionError, match="already been saved"):
            b.add_meta_graph_and_variables(s, ["serve"])


def test_signature_helpers_check_their_arguments():
    g = of.Graph()
    with g.as_default():
        ex = of.placeholder(of.string, [None], name="examples")
        f = of.placeholder(of.float32, [None], name="f")
        i = of.placeholder(of.int32, [None], name="i")
        with pytest.raises(ValueError, match="cannot be None or empty"):
            of.saved_model.predict_signature_def({}, {"f": f})
        with pytest.raises(ValueError, match="must be of type string"):
            of.saved_model.regression_signature_def(f, f)
        with pytest.raises(ValueError, match="must be of type float"):
            of.saved_model.regression_signature_def(ex, i)
        with pytest.raises(ValueError, match="cannot both be None"):
            of.saved_model.classification_signature_def(ex, None, None)
        with pytest.raises(ValueError, match="scores must be a float Tensor"):
            of.saved_model.classification_signature_def(ex, None, i)
        reg = of.saved_model.regression_signature_def(ex, f)
        cls = of.saved_model.classification_signature_def(ex, ex, f)
        pred = of.saved_model.predict_signature_def({"a": i}, {"b": f})
    assert reg.method_name == "tensorflow/serving/regress" and list(reg.inputs) == ["inputs"]
    assert sorted(cls.outputs) == ["classes", "scores"]
    assert all(of.saved_model.is_valid_signature(s) for s in (reg, cls, pred))
    assert not of.saved_model.is_valid_signature(None)
    pred.method_name = "tensorflow/serving/regress"
    assert not of.saved_model.is_valid_signature(pred)


def test_request_errors_name_the_key_and_signature(model_dir):
    with of.saved_model.load(model_dir) as m:
        sig = m.signatures["serving_default"]
        x = np.ones((2, 2), np.float32)
        with pytest.raises(errors.InvalidArgumentError, match="unknown input 'z'.*signature 'serving_default'"):
            sig(x=x, z=1)
        with pytest.raises(errors.InvalidArgumentError, match="missing input 'x'.*signature 'serving_default'"):
            sig.run({})
        with pytest.raises(errors.InvalidArgumentError, match=r"input 'x' has shape \[2, 3\], the signature takes "
                                                              r"\[\?, 2\]"):
            sig(x=np.ones((2, 3), np.float32))
        with pytest.raises(errors.InvalidArgumentError, match="input 'x' cannot be converted to float32"):
            sig(x=[["a", "b"]])
        with pytest.raises(errors.InvalidArgumentError, match="input 'k' cannot be converted to int32"):
            sig(x=x, k=2.5)
        with pytest.raises(errors.InvalidArgumentError, match="unknown output 'q'"):
            sig.run({"x": x}, output_keys=["q"])
        with pytest.raises(errors.NotFoundError, match='"nope" not found.*serving_default'):
            m.signature("nope")
        # defaults: k falls back to the SignatureDef's 3
        np.testing.assert_allclose(sig(x=x)["y"], (x @ np.arange(4).reshape(2, 2)) * 3)
        np.testing.assert_allclose(sig(x=x, k=1)["y"], x @ np.arange(4).reshape(2, 2))


def test_signature_naming_a_missing_tensor(model_dir):
    saved = of.saved_model.loader.parse_saved_model(model_dir)
    saved.meta_graphs[0].signature_def["serving_default"].outputs["y"].name = "nothing_here:0"
    with open(os.path.join(model_dir, "saved_model.pb"), "wb") as f:
        f.write(saved.SerializeToString())
    with pytest.raises(errors.NotFoundError, match="output 'y' names tensor 'nothing_here:0'"):
        of.saved_model.load(model_dir)


DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data",
                    "saved_model")


def _copy_fixture(tmp_path, name):
    import shutil
    d = str(tmp_path / name)
    shutil.copytree(os.path.join(DATA, name), d)
    return d


def _rewrite(d, edit):
    saved = of.saved_model.loader.parse_saved_model(d)
    edit(saved.meta_graphs[0])
    with open(os.path.join(d, "saved_model.pb"), "wb") as f:
        f.write(saved.SerializeToString())


def test_restore_op_not_in_graph(tmp_path):
    d = _copy_fixture(tmp_path, "tf1_simple_save")

    def edit(meta):
        meta.saver_def.restore_op_name = "nowhere/restore_all"
    _rewrite(d, edit)
    with pytest.raises(errors.InvalidArgumentError, match="restore op 'nowhere/restore_all' is not in the graph"):
        of.saved_model.load(d)


def test_restore_function_missing_from_library(tmp_path):
    d = _copy_fixture(tmp_path, "tf2_module")

    def edit(meta):
        restore = next(n for n in meta.graph_def.node if n.name == meta.saver_def.restore_op_name)
        restore.attr["f"].func.name = "no_such_function"
    _rewrite(d, edit)
    with pytest.raises(errors.InvalidArgumentError, match="calls 'no_such_function'.*not in the function library"):
        of.saved_model.load(d)


def test_checkpoint_without_a_variable_is_not_found(tmp_path):
    from opforge.io import tensor_bundle
    d = _copy_fixture(tmp_path, "tf1_simple_save")
    prefix = os.path.join(d, "variables", "variables")
    reader = tensor_bundle.BundleReader(prefix)
    kept = {n: reader.tensor(n) for n in reader.names() if n != "w"}
    tensor_bundle.write_bundle(prefix, kept, {n: reader.dtype(n) for n in kept})
    with pytest.raises(errors.NotFoundError, match="Key w not found in checkpoint .*variable w"):
        of.saved_model.load(d)


def test_checkpoint_of_another_dtype_is_invalid_argument(tmp_path):
    from opforge.io import tensor_bundle
    d = _copy_fixture(tmp_path, "tf1_simple_save")
    prefix = os.path.join(d, "variables", "variables")
    reader = tensor_bundle.BundleReader(prefix)
    values = {n: reader.tensor(n) for n in reader.names()}
    dtypes = {n: reader.dtype(n) for n in values}
    values["w"], dtypes["w"] = values["w"].astype(np.float64), of.float64
    tensor_bundle.write_bundle(prefix, values, dtypes)
    with pytest.raises(errors.InvalidArgumentError, match="tensor w in checkpoint .* is float64, the variable w is float32"):
        of.saved_model.load(d)


def test_init_op_missing_is_not_found(tmp_path):
    d = _copy_fixture(tmp_path, "tf2_module")

    def edit(meta):
        meta.signature_def["__saved_model_init_op"].outputs["__saved_model_init_op"].name = "gone"
    _rewrite(d, edit)
    with pytest.raises(errors.NotFoundError, match='"__saved_model_init_op" could not be found.*gone'):
        of.saved_model.load(d)


def test_two_main_ops_is_an_error(model_dir):
    def edit(meta):
        meta.collection_def["saved_model_main_op"].node_list.value.extend(["init", "init"])
    _rewrite(model_dir, edit)
    with pytest.raises(RuntimeError, match="Expected exactly one SavedModel init op. Found 2"):
        of.saved_model.load(model_dir)


def test_unsupported_op_in_the_graph_is_not_found(tmp_path):
    d = _copy_fixture(tmp_path, "tf1_simple_save")

    def edit(meta):
        node = meta.graph_def.node.add()
        node.name, node.op = "strange", "NoSuchOpAnywhere"
    _rewrite(d, edit)
    with pytest.raises(errors.NotFoundError, match=r"Op type not registered 'NoSuchOpAnywhere'.*\[\[node strange\]\]"):
        of.saved_model.load(d)


def test_signature_input_without_a_tensor_name_is_refused(tmp_path):
    """TensorInfo's sparse and composite encodings are not modelled: such an input has no name."""
    d = _copy_fixture(tmp_path, "tf1_simple_save")

    def edit(meta):
        meta.signature_def["serving_default"].inputs["x"].ClearField("name")
    _rewrite(d, edit)
    with pytest.raises(errors.InvalidArgumentError, match="input 'x' names no dense tensor .*serves dense tensors"):
        of.saved_model.load(d)
