"""Versions and lifecycle against real `opforge serve` processes: a new version is picked up
by polling and the old one drained while clients keep calling (no failed request), server-side
batching merges concurrent requests into one Session run, deadlines, graceful shutdown."""

from __future__ import annotations

import re
import shutil
import signal
import threading
import time

import grpc
import numpy as np
import pytest
from serving_helpers import ServerProcess, linear_reference, publish, wait_for, write_linear

from opforge.codegen._proto import get_model_status_pb2, predict_pb2
from opforge.serving.tensors import array_from_proto, array_to_proto


def _request(x, name="lin"):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = name
    req.inputs["x"].CopyFrom(array_to_proto(x))
    return req


def test_version_swap_under_load(tmp_path):
    base = str(tmp_path / "lin")
    weights = {}
    publish(base, 1, lambda d: weights.__setitem__(1, write_linear(d, seed=21)))
    srv = ServerProcess(tmp_path, "--model_name=lin", f"--model_base_path={base}",
                        "--file_system_poll_wait_seconds=0.2")
    prediction, model = srv.stubs()
    stop = threading.Event()
    seen, failures, counts = set(), [], [0]
    lock = threading.Lock()
    x = np.random.default_rng(5).normal(size=(3, 3)).astype(np.float32)

    def grpc_client():
        while not stop.is_set():
            try:
                resp = prediction.Predict(_request(x), timeout=30)
                v = resp.model_spec.version.value
                ref = linear_reference(weights[v], x)["z"]
                np.testing.assert_allclose(array_from_proto(resp.outputs["z"], "z"), ref, rtol=1e-5, atol=1e-5)
                with lock:
                    seen.add(v)
                    counts[0] += 1
            except Exception as e:  # any failure fails the test
                failures.append(repr(e))

    def rest_client():
        while not stop.is_set():
            status, doc = srv.http("POST", "/v1/models/lin:predict", {"inputs": x.tolist()})
            if status != 200:
                failures.append((status, doc))
            with lock:
                counts[0] += 1

    clients = [threading.Thread(target=grpc_client) for _ in range(3)] + [threading.Thread(target=rest_client)]
    for c in clients:
        c.start()
    try:
        wait_for(lambda: counts[0] > 20)
        publish(base, 2, lambda d: weights.__setitem__(2, write_linear(d, seed=22)))
        wait_for(lambda: 2 in seen)
        n = counts[0]
        wait_for(lambda: counts[0] > n + 20)  # keep calling version 2 while version 1 drains and unloads
        status = model.GetModelStatus(get_model_status_pb2.GetModelStatusRequest(model_spec={"name": "lin"}), timeout=30)
        wait_for(lambda: [s.version for s in model.GetModelStatus(
            get_model_status_pb2.GetModelStatusRequest(model_spec={"name": "lin"}), timeout=30).model_version_status] == [2])
        assert status.model_version_status[0].version == 2
        # Deleting the served version rolls back to the latest left on disk (TensorFlow Serving's
        # policy), then a newer one takes over; clients see no failure throughout.
        shutil.rmtree(base + "/2")
        wait_for(lambda: [s.version for s in model.GetModelStatus(
            get_model_status_pb2.GetModelStatusRequest(model_spec={"name": "lin"}), timeout=30).model_version_status
            if s.state == get_model_status_pb2.ModelVersionStatus.AVAILABLE] == [1])
        publish(base, 3, lambda d: weights.__setitem__(3, write_linear(d, seed=23)))
        wait_for(lambda: 3 in seen)
    finally:
        stop.set()
        for c in clients:
            c.join(60)
        rc = srv.terminate()
    assert failures == []
    assert seen == {1, 2, 3} and rc == 0
    log = srv.read_log()
    assert "model lin version 1 unloaded" in log and "model lin version 2 unloaded" in log


