"""Load benchmark of `opforge serve`: closed-loop gRPC clients against a ResNet50 SavedModel.

Run: python bench/serving_load.py [--seconds 10] [--concurrency 1,8,32] [--model resnet50]
     [--no-tensorflow]
(the SavedModel is exported from bench/keras_models.py's frozen Keras ResNet50, random
weights, 224x224x3: TensorFlow exports it on first use into ~/.cache/opforge-bench; a cached
export is read without TensorFlow)

What is measured:

* The frozen GraphDef is imported into opforge and written as a SavedModel
  (SavedModelBuilder, signature serving_default: images [?, 224, 224, 3] -> probabilities), into
  a model base path as version 1.
* Servers, one at a time, each in a process of its own on localhost:
  - `opforge serve` without batching, and with --batching_parameters_file (max_batch_size 32,
    batch_timeout_micros 2000, one batch thread: the runtime's own thread pool uses the cores);
  - where TensorFlow is installed, the same server design backed by TensorFlow: this file's
    `--serve-tensorflow` child runs opforge.serving.Server (the same manager, batching and
    gRPC code) with a loader whose signatures run `tf.compat.v1.Session` on the SavedModel
    TensorFlow loads (tf.compat.v1.saved_model.loader.load). The difference between the two
    rows is the runtime, not the server.
* For each server and each concurrency C: C client threads in this process, each sending one
  Predict (one 224x224x3 image, tensor_content) and waiting for the answer before the next
  (closed loop), for --seconds after a warm-up; latency percentiles (p50, p99) over every
  request, throughput = requests / seconds, failed requests counted. With batching, the mean
  batch size comes from the server's metrics (REST /monitoring/prometheus/metrics).

The clients share the machine with the server (on a 2-core machine they take a real part of
it), equally for every row. The last thing printed is a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("SKBUILD_EDITABLE_VERBOSE", "0")  # an editable install's rebuild notes: not on stdout

import keras_models  # noqa: E402

BATCHING = """max_batch_size {{ value: {max_batch_size} }}
batch_timeout_micros {{ value: {batch_timeout_us} }}
num_batch_threads {{ value: {batch_threads} }}
max_enqueued_batches {{ value: 64 }}
"""


def _frozen_graph(model: str):
    """The frozen GraphDef bytes and metadata: exported (TensorFlow) or read from the cache."""
    spec = keras_models.MODELS[model]
    try:
        import tensorflow  # noqa: F401,PLC0415
    except ImportError:
        cache = keras_models.default_cache_dir()
        for folder in sorted(os.listdir(cache), reverse=True) if os.path.isdir(cache) else []:
            try:
                return keras_models.load(spec, folder[len("tf-"):])
            except FileNotFoundError:
                continue
        raise SystemExit(f"no TensorFlow and no cached export of {model} under {cache}") from None
    return keras_models.export(spec, verbose=True)


def export_saved_model(model: str, base_path: str) -> dict:
    """Writes the frozen model as SavedModel version 1 under base_path (with opforge)."""
    import opforge as of  # noqa: PLC0415
    data, meta = _frozen_graph(model)
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(data, name="")
    images, probabilities = g.get_tensor_by_name(meta["input"]), g.get_tensor_by_name(meta["output"])
    utils = of.saved_model.signature_def_utils
    with of.Session(graph=g) as s:
        builder = of.saved_model.builder.SavedModelBuilder(os.path.join(base_path, "1"))
        builder.add_meta_graph_and_variables(s, ["serve"], signature_def_map={
            "serving_default": utils.predict_signature_def({"images": images}, {"probabilities": probabilities})})
        builder.save()
    return meta


# ---------------------------------------------------------------- the TensorFlow-backed server


class _TFSpec:
    def __init__(self, info):
        from opforge.framework import dtypes  # noqa: PLC0415
        self.name = info.name
        self.dtype = dtypes.from_enum(info.dtype)
        self.shape = None if info.tensor_shape.unknown_rank else tuple(
            None if d.size < 0 else d.size for d in info.tensor_shape.dim)


class _TFSignature:
    """opforge.saved_model's Signature interface over a tf.compat.v1.Session."""

    def __init__(self, name, signature_def, session):
        from opforge.codegen._proto import meta_graph_pb2  # noqa: PLC0415
        self.name, self.method_name = name, signature_def.method_name
        self.signature_def = meta_graph_pb2.SignatureDef.FromString(signature_def.SerializeToString())
        self.inputs = {k: _TFSpec(v) for k, v in signature_def.inputs.items()}
        self.outputs = {k: _TFSpec(v) for k, v in signature_def.outputs.items()}
        self._session = session

    def run(self, feeds, output_keys=None):
        keys = sorted(self.outputs) if output_keys is None else list(output_keys)
        values = self._session.run([self.outputs[k].name for k in keys],
                                   {self.inputs[k].name: v for k, v in feeds.items()})
        return dict(zip(keys, values))


