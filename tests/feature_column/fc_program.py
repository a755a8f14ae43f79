"""A TF1 feature-column program run both by TensorFlow (tools/make_feature_column_fixtures.py,
and the comparison tests) and by opforge: ``run(tf)`` with tf = tensorflow.compat.v1 or
opforge.compat.v1. Every trainable variable is set to seeded random values by name, so
input_layer and linear_model outputs compare exactly."""

import numpy as np


def _features(tf):
    return {
        "x": tf.constant([[1.0, 2.0], [-3.0, 4.5], [0.5, 7.0], [1.5, -0.2]]),
        "a": tf.constant([["cat"], ["dog"], ["zebra"], ["bird"]]),
        "b": tf.SparseTensor(indices=[[0, 0], [0, 1], [2, 0], [3, 1]], values=tf.constant(["u", "v", "w", "uu"]),
                             dense_shape=[4, 2]),
        "c": tf.constant([["bird", "cow"], ["", "dog"], ["cat", "x"], ["", ""]]),
        "i": tf.constant([[3], [0], [4], [1]], dtype=tf.int64),
        "n": tf.constant([[10, -1], [22, 3], [31, 2], [-1, -1]], dtype=tf.int64),
        "w": tf.constant([[0.5], [2.0], [1.0], [3.0]]),
        "k": tf.constant([1.0, 2.0, 3.0, 4.0]),
        "s": tf.SparseTensor(indices=[[0, 0], [0, 2], [1, 1], [3, 0]], values=tf.constant([5, 1, 0, 5], tf.int64),
                             dense_shape=[4, 3]),
    }


def run(tf):
    """(input_layer output, linear_model output, hash ids of b, cross ids, variable names, spec keys)."""
    fc = tf.feature_column
    with tf.Graph().as_default():
        feats = _features(tf)
        x = fc.numeric_column("x", shape=(2,), normalizer_fn=lambda t: t * 2.0 - 1.0)
        bx = fc.bucketized_column(fc.numeric_column("x", shape=(2,)), [0.0, 1.5, 5.0])
        a = fc.categorical_column_with_vocabulary_list("a", ["cat", "dog", "bird"], num_oov_buckets=3)
        c = fc.categorical_column_with_vocabulary_list("c", ["cat", "dog", "bird"], default_value=1)
        b = fc.categorical_column_with_hash_bucket("b", 50)
        i = fc.categorical_column_with_identity("i", 5)
        n = fc.categorical_column_with_hash_bucket("n", 7, dtype=tf.int64)
        cr = fc.crossed_column(["a", bx], 1000)
        cr2 = fc.crossed_column(["b", "a"], 97)
        wi = fc.weighted_categorical_column(i, "w")
        cols = [x, bx, fc.indicator_column(a), fc.indicator_column(c), fc.indicator_column(b), fc.indicator_column(cr),
                fc.embedding_column(i, 3), fc.embedding_column(b, 4, combiner="sqrtn"),
                fc.embedding_column(cr2, 3, combiner="sum"), fc.indicator_column(n),
                fc.embedding_column(wi, 2), fc.indicator_column(wi), fc.numeric_column("k"),
                fc.bucketized_column(fc.numeric_column("k"), [2.5]),
                fc.embedding_column(fc.categorical_column_with_identity("s", 6), 2, combiner="sqrtn"),
                fc.indicator_column(fc.categorical_column_with_vocabulary_list("s", [5, 0, 9], num_oov_buckets=2))]
        shared = fc.shared_embedding_columns([i, fc.categorical_column_with_identity("n", 5, default_value=0)], 3)
        out = fc.input_layer(feats, cols + shared)
        lm = fc.linear_model(feats, [x, bx, a, cr2, wi, n], units=2)
        spec = fc.make_parse_example_spec(cols + [n])
        trainable = sorted(tf.trainable_variables(), key=lambda v: v.name)
        rng = np.random.RandomState(7)
        assigns = [tf.assign(v, rng.uniform(-1, 1, v.shape.as_list()).astype(np.float32)) for v in trainable]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            if hasattr(tf, "tables_initializer"):
                s.run(tf.tables_initializer())
            s.run(assigns)
            got = s.run([out, lm])
        return got[0], got[1], [v.name for v in trainable], sorted(spec)
