"""The gRPC services (PredictionService, ModelService) through opforge's generated stubs,
against a real `opforge serve` process with two models from a --model_config_file (TensorFlow
Serving's text format: version policy, labels), and Classify / Regress over REST too."""

from __future__ import annotations

import grpc
import numpy as np
import pytest
from serving_helpers import ServerProcess, linear_reference, publish, write_classifier, write_linear

from opforge.codegen._proto import (
    classification_pb2,
    example_pb2,
    get_model_metadata_pb2,
    get_model_status_pb2,
    model_management_pb2,
    predict_pb2,
    regression_pb2,
)
from opforge.serving.tensors import array_from_proto, array_to_proto

CONFIG = """
model_config_list {
  config {
    name: "lin"
    base_path: "%s"
    model_platform: "tensorflow"
    model_version_policy { all {} }
    version_labels { key: "stable" value: 1 }
    version_labels { key: "canary" value: 2 }
  }
  config {
    name: "cls"
    base_path: "%s"
  }
}
"""


@pytest.fixture(scope="module")
def server(module_tmp):
    lin, cls = str(module_tmp / "lin"), str(module_tmp / "cls")
    weights = {}
    for v in (1, 2):
        publish(lin, v, lambda d, v=v: weights.__setitem__(v, write_linear(d, seed=10 + v)))
    publish(cls, 3, write_classifier)
    config = module_tmp / "models.config"
    config.write_text(CONFIG % (lin, cls))
    srv = ServerProcess(module_tmp, f"--model_config_file={config}")
    srv.weights = weights
    srv.prediction, srv.model = srv.stubs()
    yield srv
    assert srv.terminate() == 0


def _predict_request(name, x, version=None, label=None, signature=""):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = name
    req.model_spec.signature_name = signature
    if version is not None:
        req.model_spec.version.value = version
    if label is not None:
        req.model_spec.version_label = label
    req.inputs["x"].CopyFrom(array_to_proto(x))
    return req


@pytest.mark.parametrize("version, label, want", [(None, None, 2), (1, None, 1), (2, None, 2),
                                                   (None, "stable", 1), (None, "canary", 2)])
def test_predict_by_version_and_label(server, version, label, want):
    x = np.random.default_rng(want).normal(size=(4, 3)).astype(np.float32)
    resp = server.prediction.Predict(_predict_request("lin", x, version, label), timeout=30)
    assert resp.model_spec.name == "lin" and resp.model_spec.version.value == want
    assert resp.model_spec.signature_name == "serving_default"
    ref = linear_reference(server.weights[want], x)
    assert sorted(resp.outputs) == ["y", "z"]
    for k in ("y", "z"):
        np.testing.assert_allclose(array_from_proto(resp.outputs[k], k), ref[k], rtol=1e-5, atol=1e-5)


def test_output_filter(server):
    x = np.ones((2, 3), np.float32)
    req = _predict_request("lin", x)
    req.output_filter.append("z")
    resp = server.prediction.Predict(req, timeout=30)
    assert list(resp.outputs) == ["z"]


def test_metadata(server):
    req = get_model_metadata_pb2.GetModelMetadataRequest(metadata_field=["signature_def"])
    req.model_spec.name = "lin"
    req.model_spec.version.value = 1
    resp = server.prediction.GetModelMetadata(req, timeout=30)
    assert resp.model_spec.name == "lin" and resp.model_spec.version.value == 1
    sigs = get_model_metadata_pb2.SignatureDefMap()
    assert resp.metadata["signature_def"].Unpack(sigs)
    assert sorted(sigs.signature_def) == ["serving_default", "sum"]
    assert sigs.signature_def["sum"].method_name == "tensorflow/serving/predict"
    assert list(sigs.signature_def["sum"].outputs) == ["z"]


def test_model_status(server):
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = "lin"
    resp = server.model.GetModelStatus(req, timeout=30)
    assert [(s.version, s.state) for s in resp.model_version_status] == \
        [(2, get_model_status_pb2.ModelVersionStatus.AVAILABLE), (1, get_model_status_pb2.ModelVersionStatus.AVAILABLE)]
    assert resp.model_version_status[0].status.error_code == 0
    req.model_spec.name = "cls"
    assert [s.version for s in server.model.GetModelStatus(req, timeout=30).model_version_status] == [3]


def _examples(n):
    inp = classification_pb2.ClassificationRequest().input
    for i in range(n):
        ex = example_pb2.Example()
        ex.features.feature["x"].float_list.value.extend([float(i), 1.0])
        inp.example_list.examples.append(ex)
    return inp


def test_classify_and_regress(server):
    req = classification_pb2.ClassificationRequest(input=_examples(1))
    req.model_spec.name = "cls"
    resp = server.prediction.Classify(req, timeout=30)
    assert resp.model_spec.version.value == 3
    assert [(c.label, c.score) for c in resp.result.classifications[0].classes] == [("cat", 0.25), ("dog", 0.75)]
    rreq = regression_pb2.RegressionRequest(input=_examples(1))
    rreq.model_spec.name = "cls"
    rreq.model_spec.signature_name = "regress"
    assert [r.value for r in server.prediction.Regress(rreq, timeout=30).result.regressions] == [2.5]


