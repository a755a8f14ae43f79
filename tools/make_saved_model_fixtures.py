"""Writes the SavedModels TensorFlow makes, with TensorFlow's answers, for opforge's tests
(tests/io/saved_model/test_saved_model_tf_fixtures.py), so CI tests loading them without TF.

    python tools/make_saved_model_fixtures.py [out_dir]     (default tests/data/saved_model)

Needs tensorflow (2.21) and keras. For each model NAME it writes NAME/ (the SavedModel) and
NAME.npz: for every serving signature SIG and input KEY ``SIG/in/KEY``, and TensorFlow's outputs
``SIG/out/KEY`` (TF2 models: tf.saved_model.load(...).signatures; TF1 models:
tf.compat.v1.saved_model.loader.load in a Session, as TensorFlow Serving runs them).

The models are small (a few KB to ~100 KB) and random: the TF2 Keras models get random
BatchNormalization statistics so inference-mode normalization is exercised.
"""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 29


def _rng(name):
    return np.random.default_rng([SEED, sum(map(ord, name))])


# ------------------------------------------------------------------------- TF2 models


class _Module(tf.Module):
    """A tf.Module with two signatures: a dense layer with two outputs, and one with a cond and
    a while loop that read variables inside their branches and bodies."""

    def __init__(self, rng):
        super().__init__()
        self.w = tf.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        self.b = tf.Variable(rng.normal(size=(4,)).astype(np.float32), name="b")
        self.scale = tf.Variable(np.float32(0.75), name="scale")
        self.calls = tf.Variable(0, dtype=tf.int64, name="calls")  # updated only when called eagerly

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def dense(self, x):
        y = tf.matmul(x, self.w) + self.b
        return {"relu": tf.nn.relu(y), "total": tf.reduce_sum(y, axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.bool, name="flag"),
                                  tf.TensorSpec([], tf.int32, name="steps")])
    def control(self, x, flag, steps):
        y = tf.cond(flag, lambda: tf.matmul(x, self.w), lambda: tf.matmul(x, self.w) * 2.0 + self.b)

        def body(i, acc):
            return i + 1, acc * self.scale + y

        _, acc = tf.while_loop(lambda i, acc: i < steps, body, [tf.constant(0), tf.zeros_like(y)])
        return {"branch": y, "loop": acc}


def _bn_randomize(model, rng):
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape).astype(np.float32),
                               rng.normal(size=beta.shape).astype(np.float32),
                               rng.normal(size=mean.shape).astype(np.float32),
                               rng.uniform(0.5, 2.0, var.shape).astype(np.float32)])


def _functional(rng):
    inp = keras.Input((8, 8, 3), name="image")
    h = keras.layers.Conv2D(4, 3, activation="relu", name="conv")(inp)
    h = keras.layers.BatchNormalization(name="bn")(h)
    h = keras.layers.MaxPooling2D(2, name="pool")(h)
    h = keras.layers.Flatten(name="flat")(h)
    out = keras.layers.Dense(3, activation="softmax", name="dense")(h)
    model = keras.Model(inp, out)
    _bn_randomize(model, rng)
    return model


class SubclassedNet(keras.Model):
    """A subclassed Keras model: Conv2D -> BatchNorm -> global pooling -> Dense."""

    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(5, 3, padding="same")
        self.bn = keras.layers.BatchNormalization()
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.dense = keras.layers.Dense(2)

    def call(self, x, training=False):
        return self.dense(self.pool(tf.nn.relu(self.bn(self.conv(x), training=training))))


def make_tf2(out):
    rng = _rng("tf2_module")
    m = _Module(rng)
    path = os.path.join(out, "tf2_module")
    tf.saved_model.save(m, path, signatures={"serving_default": m.dense, "control": m.control})
    _answers_tf2(path, {"serving_default": {"x": rng.normal(size=(5, 3)).astype(np.float32)},
                        "control": {"x": rng.normal(size=(4, 3)).astype(np.float32), "flag": np.array(False),
                                    "steps": np.array(3, np.int32)}})

    rng = _rng("keras_export")
    model = _functional(rng)
    model(np.zeros((1, 8, 8, 3), np.float32))
    path = os.path.join(out, "keras_export")
    model.export(path, verbose=False)
    _answers_tf2(path, {"serving_default": {"image": rng.normal(size=(3, 8, 8, 3)).astype(np.float32)}})

    rng = _rng("keras_sequence")
    tokens = keras.Input((7,), dtype="int32", name="tokens")
    h = keras.layers.Embedding(20, 4, name="embed")(tokens)  # ResourceGather
    h = keras.layers.LSTM(5, name="lstm")(h)  # a While loop over TensorLists, reading variables
    model = keras.Model(tokens, keras.layers.Dense(2, name="head")(h))
    path = os.path.join(out, "keras_sequence")
    model.export(path, verbose=False)
    _answers_tf2(path, {"serving_default": {"tokens": rng.integers(0, 20, (3, 7)).astype(np.int32)}})

    rng = _rng("keras_subclassed")
    model = SubclassedNet()
    model(np.zeros((1, 6, 6, 2), np.float32))
    _bn_randomize(model, rng)

    @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 2], tf.float32, name="images")])
    def serve(images):
        return {"logits": model(images, training=False)}

    path = os.path.join(out, "keras_subclassed")
    tf.saved_model.save(model, path, signatures={"serving_default": serve})
    _answers_tf2(path, {"serving_default": {"images": rng.normal(size=(2, 6, 6, 2)).astype(np.float32)}})


