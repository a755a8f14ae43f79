"""Real Keras models, frozen to GraphDefs, run by opforge and by TensorFlow out of the box.

Run: python bench/bench_models.py [--quick] [--models a,b] [--batches 1,8] [--busy] [--no-train] [--no-rss]
(needs tensorflow-cpu beside opforge: pip install tensorflow-cpu; the first run exports the
models into ~/.cache/opforge-bench, later runs reuse them)

What is measured, all in this run:

* Each Keras application (random weights, ``weights=None``; nothing is downloaded) and two small
  models built from keras layers are frozen the way a TF2 user freezes a model (``tf.function``
  + ``convert_variables_to_constants_v2``, see bench/keras_models.py). The same GraphDef is
  imported into opforge (``of.import_graph_def``) and into TensorFlow (``tf.import_graph_def``)
  and run with each one's ``compat.v1.Session()`` at default settings. Nothing in the
  environment is tuned for either (thread counts, oneDNN, allocators: as installed).
* Correctness: outputs on the same input, as max |opforge - TF| / max |TF| over the output and,
  for classifiers, the logits before the final softmax (probabilities can saturate and hide an
  error). The goal is <= 1e-4.
* Time per run: the two sessions are timed round-robin (bench/_common.py's
  ``best_of_interleaved``: each round runs every framework once, the best round counts), at each
  batch size; ratio = opforge / TF (lower is better), with the geometric mean per batch size.
  "load" is the time from GraphDef bytes to the first result (import, session, first run, which
  includes TF's Grappler pass).
* ``--busy``: each model's times again, same rounds, with one CPU-bound process (a Python spin
  loop) running beside both frameworks, as on a shared machine; printed as a second table with
  each busy ratio beside its quiet one.
* Page faults per steady-state run: the minor faults (``getrusage(RUSAGE_SELF).ru_minflt``) of
  the process across N runs of one framework, divided by N. Only that framework runs between the
  two readings; both live in this process, so the other's idle threads are the only noise.
* Peak RSS: a process's high-water mark (``VmHWM``; ``ru_maxrss`` elsewhere) cannot be split
  between two frameworks that share one. Each framework therefore runs each model in a child
  process of its own (``--child opforge|tensorflow``): the child imports only NumPy and that
  framework, reads the cached GraphDef, loads it, runs it a few times at the largest batch, and
  reports its peak RSS and, separately, its RSS after importing the framework (before the
  model), so the framework's own footprint and the model's are both visible.
* A TF1-style training loop (an MLP on synthetic data, the same program run with
  ``import opforge.compat.v1 as tf`` and with ``tensorflow.compat.v1``, same initial weights) is
  timed while two CPU-burning processes run beside it, as on a shared machine; the figure is
  the median round (under contention the best round says little), with the best beside it.

Both frameworks live in one process for the timings, each with its own thread pool; one that
keeps its threads spinning after a run would slow the other's next round a little, which is
part of running "out of the box" beside other work, and the round-robin spreads it evenly.

The last thing printed is a Markdown table for the README.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # logging only: TF's start-up banner
import keras_models  # noqa: E402
from _common import best_of_interleaved, busy_processes, geomean, optional, peak_rss_mib, times_interleaved  # noqa: E402

# Every exported model runs by default (EfficientNetB0, left out while opforge lacked the
# IdentityN its frozen swish needs, runs since IdentityN became an op).
DEFAULT_MODELS = keras_models.BENCH_MODELS
QUICK_MODELS = ["small_cnn", "unet", "mobilenet", "mobilenet_v2", "resnet50"]


def faults_per_run(fn, runs: int) -> float:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(runs):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / runs


def unsupported_ops(meta: dict) -> list[str]:
    import opforge as of  # noqa: PLC0415
    import opforge.compat.v1  # noqa: F401, PLC0415 (imported here, as TensorFlow's is: not a first run's cost)

    from opforge.framework import functions  # noqa: PLC0415

    lowered = functions.CALL_OPS | functions.IF_OPS | functions.CASE_OPS | functions.WHILE_OPS  # inlined on import
    return sorted(op for op in meta["ops"] if of._C.op_spec(op) is None and op not in lowered)


def bench_model(name: str, batches: list[int], quick: bool, busy: bool = False) -> dict:
    """Correctness, time, faults for one model at every batch size (this process); with busy,
    the times again beside one busy process."""
    model_spec = keras_models.MODELS[name]
    data, meta = keras_models.export(model_spec, verbose=True)
    result = {"name": name, "input": model_spec.describe(), "params": meta["parameters"],
              "nodes": sum(meta["ops"].values()), "batches": {}}
    missing = unsupported_ops(meta)
    if missing:
        result["error"] = "unsupported ops: " + ", ".join(missing)
        return result
    x0 = keras_models.sample_input(meta, batches[0])
    runners, load = {}, {}
    for fw, runner_class in keras_models.RUNNERS.items():
        t0 = time.perf_counter()
        try:
            runners[fw] = runner_class(data, meta, keras_models.fetches(meta))
            runners[fw].run(x0)
        except Exception as e:  # noqa: BLE001 (a model one framework can't run is a result)
            result["error"] = f"{fw}: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
            for r in runners.values():
                r.close()
            return result
        load[fw] = time.perf_counter() - t0
    result["load"] = load
    print(f"  {name:<20} {model_spec.describe()}, {result['nodes']} nodes: GraphDef to first result "
          f"opforge {load['opforge']:.2f} s, TF {load['tensorflow']:.2f} s", flush=True)
    target = 0.1 if quick else 0.3  # seconds per framework per round
    repeat = 2 if quick else 5
    for batch in batches:
        x = keras_models.sample_input(meta, batch)
        outs = {fw: r.run(x) for fw, r in runners.items()}
        diff = max(keras_models.rel_diff(a, b) for a, b in zip(outs["opforge"], outs["tensorflow"]))
        fns = {fw: (lambda r=r, x=x: r.run(x)) for fw, r in runners.items()}
        one = max(time_once(fn) for fn in fns.values())
        number = max(1, int(target / one))
        times = best_of_interleaved(fns, number, repeat)
        faults = {fw: faults_per_run(fn, max(3, number)) for fw, fn in fns.items()}
        result["batches"][batch] = {"diff": diff, "time": times, "faults": faults, "fns": fns, "number": number}
        print(f"  {name:<20} batch {batch}: opforge {times['opforge'] * 1e3:9.2f} ms  "
              f"TF {times['tensorflow'] * 1e3:9.2f} ms  ratio {times['opforge'] / times['tensorflow']:5.2f}  "
              f"rel diff {diff:.1e}  faults/run {faults['opforge']:.1f} vs {faults['tensorflow']:.1f}", flush=True)
    if busy:
        with busy_processes(1):
            for batch, b in result["batches"].items():
                times = b["busy"] = best_of_interleaved(b["fns"], b["number"], repeat)
                print(f"  {name:<20} batch {batch}, one busy process beside it: opforge {times['opforge'] * 1e3:9.2f} ms"
                      f"  TF {times['tensorflow'] * 1e3:9.2f} ms  ratio {times['opforge'] / times['tensorflow']:5.2f}"
                      f"  (quiet {b['time']['opforge'] / b['time']['tensorflow']:.2f})", flush=True)
    for b in result["batches"].values():
        del b["fns"], b["number"]
    for r in runners.values():
        r.close()
    return result


def time_once(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def child(framework: str, name: str, batch: int, tf_version: str) -> None:
    """Peak RSS of one framework running one model, reported as JSON on stdout."""
    rss_start = peak_rss_mib()
    runner_class = keras_models.RUNNERS[framework]
    __import__("opforge" if framework == "opforge" else "tensorflow")
    rss_import = peak_rss_mib()
    data, meta = keras_models.load(keras_models.MODELS[name], tf_version)
    runner = runner_class(data, meta)
    del data
    x = keras_models.sample_input(meta, batch)
    for _ in range(3):
        runner.run(x)
    print(json.dumps({"framework": framework, "model": name, "batch": batch,
                      "start_mib": rss_start, "import_mib": rss_import, "peak_mib": peak_rss_mib()}))


def peak_rss(name: str, batch: int, tf_version: str) -> dict:
    out = {}
    for fw in keras_models.RUNNERS:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", fw, "--models", name,
               "--batches", str(batch), "--tf-version", tf_version]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            print(f"  peak RSS child failed ({fw}, {name}): rc {proc.returncode} {proc.stderr.strip()[-300:]}")
            continue
        out[fw] = json.loads(lines[-1])
    if len(out) == 2:
        print(f"  {name:<20} peak RSS batch {batch}: opforge {out['opforge']['peak_mib']:7.0f} MiB "
              f"(after import {out['opforge']['import_mib']:5.0f})   TF {out['tensorflow']['peak_mib']:7.0f} MiB "
              f"(after import {out['tensorflow']['import_mib']:5.0f})", flush=True)
    return out


# ---- TF1 training with two busy processes beside it ----

def tf1_mlp(tf, data, init, batch: int, steps: int):
    """A TF1 program: placeholders, Variables, a 2-hidden-layer MLP, sparse softmax cross
    entropy, Adam; returns a callable that runs `steps` training steps and a loss probe."""
    x_all, y_all = data
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, x_all.shape[1]], name="x")
        y = tf.placeholder(tf.int32, [None], name="y")
        h = x
        for i, (w0, b0) in enumerate(init):
            w = tf.Variable(w0, name=f"w{i}")
            b = tf.Variable(b0, name=f"b{i}")
            h = tf.matmul(h, w) + b
            if i < len(init) - 1:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        init_op = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init_op)
    n = x_all.shape[0] // batch
    feeds = [{x: x_all[i * batch:(i + 1) * batch], y: y_all[i * batch:(i + 1) * batch]} for i in range(n)]
    step = [0]

    def run_steps():
        for _ in range(steps):
            sess.run(train, feeds[step[0] % n])
            step[0] += 1

    return run_steps, lambda: float(sess.run(loss, feeds[0]))


def train_bench(quick: bool) -> dict | None:
    tfv1 = optional("tensorflow.compat.v1")
    import opforge.compat.v1 as oftf  # noqa: PLC0415

    rng = np.random.default_rng(0)
    features, hidden, classes, batch = 256, 512, 10, 128
    x_all = rng.standard_normal((batch * 32, features)).astype(np.float32)
    y_all = np.argmax(x_all @ rng.standard_normal((features, classes)), axis=1).astype(np.int32)
    sizes = [features, hidden, hidden, classes]
    init = [(rng.standard_normal((a, b)).astype(np.float32) * np.float32(math.sqrt(2.0 / a)),
             np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]
    steps = 20 if quick else 50
    programs = {"opforge": tf1_mlp(oftf, (x_all, y_all), init, batch, steps),
                "tensorflow": tf1_mlp(tfv1, (x_all, y_all), init, batch, steps)}
    with busy_processes(2):
        rounds = times_interleaved({fw: p[0] for fw, p in programs.items()}, 1, 3 if quick else 7)
    res = {fw: {"median": statistics.median(ts) / steps, "best": min(ts) / steps, "loss": programs[fw][1]()}
           for fw, ts in rounds.items()}
    print(f"TF1 MLP training ({features}-{hidden}-{hidden}-{classes}, batch {batch}, Adam), "
          f"two busy processes beside it, per step:")
    for fw, r in res.items():
        print(f"  {fw:<11} median {r['median'] * 1e3:7.2f} ms  best {r['best'] * 1e3:7.2f} ms  loss after training {r['loss']:.4f}")
    print(f"  ratio opforge/TF (median) {res['opforge']['median'] / res['tensorflow']['median']:.2f}")
    return res


# ---- report ----

def markdown(results, rss, batches, train, versions) -> str:
    lines = [f"Keras models as frozen GraphDefs, `compat.v1.Session()` defaults, opforge {versions[0]} "
             f"vs TensorFlow {versions[1]} ({os.cpu_count()} cores); time per run in ms, "
             "ratio = opforge / TF (lower is better).", ""]
    head = "| model | input | params |"
    rule = "| --- | --- | ---: |"
    for b in batches:
        head += f" b{b} opforge | b{b} TF | b{b} ratio |"
        rule += " ---: | ---: | ---: |"
    head += " rel diff | faults/run (of / TF) | peak RSS MiB (of / TF) |"
    rule += " ---: | ---: | ---: |"
    lines += [head, rule]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['name']} | {r['input']} | {r['params'] / 1e6:.1f}M |"
                         + " |" * (3 * len(batches)) + f" not run: {r['error']} | | |")
            continue
        row = f"| {r['name']} | {r['input']} | {r['params'] / 1e6:.1f}M |"
        for b in batches:
            t = r["batches"][b]["time"]
            row += f" {t['opforge'] * 1e3:.2f} | {t['tensorflow'] * 1e3:.2f} | {t['opforge'] / t['tensorflow']:.2f} |"
        diff = max(v["diff"] for v in r["batches"].values())
        last = r["batches"][batches[-1]]["faults"]
        mem = rss.get(r["name"], {})
        mem_text = (f"{mem['opforge']['peak_mib']:.0f} / {mem['tensorflow']['peak_mib']:.0f}"
                    if len(mem) == 2 else "")
        row += f" {diff:.1e} | {last['opforge']:.0f} / {last['tensorflow']:.0f} | {mem_text} |"
        lines.append(row)
    ok = [r for r in results if "error" not in r]
    row = "| **geometric mean** | | |"
    for b in batches:
        g = geomean([r["batches"][b]["time"]["opforge"] / r["batches"][b]["time"]["tensorflow"] for r in ok])
        row += f" | | **{g:.2f}** |"
    lines.append(row + " | | |")
    lines.append("")
    lines.append(f"Faults and peak RSS at batch {batches[-1]}; peak RSS from one process per framework "
                 "(framework import included).")
    busy = [r for r in ok if all("busy" in r["batches"][b] for b in batches)]
    if busy:
        lines += ["", "With one busy process (a Python spin loop) beside both frameworks:", ""]
        head, rule = "| model |", "| --- |"
        for b in batches:
            head += f" b{b} opforge | b{b} TF | b{b} ratio | b{b} quiet ratio |"
            rule += " ---: | ---: | ---: | ---: |"
        lines += [head, rule]
        for r in busy:
            row = f"| {r['name']} |"
            for b in batches:
                t, q = r["batches"][b]["busy"], r["batches"][b]["time"]
                row += (f" {t['opforge'] * 1e3:.2f} | {t['tensorflow'] * 1e3:.2f} | {t['opforge'] / t['tensorflow']:.2f} |"
                        f" {q['opforge'] / q['tensorflow']:.2f} |")
            lines.append(row)
        row = "| **geometric mean** |"
        for b in batches:
            g = geomean([r["batches"][b]["busy"]["opforge"] / r["batches"][b]["busy"]["tensorflow"] for r in busy])
            gq = geomean([r["batches"][b]["time"]["opforge"] / r["batches"][b]["time"]["tensorflow"] for r in busy])
            row += f" | | **{g:.2f}** | {gq:.2f} |"
        lines.append(row)
    if train:
        lines += ["", "| TF1 MLP training, 2 busy processes beside it | opforge ms/step | TF ms/step | ratio |",
                  "| --- | ---: | ---: | ---: |",
                  f"| median of rounds | {train['opforge']['median'] * 1e3:.2f} | {train['tensorflow']['median'] * 1e3:.2f}"
                  f" | {train['opforge']['median'] / train['tensorflow']['median']:.2f} |"]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", help="comma-separated model names, 'extra' (more keras.applications: "
                   f"{', '.join(keras_models.EXTRA_MODELS)}) or 'all' (default: "
                   f"{', '.join(keras_models.BENCH_MODELS)})")
    p.add_argument("--batches", default="1,8", help="comma-separated batch sizes (default 1,8)")
    p.add_argument("--quick", action="store_true", help=f"a smoke run: {', '.join(QUICK_MODELS)}; few rounds")
    p.add_argument("--busy", action="store_true", help="time every model again with one busy process beside it")
    p.add_argument("--no-train", action="store_true", help="skip the TF1 training loop")
    p.add_argument("--no-rss", action="store_true", help="skip the peak-RSS child processes")
    p.add_argument("--child", choices=list(keras_models.RUNNERS), help=argparse.SUPPRESS)
    p.add_argument("--tf-version", help=argparse.SUPPRESS)
    args = p.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if args.child:
        child(args.child, args.models, batches[-1], args.tf_version)
        return
    if args.models == "all":
        names = list(keras_models.MODELS)
    elif args.models == "extra":
        names = list(keras_models.EXTRA_MODELS)
    elif args.models:
        names = args.models.split(",")
        unknown = [n for n in names if n not in keras_models.MODELS]
        if unknown:
            p.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(keras_models.MODELS)}")
    else:
        names = QUICK_MODELS if args.quick else DEFAULT_MODELS

    tf = optional("tensorflow")
    if tf is None:
        print("bench_models.py compares against TensorFlow, which is not installed (pip install tensorflow-cpu)")
        return
    import opforge as of  # noqa: PLC0415

    print(f"opforge {of.__version__} ({of._C.num_threads()} threads) vs TensorFlow {tf.__version__}; "
          f"models: {', '.join(names)}; batches {batches}", flush=True)
    results = [bench_model(name, batches, args.quick, args.busy) for name in names]
    for r in results:
        if "error" in r:
            print(f"  {r['name']}: not run: {r['error']}")
    ok = [r for r in results if "error" not in r]
    for b in batches:
        g = geomean([r["batches"][b]["time"]["opforge"] / r["batches"][b]["time"]["tensorflow"] for r in ok])
        print(f"geometric mean of opforge/TF at batch {b}: {g:.2f} over {len(ok)} models")
        if args.busy:
            g = geomean([r["batches"][b]["busy"]["opforge"] / r["batches"][b]["busy"]["tensorflow"] for r in ok])
            print(f"  with one busy process beside it: {g:.2f}")
    rss = {}
    if not args.no_rss:
        print(f"peak RSS, one child process per framework and model, batch {batches[-1]}:")
        rss = {r["name"]: peak_rss(r["name"], batches[-1], tf.__version__) for r in ok}
    train = None if args.no_train else train_bench(args.quick)
    print()
    print(markdown(results, rss, batches, train, (of.__version__, tf.__version__)))


if __name__ == "__main__":
    main()
