"""TF1 training programs for bench/bench_train.py, each written once as a function of a ``tf``
module: run with ``import opforge.compat.v1 as tf`` or with ``import tensorflow.compat.v1 as tf``
(graph mode), nothing else differs.

A program is a ``Program``: ``build(tf, size)`` makes the graph (placeholders, variables, loss,
Momentum optimizer, as TF1 tutorials write them) inside the caller's default graph and returns a
``Model``; ``data(rng, size)`` makes the batches (NumPy, learnable synthetic data: labels come
from a fixed random projection of the inputs, token sequences from a fixed random Markov chain,
so a working trainer's loss goes down). ``size`` is ``"full"`` or ``"quick"`` (tiny, for smoke
runs). Initial weights are not the frameworks' own random initializers: ``initial_value``
derives every trainable variable's value from its name and shape with NumPy, and the caller
loads it into either framework's variable, so both start from the same point.
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np


@dataclasses.dataclass
class Model:
    """What one built program gives the bench: ``inputs`` are the placeholders, in the order of
    the arrays of a batch; one training step is one ``Session.run([train_op, loss])`` per entry
    of ``stages`` (a GAN has two: discriminator, then generator), each fed the whole batch."""

    inputs: tuple
    stages: list


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    title: str  # what the table shows, at full size
    build: object  # (tf, size) -> Model
    data: object  # (rng, size) -> list of batches, each a tuple of arrays matching Model.inputs


BATCHES = 8  # distinct batches, cycled through


def initial_value(name: str, shape) -> np.ndarray:
    """The starting value of a trainable variable, from its name (without ':0') and shape:
    LeCun-normal kernels (fan-in = all but the last dimension), uniform +-0.1 embeddings,
    ones for batch-norm scales, zeros for other vectors (biases, offsets)."""
    shape = tuple(int(d) for d in shape)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if len(shape) >= 2:
        if "embedding" in name:
            return rng.uniform(-0.1, 0.1, shape).astype(np.float32)
        fan_in = int(np.prod(shape[:-1]))
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
    fill = 1.0 if name.rsplit("/", 1)[-1] in ("gamma", "scale") else 0.0
    return np.full(shape, fill, np.float32)


def _classification_data(rng, batch: int, shape: tuple, classes: int = 10):
    """Random inputs labelled by the argmax of a fixed random projection (learnable)."""
    projection = rng.standard_normal((int(np.prod(shape)), classes)).astype(np.float32)
    out = []
    for _ in range(BATCHES):
        x = rng.standard_normal((batch,) + shape).astype(np.float32)
        y = np.argmax(x.reshape(batch, -1) @ projection, axis=1).astype(np.int32)
        out.append((x, y))
    return out


def _cross_entropy(tf, labels, logits):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


# ---- MLP 784-512-512-10 (tf.layers.dense) ----

MLP_SIZES = {"full": dict(batch=128, hidden=512), "quick": dict(batch=16, hidden=32)}


def build_mlp(tf, size):
    s = MLP_SIZES[size]
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h = tf.layers.dense(x, s["hidden"], activation=tf.nn.relu, name="fc1")
    h = tf.layers.dense(h, s["hidden"], activation=tf.nn.relu, name="fc2")
    logits = tf.layers.dense(h, 10, name="logits")
    loss = _cross_entropy(tf, y, logits)
    train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    return Model((x, y), [(train, loss)])


def data_mlp(rng, size):
    return _classification_data(rng, MLP_SIZES[size]["batch"], (784,))


# ---- LeNet-class CNN (the deep MNIST tutorial: tf.nn.conv2d over tf.get_variable) ----

LENET_SIZES = {"full": dict(batch=64, c1=32, c2=64, fc=1024), "quick": dict(batch=8, c1=4, c2=8, fc=32)}


def _weight(tf, name, shape):
    return tf.get_variable(name, shape, initializer=tf.glorot_uniform_initializer())


def _bias(tf, name, n):
    return tf.get_variable(name, [n], initializer=tf.zeros_initializer())


def build_lenet(tf, size):
    s = LENET_SIZES[size]
    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h = x
    for i, (cin, cout) in enumerate(((1, s["c1"]), (s["c1"], s["c2"])), 1):
        w = _weight(tf, f"conv{i}/w", [5, 5, cin, cout])
        h = tf.nn.relu(tf.nn.conv2d(h, w, strides=[1, 1, 1, 1], padding="SAME") + _bias(tf, f"conv{i}/b", cout))
        h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    h = tf.reshape(h, [-1, 7 * 7 * s["c2"]])
    h = tf.nn.relu(tf.matmul(h, _weight(tf, "fc1/w", [7 * 7 * s["c2"], s["fc"]])) + _bias(tf, "fc1/b", s["fc"]))
    logits = tf.matmul(h, _weight(tf, "fc2/w", [s["fc"], 10])) + _bias(tf, "fc2/b", 10)
    loss = _cross_entropy(tf, y, logits)
    train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    return Model((x, y), [(train, loss)])


def data_lenet(rng, size):
    return _classification_data(rng, LENET_SIZES[size]["batch"], (28, 28, 1))


# ---- ResNet-20 for CIFAR (batch norm from tf.nn.moments, moving averages in UPDATE_OPS) ----

RESNET_SIZES = {"full": dict(batch=32, image=32, blocks=3), "quick": dict(batch=4, image=16, blocks=1)}


def _batch_norm(tf, x, name, decay=0.9, epsilon=1e-3):
    """Training-mode batch norm as TF1 programs wrote it before fused kernels: batch moments,
    tf.nn.batch_normalization, and moving averages assigned in the UPDATE_OPS collection."""
    channels = x.get_shape().as_list()[-1]
    with tf.variable_scope(name):
        gamma = tf.get_variable("gamma", [channels], initializer=tf.ones_initializer())
        beta = tf.get_variable("beta", [channels], initializer=tf.zeros_initializer())
        moving_mean = tf.get_variable("moving_mean", [channels], initializer=tf.zeros_initializer(), trainable=False)
        moving_var = tf.get_variable("moving_variance", [channels], initializer=tf.ones_initializer(), trainable=False)
        mean, var = tf.nn.moments(x, [0, 1, 2])
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign(moving_mean, moving_mean * decay + mean * (1 - decay)))
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign(moving_var, moving_var * decay + var * (1 - decay)))
        return tf.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def _conv(tf, x, name, ksize, cout, stride):
    cin = x.get_shape().as_list()[-1]
    w = tf.get_variable(name, [ksize, ksize, cin, cout], initializer=tf.glorot_uniform_initializer())
    return tf.nn.conv2d(x, w, strides=[1, stride, stride, 1], padding="SAME")


def _residual_block(tf, x, name, cout, stride):
    with tf.variable_scope(name):
        h = tf.nn.relu(_batch_norm(tf, _conv(tf, x, "conv1", 3, cout, stride), "bn1"))
        h = _batch_norm(tf, _conv(tf, h, "conv2", 3, cout, 1), "bn2")
        shortcut = x
        if stride != 1 or x.get_shape().as_list()[-1] != cout:  # projection shortcut
            shortcut = _batch_norm(tf, _conv(tf, x, "proj", 1, cout, stride), "bn_proj")
        return tf.nn.relu(h + shortcut)


def build_resnet(tf, size):
    s = RESNET_SIZES[size]
    x = tf.placeholder(tf.float32, [None, s["image"], s["image"], 3], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h = tf.nn.relu(_batch_norm(tf, _conv(tf, x, "conv0", 3, 16, 1), "bn0"))
    for stage, filters in enumerate((16, 32, 64)):
        for block in range(s["blocks"]):
            stride = 2 if stage > 0 and block == 0 else 1
            h = _residual_block(tf, h, f"stage{stage}/block{block}", filters, stride)
    h = tf.reduce_mean(h, [1, 2])
    logits = tf.matmul(h, _weight(tf, "fc/w", [64, 10])) + _bias(tf, "fc/b", 10)
    loss = _cross_entropy(tf, y, logits)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    return Model((x, y), [(train, loss)])


def data_resnet(rng, size):
    s = RESNET_SIZES[size]
    return _classification_data(rng, s["batch"], (s["image"], s["image"], 3))


# ---- LSTM language model (embedding, dynamic_rnn, softmax, clip_by_global_norm) ----

LSTM_SIZES = {"full": dict(batch=32, steps=35, units=256, vocab=1000),
              "quick": dict(batch=4, steps=8, units=16, vocab=50)}


def build_lstm(tf, size):
    s = LSTM_SIZES[size]
    tokens = tf.placeholder(tf.int32, [None, s["steps"]], name="tokens")
    targets = tf.placeholder(tf.int32, [None, s["steps"]], name="targets")
    embedding = tf.get_variable("embedding", [s["vocab"], s["units"]])
    inputs = tf.nn.embedding_lookup(embedding, tokens)
    cell = tf.nn.rnn_cell.BasicLSTMCell(s["units"])
    outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    logits = tf.matmul(tf.reshape(outputs, [-1, s["units"]]), _weight(tf, "softmax/w", [s["units"], s["vocab"]]))
    logits = logits + _bias(tf, "softmax/b", s["vocab"])
    loss = _cross_entropy(tf, tf.reshape(targets, [-1]), logits)
    variables = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, variables), 5.0)
    train = tf.train.MomentumOptimizer(0.5, 0.9).apply_gradients(list(zip(grads, variables)))
    return Model((tokens, targets), [(train, loss)])


def data_lstm(rng, size):
    """Token rows from a fixed random Markov chain with 4 likely successors per token."""
    s = LSTM_SIZES[size]
    successors = rng.integers(0, s["vocab"], (s["vocab"], 4))
    out = []
    for _ in range(BATCHES):
        seq = np.empty((s["batch"], s["steps"] + 1), np.int32)
        seq[:, 0] = rng.integers(0, s["vocab"], s["batch"])
        for t in range(s["steps"]):
            seq[:, t + 1] = successors[seq[:, t], rng.integers(0, 4, s["batch"])]
        out.append((seq[:, :-1].copy(), seq[:, 1:].copy()))
    return out


# ---- GAN (MLP generator and discriminator, variable_scope reuse, two optimizers) ----

GAN_SIZES = {"full": dict(batch=64, noise=64, hidden=256), "quick": dict(batch=8, noise=8, hidden=16)}


def build_gan(tf, size):
    s = GAN_SIZES[size]
    real = tf.placeholder(tf.float32, [None, 784], name="real")
    noise = tf.placeholder(tf.float32, [None, s["noise"]], name="noise")

    def generator(z):
        with tf.variable_scope("generator"):
            h = tf.layers.dense(z, s["hidden"], activation=tf.nn.relu, name="h")
            return tf.nn.tanh(tf.layers.dense(h, 784, name="out"))

    def discriminator(x, reuse):
        with tf.variable_scope("discriminator", reuse=reuse):
            h = tf.nn.leaky_relu(tf.layers.dense(x, s["hidden"], name="h"), alpha=0.2)
            return tf.layers.dense(h, 1, name="out")

    fake = generator(noise)
    d_real, d_fake = discriminator(real, False), discriminator(fake, True)

    def sigmoid_loss(logits, label):
        target = tf.ones_like(logits) if label else tf.zeros_like(logits)
        return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=logits))

    d_loss = sigmoid_loss(d_real, 1) + sigmoid_loss(d_fake, 0)
    g_loss = sigmoid_loss(d_fake, 1)
    d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="discriminator")
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")
    d_train = tf.train.MomentumOptimizer(0.01, 0.5).minimize(d_loss, var_list=d_vars)
    g_train = tf.train.MomentumOptimizer(0.01, 0.5).minimize(g_loss, var_list=g_vars)
    return Model((real, noise), [(d_train, d_loss), (g_train, g_loss)])


def data_gan(rng, size):
    """'Real' samples: tanh of a fixed rank-8 projection of Gaussian codes; noise: Gaussian."""
    s = GAN_SIZES[size]
    basis = rng.standard_normal((8, 784)).astype(np.float32)
    out = []
    for _ in range(BATCHES):
        real = np.tanh(rng.standard_normal((s["batch"], 8)).astype(np.float32) @ basis / 2)
        out.append((real.astype(np.float32), rng.standard_normal((s["batch"], s["noise"])).astype(np.float32)))
    return out


class Trainer:
    """One program built in one framework: its graph, a Session with the initial weights
    loaded, and the batches; ``step()`` runs one training step and returns its losses."""

    def __init__(self, tf, program: Program, size: str):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.model = program.build(tf, size)
            init = tf.global_variables_initializer()
            self.variables = tf.trainable_variables()
        self.session = tf.Session(graph=self.graph)
        self.session.run(init)
        for v in self.variables:
            v.load(initial_value(variable_name(v), v.get_shape().as_list()), self.session)
        batches = program.data(np.random.default_rng(0), size)
        self.feeds = [dict(zip(self.model.inputs, batch)) for batch in batches]
        self.steps_run = 0

    def step(self) -> list[float]:
        feed = self.feeds[self.steps_run % len(self.feeds)]
        self.steps_run += 1
        return [float(self.session.run([train, loss], feed)[1]) for train, loss in self.model.stages]

    def signature(self) -> list:
        """(name, shape) of every trainable variable, to check both frameworks built the same."""
        return [(variable_name(v), v.get_shape().as_list()) for v in self.variables]

    def close(self) -> None:
        self.session.close()


def variable_name(v) -> str:
    return v.name.split(":")[0]


PROGRAMS = {p.name: p for p in (
    Program("mlp", "MLP 784-512-512-10, batch 128", build_mlp, data_mlp),
    Program("lenet", "LeNet CNN (conv5x5 32/64, max pool, fc1024), batch 64", build_lenet, data_lenet),
    Program("resnet20", "ResNet-20 CIFAR (tf.nn.moments batch norm), batch 32", build_resnet, data_resnet),
    Program("lstm", "LSTM LM (dynamic_rnn, 35 steps, 256 units, vocab 1000), batch 32", build_lstm, data_lstm),
    Program("gan", "GAN (MLP G and D, 784-256, noise 64), batch 64", build_gan, data_gan),
)}
