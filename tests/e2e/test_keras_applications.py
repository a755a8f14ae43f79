"""Every family of keras.applications, frozen by TensorFlow (tf.function +
convert_variables_to_constants_v2, random weights and batch-norm statistics: see
bench/keras_models.py), imports into opforge and computes TensorFlow's outputs (and logits).
One model per family at a small input size. Skipped when TensorFlow is not installed; exports
go to a temporary folder."""

from __future__ import annotations

import os
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
pytest.importorskip("tensorflow")
pytest.importorskip("keras")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import keras_models  # noqa: E402

# (application, input size): the smallest each accepts (NASNetMobile only takes 224).
APPLICATIONS = [
    ("ConvNeXtTiny", 32), ("DenseNet121", 32), ("EfficientNetB0", 32), ("EfficientNetV2B0", 32),
    ("InceptionResNetV2", 75), ("InceptionV3", 75), ("MobileNet", 32), ("MobileNetV3Small", 32),
    ("NASNetMobile", 224), ("ResNet50V2", 32), ("VGG16", 32), ("Xception", 71),
]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("keras-applications"))


@pytest.mark.parametrize("app,size", APPLICATIONS, ids=[a for a, _ in APPLICATIONS])
def test_keras_application_matches_tensorflow(app, size, cache_dir):
    data, meta = keras_models.export(keras_models.spec(app.lower(), app, size), cache_dir)
    names = keras_models.fetches(meta)
    x = keras_models.sample_input(meta, 2)
    ours = keras_models.OpforgeRunner(data, meta, names)
    theirs = keras_models.TensorFlowRunner(data, meta, names)
    try:
        for name, a, b in zip(names, ours.run(x), theirs.run(x)):
            assert a.shape == b.shape, (name, a.shape, b.shape)
            assert keras_models.rel_diff(a, b) <= 1e-4, (name, keras_models.rel_diff(a, b))
    finally:
        ours.close()
        theirs.close()
