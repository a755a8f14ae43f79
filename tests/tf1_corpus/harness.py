"""Run the TF1 tutorial corpus under TensorFlow or opforge.

Library use::

    from harness import load_program, run_program, compare
    text, header = load_program(path)
    ref = run_program(path, "tensorflow")
    got = run_program(path, "opforge")
    compare(ref, got, header["tolerance"])

Command line::

    python tests/tf1_corpus/harness.py [--backend tensorflow|opforge|both]
                                       [-j N] [--json OUT] [files...]

runs every program (default: all of programs/) in its own subprocess and
prints a table (program, ok/FAIL, seconds, metrics).  opforge's metrics are
compared with the band of TensorFlow's recorded runs (tf_reference.json, see
compare_to_band), and with ``--backend both`` with a fresh TensorFlow run too.
``--record-reference N`` rewrites tf_reference.json from N TensorFlow runs
per program with different graph-level seeds.

Nothing here imports opforge at module level; TensorFlow and opforge are only
imported inside run_program, for the backend that was asked for.
"""
import argparse
import builtins
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types

import numpy as np

CORPUS_DIR = os.path.dirname(os.path.abspath(__file__))
PROGRAMS_DIR = os.path.join(CORPUS_DIR, "programs")
STUBS_DIR = os.path.join(CORPUS_DIR, "_stubs")
# The graph seed opforge runs start with (a program's own tf.set_random_seed replaces it).
OPFORGE_DEFAULT_SEED = 1234
# TensorFlow's metrics for every program, one entry per graph-seed offset (record_reference).
REFERENCE_PATH = os.path.join(CORPUS_DIR, "tf_reference.json")

BACKENDS = ("tensorflow", "opforge")

# TF 2.16+ ships Keras 3, under which tf.compat.v1.layers is unavailable; the
# TF1 layers API needs the legacy tf_keras package.  Must be set before
# TensorFlow is imported.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

_IMPORT_RE = re.compile(
    r"^(?P<indent>[ \t]*)import[ \t]+tensorflow(?:\.compat\.v1)?[ \t]+as[ \t]+tf"
    r"(?P<rest>[ \t]*(?:#.*)?)$",
    re.MULTILINE)

_REPLACEMENT = {
    "tensorflow": "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()",
    "opforge": "import opforge.compat.v1 as tf",
}

_HEADER_KEYS = ("source", "changes", "metrics", "tolerance")


# ---------------------------------------------------------------------------
# Header
# ---------------------------------------------------------------------------

def _split_top_level(text):
    """Split on commas that are not inside brackets or quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _parse_tolerance(text):
    tol = {}
    for part in _split_top_level(text):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in ("rtol", "atol"):
            raise ValueError("bad tolerance %r (want rtol=X and/or atol=Y)" % text)
        tol[key] = float(value)
    if not tol:
        raise ValueError("empty tolerance")
    return tol


def load_program(path):
    """Return (source text, header dict) of a corpus program.

    header = {"source": url, "changes": str, "metrics": [expr, ...],
              "tolerance": {"rtol": x} and/or {"atol": y}}
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = {}
    for line in text.splitlines()[:10]:
        m = re.match(r"#\s*(Source|Changes|Metrics|Tolerance):\s*(.*)$", line)
        if m:
            header[m.group(1).lower()] = m.group(2).strip()
    missing = [k for k in _HEADER_KEYS if k not in header]
    if missing:
        raise ValueError("%s: header lacks %s" % (path, ", ".join(missing)))
    header["metrics"] = _split_top_level(header["metrics"])
    header["tolerance"] = _parse_tolerance(header["tolerance"])
    return text, header


def program_paths():
    """Every program of the corpus, sorted."""
    return sorted(os.path.join(PROGRAMS_DIR, f) for f in os.listdir(PROGRAMS_DIR) if f.endswith(".py"))


def rewrite_imports(text, backend):
    """Swap every `import tensorflow[.compat.v1] as tf` for the backend's."""
    if backend not in BACKENDS:
        raise ValueError("backend must be one of %s" % (BACKENDS,))
    new, n = _IMPORT_RE.subn(
        lambda m: m.group("indent") + _REPLACEMENT[backend] + m.group("rest"), text)
    if n == 0:
        raise ValueError("no `import tensorflow as tf` line to rewrite")
    return new


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def _to_metric(value):
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise TypeError("metric is not numeric: %r" % (value,))
    arr = arr.astype(np.float64)
    if arr.size == 1:
        return float(arr.reshape(()))
    return arr


