"""TensorFlow 1's names for record files, tf.Example parsing and SparseTensor (tf.python_io,
tf.io's parsing and TFRecord names, tf.parse_example, tf.FixedLenFeature, tf.decode_raw,
tf.SparseTensor, tf.sparse), for the queue-era record readers (tf.FixedLengthRecordReader,
tf.TFRecordReader, tf.WholeFileReader, tf.IdentityReader) and for the linear-algebra ops
(tf.matrix_inverse, tf.cholesky, tf.svd, ...). Each is backed by opforge's own modules
(io/tfrecord, ops/parsing_ops, data/input_pipeline, framework/sparse_tensor, ops/sparse_ops,
ops/linalg_decompositions); this file spells them."""

from __future__ import annotations

import opforge as _of
from opforge.compat._namespace import Namespace, SparseTensor
from opforge.data import input_pipeline as _input
from opforge.framework.sparse_tensor import SparseTensorValue, sparse_placeholder
from opforge.ops import sparse_ops as _sparse

__all__ = [
    "python_io", "sparse", "SparseTensor", "SparseTensorValue", "sparse_placeholder", "sparse_tensor_to_dense",
    "sparse_reorder", "FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "parse_example",
    "parse_single_example", "parse_single_sequence_example", "decode_raw",
    "matrix_inverse", "matrix_determinant", "cholesky", "cholesky_solve", "matrix_solve", "matrix_triangular_solve",
    "qr", "self_adjoint_eig", "self_adjoint_eigvals", "svd", "matrix_band_part", "matrix_set_diag",
    "FixedLengthRecordReader", "TFRecordReader", "WholeFileReader", "IdentityReader",
]

_io = _of.io

# ---- records and tf.Example parsing (tf.io, tf.python_io and the top-level TF1 names) ----
FixedLenFeature, VarLenFeature = _io.FixedLenFeature, _io.VarLenFeature
FixedLenSequenceFeature = _io.FixedLenSequenceFeature
parse_example, parse_single_example = _io.parse_example, _io.parse_single_example
parse_single_sequence_example = _io.parse_single_sequence_example


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """tf.compat.v1.decode_raw: TF1's positional order (its 4th argument is name)."""
    return _io.decode_raw(input_bytes, out_type, little_endian=little_endian, name=name, bytes=bytes)


python_io = Namespace("python_io", TFRecordWriter=_io.TFRecordWriter, tf_record_iterator=_io.tf_record_iterator,
                      TFRecordOptions=_io.TFRecordOptions, TFRecordCompressionType=_io.TFRecordCompressionType)


def io_names() -> dict:
    """What tf.io has of records and parsing (tf.io's other names: _tf1.io)."""
    return dict(
        TFRecordWriter=_io.TFRecordWriter, tf_record_iterator=_io.tf_record_iterator,
        TFRecordOptions=_io.TFRecordOptions, TFRecordCompressionType=_io.TFRecordCompressionType,
        FixedLenFeature=FixedLenFeature, VarLenFeature=VarLenFeature, FixedLenSequenceFeature=FixedLenSequenceFeature,
        parse_example=parse_example, parse_single_example=parse_single_example,
        parse_sequence_example=_io.parse_sequence_example,
        parse_single_sequence_example=parse_single_sequence_example, decode_raw=_io.decode_raw,
    )


# ---- TF1's queue-era readers (data/input_pipeline.py; TextLineReader is spelled in _tf1.py) ----
FixedLengthRecordReader, TFRecordReader = _input.FixedLengthRecordReader, _input.TFRecordReader
WholeFileReader, IdentityReader = _input.WholeFileReader, _input.IdentityReader

# ---- SparseTensor ----
sparse_tensor_to_dense, sparse_reorder = _sparse.sparse_tensor_to_dense, _sparse.reorder
sparse = Namespace("sparse", SparseTensor=SparseTensor, to_dense=_sparse.to_dense, reorder=_sparse.reorder,
                   placeholder=sparse_placeholder)

# ---- linear algebra: TF1's top-level spellings of tf.linalg's ops ----
_la = _of.linalg
matrix_inverse, matrix_determinant, matrix_solve = _la.inv, _la.det, _la.solve
cholesky, cholesky_solve, matrix_triangular_solve = _la.cholesky, _la.cholesky_solve, _la.triangular_solve
qr, svd, self_adjoint_eig, self_adjoint_eigvals = _la.qr, _la.svd, _la.eigh, _la.eigvalsh
matrix_band_part, matrix_set_diag = _la.band_part, _la.set_diag


def linalg_names() -> dict:
    """tf.linalg's decompositions and solvers (its other names: _tf1_aliases.linalg_names)."""
    return {n: getattr(_la, n) for n in (
        "inv", "det", "slogdet", "logdet", "cholesky", "cholesky_solve", "solve", "triangular_solve", "qr", "eigh",
        "eigvalsh", "svd", "band_part", "set_diag")}
