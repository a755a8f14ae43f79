"""tf.train.Example and friends as opforge publishes them (of.train.Example, ...): the same
messages as TensorFlow's, read from and written to TensorFlow's bytes."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tfrecord")


def test_messages_are_published_under_tensorflows_names():
    for name in ("Example", "SequenceExample", "Features", "Feature", "BytesList", "FloatList", "Int64List",
                 "FeatureList", "FeatureLists"):
        cls = getattr(of.train, name)
        assert cls.DESCRIPTOR.full_name == f"tensorflow.{name}"


def test_committed_tensorflow_examples_read_back_and_reserialize():
    records = np.load(os.path.join(DATA, "examples.npz"), allow_pickle=True)["records"]
    for record in records:
        example = of.train.Example.FromString(record)
        assert example.features.feature["score"].WhichOneof("kind") == "float_list"
        assert len(example.features.feature["image"].bytes_list.value[0]) == 24
        again = of.train.Example.FromString(example.SerializeToString())
        assert again == example


def test_tensorflow_reads_ours_and_we_read_tensorflows():
    tf = pytest.importorskip("tensorflow")
    ours = of.train.SequenceExample(
        context=of.train.Features(feature={"id": of.train.Feature(int64_list=of.train.Int64List(value=[7, -2]))}),
        feature_lists=of.train.FeatureLists(feature_list={"w": of.train.FeatureList(feature=[
            of.train.Feature(bytes_list=of.train.BytesList(value=[b"a", b"\x00b"])),
            of.train.Feature(float_list=of.train.FloatList(value=[0.5]))])}))
    theirs = tf.train.SequenceExample.FromString(ours.SerializeToString())
    assert list(theirs.context.feature["id"].int64_list.value) == [7, -2]
    assert list(theirs.feature_lists.feature_list["w"].feature[0].bytes_list.value) == [b"a", b"\x00b"]
    assert of.train.SequenceExample.FromString(theirs.SerializeToString()) == ours
