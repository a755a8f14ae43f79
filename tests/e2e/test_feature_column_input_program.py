"""A TF1 input program end to end: tf.train.Examples written to a TFRecord with opforge's writer,
read back with tf.data.TFRecordDataset + tf.io.parse_example (make_parse_example_spec) + feature
columns + input_layer, feeding a small DNN trained by a TF1 optimizer. The program is TensorFlow
source run with ``import opforge.compat.v1 as tf``; where TensorFlow is installed the same source
with tensorflow.compat.v1 (same file, same initial weights) gives the same losses."""

import numpy as np
import pytest

import opforge.compat.v1 as otf

CITIES = [b"paris", b"oslo", b"lima", b"quito", b"rome", b"accra"]
KINDS = [b"a", b"b", b"c"]


def _write_records(tf, path, n=48):
    rng = np.random.RandomState(3)
    with tf.python_io.TFRecordWriter(path) as w:
        for _ in range(n):
            age = float(rng.uniform(0, 80))
            cities = list(rng.choice(CITIES, size=rng.randint(1, 3), replace=False))
            kind = KINDS[rng.randint(3)]
            label = age / 40.0 + (0.5 if kind == b"b" else 0.0) + 0.1 * len(cities)
            feature = {
                "age": tf.train.Feature(float_list=tf.train.FloatList(value=[age])),
                "city": tf.train.Feature(bytes_list=tf.train.BytesList(value=cities)),
                "kind": tf.train.Feature(bytes_list=tf.train.BytesList(value=[kind])),
                "label": tf.train.Feature(float_list=tf.train.FloatList(value=[label])),
            }
            w.write(tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString())


def program(tf, path, steps=12):
    """The TF1 program: only `tf` differs between TensorFlow and opforge."""
    fc = tf.feature_column
    rng = np.random.RandomState(0)
    age = fc.numeric_column("age", normalizer_fn=lambda x: x / 80.0)
    city = fc.categorical_column_with_hash_bucket("city", 16)
    kind = fc.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])
    columns = [age, fc.bucketized_column(age, [20.0, 40.0, 60.0]), fc.indicator_column(kind),
               fc.embedding_column(city, 3, initializer=tf.constant_initializer(rng.uniform(-0.5, 0.5, (16, 3)))),
               fc.indicator_column(fc.crossed_column(["kind", fc.bucketized_column(age, [40.0])], 8))]
    spec = fc.make_parse_example_spec(columns + [fc.numeric_column("label")])
    with tf.Graph().as_default():
        dataset = tf.data.TFRecordDataset([path]).batch(16).map(lambda s: tf.io.parse_example(s, spec)).repeat()
        features = tf.data.make_one_shot_iterator(dataset).get_next()
        label = features.pop("label")
        x = fc.input_layer(features, columns)
        width = 1 + 4 + 3 + 3 + 8
        w1 = tf.get_variable("w1", initializer=rng.uniform(-0.5, 0.5, (width, 8)).astype(np.float32))
        w2 = tf.get_variable("w2", initializer=rng.uniform(-0.5, 0.5, (8, 1)).astype(np.float32))
        b1 = tf.get_variable("b1", shape=[8], initializer=tf.zeros_initializer())
        out = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
        loss = tf.losses.mean_squared_error(label, out)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        losses = []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            for _ in range(steps):
                losses.append(sess.run([loss, train])[0])
    return np.array(losses)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("fc") / "train.tfrecord")
    _write_records(otf, path)
    return path


def test_input_program_trains(records):
    losses = program(otf, records)
    assert np.all(np.isfinite(losses))
    # three batches per epoch: compare whole epochs, the first against the last
    assert losses[-3:].mean() < 0.6 * losses[:3].mean()


def test_input_program_matches_tensorflow(records):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = program(tf, records, steps=6)
    np.testing.assert_allclose(program(otf, records, steps=6), want, rtol=1e-4, atol=1e-5)
