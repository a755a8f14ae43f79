"""A frozen Keras model on the GPU (a program, not a test): run on a machine with an NVIDIA GPU.

    python bench/gpu/bench_gpu_model.py [--model mobilenet_v2] [--batch 32] [--cache DIR]

The model is a GraphDef frozen from keras.applications by bench/keras_models.py (export it
where TensorFlow is installed; this program reads the cached export and needs no TensorFlow).
It is imported under ``of.device("/gpu:0")`` and run by a Session on a seeded random batch.
Prints, measured in the same run:
  * the largest error of the GPU's logits against the same graph run on the CPU, relative to
    the logits' scale (bench/keras_models.rel_diff);
  * the host <-> device tensor copies per run (of.config.memory_stats: the fed batch in, the
    fetched output back, nothing else when the whole graph runs on the GPU), and the nodes the
    plan left on the CPU;
  * the median time of a Session.run (feed from NumPy, fetch to NumPy) against the same
    architecture in torchvision on the same card, float32, cuDNN with TF32 off (opforge's
    float32 GEMMs do not use TF32) and on (PyTorch's default for convolutions), both also from
    NumPy to NumPy; and the time of the same Session.run on the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import keras_models  # noqa: E402
from _common import optional  # noqa: E402

import opforge as of  # noqa: E402
from opforge import _C  # noqa: E402

TORCHVISION_NAMES = {"mobilenet_v2": "mobilenet_v2", "resnet50": "resnet50"}


def find_export(name: str, cache: str | None):
    """(GraphDef bytes, meta) of the newest cached export of `name` under `cache`."""
    roots = [cache] if cache else [keras_models.default_cache_dir(), ".gpu_models"]
    for root in roots:
        if not root or not os.path.isdir(root):
            continue
        for dirpath, _, files in sorted(os.walk(root), reverse=True):
            for f in sorted(files):
                if f.startswith(name + "-") and f.endswith(".json"):
                    meta = json.load(open(os.path.join(dirpath, f)))
                    with open(os.path.join(dirpath, f[:-5] + ".pb"), "rb") as fh:
                        return fh.read(), meta
    raise FileNotFoundError(f"no cached export of {name} under {roots} (run bench/keras_models.py where "
                            "TensorFlow is installed and copy the .pb and .json)")


def median_time(fn, warmup: int = 3, runs: int = 30) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def session_on(gd_bytes: bytes, meta: dict, device: str | None):
    g = of.Graph()
    with g.as_default():
        if device:
            with of.device(device):
                of.import_graph_def(gd_bytes, name="")
        else:
            of.import_graph_def(gd_bytes, name="")
    sess = of.Session(graph=g)
    return sess, g.get_tensor_by_name(meta["input"]), g.get_tensor_by_name(meta["logits"] or meta["output"])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mobilenet_v2")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--cache", default=None)
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args()
    if of.config.num_gpus() == 0:
        print(f"no GPU: {_C.gpu_unavailable_reason()}")
        return 1
    gd, meta = find_export(args.model, args.cache)
    x = keras_models.sample_input(meta, args.batch)
    print(f"model {args.model} (TF {meta['tensorflow']}, {meta['parameters']} parameters), batch {args.batch}, "
          f"device {_C.gpu_device_name(0)}")

    gpu_sess, gx, gy = session_on(gd, meta, "/gpu:0")
    cpu_sess, cx, cy = session_on(gd, meta, None)
    got = gpu_sess.run(gy, {gx: x})
    want = cpu_sess.run(cy, {cx: x})
    err = keras_models.rel_diff(got, want)
    print(f"GPU vs CPU logits: max error / scale = {err:.2e} (goal < 1e-4)")

    before = of.config.memory_stats("/gpu:0")
    n = 5
    for _ in range(n):
        gpu_sess.run(gy, {gx: x})
    after = of.config.memory_stats("/gpu:0")
    per_run = {k: (after[k] - before[k]) / n for k in ("copies_to_device", "bytes_to_device", "copies_to_host",
                                                        "bytes_to_host")}
    print(f"per run: {per_run['copies_to_device']:.0f} copies to the GPU ({per_run['bytes_to_device'] / 1e6:.1f} MB), "
          f"{per_run['copies_to_host']:.0f} back ({per_run['bytes_to_host'] / 1e6:.3f} MB) "
          f"(input {x.nbytes / 1e6:.1f} MB; goal: 1 and 1)")

    t_gpu = median_time(lambda: gpu_sess.run(gy, {gx: x}), runs=args.runs)
    t_cpu = median_time(lambda: cpu_sess.run(cy, {cx: x}), warmup=1, runs=3)
    print(f"opforge Session.run on the GPU: {t_gpu * 1e3:8.2f} ms   (CPU, {os.cpu_count()} cores: "
          f"{t_cpu * 1e3:.1f} ms)")

    torch = optional("torch")
    tv = optional("torchvision")
    if torch is None or tv is None or not torch.cuda.is_available() or args.model not in TORCHVISION_NAMES:
        print("torch / torchvision with CUDA not available: no comparison")
        return 0 if err < 1e-4 and per_run["copies_to_device"] == 1 else 1
    torch.backends.cudnn.benchmark = True
    model = getattr(tv.models, TORCHVISION_NAMES[args.model])(weights=None).cuda().eval()
    xt = np.ascontiguousarray(x.transpose(0, 3, 1, 2))

    def torch_run(channels_last):
        with torch.inference_mode():
            t = torch.from_numpy(xt).cuda()
            if channels_last:
                t = t.contiguous(memory_format=torch.channels_last)
            return model(t).cpu().numpy()

    for tf32 in (False, True):
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for cl in (False, True):
            model = model.to(memory_format=torch.channels_last if cl else torch.contiguous_format)
            t = median_time(lambda: torch_run(cl), runs=args.runs)
            print(f"torchvision {args.model} (TF32 {'on ' if tf32 else 'off'}, "
                  f"{'channels_last' if cl else 'NCHW'}): {t * 1e3:8.2f} ms   opforge / torch = {t_gpu / t:5.2f}")
    return 0 if err < 1e-4 and per_run["copies_to_device"] == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