class _TFModel:
    def __init__(self, path, tags):
        import tensorflow as tf  # noqa: PLC0415
        self.export_dir = path
        self.session = tf.compat.v1.Session(graph=tf.Graph())
        meta = tf.compat.v1.saved_model.loader.load(self.session, list(tags), path)
        self.signatures = {k: _TFSignature(k, v, self.session) for k, v in meta.signature_def.items()
                           if not k.startswith("__")}

    def close(self):
        self.session.close()


def serve_tensorflow(args) -> int:
    """The child server process: opforge.serving.Server with TensorFlow running the model."""
    from opforge.serving import Server, ServerOptions  # noqa: PLC0415
    from opforge.serving.config import read_batching_parameters, single_model_config  # noqa: PLC0415
    batching = read_batching_parameters(args.batching) if args.batching else None
    server = Server(ServerOptions(models=single_model_config("resnet", args.model_base_path), port=args.port,
                                  rest_api_port=args.rest_port, host="127.0.0.1", batching=batching,
                                  grpc_max_threads=64), loader=_TFModel)
    server.start()
    print(f"opforge serve: ready grpc_port={server.grpc_port} rest_port={server.rest_port}", flush=True)
    server.wait_for_signal()
    return 0


# ---------------------------------------------------------------- clients


def _free_port() -> int:
    import socket  # noqa: PLC0415
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(backend: str, base_path: str, batching_file: str | None):
    grpc_port, rest_port = _free_port(), _free_port()
    if backend == "opforge":
        cmd = [sys.executable, "-m", "opforge.cli", "serve", f"--port={grpc_port}", f"--rest_api_port={rest_port}",
               "--host=127.0.0.1", "--model_name=resnet", f"--model_base_path={base_path}", "--grpc_max_threads=64"]
        if batching_file:
            cmd.append(f"--batching_parameters_file={batching_file}")
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--serve-tensorflow", f"--port={grpc_port}",
               f"--rest-port={rest_port}", f"--model_base_path={base_path}"]
        if batching_file:
            cmd.append(f"--batching={batching_file}")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    while line and not line.startswith("opforge serve:"):  # anything printed before the server's line
        line = proc.stdout.readline()
    if not line.startswith("opforge serve: ready"):
        proc.kill()
        raise SystemExit(f"{backend} server did not start: {line!r}")
    return proc, grpc_port, rest_port