def _run(path, backend, np_seed=0, tf_seed_offset=None):
    """Run one program; return (metrics dict, seconds spent in the program)."""
    path = os.path.abspath(path)
    text, header = load_program(path)
    code = compile(rewrite_imports(text, backend), path, "exec")

    # Import the backend before timing and give it a fresh default graph.
    restore = []
    if backend == "tensorflow":
        import tensorflow.compat.v1 as tfm
        tfm.disable_v2_behavior()
        tfm.reset_default_graph()
        if tf_seed_offset is not None:
            # Used to measure run-to-run spread: shift every graph-level seed
            # the program sets, so seeded programs draw other initial values.
            original = tfm.set_random_seed
            restore.append((tfm, "set_random_seed", original))
            tfm.set_random_seed = lambda seed: original(
                None if seed is None else seed + tf_seed_offset)
    else:
        import opforge.compat.v1 as ofm
        ofm.reset_default_graph()
        # A program that sets no graph seed draws the same numbers on every opforge run, so
        # its test is reproducible (TensorFlow's spread over such runs is in the reference).
        # With an offset, every seed moves, as for TensorFlow above.
        offset = tf_seed_offset or 0
        ofm.set_random_seed(OPFORGE_DEFAULT_SEED + offset)
        # A graph the program makes itself (`with tf.Graph().as_default():`) has no seed of
        # its own; its random ops then take the global seed, so set that one too.
        from opforge.ops import random_ops as of_random
        restore.append((of_random._state, "seed", of_random._state.seed))
        of_random._state.seed = OPFORGE_DEFAULT_SEED + offset
        if offset:
            original = ofm.set_random_seed
            restore.append((ofm, "set_random_seed", original))
            ofm.set_random_seed = lambda seed: original(None if seed is None else seed + offset)

    saved_path, saved_argv, saved_cwd = list(sys.path), list(sys.argv), os.getcwd()
    saved_main = None
    saved_mpl = os.environ.get("MPLBACKEND")
    workdir = tempfile.mkdtemp(prefix="tf1_corpus_")
    try:
        sys.path.insert(0, CORPUS_DIR)
        # Plotting is not what the corpus measures: matplotlib is always the
        # no-op stub in _stubs/ (also keeps runs headless and fast).
        sys.path.insert(0, STUBS_DIR)
        os.environ["MPLBACKEND"] = "Agg"
        sys.argv = [path]
        os.chdir(workdir)
        np.random.seed(np_seed)
        random.seed(np_seed)
        # The program runs as the __main__ module: tf.app.run() with no main calls
        # sys.modules["__main__"].main, which must be the program's, not this harness's.
        module = types.ModuleType("__main__")
        module.__dict__.update(__file__=path, __builtins__=builtins)
        glb = module.__dict__
        saved_main = sys.modules.get("__main__")
        sys.modules["__main__"] = module
        start = time.perf_counter()
        try:
            exec(code, glb)
        except SystemExit as e:
            if e.code not in (0, None):
                raise
        seconds = time.perf_counter() - start
        metrics = {}
        for expr in header["metrics"]:
            metrics[expr] = _to_metric(eval(expr, glb))
        return metrics, seconds
    finally:
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        sys.argv[:] = saved_argv
        if saved_mpl is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = saved_mpl
        for obj, name, value in restore:
            setattr(obj, name, value)
        shutil.rmtree(workdir, ignore_errors=True)


def run_program(path, backend, np_seed=0, tf_seed_offset=None):
    """Run a corpus program under `backend` ("tensorflow" or "opforge").

    Returns {metric expression: float or np.ndarray}.
    """
    return _run(path, backend, np_seed=np_seed, tf_seed_offset=tf_seed_offset)[0]


def compare(a, b, tolerance):
    """Raise AssertionError if metrics `a` and `b` differ beyond `tolerance`.

    tolerance: {"rtol": x} and/or {"atol": y}; a value passes when
    |a - b| <= atol + rtol * |a| elementwise (a is the reference).
    """
    rtol = float(tolerance.get("rtol", 0.0))
    atol = float(tolerance.get("atol", 0.0))
    problems = []
    if set(a) != set(b):
        problems.append("metric names differ: %s vs %s" % (sorted(a), sorted(b)))
    for key in a:
        if key not in b:
            continue
        x = np.asarray(a[key], dtype=np.float64)
        y = np.asarray(b[key], dtype=np.float64)
        if x.shape != y.shape:
            problems.append("%s: shape %s vs %s" % (key, x.shape, y.shape))
            continue
        if np.isnan(y).any() and not np.isnan(x).any():
            problems.append("%s: got NaN" % key)
            continue
        diff = np.abs(x - y)
        allowed = atol + rtol * np.abs(x)
        bad = ~(diff <= allowed) & ~(x == y) & ~(np.isnan(x) & np.isnan(y))
        if bad.any():
            if x.ndim == 0:
                problems.append("%s: %.6g vs %.6g (|diff| %.3g > allowed %.3g)"
                                % (key, x, y, diff, allowed))
            else:
                i = np.unravel_index(np.argmax(np.where(bad, diff - allowed, -np.inf)),
                                     x.shape)
                problems.append("%s: %d of %d elements differ; worst at %s: %.6g vs %.6g"
                                % (key, bad.sum(), bad.size, i, x[i], y[i]))
    if problems:
        raise AssertionError("metrics differ beyond %s:\n  %s"
                             % (tolerance, "\n  ".join(problems)))


