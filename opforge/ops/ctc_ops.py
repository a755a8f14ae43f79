"""Connectionist temporal classification: tf.nn.ctc_loss (TF1's, over the CTCLoss op),
ctc_loss_v2 (dense or sparse labels, any blank index) and ctc_greedy_decoder (CTCGreedyDecoder,
decoding to a SparseTensor), and CTCLoss's gradient."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.arguments import legacy_argument
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor_shape import TensorShape


def _time_major(x, time_major):
    return x if time_major else _ops.transpose(x, np.array([1, 0, 2], np.int32))


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False, time_major=True, logits=None):
    """The CTC loss, -log p(labels | inputs), per batch entry (TensorFlow 1's tf.nn.ctc_loss).

    labels: a SparseTensor of int32 class ids in [0, num_classes - 1); inputs (or logits): the
    unnormalized log probabilities, [max_time, batch, num_classes] (time_major) or
    [batch, max_time, num_classes]; the last class is the blank.
    """
    inputs = legacy_argument("logits", logits, "inputs", inputs)
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected argument `labels` to be a SparseTensor. "
                        f"Received labels={labels} of type: {type(labels).__name__}")
    if sequence_length is None:
        raise ValueError("ctc_loss: sequence_length is required")
    values = labels.values if labels.values.dtype == "int32" else _ops.cast(labels.values, "int32")
    loss, _ = _ops.ctc_loss(_time_major(inputs, time_major), labels.indices, values,
                            _ops.cast(sequence_length, "int32"),
                            preprocess_collapse_repeated=preprocess_collapse_repeated,
                            ctc_merge_repeated=ctc_merge_repeated,
                            ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs)
    return loss


def ctc_loss_grad(op, grads):
    """CTCLoss's gradient: the loss gradient (per entry) times the op's own gradient output; the
    gradient output itself is not differentiable again (as TensorFlow)."""
    grad_loss = grads[0]
    g = _ops.mul(_ops.expand_dims(_ops.expand_dims(grad_loss, np.int32(0)), np.int32(2)), op.outputs[1])
    return [g, None, None, None]


def _dim(x, i):
    d = x.shape.as_list()[i] if x.shape.rank is not None else None
    return d


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None,
                blank_index=None, name=None):
    """tf.nn.ctc_loss_v2: labels dense [batch, max_label_length] with label_length, or a
    SparseTensor; the blank is class blank_index (0 by default for dense labels)."""
    del unique, name  # unique: TensorFlow's speed-up for dense labels; the loss is the same
    num_classes = _dim(logits, 2)
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a `SparseTensor`.")
    else:
        if blank_index is None:
            blank_index = 0
        labels = _dense_to_sparse(labels, label_length)
    if blank_index < 0:
        if num_classes is None:
            raise ValueError("ctc_loss_v2: a negative blank_index needs the number of classes known statically")
        blank_index += num_classes
    if num_classes is None or blank_index != num_classes - 1:
        if num_classes is None:
            raise ValueError("ctc_loss_v2: the number of classes (logits' last dimension) must be known")
        order = [k for k in range(num_classes) if k != blank_index] + [blank_index]
        logits = _ops.gather_v2(logits, np.asarray(order, np.int32), np.int32(2))
        values = _ops.cast(labels.values, "int64")
        values = _ops.select_v2(_ops.less(values, np.int64(blank_index)), values, _ops.sub(values, np.int64(1)))
        labels = SparseTensor(labels.indices, values, labels.dense_shape)
    return ctc_loss(labels, logits, logit_length, time_major=logits_time_major)


def _dense_to_sparse(labels, label_length):
    """The first label_length[b] labels of each row as a SparseTensor."""
    labels = labels if hasattr(labels, "dtype") else _ops.identity(np.asarray(labels))
    shape = _ops.cast(_ops.shape(labels), "int64")
    maxlen = _ops.gather_v2(shape, np.int32(1), np.int32(0))
    positions = _ops.range(np.int64(0), maxlen, np.int64(1))
    mask = _ops.less(_ops.expand_dims(positions, np.int32(0)),
                     _ops.expand_dims(_ops.cast(label_length, "int64"), np.int32(1)))
    indices = _ops.where(mask)
    values = _ops.gather_nd(labels, indices)
    return SparseTensor(indices, values, shape)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """The most likely class per step, blanks removed (and runs merged with merge_repeated):
    ``([SparseTensor of int64 classes, [batch, max_decoded_length]], log_probabilities
    [batch, 1])``. The blank is the last class unless blank_index says otherwise."""
    if blank_index is None:
        blank_index = -1
    indices, values, shape, log_probs = _ops.ctc_greedy_decoder(
        inputs, _ops.cast(sequence_length, "int32"), merge_repeated=merge_repeated, blank_index=int(blank_index))
    return [SparseTensor(indices, values, shape)], log_probs


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """TensorFlow's CTC prefix beam search (CTCBeamSearchDecoder): ``([SparseTensor of int64
    classes, [batch, max_decoded_length]] * top_paths, log_probabilities [batch, top_paths])``,
    the most likely path first. The blank is the last class."""
    indices, values, shapes, log_probs = _ops.ctc_beam_search_decoder(
        inputs, _ops.cast(sequence_length, "int32"), beam_width=int(beam_width), top_paths=int(top_paths),
        merge_repeated=bool(merge_repeated))
    return [SparseTensor(i, v, s) for i, v, s in zip(indices, values, shapes)], log_probs


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """ctc_beam_search_decoder without merging repeated labels when the paths are read out
    (TensorFlow 2's tf.nn.ctc_beam_search_decoder)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width=beam_width, top_paths=top_paths,
                                   merge_repeated=False)


