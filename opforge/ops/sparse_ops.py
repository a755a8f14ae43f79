"""``of.sparse``: TensorFlow's tf.sparse namespace over the SparseTensor ops (opdefs/sparse/):
SparseTensor, to_dense / reorder, add, concat, reductions, slicing, reshaping, splitting,
softmax, sparse-dense matmul, min/max, fill_empty_rows, segment reductions, and the
compositions TensorFlow writes in Python (eye, from_dense, retain, transpose, expand_dims,
merge, to_indicator, reset_shape)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.arguments import legacy_argument as _either
from ..framework import dtypes as _dtypes
from ..framework.api import constant
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue

__all__ = [
    "SparseTensor", "SparseTensorValue", "add", "bincount", "deserialize_many_sparse", "serialize_many_sparse",
    "serialize_sparse", "concat", "cross", "cross_hashed", "mask", "expand_dims", "eye", "fill_empty_rows", "from_dense",
    "matmul", "maximum", "merge", "minimum", "reduce_max", "reduce_max_sparse", "reduce_sum", "reduce_sum_sparse",
    "reorder", "reset_shape", "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "softmax",
    "sparse_dense_matmul", "sparse_reorder", "sparse_tensor_dense_matmul", "sparse_tensor_to_dense", "split",
    "to_dense", "to_indicator", "transpose",
]


def _sparse(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    return sp_input


def reorder(sp_input, name=None):
    """The same sparse tensor with its indices in row-major (lexicographic) order, as the ops
    that need sorted indices (SparseToDense with validate_indices) expect them."""
    sp_input = _sparse(sp_input)
    indices, values = _ops.sparse_reorder(sp_input.indices, sp_input.values, sp_input.dense_shape, name=name)
    return SparseTensor(indices, values, sp_input.dense_shape)


sparse_reorder = reorder  # TF1's name (tf.sparse_reorder)


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of ``sp_input`` (a SparseTensor or SparseTensorValue): its values at
    its indices, ``default_value`` (zero, or b"" for strings, when None) elsewhere. With
    ``validate_indices`` the indices must be in lexicographic order without repeats."""
    sp_input = _sparse(sp_input)
    dtype = _dtypes.as_dtype(sp_input.dtype)
    if default_value is None:
        default_value = b"" if dtype == _dtypes.string else np.zeros((), dtype.as_numpy_dtype)
    if not hasattr(default_value, "op") and not hasattr(default_value, "numpy"):
        default_value = constant(default_value, dtype=dtype)
    return _ops.sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values, default_value,
                                validate_indices=bool(validate_indices), name=name)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """TensorFlow 2's spelling (tf.sparse.to_dense) of sparse_tensor_to_dense."""
    return sparse_tensor_to_dense(sp_input, default_value, validate_indices, name)


# ---- the rest of tf.sparse over the SparseTensor ops (opdefs/sparse/)

def _int64(x):
    return x if hasattr(x, "dtype") else np.asarray(x, np.int64)


def _rank_of(sp):
    """The static rank of a SparseTensor (None where unknown)."""
    return sp.shape.rank


def _axes(sp, axis):
    """Reduction axes as an int32 vector: every dim when None."""
    if axis is None:
        rank = _rank_of(sp)
        if rank is not None:
            return np.arange(rank, dtype=np.int32)
        return _ops.range(np.int32(0), _ops.size(sp.dense_shape, out_type="int32"), np.int32(1))
    return axis if hasattr(axis, "dtype") else np.asarray(axis, np.int32).reshape(-1)


def add(a, b, threshold=None, thresh=None):
    """a + b: a SparseTensor when both are sparse (sums below threshold in magnitude dropped),
    a dense tensor when one is dense."""
    threshold = _either("threshold", threshold, "thresh", thresh) or 0
    a_sparse, b_sparse = isinstance(a, (SparseTensor, SparseTensorValue)), isinstance(b, (SparseTensor, SparseTensorValue))
    if a_sparse and b_sparse:
        a, b = _sparse(a), _sparse(b)
        dtype = _dtypes.as_dtype(a.dtype)
        real = _dtypes.as_dtype(threshold.dtype) if hasattr(threshold, "dtype") else dtype
        th = threshold if hasattr(threshold, "dtype") else np.asarray(threshold, real.as_numpy_dtype)
        i, v, s = _ops.sparse_add(a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, th)
        return SparseTensor(i, v, s)
    if not (a_sparse or b_sparse):
        raise TypeError("add: at least one of a and b must be a SparseTensor")
    sp, dense = (_sparse(a), b) if a_sparse else (_sparse(b), a)
    return _ops.sparse_tensor_dense_add(sp.indices, sp.values, sp.dense_shape, dense)