def _metric(rest_port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{rest_port}/monitoring/prometheus/metrics") as f:
        text = f.read().decode()
    return sum(float(v) for v in re.findall(rf"^{name}{{[^}}]*}} (\S+)$", text, re.M))


def closed_loop(stub, request, concurrency: int, seconds: float) -> dict:
    """concurrency clients, each calling Predict back to back for `seconds`."""
    latencies, failures = [], [0]
    lock = threading.Lock()
    start = threading.Barrier(concurrency + 1)
    stop_at = [0.0]

    def client():
        mine = []
        start.wait()
        while time.perf_counter() < stop_at[0]:
            t0 = time.perf_counter()
            try:
                stub.Predict(request, timeout=120)
                mine.append(time.perf_counter() - t0)
            except Exception:  # noqa: BLE001 (counted: the benchmark reports failed requests)
                with lock:
                    failures[0] += 1
        with lock:
            latencies.extend(mine)
    threads = [threading.Thread(target=client) for _ in range(concurrency)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    stop_at[0] = t0 + seconds
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    lat = np.array(latencies) * 1e3
    return {"requests": len(latencies), "failed": failures[0], "rps": len(latencies) / elapsed,
            "p50": float(np.percentile(lat, 50)) if lat.size else float("nan"),
            "p99": float(np.percentile(lat, 99)) if lat.size else float("nan")}


def bench_server(backend, base_path, batching_file, concurrencies, seconds, request) -> list[dict]:
    import grpc  # noqa: PLC0415

    from opforge.codegen._proto import grpc_module  # noqa: PLC0415
    proc, grpc_port, rest_port = start_server(backend, base_path, batching_file)
    rows = []
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}", options=[("grpc.max_send_message_length", -1)])
        stub = grpc_module("tensorflow_serving/apis/prediction_service").PredictionServiceStub(channel)
        for _ in range(3):  # warm-up: the first run builds the plan
            stub.Predict(request, timeout=300)
        for c in concurrencies:
            closed_loop(stub, request, c, min(2.0, seconds / 4))  # warm-up at this concurrency
            runs0, reqs0 = (_metric(rest_port, "opforge_serving_session_runs_total"),
                            _metric(rest_port, "opforge_serving_batched_requests_total"))
            r = closed_loop(stub, request, c, seconds)
            runs = _metric(rest_port, "opforge_serving_session_runs_total") - runs0
            reqs = _metric(rest_port, "opforge_serving_batched_requests_total") - reqs0
            r.update(backend=backend, batching="on" if batching_file else "off", clients=c,
                     batch=reqs / runs if runs else float("nan"))
            print(f"  {backend:<10} batching {r['batching']:<3} {c:>2} clients: {r['rps']:7.2f} req/s  "
                  f"p50 {r['p50']:8.1f} ms  p99 {r['p99']:8.1f} ms  mean batch {r['batch']:5.1f}  "
                  f"failed {r['failed']}", flush=True)
            rows.append(r)
        channel.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(120)
    return rows


def version_swap(base_path: str, request, clients: int, seconds: float) -> dict:
    """Closed-loop clients on `opforge serve` (polling every 0.2 s) while version 2 is published
    (copied beside the base path, renamed in): requests, failures, the versions that answered."""
    import shutil  # noqa: PLC0415

    import grpc  # noqa: PLC0415

    from opforge.codegen._proto import grpc_module  # noqa: PLC0415
    grpc_port, rest_port = _free_port(), _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "opforge.cli", "serve", f"--port={grpc_port}",
                             f"--rest_api_port={rest_port}", "--host=127.0.0.1", "--model_name=resnet",
                             f"--model_base_path={base_path}", "--file_system_poll_wait_seconds=0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    while line and not line.startswith("opforge serve:"):
        line = proc.stdout.readline()
    stub = grpc_module("tensorflow_serving/apis/prediction_service").PredictionServiceStub(
        grpc.insecure_channel(f"127.0.0.1:{grpc_port}"))
    stub.Predict(request, timeout=300)
    versions, failed, count = set(), [0], [0]
    lock = threading.Lock()
    stop = threading.Event()

    def client():
        while not stop.is_set():
            try:
                v = stub.Predict(request, timeout=120).model_spec.version.value
                with lock:
                    versions.add(v)
                    count[0] += 1
            except Exception:  # noqa: BLE001 (counted)
                with lock:
                    failed[0] += 1
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    try:
        time.sleep(seconds / 2)
        staging = os.path.join(os.path.dirname(base_path), "staging-2")
        shutil.copytree(os.path.join(base_path, "1"), staging)
        os.rename(staging, os.path.join(base_path, "2"))
        end = time.monotonic() + 120
        while 2 not in versions and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(seconds / 2)
    finally:
        stop.set()
        for t in threads:
            t.join()
        proc.send_signal(signal.SIGTERM)
        proc.wait(120)
        shutil.rmtree(os.path.join(base_path, "2"), ignore_errors=True)
    return {"requests": count[0], "failed": failed[0], "versions": versions}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="resnet50", choices=list(keras_models.MODELS))
    p.add_argument("--seconds", type=float, default=10.0, help="measured seconds per concurrency [10]")
    p.add_argument("--concurrency", default="1,8,32")
    p.add_argument("--no-tensorflow", action="store_true", help="skip the TensorFlow-backed server")
    p.add_argument("--max-batch-size", type=int, default=32)
    p.add_argument("--batch-timeout-us", type=int, default=2000)
    p.add_argument("--batch-threads", type=int, default=1)
    p.add_argument("--no-swap", action="store_true", help="skip the version swap under load")
    p.add_argument("--serve-tensorflow", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--rest-port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--model_base_path", help=argparse.SUPPRESS)
    p.add_argument("--batching", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve_tensorflow:
        return serve_tensorflow(args)
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    from opforge.serving.tensors import array_to_proto  # noqa: PLC0415
    from opforge.codegen._proto import predict_pb2  # noqa: PLC0415
    with tempfile.TemporaryDirectory(prefix="opforge-serving-bench-") as tmp:
        base = os.path.join(tmp, "resnet")
        meta = export_saved_model(args.model, base)
        batching_file = os.path.join(tmp, "batching.config")
        with open(batching_file, "w") as f:
            f.write(BATCHING.format(max_batch_size=args.max_batch_size, batch_timeout_us=args.batch_timeout_us,
                                    batch_threads=args.batch_threads))
        request = predict_pb2.PredictRequest()
        request.model_spec.name = "resnet"
        request.inputs["images"].CopyFrom(array_to_proto(keras_models.sample_input(meta, 1)))
        backends = ["opforge"]
        if not args.no_tensorflow:
            try:
                import tensorflow  # noqa: F401,PLC0415
                backends.append("tensorflow")
            except ImportError:
                print("(TensorFlow not installed: no TensorFlow-backed rows)")
        rows = []
        for backend in backends:
            for batching in (None, batching_file):
                rows += bench_server(backend, base, batching, concurrencies, args.seconds, request)
        swap = None if args.no_swap else version_swap(base, request, clients=8, seconds=args.seconds)
    print(f"\n{args.model} SavedModel, closed-loop gRPC clients, {args.seconds:g} s per row, "
          f"{os.cpu_count()} cores\n")
    print("| server | batching | clients | req/s | p50 ms | p99 ms | mean batch | failed |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['backend']} | {r['batching']} | {r['clients']} | {r['rps']:.2f} | {r['p50']:.1f} | "
              f"{r['p99']:.1f} | {r['batch']:.1f} | {r['failed']} |")
    if swap is not None:
        print(f"\nversion swap under load (opforge, batching off, 8 clients, version 1 -> 2): {swap['requests']} "
              f"requests, {swap['failed']} failed, versions answering: {sorted(swap['versions'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
