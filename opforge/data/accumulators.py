"""TensorFlow 1's conditional accumulators (tf.ConditionalAccumulator,
tf.SparseConditionalAccumulator, their base tf.ConditionalAccumulatorBase): gradients from
several workers are summed until a take_grad collects them.

As TensorFlow's (core/kernels/conditional_accumulator_base.h): an accumulator has a global step;
apply_grad(grad, local_step) drops a gradient whose local_step is older than the global step
(stale), else adds it and counts it; take_grad(num_required) blocks until num_required
gradients have been counted, returns their mean (reduction_type "MEAN", per row for the sparse
accumulator: each row divided by the number of gradients that had it) or sum ("SUM"), resets
the sum and increments the global step; set_global_step sets it.

The state lives per Session, on the host, as the queues' does (data/queues.py): the ops are graph
nodes that Session.run feeds (take_grad, num_accumulated) or runs as actions (apply_grad,
set_global_step); closing the Session cancels a blocked take_grad."""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import CancelledError, InvalidArgumentError
from ..framework.graph import GraphTensor, get_default_graph, to_graph_tensor
from ..framework.tensor_shape import TensorShape
from .iterator_ops import _runtime

__all__ = ["ConditionalAccumulatorBase", "ConditionalAccumulator", "SparseConditionalAccumulator"]


class _State:
    def __init__(self):
        self.sum = None  # dense: the summed gradient; sparse: {row index: summed row}
        self.counts: dict = {}  # sparse: {row index: gradients that had the row}
        self.count = 0
        self.global_step = 0
        self.shape = None  # the sparse gradients' dense shape, when given
        self.cancelled = False
        self.cond = threading.Condition()


