"""SequenceExample parsing (ParseSequenceExampleV2: parse_sequence_example and
parse_single_sequence_example): context and feature lists against TensorFlow's answers
(committed by tools/make_tfrecord_fixtures.py, and TF itself where installed), ragged feature
lists at the op level, and the errors TensorFlow gives."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.io.example import BytesList, Feature, FeatureList, FeatureLists, Features, Int64List, SequenceExample
from opforge.io.tfrecord import tf_record_iterator
from opforge.ops.parsing_ops import (
    FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, parse_sequence_example, parse_single_sequence_example,
)

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tfrecord")
IAE = of.errors.InvalidArgumentError
CONTEXT = {
    "length": FixedLenFeature([], of.int64),
    "lang": FixedLenFeature([], of.string, default_value="en"),
    "topics": VarLenFeature(of.string),
}
SEQUENCE = {
    "frames": FixedLenSequenceFeature([2], of.float32, allow_missing=True),
    "steps": FixedLenSequenceFeature([], of.int64),
    "tokens": VarLenFeature(of.string),
    "ids": VarLenFeature(of.int64),
}


@pytest.fixture(scope="module")
def expected():
    return np.load(os.path.join(DATA, "sequence.npz"), allow_pickle=True)


def _assert_parsed(got, expected, prefix):
    for key, value in got.items():
        if isinstance(value, (of.SparseTensor, of.SparseTensorValue)):
            for part in ("indices", "values", "dense_shape"):
                np.testing.assert_array_equal(np.asarray(getattr(value, part)), expected[f"{prefix}/{key}/{part}"],
                                              err_msg=f"{key}.{part}")
        else:
            np.testing.assert_array_equal(np.asarray(value), expected[f"{prefix}/{key}"], err_msg=key)


def test_committed_file_parses_to_tensorflows_values(expected):
    records = list(tf_record_iterator(os.path.join(DATA, "sequence_examples.tfrecord")))
    assert records == list(expected["records"])
    context, lists, lengths = parse_sequence_example(records, CONTEXT, SEQUENCE)
    assert sorted(lengths) == ["frames", "steps"]
    _assert_parsed({k: getattr(v, "numpy", lambda v=v: v)() if not isinstance(v, of.SparseTensor) else v.numpy()
                    for k, v in context.items()}, expected, "context")
    _assert_parsed({k: v.numpy() for k, v in lists.items()}, expected, "lists")
    _assert_parsed({k: v.numpy() for k, v in lengths.items()}, expected, "lengths")


def test_single_sequence_example_and_graph_mode(expected):
    record = expected["records"][5]
    context, lists = parse_single_sequence_example(record, CONTEXT, SEQUENCE)
    _assert_parsed({k: v.numpy() for k, v in context.items()}, expected, "single/context")
    _assert_parsed({k: v.numpy() for k, v in lists.items()}, expected, "single/lists")
    with of.Graph().as_default():
        serialized = of.placeholder(of.string, [None])
        context, lists, lengths = parse_sequence_example(serialized, CONTEXT, SEQUENCE)
        assert lists["frames"].shape.as_list() == [None, None, 2]
        assert lists["ids"].indices.shape.as_list() == [None, 3] and lengths["steps"].shape.as_list() == [None]
        with of.Session() as sess:
            got = sess.run((context, lists, lengths), {serialized: np.array(list(expected["records"]), dtype=object)})
    _assert_parsed(got[0], expected, "context")
    _assert_parsed(got[1], expected, "lists")
    _assert_parsed(got[2], expected, "lengths")


def _int_list(*steps):
    return FeatureList(feature=[Feature(int64_list=Int64List(value=s)) for s in steps])


def _sequence(lists, context=None):
    return SequenceExample(context=Features(feature=context or {}),
                           feature_lists=FeatureLists(feature_list=lists)).SerializeToString()


def test_errors_as_tensorflow_words_them():
    protos = [_sequence({"a": _int_list([1, 2], [3, 4])}), _sequence({"b": _int_list([1])})]
    with pytest.raises(IAE, match=r"Key: a, Index: 1.  Number of values != expected.  values size: 3"):
        parse_sequence_example([_sequence({"a": _int_list([1, 2], [3, 4, 5])})],
                               sequence_features={"a": FixedLenSequenceFeature([2], of.int64)})
    with pytest.raises(IAE, match=r"Name: <unknown>, Feature list 'a' is required but could not be found.  Did you "
                                  r"mean to include it in feature_list_dense_missing_assumed_empty"):
        parse_sequence_example(protos, sequence_features={"a": FixedLenSequenceFeature([2], of.int64)})
    with pytest.raises(IAE, match=r"Name: <unknown>, Key: a, Index: 0.  Number of values != expected.  values size: "
                                  r"2 but output shape: \[3\]"):
        parse_sequence_example(protos, sequence_features={"a": FixedLenSequenceFeature([3], of.int64,
                                                                                        allow_missing=True)})
    # the Index is the step's, as TensorFlow counts it
    with pytest.raises(IAE, match=r"Name: second, Feature list: b, Index: 0.  Data types don't match. Expected type: "
                                  r"string"):
        parse_sequence_example(protos, sequence_features={"b": VarLenFeature(of.string)},
                               example_names=["first", "second"])
    with pytest.raises(IAE, match="ParseSequenceExampleV2: Could not parse example input"):
        parse_sequence_example([b"\x12\x05ab"], sequence_features={"b": VarLenFeature(of.string)})
    with pytest.raises(IAE, match=r"Name: <unknown>, Feature: c \(data type: int64\) is required"):
        parse_sequence_example(protos, context_features={"c": FixedLenFeature([], of.int64)})
    with pytest.raises(ValueError, match="takes no default_value"):
        parse_sequence_example(protos, sequence_features={"a": FixedLenSequenceFeature([2], of.int64, True, 0)})
    with pytest.raises(ValueError, match="expected FixedLenFeature, VarLenFeature"):
        parse_sequence_example(protos, context_features={"a": FixedLenSequenceFeature([2], of.int64, True)})
    with pytest.raises(ValueError, match="expected FixedLenSequenceFeature or VarLenFeature"):
        parse_sequence_example(protos, sequence_features={"a": FixedLenFeature([2], of.int64)})
    with pytest.raises(ValueError, match="Missing features"):
        parse_sequence_example(protos)


def test_tensorflow_words_the_sequence_errors_the_same():
    tf = pytest.importorskip("tensorflow")
    protos = [_sequence({"a": _int_list([1, 2], [3, 4])}), _sequence({"b": _int_list([1])})]
    for ours, theirs in [
        ({"a": FixedLenSequenceFeature([2], of.int64)}, {"a": tf.io.FixedLenSequenceFeature([2], tf.int64)}),
        # (a wrong step size: TF words it two ways, by code path; ours is its per-step wording, tested above)
        ({"b": VarLenFeature(of.float32)}, {"b": tf.io.VarLenFeature(tf.float32)}),
    ]:
        with pytest.raises(tf.errors.InvalidArgumentError) as tf_error:
            tf.io.parse_sequence_example(tf.constant(protos), None, theirs)
        with pytest.raises(IAE) as of_error:
            parse_sequence_example(protos, sequence_features=ours)
        message = str(tf_error.value).split("}} ", 1)[-1].rsplit(" [Op:", 1)[0]
        assert str(of_error.value) == f"ParseSequenceExampleV2: {message}"


def test_random_sequences_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(11)
    protos = []
    for _ in range(20):
        lists = {"a": _int_list(*[rng.integers(-50, 50, size=3).tolist() for _ in range(int(rng.integers(0, 5)))]),
                 "s": FeatureList(feature=[Feature(bytes_list=BytesList(value=[rng.bytes(2)] * int(rng.integers(0, 3))))
                                           for _ in range(int(rng.integers(0, 4)))])}
        protos.append(_sequence(lists, {"c": Feature(int64_list=Int64List(value=[int(rng.integers(9))]))}))
    ours = parse_sequence_example(protos, {"c": FixedLenFeature([], of.int64)},
                                  {"a": FixedLenSequenceFeature([3], of.int64), "s": VarLenFeature(of.string)})
    theirs = tf.io.parse_sequence_example(tf.constant(protos), {"c": tf.io.FixedLenFeature([], tf.int64)},
                                          {"a": tf.io.FixedLenSequenceFeature([3], tf.int64),
                                           "s": tf.io.VarLenFeature(tf.string)})
    for o, t in zip(ours, theirs):
        for key, value in t.items():
            if isinstance(value, tf.SparseTensor):
                for part in ("indices", "values", "dense_shape"):
                    np.testing.assert_array_equal(getattr(o[key], part).numpy(), getattr(value, part).numpy())
            else:
                np.testing.assert_array_equal(o[key].numpy(), value.numpy())


def test_ragged_feature_lists_at_the_op_level():
    tf = pytest.importorskip("tensorflow")
    protos = [_sequence({"r": _int_list([1], [], [2, 3])}), _sequence({}), _sequence({"r": _int_list([4, 5, 6])})]
    kwargs = dict(context_sparse_keys=[], context_dense_keys=[], context_ragged_keys=[], feature_list_sparse_keys=[],
                  feature_list_dense_keys=[], feature_list_ragged_keys=["r"],
                  feature_list_dense_missing_assumed_empty=np.zeros(0, np.bool_), context_dense_defaults=[],
                  feature_list_ragged_value_types=[tf.int64], feature_list_ragged_split_types=[tf.int32])
    for serialized in (protos, protos[0]):
        theirs = tf.raw_ops.ParseSequenceExampleV2(serialized=serialized, debug_name=[], **kwargs)
        ours = of.raw_ops.ParseSequenceExampleV2(
            serialized=of.constant(serialized, dtype=of.string), debug_name=of.constant([], dtype=of.string),
            **{k: (of.constant(v, dtype=of.string) if k.endswith("_keys") else v) for k, v in kwargs.items()
               if k not in ("feature_list_ragged_value_types", "feature_list_ragged_split_types")},
            feature_list_ragged_value_types=[of.int64], feature_list_ragged_split_types=[of.int32])
        for position, name in ((11, "feature_list_ragged_values"), (12, "feature_list_ragged_outer_splits"),
                               (13, "feature_list_ragged_inner_splits")):
            a, b = getattr(theirs, name)[0].numpy(), ours[position][0].numpy()
            assert a.shape == b.shape and a.dtype == b.dtype, name
            if a.ndim:  # a scalar proto's outer splits: a scalar, uninitialized in TF's int32 case; ours is 0
                assert a.tolist() == b.tolist(), name
            else:
                assert b.tolist() == 0


def _single_v1(record, missing_ok=("frames",)):
    """TF1's ParseSingleSequenceExample op over CONTEXT and SEQUENCE (keys sorted, as TF orders them)."""
    s = of.constant
    return of.raw_ops.ParseSingleSequenceExample(
        serialized=s(record), feature_list_dense_missing_assumed_empty=s(list(missing_ok), dtype=of.string),
        context_sparse_keys=[s("topics")], context_dense_keys=[s("lang"), s("length")],
        feature_list_sparse_keys=[s("ids"), s("tokens")], feature_list_dense_keys=[s("frames"), s("steps")],
        context_dense_defaults=[s(b"en"), s(np.zeros(0, np.int64))], debug_name=s(""),
        context_sparse_types=[of.string], feature_list_dense_types=[of.float32, of.int64],
        context_dense_shapes=[[], []], feature_list_sparse_types=[of.int64, of.string],
        feature_list_dense_shapes=[[2], []])


