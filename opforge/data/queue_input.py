"""TensorFlow 1's queue-fed input producers and batching (tf.compat.v1.train): input_producer,
range_input_producer, slice_input_producer, limit_epochs, match_filenames_once, batch_join,
shuffle_batch_join and the maybe_* batching that enqueues only what keep_input selects.

These are built as TensorFlow builds them (tensorflow/python/training/input.py), over opforge's
queues (data/queues.py): a FIFOQueue or RandomShuffleQueue, enqueue ops run by a QueueRunner
added to the graph's QUEUE_RUNNERS collection (start them with tf.train.start_queue_runners),
epochs counted by a local variable "epochs" with CountUpTo, so the producer's enqueue fails
with OutOfRangeError after num_epochs, the runner closes the queue and the consumer's dequeue
raises OutOfRangeError once the queue is drained. (string_input_producer, batch and
shuffle_batch are emulated without threads: data/input_pipeline.py.)"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.collections import LOCAL_VARIABLES
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor, get_default_graph, to_graph_tensor
from ..framework.tensor_shape import TensorShape
from ..training.queue_runner import QueueRunner, add_queue_runner
from .iterator_ops import _runtime
from .queues import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue

__all__ = ["batch_join", "input_producer", "limit_epochs", "match_filenames_once", "maybe_batch", "maybe_batch_join",
           "maybe_shuffle_batch", "maybe_shuffle_batch_join", "range_input_producer", "shuffle_batch_join",
           "slice_input_producer"]


def _graph_of(values):
    return next((v.graph for v in values if isinstance(v, GraphTensor)), get_default_graph())


def _check_graph_mode(what):
    from ..framework import eager_scope  # noqa: PLC0415
    if eager_scope.in_eager_scope():
        raise RuntimeError(f"{what}: input pipelines based on queues need a graph (use tf.data when executing "
                           "eagerly)")


def match_filenames_once(pattern, name=None):
    """A local variable holding the file names that match ``pattern``, evaluated once when the
    local variables are initialized (tf.compat.v1.train.match_filenames_once)."""
    from .. import ops as _ops  # noqa: PLC0415
    from ..framework.variables import RefVariable  # noqa: PLC0415
    graph = _graph_of([pattern])
    with graph.as_default(), graph.name_scope(name or "matching_filenames") as scope:
        files = _ops.matching_files(pattern)
        return RefVariable(files, name=scope.rstrip("/") + "/", trainable=False, validate_shape=False,
                           collections=[LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, num_epochs times: each evaluation counts up a local variable "epochs"
    (CountUpTo); the one after num_epochs raises OutOfRangeError (tf.compat.v1.train.limit_epochs)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    from .. import ops as _ops  # noqa: PLC0415
    from ..framework.variables import RefVariable  # noqa: PLC0415
    graph = _graph_of([tensor])
    with graph.as_default(), graph.name_scope(name or "limit_epochs"):
        tensor = to_graph_tensor(graph, tensor, op_name="limit_epochs")
        epochs = RefVariable(np.int64(0), name="epochs", trainable=False, collections=[LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with graph.control_dependencies([counter.op]):
            return _ops.identity(tensor)


def _fill_summary(graph, queue, capacity, min_after_dequeue=0):
    """TensorFlow's queue-fill scalar summary (fraction_of_N_full / fraction_over_M_of_N_full)."""
    from .. import ops as _ops  # noqa: PLC0415
    from ..summary import scalar  # noqa: PLC0415
    size = _ops.cast(queue.size(), _dtypes.float32)
    if min_after_dequeue:
        room = capacity - min_after_dequeue
        value = _ops.maximum(np.float32(0), size - np.float32(min_after_dequeue)) * np.float32(1.0 / room)
        return scalar(f"fraction_over_{min_after_dequeue}_of_{room}_full", value)
    return scalar(f"fraction_of_{capacity}_full", size * np.float32(1.0 / capacity))


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue fed the rows of ``input_tensor`` (shuffled each epoch when ``shuffle``),
    num_epochs times (forever with None), by a QueueRunner (tf.compat.v1.train.input_producer)."""
    from .. import ops as _ops  # noqa: PLC0415
    _check_graph_mode("input_producer")
    graph = _graph_of([input_tensor])
    with graph.as_default(), graph.name_scope(name or "input_producer"):
        input_tensor = to_graph_tensor(graph, input_tensor, op_name="input_producer")
        rows = input_tensor.shape
        inferred = TensorShape(None) if rows.rank is None else TensorShape(rows.as_list()[1:])
        if element_shape is not None:
            given = TensorShape(element_shape)
            if not given.is_compatible_with(inferred):
                raise ValueError(f"element_shape {given} is incompatible with the input's rows {inferred}")
            inferred = given
        if not inferred.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = _shuffle(input_tensor, seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype], shapes=[inferred], shared_name=shared_name,
                          name="fifo_queue")
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            from ..summary import scalar  # noqa: PLC0415
            scalar(summary_name, _ops.cast(queue.size(), _dtypes.float32) * np.float32(1.0 / capacity))
        return queue


def _shuffle(tensor, seed):
    from ..ops.random_ops import shuffle  # noqa: PLC0415
    return shuffle(tensor, seed=seed)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1 (int32), num_epochs times
    (tf.compat.v1.train.range_input_producer)."""
    from .. import ops as _ops  # noqa: PLC0415
    graph = _graph_of([limit])
    with graph.as_default(), graph.name_scope(name or "input_producer"):
        limit = to_graph_tensor(graph, limit, _dtypes.int32, op_name="range_input_producer")
        rng = _ops.range(np.int32(0), limit, np.int32(1))
        return input_producer(rng, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full")


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One row of each tensor of ``tensor_list`` (the same row of each), num_epochs times over
    the rows (tf.compat.v1.train.slice_input_producer)."""
    from .. import ops as _ops  # noqa: PLC0415
    tensor_list = list(tensor_list)
    if not tensor_list:
        raise ValueError("Expected at least one tensor in slice_input_producer().")
    graph = _graph_of(tensor_list)
    with graph.as_default(), graph.name_scope(name or "input_producer"):
        tensor_list = [to_graph_tensor(graph, t, op_name="slice_input_producer") for t in tensor_list]
        rows = _ops.strided_slice(_ops.shape(tensor_list[0]), [0], [1], [1], shrink_axis_mask=1)
        queue = range_input_producer(rows, num_epochs=num_epochs, shuffle=shuffle, seed=seed, capacity=capacity,
                                     shared_name=shared_name)
        index = queue.dequeue()
        return [_ops.gather_v2(t, index, np.int32(0)) for t in tensor_list]


# ---- batching over several producers and with keep_input (TF's _batch_join, _shuffle_batch ...)

def _as_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    if isinstance(tensors, (list, tuple)):
        return list(tensors)
    return [tensors]


def _as_original(tensors, dequeued):
    if isinstance(tensors, dict):
        dequeued = [dequeued] if len(tensors) == 1 else dequeued
        return {k: dequeued[i] for i, k in enumerate(sorted(tensors, key=str))}
    return dequeued


def _validate_lists(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        keys = set(tensors_list[0])
        if any(set(t) != keys for t in tensors_list[1:]):
            raise ValueError("All dictionaries in tensors_list must have the same keys")
    lists = [_as_list(t) for t in tensors_list]
    if any(len(x) != len(lists[0]) for x in lists):
        raise ValueError("Expected all tensor lists to have the same number of tensors")
    for x in lists:
        if not x:
            raise ValueError("Expected at least one tensor in batch().")
        from ..framework.sparse_tensor import SparseTensor  # noqa: PLC0415
        if any(isinstance(t, SparseTensor) for t in x):
            raise TypeError("opforge's queue batching takes dense tensors (SparseTensors are not queued yet)")
    return lists


def _queue_shapes(lists, shapes, enqueue_many, dynamic_pad):
    if shapes is not None:
        return [TensorShape(s) for s in shapes]
    out = []
    for column in zip(*lists):
        merged = None
        for t in column:
            s = t.shape if t.shape.rank is None else TensorShape(t.shape.as_list()[1:] if enqueue_many else
                                                                 t.shape.as_list())
            if merged is not None and not merged.is_compatible_with(s):
                raise ValueError(f"Shapes {merged} and {s} of one component of the tensor lists are incompatible")
            merged = s if merged is None or merged.rank is None else merged
        if not dynamic_pad and not merged.is_fully_defined():
            raise ValueError(f"All shapes must be fully defined: {[t.shape for t in column]}")
        out.append(merged)
    return out


def _keep_input(graph, keep_input, enqueue_many):
    keep = to_graph_tensor(graph, keep_input, _dtypes.as_dtype("bool"), op_name="keep_input")
    if keep.dtype != _dtypes.as_dtype("bool"):
        raise ValueError(f"keep_input must be a bool, got {keep.dtype}")
    rank = keep.shape.rank
    if rank not in (0, 1):
        raise ValueError("keep_input must be a scalar or a vector.")
    if rank == 1 and not enqueue_many:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    return keep


def _enqueue_kept(queue, tensors, keep, enqueue_many, name):
    """An enqueue op (as QueueBase.enqueue / enqueue_many) that adds only what ``keep`` keeps:
    nothing when a scalar keep is False; with a vector keep (enqueue_many) the rows it marks."""
    tensors = queue._components(tensors, many=enqueue_many)
    op = queue._enqueue_node(tensors, name, "QueueEnqueueManyV2" if enqueue_many else "QueueEnqueueV2")
    dts = queue.dtypes

    def run(session, values):
        *values, kept = values
        kept = np.asarray(kept, bool)
        values = [np.asarray(v, dt.as_numpy_dtype) if dt != _dtypes.string else np.asarray(v, dtype=object)
                  for v, dt in zip(values, dts)]
        if not enqueue_many:
            if kept:
                queue._check_element(values)
                queue._put(session, [values], "QueueEnqueueV2")
            return
        n = {v.shape[0] if v.ndim else -1 for v in values}
        if len(n) != 1 or -1 in n:
            raise InvalidArgumentError("enqueue_many: the components must have the same, non-zero rank and first "
                                       f"dimension, got shapes {[list(v.shape) for v in values]}", "QueueEnqueueManyV2")
        rows = n.pop()
        if kept.ndim == 1 and kept.shape[0] != rows:
            raise InvalidArgumentError(f"keep_input has {kept.shape[0]} entries for {rows} rows", "QueueEnqueueManyV2")
        selected = np.nonzero(np.broadcast_to(kept, (rows,)))[0]
        elements = [[np.asarray(v[i], dtype=v.dtype) for v in values] for i in selected]
        for e in elements:
            queue._check_element(e)
        queue._put(session, elements, "QueueEnqueueManyV2")
    _runtime(queue._graph).add_action(op, list(tensors) + [keep], run)
    return op


def _batch_join(tensors_list, batch_size, keep_input, *, capacity, enqueue_many, shapes, dynamic_pad,
                allow_smaller_final_batch, shared_name, name, shuffle=None, seed=None, default_name="batch"):
    """TF's _batch_join / _shuffle_batch_join: one enqueue op (and QueueRunner thread) per tensor
    list into one queue; the batch is a dequeue_many (dequeue_up_to with
    allow_smaller_final_batch). shuffle: min_after_dequeue for a RandomShuffleQueue."""
    _check_graph_mode(default_name)
    lists = _validate_lists(tensors_list)
    graph = _graph_of([t for x in lists for t in x] + [keep_input])
    batch_size = int(batch_size)
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    with graph.as_default(), graph.name_scope(name or default_name) as scope:
        lists = [[to_graph_tensor(graph, t, op_name=default_name) for t in x] for x in lists]
        dtypes = [t.dtype for t in lists[0]]
        for x in lists[1:]:
            if [t.dtype for t in x] != dtypes:
                raise TypeError(f"Expected types {dtypes} of every tensor list, got {[t.dtype for t in x]}")
        keep = _keep_input(graph, keep_input, enqueue_many)
        queue_shapes = _queue_shapes(lists, shapes, enqueue_many, dynamic_pad)
        if shuffle is not None:
            queue = RandomShuffleQueue(capacity, shuffle, dtypes, queue_shapes, seed=seed, shared_name=shared_name,
                                       name="random_shuffle_queue")
        elif dynamic_pad:
            queue = PaddingFIFOQueue(capacity, dtypes, queue_shapes, shared_name=shared_name, name="padding_fifo_queue")
        else:
            queue = FIFOQueue(capacity, dtypes, queue_shapes, shared_name=shared_name, name="fifo_queue")
        enqueues = [_enqueue_kept(queue, x, keep, enqueue_many, None) for x in lists]
        add_queue_runner(QueueRunner(queue, enqueues))
        _fill_summary(graph, queue, capacity, shuffle or 0)
        out_name = scope.rstrip("/").rsplit("/", 1)[-1]
        dequeued = (queue.dequeue_up_to(batch_size, name=out_name) if allow_smaller_final_batch
                    else queue.dequeue_many(batch_size, name=out_name))
    return _as_original(tensors_list[0], dequeued)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of examples from several tensor lists (one producer thread each) in the order
    they arrive (tf.compat.v1.train.batch_join)."""
    return _batch_join(tensors_list, batch_size, True, capacity=capacity, enqueue_many=enqueue_many, shapes=shapes,
                       dynamic_pad=dynamic_pad, allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False, shapes=None,
                     dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """batch_join of the examples keep_input keeps (tf.compat.v1.train.maybe_batch_join)."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity=capacity, enqueue_many=enqueue_many,
                       shapes=shapes, dynamic_pad=dynamic_pad, allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of the examples of ``tensors`` that keep_input keeps, in order, produced by
    num_threads enqueue threads (tf.compat.v1.train.maybe_batch)."""
    return _batch_join([tensors] * max(int(num_threads), 1), batch_size, keep_input, capacity=capacity,
                       enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                       allow_smaller_final_batch=allow_smaller_final_batch, shared_name=shared_name, name=name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches drawn at random from a RandomShuffleQueue fed by several tensor lists
    (tf.compat.v1.train.shuffle_batch_join)."""
    return _batch_join(tensors_list, batch_size, True, capacity=capacity, enqueue_many=enqueue_many, shapes=shapes,
                       dynamic_pad=False, allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name, shuffle=int(min_after_dequeue), seed=seed,
                       default_name="shuffle_batch_join")


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    """shuffle_batch of the examples keep_input keeps (tf.compat.v1.train.maybe_shuffle_batch)."""
    return _batch_join([tensors] * max(int(num_threads), 1), batch_size, keep_input, capacity=capacity,
                       enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=False,
                       allow_smaller_final_batch=allow_smaller_final_batch, shared_name=shared_name, name=name,
                       shuffle=int(min_after_dequeue), seed=seed, default_name="shuffle_batch")


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                             enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    """shuffle_batch_join of the examples keep_input keeps
    (tf.compat.v1.train.maybe_shuffle_batch_join)."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity=capacity, enqueue_many=enqueue_many,
                       shapes=shapes, dynamic_pad=False, allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name, shuffle=int(min_after_dequeue), seed=seed,
                       default_name="shuffle_batch_join")
