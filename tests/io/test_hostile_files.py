"""Hostile files (issue 36): the GraphDef importer, the MetaGraph importer and the checkpoint
reader on truncated, bit-flipped and oversized versions of files opforge wrote itself. Every
read must end in a typed error (DataLossError, InvalidArgumentError, NotFoundError ... or a
protobuf DecodeError turned into one) or in a result; a crash, a hang or an untyped exception
fails. The reads run in a child interpreter so that a crash names the file and the change in
flight instead of ending the test run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import opforge as of

# The child: reads each (kind, path) it is given, printing one JSON line before and after.
CHILD = textwrap.dedent(r"""
    import json, os, sys, resource
    if "asan" not in os.environ.get("LD_PRELOAD", ""):  # (ASan's shadow memory alone is terabytes)
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    import numpy as np
    import opforge as of
    from opforge.io.tensor_bundle import BundleReader

    def read(kind, path):
        if kind == "graph_def":
            data = open(path, "rb").read()
            g = of.Graph()
            with g.as_default():
                of.import_graph_def(data, name="")
            x = g.get_tensor_by_name("x:0")
            y = g.get_tensor_by_name("y:0")
            with of.Session(graph=g) as sess:
                sess.run(y, {x: np.ones((2, 8, 8, 3), np.float32)})
        elif kind == "meta_graph":
            with of.Graph().as_default():
                of.train.import_meta_graph(path)
        elif kind == "checkpoint":
            r = BundleReader(path)
            for name in r.names():
                r.tensor(name)

    for line in sys.stdin:
        kind, path, label = json.loads(line)
        print(json.dumps({"start": label}), flush=True)
        try:
            read(kind, path)
            outcome = "ok"
        except of.InternalError as e:
            outcome = f"FAIL InternalError: {e}"
        except (of.OpError, ValueError, TypeError, KeyError) as e:
            outcome = f"error {type(e).__name__}"
        except Exception as e:
            outcome = f"FAIL {type(e).__name__}: {str(e)[:300]}"
        print(json.dumps({"done": label, "outcome": outcome}), flush=True)
""")


def _small_cnn(r, weights):
    x = of.placeholder(of.float32, [None, 8, 8, 3], name="x")
    w, b = weights(r.standard_normal((3, 3, 3, 4)), "w"), weights(r.standard_normal(4), "b")
    h = of.nn.relu(of.nn.bias_add(of.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"), b))
    of.identity(of.reduce_mean(h, axis=[1, 2]), name="y")


def _write_model(tmp_path):
    """A small CNN: a GraphDef with its weights as constants (a frozen model), and the same
    model with variables saved as a MetaGraph and a checkpoint."""
    frozen = of.Graph()
    with frozen.as_default():
        _small_cnn(np.random.default_rng(3), lambda v, name: of.constant(v.astype(np.float32), name=name))
    gd_path = tmp_path / "model.pb"
    gd_path.write_bytes(frozen.as_graph_def().SerializeToString())
    g = of.Graph()
    with g.as_default():
        _small_cnn(np.random.default_rng(3), lambda v, name: of.Variable(v.astype(np.float32), name=name))
        saver = of.train.Saver()
        with of.Session(graph=g) as sess:
            sess.run(of.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
    return {"graph_def": str(gd_path), "meta_graph": prefix + ".meta", "checkpoint": prefix}


def _mutations(data: bytes, rng, name: str):
    """(label, bytes): truncations, single-bit flips, and oversized versions of `data`."""
    n = len(data)
    out = []
    for frac in (0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99):
        cut = int(n * frac)
        out.append((f"{name} truncated to {cut} of {n} bytes", data[:cut]))
    for pos in sorted(rng.choice(n, size=min(n, 24), replace=False)):
        bit = int(rng.integers(0, 8))
        flipped = bytearray(data)
        flipped[pos] ^= 1 << bit
        out.append((f"{name} bit {bit} of byte {pos} flipped", bytes(flipped)))
    out.append((f"{name} with 1 MiB of 0xff appended", data + b"\xff" * (1 << 20)))
    out.append((f"{name} with its first 16 bytes set to 0xff", b"\xff" * 16 + data[16:]))
    return out


def _cases(tmp_path):
    files = _write_model(tmp_path)
    rng = np.random.default_rng(36)
    cases = []  # (kind, path to read, label)
    # GraphDef and MetaGraph: the file itself changed.
    for kind in ("graph_def", "meta_graph"):
        data = open(files[kind], "rb").read()
        for k, (label, blob) in enumerate(_mutations(data, rng, kind)):
            path = tmp_path / f"{kind}_{k}"
            path.write_bytes(blob)
            cases.append((kind, str(path), label))
    # Checkpoint: its index or its data shard changed, the other left intact.
    prefix = files["checkpoint"]
    index, shard = prefix + ".index", prefix + ".data-00000-of-00001"
    for part, src in (("index", index), ("data", shard)):
        data = open(src, "rb").read()
        for k, (label, blob) in enumerate(_mutations(data, rng, f"checkpoint {part}")):
            d = tmp_path / f"ckpt_{part}_{k}"
            d.mkdir()
            for other in (index, shard):
                target = d / os.path.basename(other)
                target.write_bytes(blob if other == src else open(other, "rb").read())
            cases.append(("checkpoint", str(d / os.path.basename(prefix)), label))
    return cases


def _run_child(cases):
    """Outcome per label; a crash or hang is recorded for the case in flight and the rest go on
    in a new child."""
    outcomes = {}
    todo = list(cases)
    env = dict(os.environ, SKBUILD_EDITABLE_VERBOSE="0")
    if "ASAN_OPTIONS" in env:  # under ASan its allocator caps a request instead of RLIMIT_AS
        env["ASAN_OPTIONS"] += ":allocator_may_return_null=1:max_allocation_size_mb=6144"
    while todo:
        feed = "".join(json.dumps(c) + "\n" for c in todo)
        try:
            # (run outside the checkout, whose opforge/ source folder would shadow the install)
            r = subprocess.run([sys.executable, "-c", CHILD], input=feed, capture_output=True, text=True,
                               timeout=300, env=env, cwd=os.path.dirname(todo[0][1]))
            out, rc, err = r.stdout, r.returncode, r.stderr
        except subprocess.TimeoutExpired as e:
            out, rc, err = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout", ""
        in_flight = None
        for line in out.splitlines():
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "start" in msg:
                in_flight = msg["start"]
            else:
                outcomes[msg["done"]] = msg["outcome"]
                in_flight = None
        done = {c[2] for c in todo if c[2] in outcomes}
        if in_flight is not None:  # it crashed (or hung) on this one
            outcomes[in_flight] = f"FAIL crash (rc {rc}): {err.strip()[-500:]}"
            done.add(in_flight)
        elif rc not in (0,):
            raise AssertionError(f"the reader child failed before its first case (rc {rc}): {err[-2000:]}")
        todo = [c for c in todo if c[2] not in done]
    return outcomes


def test_hostile_files(tmp_path):
    cases = _cases(tmp_path)
    outcomes = _run_child(cases)
    assert len(outcomes) == len(cases)
    bad = {k: v for k, v in outcomes.items() if v.startswith("FAIL")}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())
    # The untouched reads work, and most of the damaged ones are noticed.
    errors = sum(v.startswith("error") for v in outcomes.values())
    assert errors >= len(cases) // 2, outcomes