def compare_to_band(runs, got, tolerance):
    """Raise AssertionError if metrics `got` lie outside the band of TensorFlow's `runs`.

    runs: metrics of several TensorFlow runs of the program that differ only in the
    graph-level random seed (harness --tf-seed-offset), so they show how far a metric moves
    with the random initial values alone.  A value passes when it lies in [lo - m, hi + m],
    elementwise, where lo and hi are the runs' extremes and the margin m is the larger of
    their spread (hi - lo) and the program's tolerance (atol + rtol * max|run|).  For a
    program whose runs all agree (no randomness) that is the plain tolerance check.
    opforge draws other random numbers than TensorFlow for the same seed, so a trained
    model can only be compared with the spread of TensorFlow's own results.
    """
    rtol = float(tolerance.get("rtol", 0.0))
    atol = float(tolerance.get("atol", 0.0))
    problems = []
    names = set(runs[0])
    if set(got) != names:
        problems.append("metric names differ: %s vs %s" % (sorted(names), sorted(got)))
    for key in sorted(names & set(got)):
        ref = np.stack([np.asarray(r[key], dtype=np.float64) for r in runs])
        y = np.asarray(got[key], dtype=np.float64)
        if ref.shape[1:] != y.shape:
            problems.append("%s: shape %s vs %s" % (key, ref.shape[1:], y.shape))
            continue
        if np.isnan(y).any() and not np.isnan(ref).any():
            problems.append("%s: got NaN" % key)
            continue
        lo, hi = ref.min(axis=0), ref.max(axis=0)
        margin = np.maximum(hi - lo, atol + rtol * np.abs(ref).max(axis=0))
        bad = ~((y >= lo - margin) & (y <= hi + margin)) & ~(np.isnan(y) & np.isnan(lo))
        if bad.any():
            i = np.unravel_index(np.argmax(bad), y.shape) if y.ndim else ()
            problems.append("%s: %.6g outside TensorFlow's [%.6g, %.6g] +- %.3g (%d runs)%s"
                            % (key, y[i], lo[i], hi[i], margin[i], len(runs),
                               " at %s" % (i,) if y.ndim else ""))
    if problems:
        raise AssertionError("metrics outside TensorFlow's band:\n  " + "\n  ".join(problems))


def load_reference(path=None):
    """The recorded TensorFlow runs: {"tensorflow": version, "programs": {name: [metrics]}}."""
    with open(path or REFERENCE_PATH) as f:
        return json.load(f)


def record_reference(files, seeds, jobs, timeout, path=None):
    """Run every program under TensorFlow with `seeds` graph-seed offsets and write the
    metrics of each run to the reference file; return the programs that failed."""
    import tensorflow as tf
    runs = {os.path.basename(f): [] for f in files}
    failed = []
    from concurrent.futures import ThreadPoolExecutor
    for offset in range(seeds):
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            results = list(pool.map(lambda f: _spawn(f, "tensorflow", 0, offset or None, timeout), files))
        for f, r in zip(files, results):
            if r["ok"]:
                runs[os.path.basename(f)].append(r["metrics"])
            else:
                failed.append("%s (seed offset %d): %s" % (os.path.basename(f), offset, r["error"]))
    with open(path or REFERENCE_PATH, "w") as f:
        json.dump({"tensorflow": tf.__version__, "seed_offsets": list(range(seeds)),
                   "programs": {k: v for k, v in sorted(runs.items()) if v}}, f, indent=1, sort_keys=True)
        f.write("\n")
    return failed


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def _format_metric(value):
    if isinstance(value, list):
        arr = np.asarray(value)
        return "array%s mean=%.4g" % (list(arr.shape), arr.mean())
    return "%.4g" % value


