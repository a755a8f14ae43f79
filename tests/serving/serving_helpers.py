"""Helpers of the serving tests: SavedModels written with opforge (random weights, their NumPy
answers), and a real `opforge serve` process on free localhost ports."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

import opforge as of


def write_linear(export_dir: str, seed: int) -> dict:
    """A SavedModel: y = relu(x @ w + b) ([None, 4]), z = sum(y, 1), from x: float32 [None, 3];
    signatures serving_default (y, z) and "sum" (z only). Returns its NumPy weights."""
    rng = np.random.default_rng(seed)
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 3], name="x")
        w = of.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        b = of.Variable(rng.normal(size=(4,)).astype(np.float32), name="b")
        y = of.nn.relu(of.matmul(x, w) + b, name="y")
        z = of.reduce_sum(y, axis=1, name="z")
        init = of.global_variables_initializer()
    utils = of.saved_model.signature_def_utils
    with of.Session(graph=g) as s:
        s.run(init)
        builder = of.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(s, ["serve"], signature_def_map={
            "serving_default": utils.predict_signature_def({"x": x}, {"y": y, "z": z}),
            "sum": utils.predict_signature_def({"x": x}, {"z": z})})
        builder.save()
        wv, bv = s.run([w.value(), b.value()])
    return {"w": wv, "b": bv}


def linear_reference(weights: dict, x: np.ndarray) -> dict:
    y = np.maximum(x @ weights["w"] + weights["b"], 0)
    return {"y": y, "z": y.sum(axis=1)}


def write_classifier(export_dir: str) -> None:
    """A SavedModel with classify and regress signatures taking serialized tf.Examples (input
    "inputs", string [None]) and answering one example: classes [["cat", "dog"]], scores
    [[0.25, 0.75]], regression [2.5]. (opforge has no ParseExample, nor a string op giving a
    batch size: the outputs are constants of batch size 1, so more examples are an error.)"""
    g = of.Graph()
    with g.as_default():
        examples = of.placeholder(of.string, [None], name="examples")
        scores = of.constant([[0.25, 0.75]], of.float32, name="scores")
        classes = of.constant([[b"cat", b"dog"]], name="classes")
        values = of.constant([2.5], of.float32, name="values")
    utils = of.saved_model.signature_def_utils
    with of.Session(graph=g) as s:
        builder = of.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(s, ["serve"], signature_def_map={
            "serving_default": utils.classification_signature_def(examples, classes, scores),
            "regress": utils.regression_signature_def(examples, values)})
        builder.save()


def publish(base: str, version: int, write) -> str:
    """Writes a version folder beside base, then renames it in (what a deployment does, so the
    server never sees half a SavedModel)."""
    os.makedirs(base, exist_ok=True)
    staging = os.path.join(os.path.dirname(base), f".staging-{os.path.basename(base)}-{version}")
    shutil.rmtree(staging, ignore_errors=True)
    write(staging)
    final = os.path.join(base, str(version))
    os.rename(staging, final)
    return final


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`opforge serve ARGS` on free ports; .grpc_port, .rest_port, .proc, .log (stderr)."""

    def __init__(self, tmp, *args, grpc: bool = True, rest: bool = True):
        self.grpc_port = free_port() if grpc else 0
        self.rest_port = free_port() if rest else 0
        self.log = os.path.join(str(tmp), f"server-{self.grpc_port}-{self.rest_port}.log")
        cmd = [sys.executable, "-m", "opforge.cli", "serve", f"--port={self.grpc_port}",
               f"--rest_api_port={self.rest_port}", "--host=127.0.0.1", *args]
        self._err = open(self.log, "w")
        # From a temporary folder: in the repository root the source folder opforge/ would shadow
        # the installed package.
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self._err, text=True,
                                     cwd=tempfile.gettempdir())
        line = self.proc.stdout.readline()
        while line and not line.startswith("opforge serve:"):  # anything printed before the server's line
            line = self.proc.stdout.readline()
        if not line.startswith("opforge serve: ready"):
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"server did not start: {line!r}\n{self.read_log()}")

    def read_log(self) -> str:
        with open(self.log) as f:
            return f.read()

    def terminate(self, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self._err.close()
        return rc

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    # ---- REST

    def http(self, method: str, path: str, body=None, conn: http.client.HTTPConnection | None = None):
        """(status, decoded JSON or text) of one request; body: a dict (sent as JSON) or bytes."""
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.rest_port, timeout=60)
        try:
            data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            raw = resp.read()
            try:
                return resp.status, json.loads(raw)
            except ValueError:
                return resp.status, raw.decode("utf-8", "replace")
        finally:
            if own:
                conn.close()

    # ---- gRPC

    def stubs(self):
        """(PredictionServiceStub, ModelServiceStub) from opforge's generated modules."""
        import grpc  # noqa: PLC0415

        from opforge.codegen._proto import grpc_module  # noqa: PLC0415
        channel = grpc.insecure_channel(f"127.0.0.1:{self.grpc_port}")
        prediction = grpc_module("tensorflow_serving/apis/prediction_service").PredictionServiceStub(channel)
        model = grpc_module("tensorflow_serving/apis/model_service").ModelServiceStub(channel)
        return prediction, model


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")
