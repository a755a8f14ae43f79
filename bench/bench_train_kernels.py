"""The backward kernels CNN training runs, one by one, against TensorFlow's on the same inputs.

Shapes are the layers of bench_train.py's LeNet (batch 64, 28x28, conv5x5 32/64, 2x2 max pool)
and ResNet-20 (batch 32, CIFAR 32x32, conv3x3 16/32/64, strided 3x3 and 1x1 shortcuts, batch
norm): Conv2DBackpropInput, Conv2DBackpropFilter, MaxPoolGrad, AvgPoolGrad,
FusedBatchNormGradV3, BiasAddGrad and ReluGrad, plus the forward Conv2D and MaxPool for scale.

Run: python bench/bench_train_kernels.py [--quick] [--filter SUBSTRING]
(TensorFlow is compared when installed: pip install tensorflow-cpu)

Both frameworks are called eagerly through their raw ops, timed round-robin (best round kept);
ratios are opforge's time / TensorFlow's (lower is better). A geometric mean per kernel kind
and over all closes the table.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of_interleaved, optional  # noqa: E402

import opforge as of  # noqa: E402

tf = optional("tensorflow")

# (label, input NHWC, filter HWIO, stride, padding)
CONVS = [
    ("lenet conv1 5x5 1->32", (64, 28, 28, 1), (5, 5, 1, 32), 1, "SAME"),
    ("lenet conv2 5x5 32->64", (64, 14, 14, 32), (5, 5, 32, 64), 1, "SAME"),
    ("resnet 3x3 16->16", (32, 32, 32, 16), (3, 3, 16, 16), 1, "SAME"),
    ("resnet 3x3/2 16->32", (32, 32, 32, 16), (3, 3, 16, 32), 2, "SAME"),
    ("resnet 3x3 32->32", (32, 16, 16, 32), (3, 3, 32, 32), 1, "SAME"),
    ("resnet 1x1/2 32->64", (32, 16, 16, 32), (1, 1, 32, 64), 2, "SAME"),
    ("resnet 3x3 64->64", (32, 8, 8, 64), (3, 3, 64, 64), 1, "SAME"),
]
# (label, input NHWC, window, stride)
POOLS = [("lenet pool1 2x2/2", (64, 28, 28, 32), 2, 2), ("lenet pool2 2x2/2", (64, 14, 14, 64), 2, 2),
         ("resnet 3x3/2", (32, 32, 32, 16), 3, 2)]
# (label, NHWC)
ACTS = [("lenet conv1 act", (64, 28, 28, 32)), ("resnet stage1 act", (32, 32, 32, 16)),
        ("resnet stage3 act", (32, 8, 8, 64))]


def cases(rng):
    """Yields (kind, label, {framework: callable})."""
    r = lambda *s: rng.standard_normal(s, dtype=np.float32)  # noqa: E731
    for label, xs, fs, st, pad in CONVS:
        x, f = r(*xs), r(*fs) * 0.1
        oh, ow = -(-xs[1] // st), -(-xs[2] // st)
        dy = r(xs[0], oh, ow, fs[3])
        strides = [1, st, st, 1]
        ox, of_, ody = of.constant(x), of.constant(f), of.constant(dy)
        isz, fsz = of.constant(np.array(xs, np.int32)), of.constant(np.array(fs, np.int32))
        fns = {"Conv2D": {"opforge": lambda: of.raw_ops.Conv2D(input=ox, filter=of_, strides=strides, padding=pad)},
               "Conv2DBackpropInput": {"opforge": lambda: of.raw_ops.Conv2DBackpropInput(
                   input_sizes=isz, filter=of_, out_backprop=ody, strides=strides, padding=pad)},
               "Conv2DBackpropFilter": {"opforge": lambda: of.raw_ops.Conv2DBackpropFilter(
                   input=ox, filter_sizes=fsz, out_backprop=ody, strides=strides, padding=pad)}}
        if tf is not None:
            tx, tfl, tdy = tf.constant(x), tf.constant(f), tf.constant(dy)
            tisz, tfsz = tf.constant(np.array(xs, np.int32)), tf.constant(np.array(fs, np.int32))
            fns["Conv2D"]["tensorflow"] = lambda: tf.raw_ops.Conv2D(input=tx, filter=tfl, strides=strides,
                                                                    padding=pad)
            fns["Conv2DBackpropInput"]["tensorflow"] = lambda: tf.raw_ops.Conv2DBackpropInput(
                input_sizes=tisz, filter=tfl, out_backprop=tdy, strides=strides, padding=pad)
            fns["Conv2DBackpropFilter"]["tensorflow"] = lambda: tf.raw_ops.Conv2DBackpropFilter(
                input=tx, filter_sizes=tfsz, out_backprop=tdy, strides=strides, padding=pad)
        for kind, f_ in fns.items():
            yield kind, label, f_
    for label, xs, k, st in POOLS:
        x = r(*xs)
        ksize, strides = [1, k, k, 1], [1, st, st, 1]
        y = of.raw_ops.MaxPool(input=of.constant(x), ksize=ksize, strides=strides, padding="SAME").numpy()
        dy = r(*y.shape)
        ox, oy, ody = of.constant(x), of.constant(y), of.constant(dy)
        osz = of.constant(np.array(xs, np.int32))
        fns = {"MaxPool": {"opforge": lambda: of.raw_ops.MaxPool(input=ox, ksize=ksize, strides=strides,
                                                                 padding="SAME")},
               "MaxPoolGrad": {"opforge": lambda: of.raw_ops.MaxPoolGrad(
                   orig_input=ox, orig_output=oy, grad=ody, ksize=ksize, strides=strides, padding="SAME")},
               "AvgPoolGrad": {"opforge": lambda: of.raw_ops.AvgPoolGrad(
                   orig_input_shape=osz, grad=ody, ksize=ksize, strides=strides, padding="SAME")}}
        if tf is not None:
            tx, ty, tdy, tsz = tf.constant(x), tf.constant(y), tf.constant(dy), tf.constant(np.array(xs, np.int32))
            fns["MaxPool"]["tensorflow"] = lambda: tf.raw_ops.MaxPool(input=tx, ksize=ksize, strides=strides,
                                                                      padding="SAME")
            fns["MaxPoolGrad"]["tensorflow"] = lambda: tf.raw_ops.MaxPoolGrad(
                orig_input=tx, orig_output=ty, grad=tdy, ksize=ksize, strides=strides, padding="SAME")
            fns["AvgPoolGrad"]["tensorflow"] = lambda: tf.raw_ops.AvgPoolGrad(
                orig_input_shape=tsz, grad=tdy, ksize=ksize, strides=strides, padding="SAME")
        for kind, f_ in fns.items():
            yield kind, label, f_
    for label, xs in ACTS:
        x, dy = r(*xs), r(*xs)
        c = xs[-1]
        scale, mean, var = r(c), r(c), np.abs(r(c)) + 0.5
        ox, ody = of.constant(x), of.constant(dy)
        osc, omu, ovar = of.constant(scale), of.constant(mean), of.constant(var)
        fns = {"FusedBatchNormGradV3": {"opforge": lambda: of.raw_ops.FusedBatchNormGradV3(
                   y_backprop=ody, x=ox, scale=osc, reserve_space_1=omu, reserve_space_2=ovar,
                   reserve_space_3=omu, epsilon=1e-3, is_training=True)},
               "BiasAddGrad": {"opforge": lambda: of.raw_ops.BiasAddGrad(out_backprop=ody)},
               "ReluGrad": {"opforge": lambda: of.raw_ops.ReluGrad(gradients=ody, features=ox)}}
        if tf is not None:
            tx, tdy = tf.constant(x), tf.constant(dy)
            tsc, tmu, tvar = tf.constant(scale), tf.constant(mean), tf.constant(var)
            fns["FusedBatchNormGradV3"]["tensorflow"] = lambda: tf.raw_ops.FusedBatchNormGradV3(
                y_backprop=tdy, x=tx, scale=tsc, reserve_space_1=tmu, reserve_space_2=tvar,
                reserve_space_3=tmu, epsilon=1e-3, is_training=True)
            fns["BiasAddGrad"]["tensorflow"] = lambda: tf.raw_ops.BiasAddGrad(out_backprop=tdy)
            fns["ReluGrad"]["tensorflow"] = lambda: tf.raw_ops.ReluGrad(gradients=tdy, features=tx)
        for kind, f_ in fns.items():
            yield kind, label, f_


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--filter", default="", help="only kernels or layers whose name contains this")
    args = ap.parse_args(argv)
    number, repeat = (2, 2) if args.quick else (10, 5)
    print(f"{'kernel':<22} {'layer':<26} {'opforge':>10} {'tensorflow':>11}  ratio")
    ratios = defaultdict(list)
    for kind, label, fns in cases(np.random.default_rng(0)):
        if args.filter and args.filter not in kind and args.filter not in label:
            continue
        t = best_of_interleaved(fns, number, repeat)
        other = t.get("tensorflow")
        ratio = f"{t['opforge'] / other:5.2f}" if other else "  -"
        if other:
            ratios[kind].append(t["opforge"] / other)
        tf_ms = f"{other * 1e3:8.3f} ms" if other else "        -"
        print(f"{kind:<22} {label:<26} {t['opforge'] * 1e3:7.3f} ms {tf_ms}  {ratio}")
    if ratios:
        gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))  # noqa: E731
        print("\ngeometric mean opforge/tensorflow per kernel:")
        for kind, v in ratios.items():
            print(f"  {kind:<22} {gm(v):5.2f}")
        print(f"  {'all':<22} {gm([x for v in ratios.values() for x in v]):5.2f}")


if __name__ == "__main__":
    main()
