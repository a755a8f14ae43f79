"""Keras models frozen to GraphDefs by TensorFlow (tf.function + convert_variables_to_constants_v2,
random weights and batch-norm statistics) import into opforge and compute TensorFlow's outputs.
Skipped when TensorFlow is not installed. The export code is bench/keras_models.py, shared with
bench/bench_models.py; exports go to a temporary folder, never to the user's cache."""

from __future__ import annotations

import os
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
pytest.importorskip("tensorflow")
pytest.importorskip("keras")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import keras_models  # noqa: E402

SPECS = [
    keras_models.spec("small_cnn", "small_cnn", 32),
    keras_models.spec("mobilenet_v2_035", "MobileNetV2", 96, alpha=0.35),
    keras_models.spec("resnet50_64", "ResNet50", 64),
    keras_models.spec("unet", "unet", 64),
]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("keras-models"))


@pytest.mark.parametrize("model_spec", SPECS, ids=[s.name for s in SPECS])
def test_frozen_keras_model_matches_tensorflow(model_spec, cache_dir):
    data, meta = keras_models.export(model_spec, cache_dir)
    names = keras_models.fetches(meta)
    x = keras_models.sample_input(meta, 2)
    ours = keras_models.OpforgeRunner(data, meta, names)
    theirs = keras_models.TensorFlowRunner(data, meta, names)
    try:
        for name, a, b in zip(names, ours.run(x), theirs.run(x)):
            assert a.shape == b.shape, (name, a.shape, b.shape)
            assert keras_models.rel_diff(a, b) <= 1e-4, (name, keras_models.rel_diff(a, b))
        # The batch dimension stays unknown in the frozen graph: another size runs too.
        x1 = keras_models.sample_input(meta, 1, seed=2)
        assert keras_models.rel_diff(ours.run(x1)[0], theirs.run(x1)[0]) <= 1e-4
    finally:
        ours.close()
        theirs.close()


def test_export_is_cached_and_reproducible(cache_dir):
    model_spec = SPECS[0]
    data, meta = keras_models.export(model_spec, cache_dir)
    import tensorflow as tf

    again, meta_again = keras_models.load(model_spec, tf.__version__, cache_dir)
    assert again == data and meta_again == meta
    # Seeded weights: a fresh export computes the same function (Keras may name layers anew).
    rebuilt, rebuilt_meta = keras_models.export(model_spec, cache_dir=os.path.join(cache_dir, "fresh"))
    x = keras_models.sample_input(meta, 2)
    first = keras_models.OpforgeRunner(data, meta).run(x)[0]
    second = keras_models.OpforgeRunner(rebuilt, rebuilt_meta).run(x)[0]
    assert (first == second).all()