def test_tf1_single_sequence_op_gives_tensorflows_values(expected):
    out = _single_v1(expected["records"][5])
    (c_idx, c_val, c_shape, c_dense, l_idx, l_val, l_shape, l_dense) = out
    got_context = {"topics": of.SparseTensorValue(c_idx[0].numpy(), c_val[0].numpy(), c_shape[0].numpy()),
                   "lang": c_dense[0].numpy(), "length": c_dense[1].numpy()}
    got_lists = {"ids": of.SparseTensorValue(l_idx[0].numpy(), l_val[0].numpy(), l_shape[0].numpy()),
                 "tokens": of.SparseTensorValue(l_idx[1].numpy(), l_val[1].numpy(), l_shape[1].numpy()),
                 "frames": l_dense[0].numpy(), "steps": l_dense[1].numpy()}
    _assert_parsed(got_context, expected, "single/context")
    _assert_parsed(got_lists, expected, "single/lists")
    with pytest.raises(IAE, match="ParseSingleSequenceExample: Name: <unknown>, Feature list 'frames' is required"):
        _single_v1(_sequence({"steps": _int_list([1])}, {"length": Feature(int64_list=Int64List(value=[1]))}),
                   missing_ok=())
    with pytest.raises(IAE, match="ParseSingleSequenceExample: Expected serialized to be a scalar"):
        of.raw_ops.ParseSingleSequenceExample(
            serialized=of.constant([b""]), feature_list_dense_missing_assumed_empty=of.constant([], dtype=of.string),
            context_sparse_keys=[], context_dense_keys=[], feature_list_sparse_keys=[], feature_list_dense_keys=[],
            context_dense_defaults=[], debug_name=of.constant(""))


