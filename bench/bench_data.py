"""tf.data input pipelines, opforge against TensorFlow: throughput and a training loop fed by them.

Run: python bench/bench_data.py [--records 100000] [--batch 128] [--parse batched|single|both]
                                [--steps 30] [--hidden 1024] [--quick]

One TFRecord file of serialized tf.train.Examples (``--records`` of them, written by opforge's
TFRecordWriter; TensorFlow reads the same file): an image-sized bytes feature ("image": 28x28x3
uint8) and 10 scalar features ("f0".."f8" float32, "label" int64). The pipeline, written once
as a function of a ``tf`` module and run with ``import opforge.compat.v1 as tf`` and with
``import tensorflow.compat.v1 as tf`` in graph mode (the module is the only difference):

* ``single``: TFRecordDataset -> map(parse_single_example) -> map(decode_raw, normalize) ->
  shuffle(10000) -> batch -> prefetch, the maps with num_parallel_calls=AUTOTUNE;
* ``batched``: TFRecordDataset -> shuffle(10000) -> batch -> map(parse_example) ->
  map(decode_raw, normalize) -> prefetch (TensorFlow's guide's advice: vectorize the parse).

Throughput: elements (records) per second over one pass of the file (from the first get_next,
so the shuffle buffer's filling counts), best of ``--rounds`` passes. Training: an MLP (2361 -> hidden -> hidden -> 10, softmax
cross-entropy, SGD) on the batches, step time when the model reads the pipeline's get_next
tensors, against the same model fed the same batches from memory (feed_dict of NumPy arrays
prepared beforehand): the pipeline's overhead on the step. The two loops alternate in rounds
of ``--steps`` steps; each keeps its best round's median. Each
framework runs in a child process of its own (``--child``); the figures print as ratios
(opforge / TensorFlow: higher throughput is better, lower step time is better).

The machine this runs on may be shared: absolute figures move with its load, the ratios of
figures measured in alternation less so. Without TensorFlow, opforge's figures print alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

IMAGE = (28, 28, 3)
FLOATS = [f"f{i}" for i in range(9)]


def write_file(path: str, records: int, seed: int = 0) -> None:
    """The TFRecord file of Examples (opforge's writer and Example proto)."""
    import numpy as np

    import opforge.compat.v1 as tf
    rng = np.random.default_rng(seed)
    with tf.python_io.TFRecordWriter(path) as writer:
        for _ in range(records):
            ex = tf.train.Example()
            feats = ex.features.feature
            feats["image"].bytes_list.value.append(rng.integers(0, 256, IMAGE, dtype=np.uint8).tobytes())
            for name, v in zip(FLOATS, rng.normal(size=len(FLOATS))):
                feats[name].float_list.value.append(float(v))
            feats["label"].int64_list.value.append(int(rng.integers(0, 10)))
            writer.write(ex.SerializeToString())


def pipeline(tf, path, batch, parse, repeat=False):
    """The dataset (a dict of batched tensors: x [batch, 2361] float32, label [batch] int64)."""
    spec = {"image": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64)}
    spec.update({n: tf.FixedLenFeature([], tf.float32) for n in FLOATS})
    autotune = tf.data.experimental.AUTOTUNE
    n_pixels = IMAGE[0] * IMAGE[1] * IMAGE[2]

    def decode(parsed, batched):
        image = tf.decode_raw(parsed["image"], tf.uint8)
        image = tf.reshape(image, [-1, n_pixels] if batched else [n_pixels])
        image = (tf.cast(image, tf.float32) - 127.5) / 127.5
        scalars = tf.stack([parsed[n] for n in FLOATS], axis=-1)
        return {"x": tf.concat([image, scalars], axis=-1), "label": parsed["label"]}

    ds = tf.data.TFRecordDataset(path)
    if repeat:
        ds = ds.repeat()
    if parse == "single":
        ds = ds.map(lambda r: tf.parse_single_example(r, spec), num_parallel_calls=autotune)
        ds = ds.map(lambda p: decode(p, False), num_parallel_calls=autotune)
        ds = ds.shuffle(10000, seed=1).batch(batch)
    else:
        ds = ds.shuffle(10000, seed=1).batch(batch)
        ds = ds.map(lambda r: tf.parse_example(r, spec), num_parallel_calls=autotune)
        ds = ds.map(lambda p: decode(p, True), num_parallel_calls=autotune)
    return ds.prefetch(2)


def throughput(tf, path, batch, parse, rounds, records):
    """Records per second over one pass, from the first get_next to the end (the shuffle
    buffer's filling included), best of rounds."""
    best = 0.0
    for _ in range(rounds):
        with tf.Graph().as_default():
            nxt = tf.data.make_one_shot_iterator(pipeline(tf, path, batch, parse)).get_next()
            with tf.Session() as sess:
                t0 = time.perf_counter()
                n = 0
                while True:
                    try:
                        n += len(sess.run(nxt)["label"])
                    except tf.errors.OutOfRangeError:
                        break
                elapsed = time.perf_counter() - t0
        assert n == records, (n, records)
        best = max(best, n / elapsed)
    return best