def test_a_version_that_fails_to_load_is_reported_and_the_old_one_serves(tmp_path):
    base = str(tmp_path / "lin")
    publish(base, 1, lambda d: write_linear(d, seed=1))
    srv = ServerProcess(tmp_path, "--model_name=lin", f"--model_base_path={base}",
                        "--file_system_poll_wait_seconds=0.1", grpc=False)
    try:
        broken = tmp_path / "lin" / "2"
        broken.mkdir()
        (broken / "saved_model.pb").write_bytes(b"\x08garbage")
        doc = wait_for(lambda: (lambda r: r[1] if len(r[1].get("model_version_status", [])) == 2 else None)(
            srv.http("GET", "/v1/models/lin")))
        failed = doc["model_version_status"][0]
        assert failed["version"] == "2" and failed["state"] == "END"
        assert failed["status"]["error_code"] != "OK" and failed["status"]["error_message"]
        status, doc = srv.http("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3]]})
        assert status == 200
        shutil.rmtree(broken)  # replaced by a good version 2: loaded, and version 1 retired
        publish(base, 2, lambda d: write_linear(d, seed=2))
        wait_for(lambda: srv.http("GET", "/v1/models/lin")[1] == {"model_version_status": [
            {"version": "2", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]})
    finally:
        assert srv.terminate() == 0


BATCHING = """
max_batch_size { value: 8 }
batch_timeout_micros { value: 400000 }
num_batch_threads { value: 1 }
max_enqueued_batches { value: 4 }
allowed_batch_sizes: 4
allowed_batch_sizes: 8
"""


@pytest.fixture(scope="module")
def batching_server(module_tmp):
    base = str(module_tmp / "lin")
    weights = {}
    publish(base, 1, lambda d: weights.__setitem__(1, write_linear(d, seed=31)))
    params = module_tmp / "batching.config"
    params.write_text(BATCHING)
    srv = ServerProcess(module_tmp, "--model_name=lin", f"--model_base_path={base}", "--enable_batching",
                        f"--batching_parameters_file={params}", "--rest_api_timeout_in_ms=150")
    srv.weights = weights
    srv.prediction, _ = srv.stubs()
    yield srv
    assert srv.terminate() == 0


def _counter(srv, name):
    _, text = srv.http("GET", "/monitoring/prometheus/metrics")
    m = re.search(rf'^{name}{{model_name="lin",version="1",signature="serving_default"}} (\S+)$', text, re.M)
    return float(m.group(1)) if m else 0.0


def _concurrent_predicts(srv, xs):
    results = [None] * len(xs)

    def call(i):
        results[i] = srv.prediction.Predict(_request(xs[i]), timeout=30)
    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_batching_merges_concurrent_requests(batching_server):
    srv = batching_server
    runs0, requests0 = _counter(srv, "opforge_serving_session_runs_total"), \
        _counter(srv, "opforge_serving_batched_requests_total")
    rng = np.random.default_rng(9)
    xs = [rng.normal(size=(1, 3)).astype(np.float32) for _ in range(8)]  # 8 rows: a full batch, run at once
    t0 = time.monotonic()
    results = _concurrent_predicts(srv, xs)
    assert time.monotonic() - t0 < 5
    for x, r in zip(xs, results):
        ref = linear_reference(srv.weights[1], x)
        np.testing.assert_allclose(array_from_proto(r.outputs["y"], "y"), ref["y"], rtol=1e-5, atol=1e-6)
    assert _counter(srv, "opforge_serving_session_runs_total") - runs0 == 1
    assert _counter(srv, "opforge_serving_batched_requests_total") - requests0 == 8


def test_a_partial_batch_is_padded_to_an_allowed_size(batching_server):
    srv = batching_server
    padded0, rows0 = _counter(srv, "opforge_serving_batch_padded_rows_total"), \
        _counter(srv, "opforge_serving_batch_rows_total")
    results = _concurrent_predicts(srv, [np.ones((1, 3), np.float32)] * 3)  # waits the batch timeout
    assert all(r.outputs["y"].tensor_shape.dim[0].size == 1 for r in results)
    assert _counter(srv, "opforge_serving_batch_rows_total") - rows0 == 3
    assert _counter(srv, "opforge_serving_batch_padded_rows_total") - padded0 == 4


def test_a_call_without_deadline(batching_server):
    resp = batching_server.prediction.Predict(_request(np.ones((2, 3), np.float32)))  # no timeout
    assert resp.outputs["y"].tensor_shape.dim[0].size == 2


def test_rest_deadline_while_waiting_for_a_batch(batching_server):
    status, doc = batching_server.http("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3]]})
    assert status == 504 and doc == {"error": "Deadline exceeded while the request waited for its batch"}


def test_graceful_shutdown_finishes_requests_in_flight(batching_server, module_tmp):
    srv = ServerProcess(module_tmp, "--model_name=lin", f"--model_base_path={module_tmp / 'lin'}",
                        f"--batching_parameters_file={module_tmp / 'batching.config'}")
    prediction, _ = srv.stubs()
    result = {}

    def call():  # requests wait 0.4 s for their batch: in flight when SIGTERM arrives
        try:
            result["grpc"] = prediction.Predict(_request(np.ones((1, 3), np.float32)), timeout=30)
        except grpc.RpcError as e:
            result["grpc error"] = e

    def rest_call():
        result["rest"] = srv.http("POST", "/v1/models/lin:predict", {"instances": [[1, 2, 3]]})
    threads = [threading.Thread(target=call), threading.Thread(target=rest_call)]
    for t in threads:
        t.start()
    time.sleep(0.15)
    srv.proc.send_signal(signal.SIGTERM)
    for t in threads:
        t.join(30)
    assert srv.proc.wait(30) == 0
    assert "grpc error" not in result and result["grpc"].outputs["y"].tensor_shape.dim[0].size == 1
    assert result["rest"][0] == 200 and len(result["rest"][1]["predictions"]) == 1
    assert srv.proc.stdout.read().strip() == "opforge serve: stopped"
    with pytest.raises(grpc.RpcError) as info:
        prediction.Predict(_request(np.ones((1, 3), np.float32)), timeout=5)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
