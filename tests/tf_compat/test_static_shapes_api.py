"""Static-shape parity of TF1's high-level functions (issue 32): the code TF1 programs write
(RNNs over placeholders of unknown batch, layers, image preprocessing, datasets, control flow,
shape arithmetic) built under tensorflow.compat.v1 and under opforge.compat.v1 from the same
source; opforge's static shapes must be at least as known as TensorFlow's and never contradict
them. test_static_shapes.py does the same op by op."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import opforge.compat.v1 as oftf

pytest.importorskip("tensorflow")


def _shape(t):
    s = t.get_shape()
    if s.ndims is None:
        return None
    return [d if isinstance(d, int) or d is None else getattr(d, "value", d) for d in s.as_list()]


def _flat(out):
    if isinstance(out, dict):
        return [t for k in sorted(out) for t in _flat(out[k])]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    if hasattr(out, "c") and hasattr(out, "h"):  # LSTMStateTuple
        return [out.c, out.h]
    if hasattr(out, "indices") and hasattr(out, "dense_shape"):  # SparseTensor
        return [out.indices, out.values, out.dense_shape]
    return [out]


# ---- the programs: each builds with `tf` (either framework's compat.v1) and returns tensors

def rnn_lstm_final_state_dense(tf):
    x = tf.placeholder(tf.float32, [None, None, 8])
    cell = tf.nn.rnn_cell.LSTMCell(16)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    return [outputs, state.c, state.h, tf.layers.dense(state.h, 4)]


def rnn_multicell_dropout_placeholder_keep(tf):
    x = tf.placeholder(tf.float32, [None, 12, 5])
    keep = tf.placeholder(tf.float32)
    cells = [tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(7), output_keep_prob=keep) for _ in range(2)]
    outputs, states = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), x, dtype=tf.float32)
    last = outputs[:, -1, :]
    return [outputs, states[0], states[1], last, tf.layers.dense(last, 3)]


def rnn_basic_lstm_sequence_length(tf):
    x = tf.placeholder(tf.float32, [4, None, 3])
    lengths = tf.placeholder(tf.int32, [4])
    outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), x, sequence_length=lengths,
                                       dtype=tf.float32)
    return [outputs, state.c, state.h]


def rnn_bidirectional_time_major(tf):
    x = tf.placeholder(tf.float32, [None, None, 4])
    fw, bw = tf.nn.rnn_cell.GRUCell(5), tf.nn.rnn_cell.GRUCell(5)
    (of, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float32, time_major=True)
    return [of, ob, sf, sb, tf.concat([of, ob], 2)]


def rnn_static_unstack(tf):
    x = tf.placeholder(tf.float32, [None, 6, 3])
    seq = tf.unstack(x, axis=1)
    outputs, state = tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(4), seq, dtype=tf.float32)
    return [outputs[-1], state, tf.stack(outputs, axis=1)]


def layers_cnn(tf):
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    training = tf.placeholder(tf.bool)
    h = tf.layers.conv2d(x, 8, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.batch_normalization(h, training=training)
    h = tf.layers.conv2d(h, 16, 3, strides=2)
    flat = tf.layers.flatten(h)
    d = tf.layers.dropout(tf.layers.dense(flat, 32), 0.5, training=training)
    return [h, flat, d, tf.reshape(h, [-1, 6 * 6 * 16])]


def nn_cnn_raw(tf):
    x = tf.placeholder(tf.float32, [None, 784])
    img = tf.reshape(x, [-1, 28, 28, 1])
    w = tf.Variable(tf.truncated_normal([5, 5, 1, 4], stddev=0.1))
    conv = tf.nn.relu(tf.nn.conv2d(img, w, strides=[1, 1, 1, 1], padding="SAME") + tf.constant(0.1, shape=[4]))
    pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    batch = tf.shape(x)[0]
    up = tf.nn.conv2d_transpose(pool, tf.ones([3, 3, 2, 4]), tf.stack([batch, 28, 28, 2]), [1, 2, 2, 1], "SAME")
    return [img, conv, pool, tf.reshape(pool, [batch, -1]), up]


def shape_arithmetic(tf):
    x = tf.placeholder(tf.float32, [None, 10, 3])
    s = tf.shape(x)
    a = tf.reshape(x, [s[0], -1])
    b = tf.reshape(x, tf.stack([s[0] * s[1], s[2]]))
    c = tf.zeros(tf.stack([s[0], 5]))
    d = tf.fill([s[0], 2], 1.0)
    e = tf.tile(tf.expand_dims(x, 1), [1, 4, 1, 1])
    f = tf.ones_like(x[:, 0, :])
    g = tf.concat([x, x], axis=-1)
    h = tf.random_normal(tf.shape(x[:, :, :1]))
    i = tf.slice(x, [0, 2, 0], [-1, 5, -1])
    j = tf.strided_slice(x, [0, 0, 0], [0, 0, 2], [1, 1, 1], begin_mask=3, end_mask=3)
    k = tf.squeeze(x[:, :1, :], axis=1)
    m = tf.split(x, [4, 6], axis=1)
    return [a, b, c, d, e, f, g, h, i, j, k, *m]


def math_reductions(tf):
    x = tf.placeholder(tf.float32, [None, 5])
    labels = tf.placeholder(tf.int64, [None])
    y = tf.one_hot(labels, 5)
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)
    sxent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(x, 1), labels), tf.float32))
    top = tf.nn.top_k(x, 2)
    return [y, xent, sxent, acc, tf.reduce_sum(x, 1, keepdims=True), top.values, top.indices,
            tf.nn.in_top_k(x, labels, 1), tf.matmul(x, tf.ones([5, 7])), tf.nn.l2_normalize(x, 1),
            tf.nn.moments(x, [0])[0], tf.nn.embedding_lookup(tf.ones([9, 4]), labels)]


def control_flow(tf):
    x = tf.placeholder(tf.float32, [None, 4])
    pred = tf.placeholder(tf.bool, [])
    c = tf.cond(pred, lambda: x * 2.0, lambda: x + 1.0)
    i0 = tf.constant(0)
    _, w = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), [i0, x])
    m = tf.map_fn(lambda r: tf.reduce_sum(r), x)
    s = tf.scan(lambda acc, r: acc + r, x)
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, x[0]).write(1, x[0]).write(2, x[0])
    return [c, w, m, s, ta.stack()]


def images(tf):
    img = tf.placeholder(tf.float32, [None, 32, 32, 3])
    one = tf.placeholder(tf.float32, [32, 32, 3])
    raw = tf.placeholder(tf.string, [])
    out = [
        tf.image.resize_images(img, [24, 24]),
        tf.image.resize_bilinear(img, [16, 16]),
        tf.image.resize_image_with_crop_or_pad(one, 28, 28),
        tf.image.random_crop(one, [24, 24, 3]) if hasattr(tf.image, "random_crop") else tf.random_crop(one, [24, 24, 3]),
        tf.image.random_flip_left_right(one),
        tf.image.per_image_standardization(one),
        tf.image.random_brightness(one, 0.2),
        tf.image.central_crop(one, 0.5),
        tf.image.decode_jpeg(raw, channels=3),
        tf.image.decode_png(raw, channels=1),
        tf.image.convert_image_dtype(tf.image.decode_jpeg(raw, channels=3), tf.float32),
        tf.image.rgb_to_grayscale(img),
        tf.image.crop_to_bounding_box(one, 2, 2, 20, 20),
        tf.image.pad_to_bounding_box(one, 2, 2, 40, 40),
    ]
    return out


def datasets(tf):
    x = np.zeros((10, 4), np.float32)
    y = np.zeros((10,), np.int64)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(10).batch(3).repeat()
    a, b = tf.data.make_one_shot_iterator(ds).get_next() if hasattr(tf.data, "make_one_shot_iterator") \
        else ds.make_one_shot_iterator().get_next()
    ds2 = tf.data.Dataset.from_tensor_slices(x).batch(5, drop_remainder=True)
    c = tf.data.make_one_shot_iterator(ds2).get_next()
    ds3 = tf.data.Dataset.range(5).map(lambda i: tf.fill([i], i)).padded_batch(2, padded_shapes=[None])
    d = tf.data.make_one_shot_iterator(ds3).get_next()
    return [a, b, c, d, tf.layers.dense(a, 2)]


def parsing(tf):
    serialized = tf.placeholder(tf.string, [None])
    feats = tf.parse_example(serialized, {
        "x": tf.FixedLenFeature([3], tf.float32),
        "label": tf.FixedLenFeature([], tf.int64),
        "words": tf.VarLenFeature(tf.string),
    })
    one = tf.parse_single_example(tf.placeholder(tf.string, []), {"img": tf.FixedLenFeature([], tf.string),
                                                                   "h": tf.FixedLenFeature([2], tf.int64)})
    raw = tf.decode_raw(one["img"], tf.uint8)
    return [feats["x"], feats["label"], feats["words"], one["img"], one["h"], raw, tf.reshape(raw, [4, 4, 3])]


def queue_batches(tf):
    x = tf.placeholder(tf.float32, [4])
    label = tf.placeholder(tf.int32, [])
    bx, by = tf.train.batch([x, label], batch_size=8)
    sx, sy = tf.train.shuffle_batch([x, label], batch_size=8, capacity=20, min_after_dequeue=5)
    return [bx, by, sx, sy]


def sequences_and_attention(tf):
    ids = tf.placeholder(tf.int32, [None, None])
    lengths = tf.placeholder(tf.int32, [None])
    emb = tf.nn.embedding_lookup(tf.get_variable("emb", [50, 8]), ids)
    mask = tf.sequence_mask(lengths, tf.shape(ids)[1], dtype=tf.float32)
    scores = tf.matmul(emb, emb, transpose_b=True)
    att = tf.nn.softmax(scores)
    ctx = tf.matmul(att, emb)
    pooled = tf.reduce_max(emb * tf.expand_dims(mask, -1), axis=1)
    rev = tf.reverse_sequence(emb, lengths, seq_axis=1, batch_axis=0)
    flat = tf.reshape(emb, [-1, 8])
    conv = tf.layers.conv1d(emb, 6, 3, padding="same")
    return [emb, mask, scores, att, ctx, pooled, rev, flat, conv, tf.einsum("btd,bsd->bts", emb, emb)]


def gan_and_gradients(tf):
    z = tf.placeholder(tf.float32, [None, 16])
    h = tf.reshape(tf.layers.dense(z, 4 * 4 * 8), [-1, 4, 4, 8])
    img = tf.layers.conv2d_transpose(h, 3, 4, strides=2, padding="same", activation=tf.nn.tanh)
    d = tf.layers.dense(tf.layers.flatten(tf.layers.conv2d(img, 4, 3, strides=2)), 1)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones_like(d), logits=d))
    variables = tf.trainable_variables()
    grads = tf.gradients(loss, variables)
    clipped, norm = tf.clip_by_global_norm(grads, 5.0)
    opt = tf.train.AdamOptimizer(1e-3)
    pairs = opt.compute_gradients(loss)
    return [img, d, loss, norm, *grads, *clipped, *[g for g, _ in pairs]]


def indexing(tf):
    x = tf.placeholder(tf.float32, [None, 5])
    labels = tf.placeholder(tf.int32, [None])
    n = tf.shape(x)[0]
    idx = tf.stack([tf.range(n), labels], axis=1)
    picked = tf.gather_nd(x, idx)
    where = tf.where(x > 0)
    masked = tf.boolean_mask(x, x[:, 0] > 0)
    padded = tf.pad(x, [[0, 0], [1, 2]])
    xw = tf.nn.xw_plus_b(x, tf.ones([5, 3]), tf.zeros([3]))
    onehot = tf.one_hot(tf.placeholder(tf.int32), 4)
    grid = tf.meshgrid(tf.range(3), tf.range(4))
    r = tf.range(n)
    return [idx, picked, where, masked, padded, xw, onehot, *grid, r, tf.argmax(x, axis=-1),
            tf.nn.bias_add(tf.placeholder(tf.float32, [None, None, 3]), tf.zeros([3])),
            tf.image.resize_nearest_neighbor(tf.placeholder(tf.float32, [None, 8, 8, 2]), [16, 16]),
            tf.nn.local_response_normalization(tf.placeholder(tf.float32, [None, 8, 8, 2]))]


PROGRAMS = [rnn_lstm_final_state_dense, rnn_multicell_dropout_placeholder_keep, rnn_basic_lstm_sequence_length,
            rnn_bidirectional_time_major, rnn_static_unstack, layers_cnn, nn_cnn_raw, shape_arithmetic,
            math_reductions, control_flow, images, datasets, parsing, queue_batches, sequences_and_attention,
            gan_and_gradients, indexing]


def _build(tf, program):
    with tf.Graph().as_default():
        return [_shape(t) for t in _flat(program(tf))]


def _tensorflow_shapes() -> None:
    """(In a subprocess) prints every program's static shapes under tensorflow.compat.v1."""
    import tensorflow.compat.v1 as tf1
    print(json.dumps({p.__name__: _build(tf1, p) for p in PROGRAMS}))


@pytest.fixture(scope="module")
def tf_shapes(tmp_path_factory):
    """TensorFlow's shapes, computed in a subprocess: tf.compat.v1's layers and RNN cells need
    the legacy Keras (TF_USE_LEGACY_KERAS=1 before TensorFlow is imported), which this process
    may have imported otherwise."""
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('m', sys.argv[1]); "
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); m._tensorflow_shapes()")
    # -P and a scratch cwd: the child imports the installed opforge, never the checkout's source
    # folder (which has no compiled runtime where CI installs with `pip install .`).
    out = subprocess.run([sys.executable, "-P", "-c", code, __file__], env=env, cwd=tmp_path_factory.mktemp("tf"),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_tf1_program_static_shapes_at_least_as_known(program, tf_shapes):
    theirs = tf_shapes[program.__name__]
    ours = _build(oftf, program)
    assert len(ours) == len(theirs), f"{len(ours)} tensors vs TensorFlow's {len(theirs)}"
    problems = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if b is None:
            continue
        if a is None or len(a) != len(b) or any(y is not None and x != y for x, y in zip(a, b)):
            problems.append(f"tensor {i}: {a} vs TensorFlow's {b}")
    assert not problems, f"{program.__name__}:\n  " + "\n  ".join(problems)