class ConditionalAccumulatorBase:
    """What the dense and sparse accumulators share: dtype, shape, name, num_accumulated and
    set_global_step (tf.ConditionalAccumulatorBase)."""

    _kind = "ConditionalAccumulator"

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = _dtypes.as_dtype(dtype)
        self._shape = TensorShape(shape)
        self._accumulator_ref = accumulator_ref
        self._graph = get_default_graph()
        self._states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        rt = _runtime(self._graph)
        if not hasattr(rt, "close_hooks"):
            rt.close_hooks = []
        rt.close_hooks.append(self._session_closed)

    accumulator_ref = property(lambda self: self._accumulator_ref)
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)

    def _init_name(self, name, reduction_type):
        if reduction_type not in ("MEAN", "SUM"):
            raise ValueError(f"reduction_type must be 'MEAN' or 'SUM', got {reduction_type!r}")
        self._reduction = reduction_type
        self._name = self._graph.unique_name(name, mark_as_used=True)

    def _state(self, session) -> _State:
        with self._lock:
            st = self._states.get(session)
            if st is None:
                st = self._states[session] = _State()
            return st

    def _session_closed(self, session):
        st = self._states.get(session)
        if st is not None:
            with st.cond:
                st.cancelled = True
                st.cond.notify_all()

    # ---- graph nodes
    def _action(self, tensors, fn, name):
        g = self._graph
        with g.as_default():
            op = g.create_op("NoOp", [], {}, name=name)
        _runtime(g).add_action(op, tensors, fn)
        return op

    def _fed(self, specs, fn, name):
        """Placeholders (dtype, shape) fed by fn(session) -> their values in each run."""
        g = self._graph
        with g.as_default(), g.name_scope(name):
            outs = [g.create_op("Placeholder", [], {"dtype": dt.as_datatype_enum, "shape": shape},
                                name=f"output_{i}" if len(specs) > 1 else "output").outputs[0]
                    for i, (dt, shape) in enumerate(specs)]

        class _Source:
            def _next(self, session):
                return fn(session)
        _runtime(g).add_get_next(_Source(), outs)
        return outs

    def num_accumulated(self, name=None):
        """The number of gradients accumulated since the last take_grad (int32)."""
        return self._fed([(_dtypes.int32, [])], lambda s: [np.int32(self._state(s).count)],
                         name or f"{self._name}/AccumulatorNumAccumulated")[0]

    def set_global_step(self, new_global_step, name=None):
        """An op setting the global step (gradients with an older local_step are dropped)."""
        step = to_graph_tensor(self._graph, new_global_step, _dtypes.int64, op_name="AccumulatorSetGlobalStep")

        def run(session, values):
            st = self._state(session)
            with st.cond:
                st.global_step = int(values[0])
        return self._action([step], run, name or f"{self._name}/AccumulatorSetGlobalStep")

    # ---- shared by the apply and take ops
    def _apply(self, session, local_step, add):
        st = self._state(session)
        with st.cond:
            if int(local_step) < st.global_step:
                return  # stale: TensorFlow logs and drops it
            add(st)
            st.count += 1
            st.cond.notify_all()

    def _take(self, session, num_required, op, result):
        if isinstance(num_required, GraphTensor):
            num_required = session.run(num_required)
        num_required = int(num_required)
        if num_required < 1:
            raise InvalidArgumentError(f"Argument num_required must be positive, but was {num_required}", op)
        st = self._state(session)
        with st.cond:
            while st.count < num_required:
                if st.cancelled:
                    raise CancelledError(f"{op} of {self._kind} '{self._name}' cancelled: the session closed", op)
                st.cond.wait()
            out = result(st)
            st.sum, st.counts, st.count = None, {}, 0
            st.global_step += 1
            return out

    def _check_row_shape(self, shape, want, op):
        if want.rank is not None and not want.is_compatible_with(TensorShape(list(shape))):
            raise InvalidArgumentError(f"Shape mismatch: expected shape {want.as_list()}, got {list(shape)}", op)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates dense gradients (tf.ConditionalAccumulator)."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        del shared_name
        super().__init__(dtype, shape, None)
        self._init_name(name, reduction_type)

    def apply_grad(self, grad, local_step=0, name=None):
        """An op adding grad (unless local_step is older than the global step)."""
        op = "AccumulatorApplyGradient"
        grad = to_graph_tensor(self._graph, grad, self._dtype, op_name=op)
        if grad.dtype != self._dtype:
            raise TypeError(f"{op}: gradient of dtype {grad.dtype} for an accumulator of {self._dtype}")
        if self._shape.rank is not None and grad.shape.rank is not None and \
                not self._shape.is_compatible_with(grad.shape):
            raise ValueError(f"Shape mismatch: the gradient's {grad.shape} is incompatible with the accumulator's "
                             f"{self._shape}")
        step = to_graph_tensor(self._graph, local_step, _dtypes.int64, op_name=op)

        def run(session, values):
            g, local = np.asarray(values[0], self._dtype.as_numpy_dtype), values[1]
            self._check_row_shape(g.shape, self._shape, op)

            def add(st):
                if st.sum is not None and st.sum.shape != g.shape:
                    raise InvalidArgumentError(f"Shape mismatch: expected shape {list(st.sum.shape)}, got "
                                               f"{list(g.shape)}", op)
                st.sum = g.copy() if st.sum is None else st.sum + g
            self._apply(session, local, add)
        return self._action([grad, step], run, name or f"{self._name}/{op}")

    def take_grad(self, num_required, name=None):
        """The mean (or sum) of the gradients accumulated, once num_required have been; resets
        the accumulator and increments the global step."""
        op = "AccumulatorTakeGradient"

        def result(st):
            value = st.sum if self._reduction == "SUM" else st.sum / np.asarray(st.count, st.sum.dtype)
            return [np.asarray(value, self._dtype.as_numpy_dtype)]
        shape = None if self._shape.rank is None else [-1 if d is None else d for d in self._shape.as_list()]
        return self._fed([(self._dtype, shape)], lambda s: self._take(s, num_required, op, result),
                         name or f"{self._name}/{op}")[0]


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates sparse gradients, rows of a dense gradient given by indices
    (tf.SparseConditionalAccumulator); take_grad gives (indices, values, shape), the indices
    sorted."""

    _kind = "SparseConditionalAccumulator"

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        del shared_name
        super().__init__(dtype, shape, None)
        self._init_name(name, reduction_type)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """apply_grad of an IndexedSlices."""
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op adding the rows grad_values at grad_indices (unless local_step is older than
        the global step)."""
        op = "SparseAccumulatorApplyGradient"
        g = self._graph
        indices = to_graph_tensor(g, grad_indices, _dtypes.int64, op_name=op)
        values = to_graph_tensor(g, grad_values, self._dtype, op_name=op)
        if values.dtype != self._dtype:
            raise TypeError(f"{op}: gradient of dtype {values.dtype} for an accumulator of {self._dtype}")
        tensors = [indices, values, to_graph_tensor(g, local_step, _dtypes.int64, op_name=op)]
        if grad_shape is not None:
            tensors.append(to_graph_tensor(g, grad_shape, _dtypes.int64, op_name=op))
        row_shape = TensorShape(None) if self._shape.rank is None else TensorShape(self._shape.as_list()[1:])

        def run(session, vals):
            idx = np.asarray(vals[0], np.int64)
            rows = np.asarray(vals[1], self._dtype.as_numpy_dtype)
            shape = None if len(vals) < 4 else [int(d) for d in np.ravel(vals[3])]
            if idx.ndim != 1 or rows.ndim < 1 or rows.shape[0] != idx.shape[0]:
                raise InvalidArgumentError(f"Shape mismatch: {idx.shape[0] if idx.ndim == 1 else list(idx.shape)} "
                                           f"indices for values of shape {list(rows.shape)}", op)
            self._check_row_shape(rows.shape[1:], row_shape, op)
            if shape is not None:
                self._check_row_shape(shape, self._shape, op)
                if shape[1:] != list(rows.shape[1:]):
                    raise InvalidArgumentError(f"Shape mismatch: grad_shape {shape} for rows of shape "
                                               f"{list(rows.shape[1:])}", op)
                if idx.size and (idx.min() < 0 or idx.max() >= shape[0]):
                    raise InvalidArgumentError(f"an index is out of range [0, {shape[0]})", op)

            def add(st):
                if st.sum is None:
                    st.sum = {}
                for i, r in zip(idx.tolist(), rows):
                    if i in st.sum:
                        if st.sum[i].shape != r.shape:
                            raise InvalidArgumentError(f"Shape mismatch: rows of shape {list(st.sum[i].shape)} and "
                                                       f"{list(r.shape)}", op)
                        st.sum[i] = st.sum[i] + r
                        st.counts[i] += 1
                    else:
                        st.sum[i], st.counts[i] = r.copy(), 1
                if shape is not None:
                    st.shape = shape
            self._apply(session, vals[2], add)
        return self._action(tensors, run, name or f"{self._name}/{op}")

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of the accumulated rows: their mean (each row divided by the
        gradients that had it) or sum; resets the accumulator and increments the global step."""
        op = "SparseAccumulatorTakeGradient"
        np_dtype = self._dtype.as_numpy_dtype
        row = None if self._shape.rank is None else [-1 if d is None else d for d in self._shape.as_list()[1:]]

        def result(st):
            keys = sorted(st.sum or {})
            if keys:
                vals = np.stack([st.sum[k] if self._reduction == "SUM" else st.sum[k] / np.asarray(st.counts[k], np_dtype)
                                 for k in keys]).astype(np_dtype)
            else:
                vals = np.zeros([0] + [max(d, 0) for d in (row or [])], np_dtype)
            if st.shape is not None:
                shape = st.shape
            elif self._shape.is_fully_defined():
                shape = self._shape.as_list()
            else:
                shape = [(max(keys) + 1) if keys else 0] + list(vals.shape[1:])
            return [np.asarray(keys, np.int64), vals, np.asarray(shape, np.int64)]
        specs = [(_dtypes.int64, [-1]), (self._dtype, None if row is None else [-1] + row),
                 (_dtypes.int64, [self._shape.rank if self._shape.rank is not None else -1])]
        out = self._fed(specs, lambda s: self._take(s, num_required, op, result), name or f"{self._name}/{op}")
        return tuple(out)

    def take_indexed_slices_grad(self, num_required, name=None):
        """take_grad as an IndexedSlices."""
        from ..framework.sparse_tensor import IndexedSlices  # noqa: PLC0415
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(values, indices, shape)
