"""TensorFlow's tf.train.Example family: the protocol messages that TFRecord input files hold
(TensorFlow's tensorflow/core/example/{example,feature}.proto, compiled under generated/).

An Example is ``Features``: a map from a feature name to a ``Feature``, which is one of a
``BytesList``, a ``FloatList`` or an ``Int64List``. A SequenceExample adds ``FeatureLists``
(a map from a name to a ``FeatureList``, a sequence of Features). The parsing ops
(ops/parsing_ops.py) decode the serialized bytes in C++ without protobuf.
"""

from __future__ import annotations

from ..codegen._proto import example_pb2, feature_pb2

__all__ = ["Example", "SequenceExample", "Features", "Feature", "BytesList", "FloatList", "Int64List",
           "FeatureList", "FeatureLists"]

Example = example_pb2.Example
SequenceExample = example_pb2.SequenceExample
Features = feature_pb2.Features
Feature = feature_pb2.Feature
BytesList = feature_pb2.BytesList
FloatList = feature_pb2.FloatList
Int64List = feature_pb2.Int64List
FeatureList = feature_pb2.FeatureList
FeatureLists = feature_pb2.FeatureLists
