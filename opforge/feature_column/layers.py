"""Dense feature columns (indicator, embedding, shared embeddings) and the layers that combine
columns: input_layer, linear_model and make_parse_example_spec (TensorFlow 1's)."""

from __future__ import annotations

import collections
import math

import opforge as _of
from ..framework import variable_scope as _vs
from ..layers import initializers as _init
from ..ops import embedding_ops as _emb
from .columns import SparseTensor, _Cache, _Categorical, _Column, _NumericColumn, _BucketizedColumn


class _IndicatorColumn(_Column, collections.namedtuple("IndicatorColumn", ["categorical_column"])):
    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self):
        return self.categorical_column.num_buckets

    def _transform(self, cache):
        ids, weights = self.categorical_column.ids(cache)
        depth = self.categorical_column.num_buckets
        if weights is not None:  # TF: sparse_merge then to_dense (weights summed per id)
            one = _of.one_hot(ids.values, depth, 1.0, 0.0, dtype="float32")
            rows = _of.multiply(one, _of.expand_dims(weights.values, -1))
        else:
            rows = _of.one_hot(ids.values, depth, 1.0, 0.0, dtype="float32")
        batch = _of.cast(ids.dense_shape[0], "int32")
        return _of.unsorted_segment_sum(rows, _of.cast(ids.indices[:, 0], "int32"), batch)

    def dense(self, cache):
        return cache.get(self)


def indicator_column(categorical_column):
    """A categorical column as multi-hot (tf.feature_column.indicator_column)."""
    if not isinstance(categorical_column, _Categorical):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return _IndicatorColumn(categorical_column)


class _EmbeddingColumn(_Column, collections.namedtuple("EmbeddingColumn", [
        "categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from", "tensor_name_in_ckpt",
        "max_norm", "trainable", "shared_name"])):
    @property
    def name(self):
        return f"{self.categorical_column.name}_{'shared_' if self.shared_name else ''}embedding"

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self):
        return self.dimension

    def _transform(self, cache):
        return None

    def _weights(self, cache):
        shape = [self.categorical_column.num_buckets, self.dimension]
        if self.shared_name:  # TF: made once, in the layer's scope, under the collection's name
            store = _shared_weights(_of.get_default_graph())
            if self.shared_name not in store:
                with _vs.variable_scope(cache.scope), _vs.variable_scope(self.shared_name, reuse=_vs.AUTO_REUSE):
                    store[self.shared_name] = self._make(shape, cache)
            cache.made.append(store[self.shared_name])
            return store[self.shared_name]
        return self._make(shape, cache)

    def _make(self, shape, cache):
        initializer = self.initializer
        if self.ckpt_to_load_from is not None:  # TF: init_from_checkpoint, i.e. initialized to the saved value
            from ..training.saver import load_variable  # noqa: PLC0415
            saved = load_variable(self.ckpt_to_load_from, self.tensor_name_in_ckpt)
            if list(saved.shape) != shape:
                raise ValueError(f"Shape of variable {self.tensor_name_in_ckpt} {list(saved.shape)} doesn't match "
                                 f"the embedding's shape {shape}")
            initializer = _init.constant_initializer(saved)
        var = _vs.get_variable("embedding_weights", shape=shape, dtype="float32", initializer=initializer,
                               trainable=self.trainable and cache.trainable)
        _collect(var, cache.collections)
        cache.made.append(var)
        return var

    def dense(self, cache):
        ids, weights = self.categorical_column.ids(cache)
        return _emb.safe_embedding_lookup_sparse(self._weights(cache), ids, weights, combiner=self.combiner,
                                                 max_norm=self.max_norm)


def _collect(var, collections):
    for name in collections or ():
        if var not in _of.get_default_graph().get_collection(name):
            _of.get_default_graph().add_to_collection(name, var)


def _shared_weights(graph):
    if not hasattr(graph, "_feature_column_shared"):
        graph._feature_column_shared = {}
    return graph._feature_column_shared