def concat(axis=None, sp_inputs=None, name=None, expand_nonconcat_dim=False, concat_dim=None, expand_nonconcat_dims=None):
    """SparseTensors concatenated along axis; with expand_nonconcat_dim the other dims grow to
    the largest input's."""
    axis = _either("axis", axis, "concat_dim", concat_dim)
    expand = _either("expand_nonconcat_dims", expand_nonconcat_dims, "expand_nonconcat_dim", expand_nonconcat_dim)
    sp_inputs = [_sparse(s) for s in sp_inputs]
    if expand:
        shapes = _ops.pack([s.dense_shape for s in sp_inputs], axis=0)
        top = _ops.max(shapes, np.int32(0), keep_dims=False)
        dims = _ops.range(np.int64(0), _ops.size(top, out_type="int64"), np.int64(1))
        along = _ops.equal(dims, _ops.floor_mod(np.int64(axis), _ops.size(top, out_type="int64")))
        sp_inputs = [SparseTensor(s.indices, s.values, _ops.select_v2(along, s.dense_shape, top)) for s in sp_inputs]
    i, v, s = _ops.sparse_concat([x.indices for x in sp_inputs], [x.values for x in sp_inputs],
                                 [x.dense_shape for x in sp_inputs], concat_dim=int(axis), name=name)
    return SparseTensor(i, v, s)


def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    """The identity matrix as a SparseTensor."""
    num_columns = num_rows if num_columns is None else num_columns
    rows, cols = _int64(num_rows), _int64(num_columns)
    n = _ops.minimum(rows, cols)
    diag = _ops.range(np.int64(0), n, np.int64(1))
    indices = _ops.pack([diag, diag], axis=1)
    values = _ops.fill(_ops.reshape(n, np.array([1], np.int64)), np.ones((), _dtypes.as_dtype(dtype).as_numpy_dtype))
    return SparseTensor(indices, values, _ops.pack([rows, cols], axis=0))


def fill_empty_rows(sp_input, default_value, name=None):
    """(sp_input with each empty row given default_value at column 0, which rows were empty)."""
    sp = _sparse(sp_input)
    default = default_value
    if not (hasattr(default, "op") or hasattr(default, "numpy")):  # a Python or NumPy value: sp's dtype
        default = constant(default_value, dtype=_dtypes.as_dtype(sp.dtype))
    i, v, empty, _ = _ops.sparse_fill_empty_rows(sp.indices, sp.values, sp.dense_shape, default, name=name)
    return SparseTensor(i, v, sp.dense_shape), empty