def test_classify_and_regress_over_rest(server):
    status, doc = server.http("POST", "/v1/models/cls:classify", {"examples": [{"x": [1.0, 2.0], "tag": "a"}]})
    assert status == 200, doc
    assert doc == {"result": [[["cat", 0.25], ["dog", 0.75]]]}
    status, doc = server.http("POST", "/v1/models/cls/versions/3:regress",
                              {"signature_name": "regress", "context": {"c": 1}, "examples": [{"x": 1}]})
    assert status == 200 and doc == {"result": [2.5]}, doc
    status, doc = server.http("POST", "/v1/models/cls:classify", {"examples": []})
    assert status == 400 and doc == {"error": "Request must have a non-empty 'examples' list"}


def _code(call, *args):
    with pytest.raises(grpc.RpcError) as info:
        call(*args, timeout=30)
    return info.value.code(), info.value.details()


def test_errors(server):
    x = np.ones((2, 3), np.float32)
    assert _code(server.prediction.Predict, _predict_request("nope", x)) == \
        (grpc.StatusCode.NOT_FOUND, "Servable not found for request: Latest(nope)")
    assert _code(server.prediction.Predict, _predict_request("lin", x, version=9)) == \
        (grpc.StatusCode.NOT_FOUND, "Servable not found for request: Specific(lin, 9)")
    assert _code(server.prediction.Predict, _predict_request("lin", x.astype(np.float64))) == \
        (grpc.StatusCode.INVALID_ARGUMENT, "input 'x': expects float32, but float64 is provided")
    assert _code(server.prediction.Predict, _predict_request("lin", x[:, :2])) == \
        (grpc.StatusCode.INVALID_ARGUMENT, "input 'x': shape [2, 2] does not match the signature's shape [?,3]")
    assert _code(server.prediction.Predict, _predict_request("lin", x, signature="nope")) == \
        (grpc.StatusCode.FAILED_PRECONDITION, "Serving signature key \"nope\" not found.")
    bad = _predict_request("lin", x)
    bad.inputs["x"].tensor_content = b"\x00" * 5
    code, details = _code(server.prediction.Predict, bad)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "tensor_content has 5 bytes" in details
    extra = _predict_request("lin", x)
    extra.inputs["q"].CopyFrom(array_to_proto(x))
    assert _code(server.prediction.Predict, extra) == (
        grpc.StatusCode.INVALID_ARGUMENT, "input size does not match signature: 2!=1 len({q,x}) != len({x}). "
                                          "Sent extra: {q}. Missing but required: {}.")
    filt = _predict_request("lin", x)
    filt.output_filter.append("w")
    assert _code(server.prediction.Predict, filt)[0] == grpc.StatusCode.INVALID_ARGUMENT
    req = classification_pb2.ClassificationRequest(input=_examples(2))
    req.model_spec.name = "cls"
    code, details = _code(server.prediction.Classify, req)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "Expected output Tensor 'classes' of shape [batch_size 2" in details
    req = classification_pb2.ClassificationRequest()
    req.model_spec.name = "cls"
    assert _code(server.prediction.Classify, req) == (grpc.StatusCode.INVALID_ARGUMENT, "Input is empty.")
    meta = get_model_metadata_pb2.GetModelMetadataRequest(metadata_field=["other"])
    meta.model_spec.name = "lin"
    assert _code(server.prediction.GetModelMetadata, meta) == \
        (grpc.StatusCode.INVALID_ARGUMENT, "Metadata field other is not supported")
    status = get_model_status_pb2.GetModelStatusRequest()
    status.model_spec.name = "nope"
    assert _code(server.model.GetModelStatus, status) == \
        (grpc.StatusCode.NOT_FOUND, "Could not find any versions of model nope")
    # the server serves on
    assert server.prediction.Predict(_predict_request("lin", x), timeout=30).model_spec.version.value == 2


def test_oversized_message_is_refused(server, module_tmp):
    small = ServerProcess(module_tmp, "--model_name=lin", f"--model_base_path={module_tmp / 'lin'}",
                          "--max_request_bytes=10000", rest=False)
    try:
        prediction, _ = small.stubs()
        big = _predict_request("lin", np.ones((1000, 3), np.float32))
        assert _code(prediction.Predict, big)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert prediction.Predict(_predict_request("lin", np.ones((1, 3), np.float32)), timeout=30).outputs
    finally:
        assert small.terminate() == 0


def test_reload_config_adds_and_removes_models(server, module_tmp):
    from opforge.serving.config import ModelServerConfig
    config = ModelServerConfig()
    config.model_config_list.config.add(name="lin2", base_path=str(module_tmp / "lin"))
    config.model_config_list.config.add(name="cls", base_path=str(module_tmp / "cls"))
    resp = server.model.HandleReloadConfigRequest(model_management_pb2.ReloadConfigRequest(config=config), timeout=60)
    assert resp.status.error_code == 0
    x = np.ones((1, 3), np.float32)
    assert server.prediction.Predict(_predict_request("lin2", x), timeout=30).model_spec.version.value == 2
    assert _code(server.prediction.Predict, _predict_request("lin", x))[0] == grpc.StatusCode.NOT_FOUND
    bad = ModelServerConfig()
    bad.model_config_list.config.add(name="a")
    assert _code(server.model.HandleReloadConfigRequest, model_management_pb2.ReloadConfigRequest(config=bad)) == \
        (grpc.StatusCode.INVALID_ARGUMENT, "model config: model 'a' has no base_path")
