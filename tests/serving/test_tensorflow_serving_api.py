"""Wire compatibility with TensorFlow Serving's own client: tensorflow-serving-api's stubs and
messages (and TensorFlow's make_tensor_proto) against `opforge serve`, serving SavedModels
that TensorFlow wrote (TF1 simple_save; TF2 tf.saved_model.save of a tf.Module), answered as
TensorFlow answers. Skipped where TensorFlow or
tensorflow-serving-api is not installed (pip install tensorflow-serving-api --no-deps beside
tensorflow)."""

from __future__ import annotations

import grpc
import numpy as np
import pytest
from serving_helpers import ServerProcess

tf = pytest.importorskip("tensorflow")
prediction_service_pb2_grpc = pytest.importorskip("tensorflow_serving.apis.prediction_service_pb2_grpc")
model_service_pb2_grpc = pytest.importorskip("tensorflow_serving.apis.model_service_pb2_grpc")
from tensorflow_serving.apis import get_model_metadata_pb2, get_model_status_pb2, predict_pb2  # noqa: E402


@pytest.fixture(scope="module")
def tf_model(module_tmp):
    """A TF1 SavedModel written by TensorFlow (a resource variable, two outputs), and TensorFlow's answer
    function (its own Session on the same graph)."""
    v1 = tf.compat.v1
    export = str(module_tmp / "tfmodel" / "1")
    rng = np.random.default_rng(3)
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 5], name="x")
        w = tf.Variable(rng.normal(size=(5, 2)).astype(np.float32), name="w")  # a resource variable
        logits = tf.matmul(x, w, name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        sess = v1.Session(graph=g)
        sess.run(v1.global_variables_initializer())
        v1.saved_model.simple_save(sess, export, {"x": x}, {"logits": logits, "probs": probs})

    def answer(xv):
        return dict(zip(("logits", "probs"), sess.run([logits, probs], {x: xv})))
    yield str(module_tmp / "tfmodel"), answer
    sess.close()


@pytest.fixture(scope="module")
def server(module_tmp, tf_model):
    srv = ServerProcess(module_tmp, "--model_name=tfmodel", f"--model_base_path={tf_model[0]}", rest=False)
    channel = grpc.insecure_channel(f"127.0.0.1:{srv.grpc_port}")
    srv.prediction = prediction_service_pb2_grpc.PredictionServiceStub(channel)
    srv.model = model_service_pb2_grpc.ModelServiceStub(channel)
    yield srv
    assert srv.terminate() == 0


def test_predict_with_tensorflow_serving_api(server, tf_model):
    x = np.random.default_rng(4).normal(size=(6, 5)).astype(np.float32)
    req = predict_pb2.PredictRequest()
    req.model_spec.name = "tfmodel"
    req.model_spec.signature_name = "serving_default"
    req.inputs["x"].CopyFrom(tf.make_tensor_proto(x))
    resp = server.prediction.Predict(req, timeout=60)
    assert resp.model_spec.version.value == 1
    want = tf_model[1](x)
    for key in ("logits", "probs"):
        np.testing.assert_allclose(tf.make_ndarray(resp.outputs[key]), want[key], rtol=1e-5, atol=1e-6)


def test_float_val_encoding_and_errors(server):
    """A tensor TensorFlow's clients write with float_val (not tensor_content) decodes too."""
    req = predict_pb2.PredictRequest()
    req.model_spec.name = "tfmodel"
    req.inputs["x"].CopyFrom(tf.make_tensor_proto([[1.0, 2.0, 3.0, 4.0, 5.0]], dtype=tf.float32))
    assert tf.make_ndarray(server.prediction.Predict(req, timeout=60).outputs["probs"]).shape == (1, 2)
    req.inputs["x"].CopyFrom(tf.make_tensor_proto([[1, 2]], dtype=tf.int32))
    with pytest.raises(grpc.RpcError) as info:
        server.prediction.Predict(req, timeout=60)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details() == "input 'x': expects float32, but int32 is provided"


def test_metadata_and_status_with_tensorflow_serving_api(server):
    meta = get_model_metadata_pb2.GetModelMetadataRequest(metadata_field=["signature_def"])
    meta.model_spec.name = "tfmodel"
    resp = server.prediction.GetModelMetadata(meta, timeout=60)
    sigs = get_model_metadata_pb2.SignatureDefMap()
    assert resp.metadata["signature_def"].Unpack(sigs)
    assert sorted(sigs.signature_def["serving_default"].outputs) == ["logits", "probs"]
    status = server.model.GetModelStatus(get_model_status_pb2.GetModelStatusRequest(
        model_spec={"name": "tfmodel"}), timeout=60)
    assert [(s.version, s.state) for s in status.model_version_status] == \
        [(1, get_model_status_pb2.ModelVersionStatus.AVAILABLE)]


def test_a_tf2_saved_model(module_tmp):
    """tf.saved_model.save of a tf.Module (function library, resource variables), served and
    answered as the module answers."""
    rng = np.random.default_rng(8)

    class Dense(tf.Module):
        def __init__(self):
            self.w = tf.Variable(rng.normal(size=(4, 3)).astype(np.float32))
            self.b = tf.Variable(rng.normal(size=(3,)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="features")])
        def __call__(self, features):
            return {"scores": tf.nn.relu(tf.matmul(features, self.w) + self.b)}

    module = Dense()
    tf.saved_model.save(module, str(module_tmp / "tf2" / "7"), signatures={"serving_default": module.__call__})
    srv = ServerProcess(module_tmp, "--model_name=tf2", f"--model_base_path={module_tmp / 'tf2'}")
    try:
        stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(f"127.0.0.1:{srv.grpc_port}"))
        x = rng.normal(size=(3, 4)).astype(np.float32)
        req = predict_pb2.PredictRequest()
        req.model_spec.name = "tf2"
        req.inputs["features"].CopyFrom(tf.make_tensor_proto(x))
        resp = stub.Predict(req, timeout=60)
        assert resp.model_spec.version.value == 7
        want = module(tf.constant(x))["scores"].numpy()
        np.testing.assert_allclose(tf.make_ndarray(resp.outputs["scores"]), want, rtol=1e-5, atol=1e-6)
        status, doc = srv.http("POST", "/v1/models/tf2:predict", {"instances": x.tolist()})
        assert status == 200
        np.testing.assert_allclose(doc["predictions"], want, rtol=1e-5, atol=1e-6)
    finally:
        assert srv.terminate() == 0
