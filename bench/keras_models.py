"""Keras models frozen to TensorFlow GraphDefs, for the model benchmark and the end-to-end tests.

A user who wants to serve a Keras model from a GraphDef freezes it the TF2 way: wrap the call in
a ``tf.function``, trace it for an input signature and inline the variables as constants with
``convert_variables_to_constants_v2``. This module does exactly that for the Keras applications
(``keras.applications.*``) and two small models built from keras layers (a CNN and a U-Net).

Weights are random (``weights=None``: nothing is ever downloaded), seeded so an export is
reproducible. Keras leaves batch-norm layers at their identity statistics (mean 0, variance 1,
scale 1, offset 0); those would let a wrong batch-norm computation go unnoticed, so after
building, every BatchNormalization layer gets random statistics as well.

The frozen graph has an unknown batch dimension, so one GraphDef serves every batch size.
Exports are cached as ``<cache>/tf-<version>/<key>.pb`` (the GraphDef's bytes) beside
``<key>.json`` (input and output tensor names, input shape, op counts, the spec); the default
cache is ``~/.cache/opforge-bench`` (``$OPFORGE_BENCH_CACHE`` overrides it). Reading a cached
export (:func:`load`) does not import TensorFlow, so a process that only runs opforge can use it.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import os
import time

import numpy as np


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """One model to export. ``app`` is a ``keras.applications`` class name or the name of a
    builder in this module (``small_cnn``, ``unet``); ``kwargs`` go to it (alpha, depth, ...)."""

    name: str
    app: str
    input_shape: tuple  # (height, width, channels), without the batch
    kwargs: tuple = ()  # sorted (key, value) pairs, hashable
    seed: int = 0

    def key(self) -> str:
        """File-name key: the name plus a digest of everything that changes the graph."""
        digest = hashlib.sha1(repr((self.app, self.input_shape, self.kwargs, self.seed)).encode()).hexdigest()
        return f"{self.name}-{digest[:10]}"

    def describe(self) -> str:
        h, w, _ = self.input_shape
        extra = "".join(f", {k}={v}" for k, v in self.kwargs)
        return f"{h}x{w}{extra}"


def spec(name: str, app: str, size: int, channels: int = 3, seed: int = 0, **kwargs) -> ModelSpec:
    return ModelSpec(name, app, (size, size, channels), tuple(sorted(kwargs.items())), seed)


# The benchmark's models. Sizes are small where the application allows, to keep a full run to
# minutes on a 2-core machine; MobileNetV2, MobileNetV3Small, ResNet50, NASNetMobile and
# EfficientNetB0 keep ImageNet's 224 px.
MODELS = {s.name: s for s in [
    spec("small_cnn", "small_cnn", 32),
    spec("unet", "unet", 128),
    spec("mobilenet", "MobileNet", 128),
    spec("mobilenet_v2", "MobileNetV2", 224),
    spec("mobilenet_v3_small", "MobileNetV3Small", 224),
    spec("resnet50", "ResNet50", 224),
    spec("resnet50_v2", "ResNet50V2", 160),
    spec("densenet121", "DenseNet121", 160),
    spec("inception_v3", "InceptionV3", 150),
    spec("xception", "Xception", 150),
    spec("vgg16", "VGG16", 128),
    spec("nasnet_mobile", "NASNetMobile", 224),
    spec("efficientnet_b0", "EfficientNetB0", 224),
]}
# More keras.applications, outside the default benchmark (bench_models.py --models extra): other
# families and sizes, for ops and shapes the thirteen above do not reach (ConvNeXt's grouped
# convolutions, GELU and Dense over rank-4 inputs; EfficientNetV2's fused MBConv blocks).
EXTRA_MODELS = {s.name: s for s in [
    spec("convnext_tiny", "ConvNeXtTiny", 128),
    spec("efficientnet_v2_b0", "EfficientNetV2B0", 224),
    spec("inception_resnet_v2", "InceptionResNetV2", 150),
    spec("mobilenet_v3_large", "MobileNetV3Large", 224),
    spec("densenet169", "DenseNet169", 160),
    spec("resnet101", "ResNet101", 160),
    spec("efficientnet_b3", "EfficientNetB3", 160),
]}
BENCH_MODELS = list(MODELS)
MODELS.update(EXTRA_MODELS)


def default_cache_dir() -> str:
    return os.environ.get("OPFORGE_BENCH_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "opforge-bench")


# ---- builders for the models that are not Keras applications ----

def _conv_bn_relu(layers, x, filters):
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def small_cnn(keras, input_shape, classes=10):
    """Three conv-BN-ReLU-maxpool stages, global average pooling and a softmax classifier."""
    layers = keras.layers
    inputs = keras.Input(input_shape)
    x = inputs
    for filters in (32, 64, 128):
        x = _conv_bn_relu(layers, x, filters)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(classes, activation="softmax")(x)
    return keras.Model(inputs, x, name="small_cnn")


def unet(keras, input_shape, base=16, depth=3):
    """A small U-Net: ``depth`` down stages (two conv-BN-ReLU, max pool), a bottleneck, and up
    stages with a strided Conv2DTranspose, a skip concatenation and two conv-BN-ReLU; a 1x1 conv
    with a sigmoid gives a one-channel mask."""
    layers = keras.layers
    inputs = keras.Input(input_shape)
    x, skips = inputs, []
    for d in range(depth):
        x = _conv_bn_relu(layers, _conv_bn_relu(layers, x, base << d), base << d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = _conv_bn_relu(layers, _conv_bn_relu(layers, x, base << depth), base << depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base << d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = _conv_bn_relu(layers, _conv_bn_relu(layers, x, base << d), base << d)
    x = layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inputs, x, name="unet")


_BUILDERS = {"small_cnn": small_cnn, "unet": unet}


def build(model_spec: ModelSpec):
    """The Keras model of a spec, with seeded random weights and random batch-norm statistics."""
    import keras  # noqa: PLC0415 (TensorFlow/Keras only where an export is made)

    keras.utils.set_random_seed(model_spec.seed)
    kwargs = dict(model_spec.kwargs)
    if model_spec.app in _BUILDERS:
        model = _BUILDERS[model_spec.app](keras, model_spec.input_shape, **kwargs)
    else:
        app = getattr(keras.applications, model_spec.app)
        model = app(input_shape=model_spec.input_shape, weights=None, **kwargs)
    rng = np.random.default_rng(model_spec.seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            n = layer.moving_mean.shape
            if layer.gamma is not None:
                layer.gamma.assign(rng.uniform(0.5, 1.5, n).astype(np.float32))
            if layer.beta is not None:
                layer.beta.assign(rng.normal(0.0, 0.1, n).astype(np.float32))
            layer.moving_mean.assign(rng.normal(0.0, 0.1, n).astype(np.float32))
            layer.moving_variance.assign(rng.uniform(0.5, 1.5, n).astype(np.float32))
    return model


def _logits_tensor(graph_def, output: str) -> str | None:
    """The input of the Softmax that produces ``output`` (through Identity nodes), if any: the
    logits, which compare more sharply than probabilities that may be saturated."""
    nodes = {n.name: n for n in graph_def.node}
    name = output.split(":")[0]
    for _ in range(len(nodes)):
        node = nodes.get(name)
        if node is None or not node.input:
            return None
        if node.op == "Softmax":
            src = node.input[0]
            return src if ":" in src else src + ":0"
        if node.op != "Identity":
            return None
        name = node.input[0].split(":")[0]
    return None


def freeze(model, input_shape):
    """Freezes a Keras model the way a TF2 user does. Returns (GraphDef, input tensor name,
    output tensor name), with an unknown batch dimension on the input."""
    import tensorflow as tf  # noqa: PLC0415
    from tensorflow.python.framework.convert_to_constants import (  # noqa: PLC0415
        convert_variables_to_constants_v2,
    )

    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(tf.TensorSpec((None, *input_shape), tf.float32, name="input"))
    frozen = convert_variables_to_constants_v2(concrete)
    return frozen.graph.as_graph_def(), frozen.inputs[0].name, frozen.outputs[0].name


def export(model_spec: ModelSpec, cache_dir: str | None = None, verbose: bool = False) -> tuple[bytes, dict]:
    """The frozen GraphDef (serialized bytes) and its metadata for a spec, exported on first use
    and cached under ``cache_dir/tf-<version>/``. Needs TensorFlow unless the export is cached."""
    import tensorflow as tf  # noqa: PLC0415

    folder = os.path.join(cache_dir or default_cache_dir(), f"tf-{tf.__version__}")
    cached = _read(folder, model_spec)
    if cached is not None:
        return cached
    t0 = time.perf_counter()
    model = build(model_spec)
    graph_def, input_name, output_name = freeze(model, model_spec.input_shape)
    meta = {
        "name": model_spec.name,
        "spec": repr(model_spec),
        "tensorflow": tf.__version__,
        "keras": __import__("keras").__version__,
        "input": input_name,
        "output": output_name,
        "logits": _logits_tensor(graph_def, output_name),
        "input_shape": list(model_spec.input_shape),
        "parameters": int(model.count_params()),
        "ops": dict(sorted(collections.Counter(n.op for n in graph_def.node).items())),
        "export_seconds": round(time.perf_counter() - t0, 2),
    }
    data = graph_def.SerializeToString()
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, model_spec.key())
    for suffix, payload in ((".pb", data), (".json", json.dumps(meta, indent=1).encode())):
        tmp = f"{base}{suffix}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(payload)
        os.replace(tmp, base + suffix)  # atomic: a concurrent reader never sees half a file
    if verbose:
        print(f"  exported {model_spec.name} ({len(data) / 2**20:.1f} MiB, {meta['export_seconds']} s) -> {base}.pb")
    del model
    return data, meta


def _read(folder: str, model_spec: ModelSpec):
    base = os.path.join(folder, model_spec.key())
    try:
        with open(base + ".json") as f:
            meta = json.load(f)
        with open(base + ".pb", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return (data, meta) if meta.get("spec") == repr(model_spec) else None


def load(model_spec: ModelSpec, tf_version: str, cache_dir: str | None = None) -> tuple[bytes, dict]:
    """A cached export, read without importing TensorFlow (for processes that run only opforge)."""
    cached = _read(os.path.join(cache_dir or default_cache_dir(), f"tf-{tf_version}"), model_spec)
    if cached is None:
        raise FileNotFoundError(f"no cached export of {model_spec.name} for TensorFlow {tf_version}")
    return cached


def sample_input(meta: dict, batch: int, seed: int = 1) -> np.ndarray:
    """A deterministic float32 batch in [-1, 1) of the model's input shape."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, (batch, *meta["input_shape"])).astype(np.float32)