def test_tf1_sequence_graph_def_imports_and_runs(expected):
    tf = pytest.importorskip("tensorflow")
    tf1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        one = tf1.placeholder(tf.string, [], name="one")
        s = tf.constant
        out = tf.raw_ops.ParseSingleSequenceExample(
            serialized=one, feature_list_dense_missing_assumed_empty=s(["frames"]),
            context_sparse_keys=[s("topics")], context_dense_keys=[s("lang"), s("length")],
            feature_list_sparse_keys=[s("ids"), s("tokens")], feature_list_dense_keys=[s("frames"), s("steps")],
            context_dense_defaults=[s(b"en"), s(np.zeros(0, np.int64))], debug_name=s(""),
            context_sparse_types=[tf.string], feature_list_dense_types=[tf.float32, tf.int64],
            context_dense_shapes=[[], []], feature_list_sparse_types=[tf.int64, tf.string],
            feature_list_dense_shapes=[[2], []])
        names = []
        for i, t in enumerate([out.context_dense_values[1], out.feature_list_sparse_indices[0],
                               out.feature_list_sparse_values[1], out.feature_list_dense_values[0],
                               out.feature_list_dense_values[1]]):
            names.append(tf.identity(t, name=f"out{i}").name)
        seq = tf1.placeholder(tf.string, [None], name="seq")
        _, lists, lengths = tf.io.parse_sequence_example(seq, None, {"steps": tf.io.FixedLenSequenceFeature([], tf.int64)})
        names += [tf.identity(lists["steps"], name="steps").name, tf.identity(lengths["steps"], name="lengths").name]
    records = list(expected["records"])
    feeds = {"one:0": records[5], "seq:0": records}
    with tf1.Session(graph=g) as sess:
        theirs = sess.run(names, feeds)
    with of.Graph().as_default() as og:
        of.import_graph_def(g.as_graph_def().SerializeToString(), name="")
        with of.Session() as sess:
            ours = sess.run([og.get_tensor_by_name(n) for n in names],
                            {og.get_tensor_by_name(k): (v if isinstance(v, bytes) else np.array(v, dtype=object))
                             for k, v in feeds.items()})
    for name, a, b in zip(names, theirs, ours):
        np.testing.assert_array_equal(b, a, err_msg=name)
