"""tf.feature_column against TensorFlow: the program in fc_program.py (every column kind, dense and
sparse inputs, hash buckets, crosses, vocabularies, embeddings with seeded weights) gives TF's
values, saved by tools/make_feature_column_fixtures.py for CI without TensorFlow, and compared
live where TensorFlow is installed; then the columns' errors and parse-spec/file/checkpoint paths."""

import json
import pathlib

import fc_program
import numpy as np
import pytest

import opforge.compat.v1 as tf

fc = tf.feature_column
DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "feature_column_expected.npz"


def test_program_matches_tensorflows_saved_answers():
    layer, linear, names, spec = fc_program.run(tf)
    want = np.load(DATA)
    meta = json.loads(str(want["meta"]))
    assert names == meta["variables"] and spec == meta["spec"]
    np.testing.assert_allclose(layer, want["input_layer"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(linear, want["linear_model"], rtol=1e-5, atol=1e-5)


def test_program_matches_tensorflow_live():
    tf_real = pytest.importorskip("tensorflow").compat.v1
    layer, linear, names, _ = fc_program.run(tf_real)
    ours = fc_program.run(tf)
    assert ours[2] == names
    np.testing.assert_allclose(ours[0], layer, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours[1], linear, rtol=1e-5, atol=1e-5)


def _run(t):
    with tf.Session() as s:  # vocabulary columns look ids up in tables: initialized as in TensorFlow
        s.run([tf.global_variables_initializer(), tf.tables_initializer()])
        return s.run(t)


def test_vocabulary_file_parse_spec_and_checkpoint(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("red\ngreen\nblue\n")
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.Graph().as_default():
        tf.get_variable("saved_table", initializer=table)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            prefix = tf.train.Saver().save(s, str(tmp_path / "ckpt"))
    with tf.Graph().as_default():
        color = fc.categorical_column_with_vocabulary_file("color", str(vocab), num_oov_buckets=1)
        emb = fc.embedding_column(color, 2, combiner="sum", ckpt_to_load_from=prefix, tensor_name_in_ckpt="saved_table")
        num = fc.numeric_column("num", default_value=-1.0)
        spec = fc.make_parse_example_spec([emb, num])
        assert set(spec) == {"color", "num"}
        examples = [tf.train.Example(features=tf.train.Features(feature={
            "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=c)),
            **({"num": tf.train.Feature(float_list=tf.train.FloatList(value=[n]))} if n is not None else {}),
        })).SerializeToString() for c, n in [([b"blue", b"red"], 2.5), ([b"green"], None)]]
        parsed = tf.io.parse_example(tf.constant(examples), spec)
        got = _run(fc.input_layer(parsed, [emb, num]))
    # column order is by name: color_embedding (blue+red rows 2+0 / green row 1), then num
    np.testing.assert_array_equal(got, [[4.0, 6.0, 2.5], [2.0, 3.0, -1.0]])


@pytest.mark.parametrize("make, match", [
    (lambda: fc.numeric_column("x", dtype=tf.string), "convertible to float"),
    (lambda: fc.numeric_column("x", normalizer_fn=3), "callable"),
    (lambda: fc.bucketized_column(fc.numeric_column("x"), [2.0, 1.0]), "sorted"),
    (lambda: fc.bucketized_column("x", [1.0]), "numeric_column"),
    (lambda: fc.categorical_column_with_identity("i", 0), "num_buckets"),
    (lambda: fc.categorical_column_with_identity("i", 3, default_value=3), "default_value"),
    (lambda: fc.categorical_column_with_vocabulary_list("v", ["a", "a"]), "Duplicate"),
    (lambda: fc.categorical_column_with_vocabulary_list("v", []), "non-empty"),
    (lambda: fc.categorical_column_with_vocabulary_list("v", ["a"], default_value=0, num_oov_buckets=1), "both"),
    (lambda: fc.categorical_column_with_vocabulary_list("v", ["a"], num_oov_buckets=-1), "num_oov_buckets"),
    (lambda: fc.categorical_column_with_hash_bucket("h", 0), "at least 1"),
    (lambda: fc.categorical_column_with_hash_bucket("h", 3, dtype=tf.float32), "string or integer"),
    (lambda: fc.crossed_column(["a"], 10), "length > 1"),
    (lambda: fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("h", 3)], 10), "HashedCategorical"),
    (lambda: fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 2), "w", tf.int32), "float"),
    (lambda: fc.indicator_column(fc.numeric_column("x")), "CategoricalColumn"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("i", 2), 0), "dimension"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("i", 2), 2, combiner="max"), "combiner"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("i", 2), 2, ckpt_to_load_from="p"), "both"),
    (lambda: fc.shared_embedding_columns([fc.categorical_column_with_identity("i", 2),
                                          fc.categorical_column_with_identity("j", 3)], 2), "same number"),
    (lambda: fc.input_layer({"i": [[1]]}, [fc.categorical_column_with_identity("i", 2)]), "_DenseColumn"),
    (lambda: fc.input_layer({}, [fc.numeric_column("x")]), "not in features"),
    (lambda: fc.input_layer({"x": [[1.0]]}, [fc.numeric_column("x"), fc.numeric_column("x")]), "Duplicate"),
    (lambda: fc.make_parse_example_spec([fc.numeric_column("x"), fc.numeric_column("x", shape=2)]), "different"),
    (lambda: fc.make_parse_example_spec(["x"]), "FeatureColumn"),
])
def test_errors(make, match):
    with tf.Graph().as_default(), pytest.raises((ValueError, TypeError), match=match):
        make()


def test_numeric_column_rejects_sparse_input():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="dense Tensor"):
        sp = tf.SparseTensor([[0, 0]], tf.constant([1.0]), [1, 1])
        fc.input_layer({"x": sp}, [fc.numeric_column("x")])


def test_identity_ids_out_of_range_fail_when_run():
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int64, [None, 1])
        out = fc.input_layer({"i": ids}, [fc.indicator_column(fc.categorical_column_with_identity("i", 3))])
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(out, {ids: [[2], [0]]}), [[0, 0, 1], [1, 0, 0]])
            with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
                s.run(out, {ids: [[3]]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Negative"):
                s.run(out, {ids: [[-2]]})


def test_layer_variables_collections_and_trainable():
    with tf.Graph().as_default():
        ids = fc.categorical_column_with_identity("i", 4)
        feats = {"i": tf.constant([[1], [3]], tf.int64), "x": tf.constant([[1.0], [2.0]])}
        cols_to_vars = {}
        emb = fc.embedding_column(ids, 2)
        fc.input_layer(feats, [emb, fc.numeric_column("x")], weight_collections=["mine"], trainable=False,
                       cols_to_vars=cols_to_vars)
        [table] = cols_to_vars[emb]
        assert table.name == "input_layer/i_embedding/embedding_weights:0"
        assert tf.get_collection("mine") == [table] and tf.trainable_variables() == []
        lm_vars = {}
        fc.linear_model(feats, [ids], weight_collections=["lm"], cols_to_vars=lm_vars)
        assert tf.get_collection("lm") == lm_vars[ids] + lm_vars["bias"]
        assert [v.name for v in tf.trainable_variables()] == ["linear_model/i/weights:0", "linear_model/bias_weights:0"]
