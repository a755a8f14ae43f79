"""TensorFlow Serving's REST API, against a real `opforge serve` process (--model_name /
--model_base_path, no batching) over plain HTTP: answers checked against NumPy on random data,
every error's status and body, and a server that keeps serving (and does not grow) through
bad requests."""

from __future__ import annotations

import http.client
import json
import socket

import numpy as np
import pytest

from serving_helpers import ServerProcess, linear_reference, publish, write_linear


@pytest.fixture(scope="module")
def server(module_tmp):
    base = str(module_tmp / "lin")
    weights = {}
    for v in (1, 2):
        publish(base, v, lambda d, v=v: weights.__setitem__(v, write_linear(d, seed=v)))
    srv = ServerProcess(module_tmp, "--model_name=lin", f"--model_base_path={base}", "--max_request_bytes=100000",
                        grpc=False)
    srv.weights = weights
    yield srv
    assert srv.terminate() == 0


def test_row_format(server):
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    status, doc = server.http("POST", "/v1/models/lin:predict", {"instances": x.tolist()})
    assert status == 200, doc
    ref = linear_reference(server.weights[2], x)  # the latest version answers
    assert [sorted(p) for p in doc["predictions"]] == [["y", "z"]] * 5
    np.testing.assert_allclose([p["y"] for p in doc["predictions"]], ref["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose([p["z"] for p in doc["predictions"]], ref["z"], rtol=1e-5, atol=1e-5)


def test_columnar_format_and_signature_name(server):
    x = np.random.default_rng(2).normal(size=(3, 3)).astype(np.float32)
    status, doc = server.http("POST", "/v1/models/lin:predict", {"inputs": {"x": x.tolist()}})
    assert status == 200, doc
    ref = linear_reference(server.weights[2], x)
    np.testing.assert_allclose(doc["outputs"]["y"], ref["y"], rtol=1e-5, atol=1e-6)
    status, doc = server.http("POST", "/v1/models/lin:predict", {"signature_name": "sum", "inputs": x.tolist()})
    assert status == 200, doc
    np.testing.assert_allclose(doc["outputs"], ref["z"], rtol=1e-5, atol=1e-5)  # one output: the bare value
    status, doc = server.http("POST", "/v1/models/lin:predict", {"signature_name": "sum", "instances": x.tolist()})
    np.testing.assert_allclose(doc["predictions"], ref["z"], rtol=1e-5, atol=1e-5)


def test_a_version_by_number(server):
    x = np.random.default_rng(3).normal(size=(2, 3)).astype(np.float32)
    status, doc = server.http("POST", "/v1/models/lin/versions/2:predict", {"inputs": x.tolist()})
    assert status == 200
    np.testing.assert_allclose(doc["outputs"]["z"], linear_reference(server.weights[2], x)["z"], rtol=1e-5, atol=1e-5)


def test_status_and_metadata(server):
    status, doc = server.http("GET", "/v1/models/lin")
    assert status == 200
    assert doc == {"model_version_status": [{"version": "2", "state": "AVAILABLE",
                                             "status": {"error_code": "OK", "error_message": ""}}]}
    status, doc = server.http("GET", "/v1/models/lin/versions/2")
    assert status == 200 and doc["model_version_status"][0]["version"] == "2"
    status, doc = server.http("GET", "/v1/models/lin/metadata")
    assert status == 200
    assert doc["model_spec"] == {"name": "lin", "version": "2", "signature_name": ""}
    sigs = doc["metadata"]["signature_def"]
    assert sigs["@type"] == "type.googleapis.com/tensorflow.serving.SignatureDefMap"
    assert sorted(sigs["signature_def"]) == ["serving_default", "sum"]
    default = sigs["signature_def"]["serving_default"]
    assert default["method_name"] == "tensorflow/serving/predict"
    assert default["inputs"]["x"]["dtype"] == "DT_FLOAT"
    assert [d["size"] for d in default["inputs"]["x"]["tensor_shape"]["dim"]] == ["-1", "3"]
    assert sorted(default["outputs"]) == ["y", "z"]


def test_metrics_endpoint(server):
    status, text = server.http("GET", "/monitoring/prometheus/metrics")
    assert status == 200
    assert ':tensorflow:serving:request_count{model_name="lin",entrypoint="predict",status="ok"}' in text


@pytest.mark.parametrize("method, path, body, code, message", [
    ("POST", "/v1/models/lin:predict", b"{not json", 400, "JSON Parse error"),
    ("POST", "/v1/models/lin:predict", b"[1, 2]", 400, "the request body must be a JSON object"),
    ("POST", "/v1/models/lin:predict", {"instances": [["a", 1, 2]]}, 400, "JSON Value: \"a\" is not a float32"),
    ("POST", "/v1/models/lin:predict", {"instances": [[1, 2]]}, 400,
     "input 'x': shape [1, 2] does not match the signature's shape [?,3]"),
    ("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3], [1, 2]]}, 400, "the lists are ragged"),
    ("POST", "/v1/models/lin:predict", {"inputs": {"q": [[1, 2, 3]]}}, 400,
     "input tensor alias not found in signature: q. Inputs expected to be in the set {x}."),
    ("POST", "/v1/models/lin:predict", {"instances": [{"q": [1, 2, 3]}]}, 400, "JSON object: does not have named input: x"),
    ("POST", "/v1/models/lin:predict", {"signature_name": "nope", "instances": [[1, 2, 3]]}, 400,
     "Serving signature key \"nope\" not found."),
    ("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3]], "inputs": [[1, 2, 3]]}, 400,
     "Not both 'inputs' and 'instances' can be set"),
    ("POST", "/v1/models/lin:predict", {}, 400, "Missing 'inputs' or 'instances' key"),
    ("POST", "/v1/models/lin:classify", {"examples": [{"a": 1}]}, 400,
     "Expected classification signature method_name to be tensorflow/serving/classify. Was: tensorflow/serving/predict"),
    ("POST", "/v1/models/nope:predict", {"instances": [[1, 2, 3]]}, 404, "Servable not found for request: Latest(nope)"),
    ("POST", "/v1/models/lin/versions/7:predict", {"instances": [[1, 2, 3]]}, 404,
     "Servable not found for request: Specific(lin, 7)"),
    ("POST", "/v1/models/lin/labels/stable:predict", {"instances": [[1, 2, 3]]}, 400,
     "Unrecognized servable version label: stable"),
    ("GET", "/v1/models/nope", None, 404, "Could not find any versions of model nope"),
    ("GET", "/v1/models/lin/versions/1", None, 404, "Could not find version 1 of model lin"),
    ("GET", "/v1/models/lin:predict", None, 405, "Malformed request: GET /v1/models/lin:predict (use POST)"),
    ("GET", "/v2/whatever", None, 404, "Malformed request: GET /v2/whatever"),
    ("POST", "/v1/models/lin:predict", b"x" * 150000, 413,
     "Request body of 150000 bytes exceeds the limit of 100000 bytes (--max_request_bytes)"),
])
def test_errors(server, method, path, body, code, message):
    status, doc = server.http(method, path, body)
    assert status == code, doc
    assert set(doc) == {"error"} and message in doc["error"], doc


def test_far_oversized_payload_is_refused_unread(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
    conn.putrequest("POST", "/v1/models/lin:predict")
    conn.putheader("Content-Length", str(10 << 20))
    conn.endheaders()  # no body sent: waitress answers from the header alone
    resp = conn.getresponse()
    assert resp.status == 413
    conn.close()


def test_client_disconnects_mid_request(server):
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", server.rest_port)) as s:
            s.sendall(b"POST /v1/models/lin:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"instances\":")
    status, _ = server.http("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3]]})
    assert status == 200


def test_memory_is_stable_over_many_bad_requests(server):
    """10000 bad requests of several kinds on one connection: RSS
    after the second half within 2 MiB of after the first half (warm-up excluded)."""
    bad = [b"{not json", json.dumps({"instances": [[1, 2]]}).encode(), json.dumps({"inputs": {"q": 1}}).encode(),
           json.dumps({"instances": [["a", 1, 2]]}).encode()]
    conn = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)

    def burst(n):
        for i in range(n):
            status, _ = server.http("POST", "/v1/models/lin:predict" if i % 5 else "/v1/models/nope:predict",
                                    bad[i % len(bad)], conn=conn)
            assert status in (400, 404)
    burst(1000)
    before = server.rss_kib()
    burst(4500)
    middle = server.rss_kib()
    burst(4500)
    after = server.rss_kib()
    conn.close()
    assert after - middle < 2048, (before, middle, after)
    status, _ = server.http("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3]]})
    assert status == 200
