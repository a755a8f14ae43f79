"""Write tests/data/feature_column_expected.npz: TensorFlow's answers to the feature-column
program tests/feature_column/fc_program.py (input_layer and linear_model outputs with seeded
weights: hash buckets, vocabulary lookups, crosses, embeddings), so CI without TensorFlow
checks opforge against them. Needs tensorflow: ``python tools/make_feature_column_fixtures.py``."""

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "feature_column"))

import fc_program  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402


def main():
    layer, linear, names, spec = fc_program.run(tf)
    out = ROOT / "tests" / "data" / "feature_column_expected.npz"
    np.savez_compressed(out, input_layer=layer, linear_model=linear,
                        meta=np.array(json.dumps({"variables": names, "spec": spec, "tf_version": tf.__version__})))
    print(f"wrote {out}: input_layer {layer.shape}, linear_model {linear.shape}")


if __name__ == "__main__":
    main()