def _child(path, backend, np_seed, tf_seed_offset, out):
    result = {"program": os.path.basename(path), "backend": backend}
    try:
        metrics, seconds = _run(path, backend, np_seed=np_seed,
                                tf_seed_offset=tf_seed_offset)
        result.update(ok=True, seconds=seconds, metrics={
            k: (v.tolist() if isinstance(v, np.ndarray) else v)
            for k, v in metrics.items()})
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        msg = ("%s: %s" % (type(e).__name__, e)).strip().splitlines()
        result.update(ok=False, error=msg[0] if msg else type(e).__name__)
    with open(out, "w") as f:
        json.dump(result, f)


def _spawn(path, backend, np_seed, tf_seed_offset, timeout):
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    cmd = [sys.executable, os.path.abspath(__file__), "--_child", path,
           "--backend", backend, "--np-seed", str(np_seed), "--_out", out]
    if tf_seed_offset is not None:
        cmd += ["--tf-seed-offset", str(tf_seed_offset)]
    # A fixed hash seed: programs that order a vocabulary by list(set(words)) get the same ids
    # every run (golbin 04_03_Word2Vec).
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, env=env)
        with open(out) as f:
            text = f.read()
        result = json.loads(text) if text else None
        if result is None:
            tail = proc.stdout.decode("utf-8", "replace").strip().splitlines()
            result = {"program": os.path.basename(path), "backend": backend,
                      "ok": False, "error": "crashed (rc %d): %s"
                      % (proc.returncode, tail[-1] if tail else "")}
    except subprocess.TimeoutExpired:
        result = {"program": os.path.basename(path), "backend": backend,
                  "ok": False, "error": "timeout after %ss" % timeout}
    finally:
        os.unlink(out)
    result["wall"] = time.perf_counter() - start
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--backend", default="tensorflow",
                   choices=BACKENDS + ("both",))
    p.add_argument("--np-seed", type=int, default=0)
    p.add_argument("--tf-seed-offset", type=int, default=None,
                   help="add this to every graph seed (both backends), to see the spread")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--json", help="write all results to this file")
    p.add_argument("--record-reference", type=int, metavar="SEEDS", default=0,
                   help="run TensorFlow with SEEDS graph-seed offsets and write tf_reference.json")
    p.add_argument("--_child", help=argparse.SUPPRESS)
    p.add_argument("--_out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args._child:
        _child(args._child, args.backend, args.np_seed, args.tf_seed_offset, args._out)
        return 0

    files = args.files or program_paths()
    if args.record_reference:
        failed = record_reference(files, args.record_reference, args.jobs, args.timeout)
        print("\n".join(["failed: " + f for f in failed] + ["wrote " + REFERENCE_PATH]))
        return 1 if failed else 0
    reference = load_reference()["programs"] if os.path.exists(REFERENCE_PATH) else {}
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    jobs = [(f, b) for f in files for b in backends]

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(
            lambda fb: _spawn(fb[0], fb[1], args.np_seed, args.tf_seed_offset,
                              args.timeout), jobs))

    rows, n_ok = [], 0
    by_file = {}
    for (f, b), r in zip(jobs, results):
        by_file.setdefault(f, {})[b] = r
    for f in files:
        rs = by_file[f]
        status, secs, metrics = [], [], ""
        for b in backends:
            r = rs[b]
            status.append("ok" if r["ok"] else "FAIL (%s)" % r["error"])
            secs.append("%.1f" % r["seconds"] if r["ok"] else "-")
            if r["ok"] and not metrics:
                metrics = ", ".join("%s=%s" % (k, _format_metric(v))
                                    for k, v in r["metrics"].items())
        if "opforge" in rs and rs["opforge"]["ok"]:
            band = list(reference.get(os.path.basename(f), []))
            if "tensorflow" in rs and rs["tensorflow"]["ok"]:
                band.append(rs["tensorflow"]["metrics"])
            if band:
                try:
                    compare_to_band(band, rs["opforge"]["metrics"], load_program(f)[1]["tolerance"])
                    status.append("match")
                except AssertionError as e:
                    status.append("MISMATCH (%s)" % str(e).splitlines()[1].strip())
        ok = all(s in ("ok", "match") for s in status)
        n_ok += ok
        rows.append((os.path.basename(f)[:-3], " / ".join(status), " / ".join(secs),
                     metrics))

    w = max(len(r[0]) for r in rows)
    print("%-*s  %-8s  %8s  %s" % (w, "program", "status", "seconds", "metrics"))
    for name, status, secs, metrics in rows:
        print("%-*s  %-8s  %8s  %s" % (w, name, status, secs, metrics))
    print("\n%d of %d programs ok (backend: %s)" % (n_ok, len(rows), args.backend))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if n_ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