def model(tf, x, label, hidden, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    dims = [IMAGE[0] * IMAGE[1] * IMAGE[2] + len(FLOATS), hidden, hidden, 10]
    h = x
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        w = tf.Variable(rng.normal(0, (2.0 / a) ** 0.5, (a, b)).astype(np.float32), name=f"w{i}")
        bias = tf.Variable(np.zeros(b, np.float32), name=f"b{i}")
        h = tf.matmul(h, w) + bias
        if i < len(dims) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label, logits=h))
    return loss, tf.train.GradientDescentOptimizer(0.01).minimize(loss)


def step_times(tf, path, batch, parse, hidden, steps, rounds=4):
    """Step time (s), fed by the pipeline and fed the same batches from memory: the two loops
    alternate, ``steps`` steps a round, and each keeps its best round's median (a machine
    whose load changes during the run moves both alike)."""
    g_pipe, g_mem = tf.Graph(), tf.Graph()
    with g_pipe.as_default():
        nxt = tf.data.make_one_shot_iterator(pipeline(tf, path, batch, parse, repeat=True)).get_next()
        _, train_pipe = model(tf, nxt["x"], nxt["label"], hidden)
        init_pipe = tf.global_variables_initializer()
    with g_mem.as_default():
        x = tf.placeholder(tf.float32, [None, IMAGE[0] * IMAGE[1] * IMAGE[2] + len(FLOATS)])
        label = tf.placeholder(tf.int64, [None])
        _, train_mem = model(tf, x, label, hidden)
        init_mem = tf.global_variables_initializer()
    s_pipe, s_mem = tf.Session(graph=g_pipe), tf.Session(graph=g_mem)
    try:
        s_pipe.run(init_pipe)
        s_mem.run(init_mem)
        memory = [s_pipe.run(nxt) for _ in range(8)]  # batches for the from-memory loop
        for i in range(3):  # warm-up: plans, thread pools, the prefetch buffer
            s_pipe.run(train_pipe)
            s_mem.run(train_mem, {x: memory[i]["x"], label: memory[i]["label"]})
        best = {"pipeline": float("inf"), "memory": float("inf")}
        for _ in range(rounds):
            times = []
            for _ in range(steps):
                t0 = time.perf_counter()
                s_pipe.run(train_pipe)
                times.append(time.perf_counter() - t0)
            best["pipeline"] = min(best["pipeline"], statistics.median(times))
            times = []
            for i in range(steps):
                b = memory[i % len(memory)]
                t0 = time.perf_counter()
                s_mem.run(train_mem, {x: b["x"], label: b["label"]})
                times.append(time.perf_counter() - t0)
            best["memory"] = min(best["memory"], statistics.median(times))
        return best
    finally:
        s_pipe.close()
        s_mem.close()


def child(args):
    if args.child == "tf":
        import tensorflow as tensorflow
        tensorflow.compat.v1.disable_eager_execution()
        tf = tensorflow.compat.v1
    else:
        import opforge.compat.v1 as tf
    result = {}
    for parse in args.modes:
        result[parse] = {"throughput": throughput(tf, args.file, args.batch, parse, args.rounds, args.records)}
        result[parse].update(step_times(tf, args.file, args.batch, parse, args.hidden, args.steps))
    print(json.dumps(result))


def run_child(framework, args, path):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", framework, "--file", path,
           "--records", str(args.records), "--batch", str(args.batch), "--parse", args.parse,
           "--steps", str(args.steps), "--hidden", str(args.hidden), "--rounds", str(args.rounds)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"the {framework} child failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--parse", choices=["batched", "single", "both"], default="both")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="10k records, 10 steps, one round")
    ap.add_argument("--child", choices=["of", "tf"])
    ap.add_argument("--file")
    args = ap.parse_args()
    if args.quick:
        args.records, args.steps, args.rounds = 10_000, 10, 1
    args.modes = ["batched", "single"] if args.parse == "both" else [args.parse]
    if args.child:
        return child(args)
    try:
        import tensorflow  # noqa: F401
        have_tf = True
    except ImportError:
        have_tf = False
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "examples.tfrecord")
        t0 = time.perf_counter()
        write_file(path, args.records)
        print(f"wrote {args.records} Examples ({os.path.getsize(path) / 2**20:.1f} MiB) in "
              f"{time.perf_counter() - t0:.1f} s; batch {args.batch}, MLP hidden {args.hidden}, "
              f"{os.cpu_count()} CPUs")
        results = {"opforge": run_child("of", args, path)}
        if have_tf:
            results["tensorflow"] = run_child("tf", args, path)
    print()
    print("| parse | framework | records/s | step fed by pipeline | step fed from memory | pipeline overhead |")
    print("|---|---|---|---|---|---|")
    for parse in args.modes:
        for name, res in results.items():
            r = res[parse]
            overhead = r["pipeline"] / r["memory"] - 1
            print(f"| {parse} | {name} | {r['throughput']:,.0f} | {r['pipeline'] * 1e3:.1f} ms | "
                  f"{r['memory'] * 1e3:.1f} ms | {overhead:+.1%} |")
    if have_tf:
        print()
        for parse in args.modes:
            o, t = results["opforge"][parse], results["tensorflow"][parse]
            print(f"{parse}: throughput opforge/TF {o['throughput'] / t['throughput']:.2f}x; "
                  f"step fed by pipeline opforge/TF {o['pipeline'] / t['pipeline']:.2f}x")


if __name__ == "__main__":
    main()