def ctc_unique_labels(labels, name=None):
    """Per row of ``labels`` [batch, max_label_length], its distinct labels in order of first
    appearance, padded with 0 to max_label_length (int64), and for each label the index of its
    value among them (int32), as tf.unique gives per row (tf.nn.ctc_unique_labels)."""
    del name
    labels = labels if hasattr(labels, "dtype") else _ops.identity(np.asarray(labels))
    rank = TensorShape(labels.shape).rank
    if rank is not None and rank != 2:  # noqa: PLR2004
        raise ValueError(f"ctc_unique_labels: labels must be [batch, max_label_length], got shape {labels.shape}")
    dims = TensorShape(labels.shape).as_list() if rank is not None else None
    length = np.int32(dims[1]) if dims and dims[1] is not None else \
        _ops.gather_v2(_ops.shape(labels), np.int32(1), np.int32(0))
    positions = _ops.range(np.int32(0), length, np.int32(1))
    same = _ops.equal(_ops.expand_dims(labels, np.int32(2)), _ops.expand_dims(labels, np.int32(1)))  # [b, j, k]
    earlier = _ops.less(_ops.expand_dims(positions, np.int32(0)), _ops.expand_dims(positions, np.int32(1)))  # k < j
    first = _ops.logical_not(_ops.any(_ops.logical_and(same, earlier), np.int32(2)))  # j is a first appearance
    first_i = _ops.cast(first, "int32")
    rank = _ops.cumsum(first_i, np.int32(1), exclusive=True)  # of a first appearance: its place among the unique
    first_pos = _ops.arg_max(_ops.cast(same, "int32"), np.int32(2), output_type="int32")
    idx = _ops.sum(_ops.mul(_ops.one_hot(first_pos, length, np.int32(1), np.int32(0)),
                            _ops.expand_dims(rank, np.int32(1))), np.int32(2))
    slots = _ops.one_hot(rank, length, np.int64(1), np.int64(0))  # [b, k, r]
    kept = _ops.mul(_ops.cast(first_i, "int64"), _ops.cast(labels, "int64"))
    unique = _ops.sum(_ops.mul(slots, _ops.expand_dims(kept, np.int32(2))), np.int32(1))
    return unique, idx


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of one label within each row's first seq_length entries (tf.nn.collapse_repeated):
    ``(collapsed labels [batch, new max length] padded with 0, new lengths)``."""
    from . import array_ops  # noqa: PLC0415
    from . import math_ops  # noqa: PLC0415

    del name
    labels = labels if hasattr(labels, "dtype") else _ops.identity(np.asarray(labels))
    if labels.shape.rank is not None and labels.shape.rank != 2:  # noqa: PLR2004
        raise ValueError(f"collapse_repeated: labels must be [batch, max_length], got shape {labels.shape}")
    seq_length = seq_length if hasattr(seq_length, "dtype") else _ops.identity(np.asarray(seq_length, np.int32))
    shape = _ops.shape(labels)
    maxlen = _ops.gather_v2(shape, np.int32(1), np.int32(0))
    first = _ops.ones_like(_ops.strided_slice(labels, np.array([0, 0], np.int32), np.array([0, 1], np.int32),
                                              np.array([1, 1], np.int32), begin_mask=1, end_mask=1))
    later = _ops.not_equal(
        _ops.strided_slice(labels, np.array([0, 1], np.int32), np.array([0, 0], np.int32), np.array([1, 1], np.int32),
                           begin_mask=1, end_mask=3),
        _ops.strided_slice(labels, np.array([0, 0], np.int32), np.array([0, -1], np.int32), np.array([1, 1], np.int32),
                           begin_mask=1, end_mask=1))
    label_mask = _ops.concat_v2([_ops.cast(first, "bool"), later], np.int32(1))
    label_mask = _ops.logical_and(label_mask, array_ops.sequence_mask(seq_length, maxlen=maxlen))
    new_len = math_ops.reduce_sum(_ops.cast(label_mask, "int32"), axis=1)
    new_max = math_ops.reduce_max(new_len)
    idx_mask = array_ops.sequence_mask(new_len, maxlen=new_max)
    flat_idx_mask = _ops.reshape(idx_mask, np.array([-1], np.int32))
    positions = _ops.range(np.int32(0), _ops.size(flat_idx_mask), np.int32(1))
    flat = array_ops.scatter_nd(
        _ops.expand_dims(array_ops.boolean_mask(positions, flat_idx_mask), np.int32(1)),
        array_ops.boolean_mask(_ops.reshape(labels, np.array([-1], np.int32)),
                               _ops.reshape(label_mask, np.array([-1], np.int32))),
        _ops.shape(flat_idx_mask))
    batch = _ops.gather_v2(shape, np.int32(0), np.int32(0))
    return (_ops.reshape(flat, _ops.pack([batch, new_max], axis=0)), _ops.cast(new_len, seq_length.dtype))


__all__ = ["ctc_loss", "ctc_loss_v2", "ctc_greedy_decoder", "ctc_loss_grad", "collapse_repeated",
           "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2", "ctc_unique_labels"]
