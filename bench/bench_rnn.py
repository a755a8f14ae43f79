"""A TF1 dynamic_rnn LSTM, forward and forward+backward, opforge against TensorFlow.

The same program in both (``tf.compat.v1.nn.dynamic_rnn`` over a ``BasicLSTMCell``, a
sum-of-squares loss and ``tf.gradients`` of it with respect to the inputs and the cell's
variables), the same weights (TensorFlow's initial values loaded into opforge's variables),
each run by its own ``Session`` with default settings. Prints seconds per run and the ratio
opforge / TensorFlow (below 1: opforge is faster), timed round-robin (bench/_common.py).

    python bench/bench_rnn.py            # three sizes
    python bench/bench_rnn.py --quick    # one small size

TensorFlow 2.21 keeps TF1's RNN cells in its legacy Keras: ``pip install tensorflow-cpu tf_keras``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of_interleaved  # noqa: E402

SIZES = [  # (batch, time steps, input depth, units)
    (32, 28, 28, 128),   # the MNIST-rows LSTM of TF1 tutorials
    (64, 50, 64, 256),
    (16, 100, 32, 64),
]


def build(ns, session_cls, batch, steps, depth, units):
    """The program in namespace ns (tf.compat.v1 or opforge.compat.v1)."""
    x = ns.placeholder(ns.float32, [None, steps, depth])
    cell = ns.nn.rnn_cell.BasicLSTMCell(units)
    out, state = ns.nn.dynamic_rnn(cell, x, dtype=ns.float32)
    loss = ns.reduce_sum(out * out) + ns.reduce_sum(state.c)
    variables = ns.trainable_variables()
    grads = ns.gradients(loss, [x] + variables)
    init = ns.global_variables_initializer()
    return x, out, grads, variables, init


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one small size, fewer repeats")
    args = ap.parse_args()
    import tensorflow as tf  # noqa: PLC0415

    import opforge as of  # noqa: PLC0415
    import opforge.compat.v1 as ofv1  # noqa: PLC0415

    tfv1 = tf.compat.v1
    sizes = SIZES[:1] if args.quick else SIZES
    repeat = 3 if args.quick else 5
    print("dynamic_rnn(BasicLSTMCell): seconds per Session.run, opforge / TensorFlow "
          f"(opforge {of.__version__}, TensorFlow {tf.__version__})")
    print(f"{'batch x time x depth -> units':<32}{'pass':<18}{'opforge':>10}{'tensorflow':>12}{'ratio':>8}")
    ratios = []
    for batch, steps, depth, units in sizes:
        rng = np.random.default_rng(0)
        xv = rng.normal(size=(batch, steps, depth)).astype(np.float32)
        tg = tf.Graph()
        with tg.as_default():
            tx, tout, tgrads, tvars, tinit = build(tfv1, tfv1.Session, batch, steps, depth, units)
            ts = tfv1.Session(graph=tg)
            ts.run(tinit)
            values = ts.run(tvars)
        og = of.Graph()
        with og.as_default():
            ox, oout, ograds, ovars, oinit = build(ofv1, ofv1.Session, batch, steps, depth, units)
        os_ = ofv1.Session(graph=og)
        os_.run(oinit)
        for v, val in zip(ovars, values):
            v.load(val, os_)
        # Same function: check before timing.
        a, b = os_.run(oout, {ox: xv}), ts.run(tout, {tx: xv})
        err = float(np.abs(a - b).max())
        number = max(1, int(2e8 // (batch * steps * units * (depth + units) * 8)))
        for label, fetch_of, fetch_tf in (("forward", oout, tout), ("forward+backward", ograds, tgrads)):
            t = best_of_interleaved({
                "opforge": lambda f=fetch_of: os_.run(f, {ox: xv}),
                "tensorflow": lambda f=fetch_tf: ts.run(f, {tx: xv}),
            }, number=number, repeat=repeat)
            ratio = t["opforge"] / t["tensorflow"]
            ratios.append(ratio)
            shape = f"{batch}x{steps}x{depth} -> {units}"
            print(f"{shape:<32}{label:<18}{t['opforge'] * 1e3:>8.2f}ms{t['tensorflow'] * 1e3:>10.2f}ms{ratio:>8.2f}")
        print(f"{'':<32}(max |opforge - TF| of the outputs: {err:.1e})")
        ts.close()
    geo = float(np.exp(np.mean(np.log(ratios))))
    print(f"geometric mean ratio opforge/TF: {geo:.2f}")


if __name__ == "__main__":
    main()
