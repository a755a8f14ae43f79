"""Models of common Keras layers frozen by TensorFlow (tf.function +
convert_variables_to_constants_v2) import into opforge and compute TensorFlow's outputs: the
recurrent layers (their while loop lowered to Switch/Merge/Enter/Exit/NextIteration and
TensorList ops), MultiHeadAttention (Einsum), LayerNormalization with exact and approximate
GELU (Erfc), Embedding, UpSampling2D / Resizing (ResizeNearestNeighbor, ResizeBilinear), dilated Conv1D
(SpaceToBatchND, BatchToSpaceND), Conv3D / MaxPooling3D / AveragePooling3D / UpSampling3D. Skipped when TensorFlow is not installed."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

import opforge as of  # noqa: E402
import opforge.compat.v1 as tf1  # noqa: E402


LOOPS = {"lstm_stack", "gru", "simple_rnn", "bidirectional_lstm", "masked_lstm"}


def _models():
    L = keras.layers
    return {
        "lstm_stack": ((12, 8), lambda: [L.LSTM(16, return_sequences=True), L.LSTM(8)]),
        "gru": ((12, 8), lambda: [L.GRU(16)]),
        "simple_rnn": ((9, 5), lambda: [L.SimpleRNN(7, return_sequences=True)]),
        "bidirectional_lstm": ((10, 4), lambda: [L.Bidirectional(L.LSTM(6))]),
        "masked_lstm": ((10, 4), lambda: [L.Masking(0.0), L.LSTM(6)]),
        "multi_head_attention": ((10, 16), lambda: [lambda x: L.MultiHeadAttention(2, 8)(x, x)]),
        "layer_norm_gelu": ((10, 16), lambda: [L.LayerNormalization(), L.Dense(8, activation="gelu"),
                                               L.Dense(4, activation=lambda v: keras.activations.gelu(v, approximate=True))]),
        "embedding": ((10,), lambda: [L.Embedding(50, 8), L.GlobalAveragePooling1D()]),
        "dilated_conv1d": ((20, 4), lambda: [L.Conv1D(8, 3), L.MaxPooling1D(),
                                             L.Conv1D(8, 3, dilation_rate=2, padding="causal"), L.GlobalAveragePooling1D()]),
        "conv3d": ((8, 8, 8, 3), lambda: [L.Conv3D(4, 3), L.MaxPooling3D(), L.AveragePooling3D(pool_size=1),
                                          L.UpSampling3D(), L.Conv3D(2, 2, strides=2, padding="same")]),
        "upsampling_resizing": ((8, 8, 3), lambda: [L.UpSampling2D(), L.UpSampling2D(interpolation="bilinear"),
                                                    L.Resizing(10, 12), L.Conv2DTranspose(4, 3, strides=2)]),
    }


def _freeze(name):
    from tensorflow.python.framework.convert_to_constants import (  # noqa: PLC0415
        convert_variables_to_constants_v2,
    )
    shape, layers = _models()[name]
    keras.utils.set_random_seed(0)
    int_input = name == "embedding"
    inputs = keras.Input(shape, dtype="int32" if int_input else "float32")
    x = inputs
    for layer in layers():
        x = layer(x)
    model = keras.Model(inputs, x)
    fn = tf.function(lambda v: model(v, training=False))
    spec = tf.TensorSpec((None, *shape), tf.int32 if int_input else tf.float32)
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function(spec))
    return frozen.graph.as_graph_def(), frozen.inputs[0].name, frozen.outputs[0].name, shape


@pytest.mark.parametrize("name", list(_models()))
def test_frozen_keras_layers_match_tensorflow(name):
    gd, input_name, output_name, shape = _freeze(name)
    ops_used = {n.op for n in gd.node}
    if name in LOOPS:
        assert {"Enter", "Exit", "NextIteration", "Merge", "Switch"} <= ops_used  # a real lowered loop
    if name == "multi_head_attention":
        assert "Einsum" in ops_used
    rng = np.random.default_rng(1)
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd.SerializeToString(), name="")
    ours = tf1.Session(graph=g)
    tg = tf.Graph()
    with tg.as_default():
        tf.compat.v1.import_graph_def(gd, name="")
    theirs = tf.compat.v1.Session(graph=tg)
    for batch in (3, 1):
        x = rng.integers(0, 50, (batch, *shape)).astype(np.int32) if name == "embedding" else \
            rng.uniform(-1, 1, (batch, *shape)).astype(np.float32)
        if name == "masked_lstm":
            x[0, 6:] = 0.0  # masked steps
        a = ours.run(output_name, {input_name: x})
        b = theirs.run(output_name, {input_name: x})
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=1e-5)
