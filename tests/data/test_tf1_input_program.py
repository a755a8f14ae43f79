"""A TF1 input program as TensorFlow's guides teach it, run unchanged but for the import: Examples
in a TFRecord file -> TFRecordDataset -> map(parse_single_example, num_parallel_calls) ->
map(decode_raw, normalize) -> batch -> prefetch, a feedable iterator switching between a
training and a validation pipeline (a placeholder picks the validation file), and a model
trained on get_next's tensors. The losses match TensorFlow's where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf1


def _write(path, n, seed):
    rng = np.random.default_rng(seed)
    with tf1.python_io.TFRecordWriter(path) as w:
        for _ in range(n):
            ex = tf1.train.Example()
            pixels = rng.integers(0, 256, 12, dtype=np.uint8)
            ex.features.feature["pixels"].bytes_list.value.append(pixels.tobytes())
            ex.features.feature["y"].float_list.value.append(float(pixels[:4].mean() / 255.0))
            w.write(ex.SerializeToString())


def program(tf, train_path, valid_path, steps=12):
    spec = {"pixels": tf.FixedLenFeature([], tf.string), "y": tf.FixedLenFeature([1], tf.float32)}

    def decode(record):
        parsed = tf.parse_single_example(record, spec)
        x = tf.cast(tf.decode_raw(parsed["pixels"], tf.uint8), tf.float32) / 255.0
        return tf.reshape(x, [12]), parsed["y"]

    def make(path, repeat):
        ds = tf.data.TFRecordDataset(path).map(decode, num_parallel_calls=tf.data.experimental.AUTOTUNE)
        return ds.repeat(repeat).batch(8).prefetch(2)

    valid_file = tf.placeholder(tf.string, [])
    train_it = tf.data.make_one_shot_iterator(make(train_path, None))
    valid_it = tf.data.make_initializable_iterator(make(valid_file, 1))
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, train_it.output_types, train_it.output_shapes)
    x, y = it.get_next()
    w = tf.Variable(np.full((12, 1), 0.1, np.float32))
    b = tf.Variable(np.zeros(1, np.float32))
    assert x.shape.as_list() == [None, 12] and y.shape.as_list() == [None, 1]  # static shapes for the model
    pred = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.square(pred - y))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    losses, valid = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        th, vh = sess.run([train_it.string_handle(), valid_it.string_handle()])
        for _ in range(steps):
            losses.append(sess.run([loss, train], {handle: th})[0])
        sess.run(valid_it.initializer, {valid_file: valid_path})
        while True:
            try:
                valid.append(sess.run(loss, {handle: vh}))
            except tf.errors.OutOfRangeError:
                break
    return np.array(losses), np.array(valid)


@pytest.fixture
def files(tmp_path):
    train, valid = str(tmp_path / "train.tfrecord"), str(tmp_path / "valid.tfrecord")
    _write(train, 20, 0)
    _write(valid, 12, 1)
    return train, valid


def test_program_trains_and_validates(files):
    with tf1.Graph().as_default():
        losses, valid = program(tf1, *files)
    assert len(losses) == 12 and len(valid) == 2  # 12 validation examples: batches of 8 and 4
    assert losses[-3:].mean() < losses[:3].mean() and np.isfinite(valid).all()


def test_program_matches_tensorflow(files):
    tf = pytest.importorskip("tensorflow")
    with tf1.Graph().as_default():
        ours = program(tf1, *files)
    with tf.Graph().as_default():
        theirs = program(tf.compat.v1, *files)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
