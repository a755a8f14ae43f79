"""Session.run overhead: a 1-node graph and a 100-node chain, opforge against TensorFlow's
compat.v1 Session, measured in the same run.

Run: python bench/bench_graph.py   (TensorFlow is compared when installed: pip install tensorflow-cpu)

Fixed cost = time of the 1-node run; per-node cost = (100-node chain - 1-node) / 99. Each
node adds a 1-element float32 tensor to the previous result, so kernels cost almost nothing
and the figures measure the executor.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of, optional  # noqa: E402

import opforge as of  # noqa: E402

tf = optional("tensorflow")


def measure_opforge(n: int) -> float:
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [1], name="x")
        one = of.constant(np.ones(1, np.float32))
        y = x
        for _ in range(n):
            y = of.add(y, one)
    sess = of.Session(graph=g)
    feed = {x: np.ones(1, np.float32)}
    sess.run(y, feed)
    return best_of(lambda: sess.run(y, feed), 2000 if n == 1 else 500)


def measure_tf(n: int) -> float:
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [1], name="x")
        one = tf.constant(np.ones(1, np.float32))
        y = x
        for _ in range(n):
            y = tf.add(y, one)
    # Grappler would fold the chain of additions into fewer nodes; measure the executor.
    from tensorflow.core.protobuf import rewriter_config_pb2  # noqa: PLC0415
    config = v1.ConfigProto(graph_options=v1.GraphOptions(
        rewrite_options=rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)))
    sess = v1.Session(graph=g, config=config)
    feed = {x: np.ones(1, np.float32)}
    sess.run(y, feed)
    return best_of(lambda: sess.run(y, feed), 500 if n == 1 else 200)


def report(name, t1, t100):
    per = (t100 - t1) / 99
    print(f"  {name:<12} 1 node: {t1 * 1e6:8.2f} us   100-node chain: {t100 * 1e6:9.2f} us   "
          f"fixed ~{t1 * 1e6:7.2f} us, per node {per * 1e6:6.3f} us")
    return t1, per


if __name__ == "__main__":
    print(f"Session.run overhead (opforge {of.__version__}, TensorFlow {getattr(tf, '__version__', 'not installed')})")
    o1, o100 = measure_opforge(1), measure_opforge(100)
    of_fixed, of_per = report("opforge", o1, o100)
    if tf is not None:
        t1, t100 = measure_tf(1), measure_tf(100)
        tf_fixed, tf_per = report("TensorFlow", t1, t100)
        print(f"  ratios: fixed cost TF/opforge = {tf_fixed / of_fixed:.1f}x, "
              f"per node TF/opforge = {tf_per / of_per:.1f}x")
