"""TensorBoard on a run opforge wrote, as a person would look at it: `tensorboard --logdir` on
loopback serves the scalars and the graph (checked through its data API), and headless
Chromium (Debian's package) renders the Time Series and Graphs dashboards; the screenshots
are kept as test artifacts (build/test-artifacts/, or $OPFORGE_TEST_ARTIFACTS).

Skips where tensorboard, Pillow or chromium is missing (.ci/run installs all three)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import numpy as np
import pytest

import opforge.compat.v1 as tf1

pytest.importorskip("tensorboard")
Image = pytest.importorskip("PIL.Image")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")

ARTIFACTS = os.environ.get("OPFORGE_TEST_ARTIFACTS") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "test-artifacts")


def _write_run(logdir):
    rng = np.random.default_rng(0)
    losses = []
    with tf1.Graph().as_default() as g:
        x = tf1.placeholder(tf1.float32, [None, 3], name="x")
        w = tf1.Variable(np.ones((3, 1), np.float32), name="w")
        with tf1.name_scope("metrics"):
            loss = tf1.reduce_mean(tf1.square(tf1.matmul(x, w) - 1.0))
            tf1.summary.scalar("loss", loss)
        tf1.summary.histogram("weights", w)
        train = tf1.train.GradientDescentOptimizer(0.05).minimize(loss)
        merged = tf1.summary.merge_all()
        with tf1.Session() as sess, tf1.summary.FileWriter(os.path.join(logdir, "run1"), sess.graph) as writer:
            sess.run(tf1.global_variables_initializer())
            for step in range(30):
                summary, value, _ = sess.run([merged, loss, train], {x: rng.random((8, 3))})
                writer.add_summary(summary, step)
                losses.append(value)
            # One traced step: TensorBoard's graph dashboard shows its compute time and memory.
            run_metadata = tf1.RunMetadata()
            sess.run(train, {x: rng.random((8, 3))}, options=tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE),
                     run_metadata=run_metadata)
            writer.add_run_metadata(run_metadata, "step_30", 30)
    return losses, {op.name for op in g.get_operations()}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


@pytest.fixture(scope="module")
def tensorboard(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("logs"))
    losses, nodes = _write_run(logdir)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1",
                             "--port", str(port), "--reload_interval", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:  # until it serves the run (bounded: 90 s)
            try:
                if b"run1" in _get(base + "/data/runs", timeout=2):
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("tensorboard did not start serving the run")
            time.sleep(0.5)
        yield base, losses, nodes
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _chromium(*args, url):
    cmd = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,900",
           "--virtual-time-budget=20000", *args, url]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120, check=True).stdout


def test_tensorboard_serves_opforge_scalars_and_graph(tensorboard):
    base, losses, nodes = tensorboard
    tags = json.loads(_get(base + "/data/plugin/scalars/tags"))
    assert set(tags["run1"]) == {"metrics/loss"}
    query = urllib.parse.urlencode({"run": "run1", "tag": "metrics/loss"})
    points = json.loads(_get(f"{base}/data/plugin/scalars/scalars?{query}"))
    assert [p[1] for p in points] == list(range(30))
    np.testing.assert_allclose([p[2] for p in points], losses, rtol=1e-6)
    graph = _get(base + "/data/plugin/graphs/graph?" + urllib.parse.urlencode({"run": "run1"})).decode()
    for name in ("metrics/MatMul", "w", "x", "GradientDescent"):
        assert name in nodes and f'name: "{name}"' in graph
    # The traced step, as the graph dashboard asks for it (its "Session runs" menu).
    info = json.loads(_get(base + "/data/plugin/graphs/info"))
    assert "step_30" in info["run1"]["tags"] and info["run1"]["tags"]["step_30"]["profile"]
    query = urllib.parse.urlencode({"run": "run1", "tag": "step_30"})
    stats = _get(f"{base}/data/plugin/graphs/run_metadata?{query}").decode()
    traced = set(re.findall(r'node_name: "([^"]+)"', stats))
    assert "metrics/MatMul" in traced and traced <= nodes
    assert "all_end_rel_micros" in stats and "allocator_bytes_in_use" in stats


def test_chromium_renders_the_dashboards(tensorboard):
    base, losses, _ = tensorboard
    os.makedirs(ARTIFACTS, exist_ok=True)
    dom = _chromium("--dump-dom", url=base + "/#timeseries").decode("utf-8", "replace")
    assert "metrics/loss" in dom  # the scalar's card
    assert f"{losses[-1]:.4f}" in dom  # its data table shows the last value
    shots = {}
    for name, fragment in (("timeseries", "#timeseries"), ("graphs", "#graphs&run=run1")):
        path = os.path.abspath(os.path.join(ARTIFACTS, f"tensorboard_{name}.png"))
        _chromium(f"--screenshot={path}", url=base + "/" + fragment)
        shots[name] = np.asarray(Image.open(path).convert("L"))
        assert shots[name].shape == (900, 1400)
    # The graph is drawn in the main area (right of the side panel): node boxes and edges.
    main = shots["graphs"][150:700, 380:1300]
    assert (main < 200).sum() > 2000, "the graph dashboard drew nothing"