def from_dense(tensor, name=None):
    """The SparseTensor of tensor's non-zero elements."""
    zero = _ops.zeros_like(tensor)
    indices = _ops.where(_ops.not_equal(tensor, zero))
    return SparseTensor(indices, _ops.gather_nd(tensor, indices, name=name), _ops.shape(tensor, out_type="int64"))


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """op(sp_a) @ op(b) as a dense tensor; with a dense sp_a and a SparseTensor b, the product
    through the transposes (b^T a^T)^T."""
    if isinstance(b, (SparseTensor, SparseTensorValue)) and not isinstance(sp_a, (SparseTensor, SparseTensorValue)):
        sp_b = _sparse(b)
        t = _ops.sparse_tensor_dense_mat_mul(sp_b.indices, sp_b.values, sp_b.dense_shape, sp_a,
                                             adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return _ops.transpose(t, np.array([1, 0], np.int32), name=name)
    sp_a = _sparse(sp_a)
    return _ops.sparse_tensor_dense_mat_mul(sp_a.indices, sp_a.values, sp_a.dense_shape, b, adjoint_a=adjoint_a,
                                            adjoint_b=adjoint_b, name=name)


matmul = sparse_dense_matmul
sparse_tensor_dense_matmul = sparse_dense_matmul


def _binary(op, sp_a, sp_b, name):
    a, b = _sparse(sp_a), _sparse(sp_b)
    i, v = op(a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, name=name)
    return SparseTensor(i, v, a.dense_shape)


def maximum(sp_a, sp_b, name=None):
    return _binary(_ops.sparse_sparse_maximum, sp_a, sp_b, name)


def minimum(sp_a, sp_b, name=None):
    return _binary(_ops.sparse_sparse_minimum, sp_a, sp_b, name)


def _reduce(dense_op, sparse_op, sp_input, axis, keepdims, reduction_axes, keep_dims, sparse_out):
    sp = _sparse(sp_input)
    axis = _either("axis", axis, "reduction_axes", reduction_axes)
    keep = bool(_either("keepdims", keepdims, "keep_dims", keep_dims))
    args = (sp.indices, sp.values, sp.dense_shape, _axes(sp, axis))
    if sparse_out:
        return SparseTensor(*sparse_op(*args, keep_dims=keep))
    return dense_op(*args, keep_dims=keep)


def reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The sum of sp_input's values along axis (all dims when None), a dense tensor."""
    return _reduce(_ops.sparse_reduce_sum, None, sp_input, axis, keepdims, reduction_axes, keep_dims, False)


def reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    return _reduce(None, _ops.sparse_reduce_sum_sparse, sp_input, axis, keepdims, reduction_axes, keep_dims, True)


def reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The maximum of the present values along axis (a group without values gives 0)."""
    return _reduce(_ops.sparse_reduce_max, None, sp_input, axis, keepdims, reduction_axes, keep_dims, False)


def reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    return _reduce(None, _ops.sparse_reduce_max_sparse, sp_input, axis, keepdims, reduction_axes, keep_dims, True)


def reshape(sp_input, shape, name=None):
    sp = _sparse(sp_input)
    i, s = _ops.sparse_reshape(sp.indices, sp.dense_shape, _int64(shape), name=name)
    return SparseTensor(i, sp.values, s)


def _pick_strings(values, keep_mask):
    """The strings of a vector where keep_mask is true, in order (opforge's Gather takes no
    strings): the kept ones renumbered 0.. and the others moved past them by SparseReorder,
    then cut off by SparseSlice, both of which move strings."""
    mask = _ops.cast(keep_mask, "int64")
    n = _ops.size(mask, out_type="int64")
    rank = _ops.sub(_ops.cumsum(mask, np.int32(0)), np.int64(1))  # position among the kept
    position = _ops.select_v2(keep_mask, rank, _ops.add_v2(n, _ops.range(np.int64(0), n, np.int64(1))))
    ix = _ops.reshape(position, np.array([-1, 1], np.int64))
    shape = _ops.reshape(_ops.mul(n, np.int64(2)), np.array([1], np.int64))
    ix, ordered = _ops.sparse_reorder(ix, values, shape)
    kept = _ops.reshape(_ops.sum(mask, np.int32(0), keep_dims=False), np.array([1], np.int64))
    _, out, _ = _ops.sparse_slice(ix, ordered, shape, np.zeros(1, np.int64), kept)
    return out


def retain(sp_input, to_retain):
    """The values (and indices) of sp_input where the boolean vector to_retain is true."""
    sp = _sparse(sp_input)
    to_retain = to_retain if hasattr(to_retain, "dtype") else np.asarray(to_retain, np.bool_)
    keep = _ops.reshape(_ops.where(to_retain), np.array([-1], np.int64))
    values = _pick_strings(sp.values, to_retain) if _dtypes.as_dtype(sp.dtype) == _dtypes.string else \
        _ops.gather_v2(sp.values, keep, np.int32(0))
    return SparseTensor(_ops.gather_v2(sp.indices, keep, np.int32(0)), values, sp.dense_shape)


def reset_shape(sp_input, new_shape=None):
    """sp_input with dense shape new_shape, or the tightest shape holding its indices."""
    sp = _sparse(sp_input)
    if new_shape is None:
        shape = _ops.add_v2(_ops.max(sp.indices, np.int32(0), keep_dims=False), np.int64(1))
    else:
        shape = _int64(new_shape)
    return SparseTensor(sp.indices, sp.values, shape)


def slice(sp_input, start, size, name=None):  # noqa: A001
    sp = _sparse(sp_input)
    i, v, s = _ops.sparse_slice(sp.indices, sp.values, sp.dense_shape, _int64(start), _int64(size), name=name)
    return SparseTensor(i, v, s)


def softmax(sp_input, name=None):
    sp = _sparse(sp_input)
    return SparseTensor(sp.indices, _ops.sparse_softmax(sp.indices, sp.values, sp.dense_shape, name=name),
                        sp.dense_shape)


def split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None):
    """sp_input split into num_split SparseTensors along axis."""
    axis = _either("axis", axis, "split_dim", split_dim)
    if sp_input is None or num_split is None or axis is None:
        raise ValueError("split: sp_input, num_split and axis are required (by keyword)")
    sp = _sparse(sp_input)
    n = int(num_split)
    parts = _ops.sparse_split(np.int64(axis), sp.indices, sp.values, sp.dense_shape, num_split=n, name=name)
    indices, values, shapes = parts  # one list per output argument
    return [SparseTensor(indices[k], values[k], shapes[k]) for k in range(n)]


def transpose(sp_input, perm=None, name=None):
    sp = _sparse(sp_input)
    if perm is None:
        rank = _rank_of(sp)
        if rank is None:
            raise ValueError("transpose: perm is required when the rank is not known")
        perm = np.arange(rank - 1, -1, -1, dtype=np.int64)
    perm = _int64(perm)
    indices = _ops.gather_v2(sp.indices, perm, np.int32(1))
    shape = _ops.gather_v2(sp.dense_shape, perm, np.int32(0))
    return reorder(SparseTensor(indices, sp.values, shape), name=name)


def expand_dims(sp_input, axis=None, name=None):
    """sp_input with a dimension of size 1 inserted at axis (negative counts from the end)."""
    sp = _sparse(sp_input)
    rank = _rank_of(sp)
    if rank is None:
        raise ValueError("expand_dims: the rank of sp_input must be known")
    axis = -1 if axis is None else int(axis)
    axis = axis + rank + 1 if axis < 0 else axis
    n = _ops.slice(_ops.shape(sp.indices, out_type="int64"), np.array([0], np.int64), np.array([1], np.int64))
    zeros = _ops.fill(_ops.concat_v2([n, np.array([1], np.int64)], np.int32(0)), np.int64(0))
    cols = [_ops.slice(sp.indices, np.array([0, 0], np.int64), np.array([-1, axis], np.int64)), zeros,
            _ops.slice(sp.indices, np.array([0, axis], np.int64), np.array([-1, rank - axis], np.int64))]
    shape = _ops.concat_v2([_ops.slice(sp.dense_shape, np.array([0], np.int64), np.array([axis], np.int64)),
                            np.array([1], np.int64),
                            _ops.slice(sp.dense_shape, np.array([axis], np.int64), np.array([rank - axis], np.int64))],
                           np.int32(0))
    return SparseTensor(_ops.concat_v2(cols, np.int32(1), name=name), sp.values, shape)


def merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor whose last index is sp_ids' value (an id in [0, vocab_size)) and whose
    values are sp_values', in canonical order unless already_sorted."""
    ids = _sparse(sp_ids)
    vals = _sparse(sp_values)
    rank = _rank_of(ids)
    if rank is None:
        raise ValueError("merge: the rank of sp_ids must be known")
    kept = _ops.slice(ids.indices, np.array([0, 0], np.int64), np.array([-1, rank - 1], np.int64))
    new_ids = _ops.reshape(_ops.cast(ids.values, "int64"), np.array([-1, 1], np.int64))
    indices = _ops.concat_v2([kept, new_ids], np.int32(1))
    shape = _ops.concat_v2([_ops.slice(ids.dense_shape, np.array([0], np.int64), np.array([rank - 1], np.int64)),
                            np.reshape(np.asarray(vocab_size, np.int64), [1]) if not hasattr(vocab_size, "dtype")
                            else _ops.reshape(_ops.cast(vocab_size, "int64"), np.array([1], np.int64))], np.int32(0))
    result = SparseTensor(indices, vals.values, shape)
    return result if already_sorted else reorder(result, name=name)


def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor of shape dense_shape[:-1] + [vocab_size]: true at [..., id] for each
    id among sp_input's values in that row (ids outside [0, vocab_size) are an error)."""
    sp = _sparse(sp_input)
    n = _ops.slice(_ops.shape(sp.values, out_type="int64"), np.array([0], np.int64), np.array([1], np.int64))
    flags = SparseTensor(sp.indices, _ops.fill(n, np.bool_(True)), sp.dense_shape)
    merged = merge(sp, flags, vocab_size)
    return _ops.sparse_to_dense(merged.indices, merged.dense_shape, merged.values, np.bool_(False),
                                validate_indices=False, name=name)


def _segment(kind, data, indices, segment_ids, name, num_segments, sparse_gradient):
    if num_segments is None:
        return getattr(_ops, f"sparse_segment_{kind}")(data, indices, segment_ids, sparse_gradient=sparse_gradient,
                                                       name=name)
    return getattr(_ops, f"sparse_segment_{kind}_with_num_segments")(
        data, indices, segment_ids, num_segments, sparse_gradient=sparse_gradient, name=name)


def segment_sum(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
    """Per segment, the sum of the rows data[indices[i]] with segment_ids[i] equal to it."""
    return _segment("sum", data, indices, segment_ids, name, num_segments, sparse_gradient)


def segment_mean(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
    return _segment("mean", data, indices, segment_ids, name, num_segments, sparse_gradient)


def segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
    return _segment("sqrt_n", data, indices, segment_ids, name, num_segments, sparse_gradient)


_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TensorFlow's default key of hashed crosses


def _cross_inputs(inputs):
    """(sparse parts, dense inputs) of a cross's inputs, ints as int64 (TF's internal type)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse_in = [_sparse(x) for x in inputs if isinstance(x, (SparseTensor, SparseTensorValue))]
    dense_in = [x for x in inputs if not isinstance(x, (SparseTensor, SparseTensorValue))]

    def as_feature(t):
        if not (hasattr(t, "op") or hasattr(t, "numpy")):  # Python or NumPy data
            arr = np.asarray(t)
            return constant(arr, dtype=_dtypes.string) if arr.dtype.kind in "OSU" else arr.astype(np.int64)
        return t if _dtypes.as_dtype(t.dtype) in (_dtypes.string, _dtypes.int64) else _ops.cast(t, "int64")
    values = [as_feature(s.values) for s in sparse_in]
    dense = [as_feature(d) for d in dense_in]
    return sparse_in, values, dense


def cross(inputs, name=None, separator=None):
    """The string crosses of the features of each row of inputs (SparseTensors and dense 2-D
    tensors): every combination, joined by separator ('_X_' when None), as a SparseTensor."""
    sparse_in, values, dense = _cross_inputs(inputs)
    sep = constant(b"_X_" if separator is None else separator, dtype=_dtypes.string)
    i, v, s = _ops.sparse_cross_v2([x.indices for x in sparse_in], values, [x.dense_shape for x in sparse_in], dense,
                                   sep, name=name)
    return SparseTensor(i, v, s)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed crosses of the features of each row of inputs: TensorFlow's FingerprintCat64
    values modulo num_buckets (when > 0), as a SparseTensor of int64."""
    sparse_in, values, dense = _cross_inputs(inputs)
    strings_only = all(_dtypes.as_dtype(t.dtype) == _dtypes.string for t in values + dense)
    i, v, s = _ops.sparse_cross([x.indices for x in sparse_in], values, [x.dense_shape for x in sparse_in], dense,
                                hashed_output=True, num_buckets=int(num_buckets),
                                hash_key=int(hash_key or _DEFAULT_HASH_KEY), out_type=_dtypes.int64,
                                internal_type=_dtypes.string if strings_only else _dtypes.int64, name=name)
    return SparseTensor(i, v, s)


def mask(a, mask_indices, name=None):
    """The rows of IndexedSlices a whose indices are not in mask_indices (tf.sparse.mask)."""
    from ..framework.sparse_tensor import IndexedSlices  # noqa: PLC0415
    indices = a.indices
    masked = _ops.reshape(mask_indices if hasattr(mask_indices, "dtype") else np.asarray(mask_indices),
                          np.array([1, -1], np.int64))
    hit = _ops.any(_ops.equal(_ops.reshape(indices, np.array([-1, 1], np.int64)), _ops.cast(masked, indices.dtype)),
                   np.int32(1), keep_dims=False)
    keep = _ops.reshape(_ops.where(_ops.logical_not(hit)), np.array([-1], np.int64))
    return IndexedSlices(_ops.gather_v2(a.values, keep, np.int32(0), name=name), _ops.gather_v2(indices, keep, np.int32(0)),
                         a.dense_shape)


def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """Counts of each non-negative integer in values (a tensor or SparseTensor) as a SparseTensor:
    over all of values (axis 0) or per row of the last dimension (axis -1); weights add their
    values instead of 1; binary_output gives 1 for each present value. The last dense dim is
    max(values) + 1, at least minlength, at most maxlength (values from maxlength on are
    dropped), as TensorFlow's DenseCountSparseOutput computes it."""
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    is_sparse = isinstance(values, (SparseTensor, SparseTensorValue))
    if is_sparse:
        sp = _sparse(values)
        ids = _ops.cast(sp.values, "int64")
        w = _sparse(weights).values if isinstance(weights, (SparseTensor, SparseTensorValue)) else weights
        rank = _rank_of(sp)
        if axis == -1:
            if rank is None:
                raise ValueError("bincount: the rank of values must be known for axis=-1")
            outer = _ops.slice(sp.indices, np.array([0, 0], np.int64), np.array([-1, rank - 1], np.int64))
            outer_shape = _ops.slice(sp.dense_shape, np.array([0], np.int64), np.array([rank - 1], np.int64))
    else:
        dense = values if hasattr(values, "op") or hasattr(values, "numpy") else constant(np.asarray(values))
        ids = _ops.cast(_ops.reshape(dense, np.array([-1], np.int64)), "int64")
        w = None if weights is None else _ops.reshape(weights, np.array([-1], np.int64))
        if axis == -1:
            if dense.shape.rank is None or dense.shape.rank < 1:
                raise ValueError("bincount: axis=-1 needs values of known rank >= 1")
            at = _ops.where(_ops.equal(dense, dense))  # every position of an integer tensor, row-major
            outer = _ops.slice(at, np.array([0, 0], np.int64), np.array([-1, dense.shape.rank - 1], np.int64))
            full = _ops.shape(dense, out_type="int64")
            outer_shape = _ops.slice(full, np.array([0], np.int64), np.array([dense.shape.rank - 1], np.int64))
    out_dtype = w.dtype if w is not None else (sp.values.dtype if is_sparse else dense.dtype)
    counts = _ops.cast(w, out_dtype) if w is not None else _ops.ones_like(_ops.cast(ids, out_dtype))
    size = _ops.add_v2(_ops.max(_ops.concat_v2([ids, np.zeros(1, np.int64)], np.int32(0)), np.int32(0),
                                keep_dims=False), np.int64(1))
    if minlength is not None:
        size = _ops.maximum(size, np.int64(minlength))
    if maxlength is not None:
        size = _ops.minimum(size, np.int64(maxlength))
        keep = _ops.reshape(_ops.where(_ops.less(ids, np.int64(maxlength))), np.array([-1], np.int64))
        ids, counts = _ops.gather_v2(ids, keep, np.int32(0)), _ops.gather_v2(counts, keep, np.int32(0))
        if axis == -1:
            outer = _ops.gather_v2(outer, keep, np.int32(0))
    column = _ops.reshape(ids, np.array([-1, 1], np.int64))
    if axis == -1:
        indices = _ops.concat_v2([outer, column], np.int32(1))
        shape = _ops.concat_v2([outer_shape, _ops.reshape(size, np.array([1], np.int64))], np.int32(0))
    else:
        indices, shape = column, _ops.reshape(size, np.array([1], np.int64))
    merged = reduce_sum_sparse(SparseTensor(indices, counts, shape), axis=np.zeros(0, np.int32))
    if binary_output:
        return SparseTensor(merged.indices, _ops.ones_like(merged.values), merged.dense_shape)
    return merged


def serialize_sparse(sp_input, name=None, out_type=_dtypes.string):
    """sp_input as a [3] string vector of serialized TensorProtos (TensorFlow's bytes)."""
    sp = _sparse(sp_input)
    return _ops.serialize_sparse(sp.indices, sp.values, sp.dense_shape, out_type=out_type, name=name)


def serialize_many_sparse(sp_input, name=None, out_type=_dtypes.string):
    """A [N, 3] string matrix: row i serializes the slice sp_input[i] (rank R - 1)."""
    sp = _sparse(sp_input)
    return _ops.serialize_many_sparse(sp.indices, sp.values, sp.dense_shape, out_type=out_type, name=name)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor whose slice [i] is row i of serialized_sparse ([N, 3]); rank, when
    given, is the output's rank (checked when the graph is built where it is known)."""
    i, v, s = _ops.deserialize_many_sparse(serialized_sparse, dtype=dtype, name=name)
    return SparseTensor(i, v, s)