def _check_embedding(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn', 'sum', got {combiner!r}")
    return initializer or _init.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """A categorical column's ids embedded in dimension floats (tf.feature_column.embedding_column)."""
    if not isinstance(categorical_column, _Categorical):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    initializer = _check_embedding(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt)
    return _EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, ckpt_to_load_from,
                            tensor_name_in_ckpt, max_norm, trainable, None)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """Embedding columns sharing one table (tf.feature_column.shared_embedding_columns)."""
    initializer = _check_embedding(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt)
    columns = list(categorical_columns)
    if not columns or any(not isinstance(c, _Categorical) for c in columns):
        raise ValueError("categorical_columns must be a non-empty list of CategoricalColumns.")
    if len({c.num_buckets for c in columns}) != 1:
        raise ValueError("To use shared_embedding_column, all categorical_columns must have the same number of "
                         f"buckets. Given: {[c.num_buckets for c in columns]}")
    name = shared_embedding_collection_name or "_".join(sorted(c.name for c in columns)) + "_shared_embedding"
    return [_EmbeddingColumn(c, int(dimension), combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                             max_norm, trainable, name) for c in columns]


def _dense_columns(feature_columns):
    columns = list(feature_columns) if isinstance(feature_columns, (list, tuple, set)) else [feature_columns]
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    for c in columns:
        if not isinstance(c, (_NumericColumn, _BucketizedColumn, _IndicatorColumn, _EmbeddingColumn)):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
                             f"with an embedding_column or indicator_column. Given: {c}")
    return sorted(columns, key=lambda c: c.name)


def input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None,
                cols_to_output_tensors=None):
    """The dense columns' values side by side, [batch, sum of widths] (tf.feature_column.input_layer)."""
    columns = _dense_columns(feature_columns)
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate feature column name found for columns: {names}")
    cache = _Cache(features)
    cache.trainable, cache.collections = trainable, weight_collections
    outputs = []
    with _vs.variable_scope(None, default_name="input_layer"):
        cache.scope = _vs.get_variable_scope()
        for c in columns:
            cache.made = []
            with _vs.variable_scope(None, default_name=c.name):
                out = _of.reshape(c.dense(cache), [-1, c.variable_shape])
            outputs.append(out)
            if cols_to_vars is not None:
                cols_to_vars[c] = list(cache.made)
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[c] = out
        return _of.concat(outputs, axis=1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None,
                 trainable=True, cols_to_vars=None):
    """Sum over columns of their values times weights, plus a bias (tf.feature_column.linear_model)."""
    columns = list(feature_columns)
    cache = _Cache(features)
    parts = []
    with _vs.variable_scope(None, default_name="linear_model"):
        for c in sorted(columns, key=lambda c: c.name):
            with _vs.variable_scope(None, default_name=c.name):
                if isinstance(c, _Categorical) and not isinstance(c, _BucketizedColumn):
                    w = _vs.get_variable("weights", shape=[c.num_buckets, units], dtype="float32",
                                         initializer=_init.zeros_initializer(), trainable=trainable)
                    ids, weights = c.ids(cache)
                    parts.append(_emb.safe_embedding_lookup_sparse(w, ids, weights, combiner=sparse_combiner))
                else:
                    w = _vs.get_variable("weights", shape=[c.variable_shape, units], dtype="float32",
                                         initializer=_init.zeros_initializer(), trainable=trainable)
                    parts.append(_of.matmul(_of.reshape(c.dense(cache), [-1, c.variable_shape]), w))
                _collect(w, weight_collections)
                if cols_to_vars is not None:
                    cols_to_vars[c] = [w]
        bias = _vs.get_variable("bias_weights", shape=[units], dtype="float32",
                                initializer=_init.zeros_initializer(), trainable=trainable)
        _collect(bias, weight_collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return _of.nn.bias_add(_of.add_n(parts), bias)


def make_parse_example_spec(feature_columns):
    """The parse_example features dict the columns read (tf.feature_column.make_parse_example_spec)."""
    spec = {}
    for c in feature_columns:
        if not isinstance(c, _Column):
            raise ValueError(f"All feature_columns must be FeatureColumn instances. Given: {c}")
        for k, v in c.parse_example_spec.items():
            if k in spec and spec[k] != v:
                raise ValueError(f"feature_columns contain different parse_spec for key {k}. "
                                 f"Given {v} and {spec[k]}")
            spec[k] = v
    return spec


__all__ = ["SparseTensor", "embedding_column", "indicator_column", "input_layer", "linear_model",
           "make_parse_example_spec", "shared_embedding_columns"]