def rel_diff(ours: np.ndarray, ref: np.ndarray) -> float:
    """max |ours - ref| / max |ref|: the largest error relative to the output's scale (an
    element-wise ratio would blow up on outputs near zero)."""
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    if ours.shape != ref.shape:
        return float("inf")
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(ours - ref))) if ref.size else 0.0
    return err / scale if scale > 0 else err


# ---- running a GraphDef in each framework (Session defaults, no tuning) ----

def fetches(meta: dict) -> list[str]:
    """Tensors to compare: the output, and the logits before a final softmax when there is one."""
    return [meta["output"]] + ([meta["logits"]] if meta.get("logits") else [])


class _SessionRunner:
    """What both runners share: a Session over an imported graph, one input, some fetches."""

    def run(self, x):
        return self.session.run(self.fetches, {self.input: x})

    def close(self):
        self.session.close()


class OpforgeRunner(_SessionRunner):
    """The GraphDef imported into an opforge graph, run by ``of.compat.v1.Session()`` as is."""

    def __init__(self, graph_def: bytes, meta: dict, fetch_names=None):
        import opforge as of  # noqa: PLC0415
        import opforge.compat.v1 as v1  # noqa: PLC0415

        self.graph = of.Graph()
        with self.graph.as_default():
            of.import_graph_def(graph_def, name="")
        self.input = self.graph.get_tensor_by_name(meta["input"])
        self.fetches = [self.graph.get_tensor_by_name(n) for n in (fetch_names or [meta["output"]])]
        self.session = v1.Session(graph=self.graph)


class TensorFlowRunner(_SessionRunner):
    """The GraphDef imported with ``tf.import_graph_def``, run by ``tf.compat.v1.Session()`` as is."""

    def __init__(self, graph_def: bytes, meta: dict, fetch_names=None):
        import tensorflow as tf  # noqa: PLC0415

        v1 = tf.compat.v1
        self.graph = tf.Graph()
        with self.graph.as_default():
            v1.import_graph_def(v1.GraphDef.FromString(graph_def), name="")
        self.input = self.graph.get_tensor_by_name(meta["input"])
        self.fetches = [self.graph.get_tensor_by_name(n) for n in (fetch_names or [meta["output"]])]
        self.session = v1.Session(graph=self.graph)


RUNNERS = {"opforge": OpforgeRunner, "tensorflow": TensorFlowRunner}