def _answers_tf2(path, inputs):
    loaded = tf.saved_model.load(path)
    arrays = {}
    for sig, feeds in inputs.items():
        out = loaded.signatures[sig](**{k: tf.constant(v) for k, v in feeds.items()})
        for k, v in feeds.items():
            arrays[f"{sig}/in/{k}"] = v
        for k, v in out.items():
            arrays[f"{sig}/out/{k}"] = v.numpy()
    np.savez(path + ".npz", **arrays)


# ------------------------------------------------------------------------- TF1 models


def make_tf1(out):
    v1 = tf.compat.v1
    rng = _rng("tf1_simple_save")
    path = os.path.join(out, "tf1_simple_save")
    with tf.Graph().as_default(), v1.Session() as s:  # resource variables (TF2's default)
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = v1.get_variable("w", initializer=rng.normal(size=(4, 2)).astype(np.float32))
        b = v1.get_variable("b", initializer=rng.normal(size=(2,)).astype(np.float32))
        y = tf.nn.softmax(tf.matmul(x, w) + b, name="probs")
        s.run(v1.global_variables_initializer())
        v1.saved_model.simple_save(s, path, {"x": x}, {"probs": y, "logits": tf.matmul(x, w) + b})
    _answers_tf1(path, ["serve"], {"serving_default": {"x": rng.normal(size=(3, 4)).astype(np.float32)}})

    rng = _rng("tf1_builder")
    path = os.path.join(out, "tf1_builder")
    vocab = os.path.join(out, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("alpha\nbeta\n")
    with tf.Graph().as_default(), v1.Session() as s:  # reference variables, assets, two tag sets
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = v1.Variable(rng.normal(size=(3, 3)).astype(np.float32), name="w", use_resource=False)
        counter = v1.Variable(0.0, name="counter", use_resource=False, trainable=False,
                              collections=[v1.GraphKeys.LOCAL_VARIABLES])
        asset = tf.constant(vocab, name="vocab_path")
        v1.add_to_collection(v1.GraphKeys.ASSET_FILEPATHS, asset)
        h = tf.tanh(tf.matmul(x, w), name="h")
        score = tf.add(tf.reduce_sum(h, axis=1), counter, name="score")
        s.run(v1.global_variables_initializer())
        init = tf.group(v1.local_variables_initializer(), name="legacy_init")  # counter = 0 on load
        builder = v1.saved_model.builder.SavedModelBuilder(path)
        builder.add_meta_graph_and_variables(
            s, ["serve"],
            {"serving_default": v1.saved_model.predict_signature_def({"x": x}, {"h": h, "score": score}),
             "hidden": v1.saved_model.predict_signature_def({"x": x}, {"h": h})},
            assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS), legacy_init_op=init)
        builder.add_meta_graph(["serve", "gpu"], {"serving_default": v1.saved_model.predict_signature_def(
            {"x": x}, {"score": score})})  # the graph's main op collection already holds init
        builder.save()
    os.remove(vocab)
    _answers_tf1(path, ["serve"], {"serving_default": {"x": rng.normal(size=(4, 3)).astype(np.float32)},
                                   "hidden": {"x": rng.normal(size=(2, 3)).astype(np.float32)}})


def _answers_tf1(path, tags, inputs):
    v1 = tf.compat.v1
    arrays = {}
    with tf.Graph().as_default() as g, v1.Session(graph=g) as s:
        meta = v1.saved_model.loader.load(s, tags, path)
        for sig, feeds in inputs.items():
            sd = meta.signature_def[sig]
            keys = sorted(sd.outputs)
            values = s.run([sd.outputs[k].name for k in keys], {sd.inputs[k].name: v for k, v in feeds.items()})
            for k, v in feeds.items():
                arrays[f"{sig}/in/{k}"] = v
            for k, v in zip(keys, values):
                arrays[f"{sig}/out/{k}"] = v
    np.savez(path + ".npz", **arrays)


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(ROOT, "tests", "data", "saved_model")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    tf.keras.utils.set_random_seed(SEED)
    make_tf2(out)
    make_tf1(out)
    for name in sorted(os.listdir(out)):
        print(name)


if __name__ == "__main__":
    main(sys.argv)
