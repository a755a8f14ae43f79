"""TensorFlow 1's queues (tf.queue.FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue,
PriorityQueue): enqueue / dequeue ops that Session.run runs, shared by the threads that run
them (QueueRunners), as in TensorFlow.

How they run: a queue's state lives per Session (TensorFlow keeps it in the session's resource
manager), on the host. An enqueue op is a graph node whose run fetches the values it enqueues
and then adds them, blocking while the queue is full; a dequeue's outputs are fed, before the
run, from the queue, blocking while it has too few elements (data/iterator_ops.py's _Runtime
does both). After ``close()`` enqueues fail (CancelledError) and a dequeue that cannot be
served raises OutOfRangeError; closing the Session cancels what blocks."""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import CancelledError, InvalidArgumentError, OutOfRangeError
from ..framework.graph import get_default_graph, to_graph_tensor
from ..framework.tensor_shape import TensorShape
from .iterator_ops import _runtime


class _State:
    """One Session's queue: its elements (each a list of component arrays), closed flag, and
    the condition blocked runs wait on."""

    def __init__(self):
        self.items: list = []
        self.closed = False
        self.cancelled = False  # the Session closed: every blocked run is cancelled
        self.enqueues_cancelled = False  # close(cancel_pending_enqueues=True)
        self.cond = threading.Condition()


class QueueBase:
    """A queue of tuples of tensors (tf.queue.QueueBase): enqueue / enqueue_many / dequeue /
    dequeue_many / dequeue_up_to / close / is_closed / size make graph nodes."""

    _kind = "FIFOQueue"

    def __init__(self, dtypes, shapes, names, queue_ref=None, *, capacity=-1, name="queue", graph=None):
        if not isinstance(dtypes, (list, tuple)):
            dtypes = [dtypes]
        self._dtypes = [_dtypes.as_dtype(d) for d in dtypes]
        if shapes is not None:
            if not isinstance(shapes, (list, tuple)) or (shapes and not isinstance(shapes[0], (list, tuple, TensorShape))
                                                         and shapes[0] is not None):
                shapes = [shapes]
            if len(shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None:
            names = list(names) if isinstance(names, (list, tuple)) else [names]
            if len(names) != len(self._dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._capacity = int(capacity)
        self._graph = graph or get_default_graph()
        self._name = self._graph.unique_name(name, mark_as_used=True)
        self._states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        rt = _runtime(self._graph)
        if not hasattr(rt, "close_hooks"):
            rt.close_hooks = []
        rt.close_hooks.append(self._session_closed)
        self._queue_ref = queue_ref

    # ---- properties
    dtypes = property(lambda self: self._dtypes)
    shapes = property(lambda self: self._shapes)
    names = property(lambda self: self._names)
    name = property(lambda self: self._name)
    queue_ref = property(lambda self: self._queue_ref)

    @staticmethod
    def from_list(index, queues):
        """TensorFlow's queue selected by a tensor index: opforge has no queue references to
        select at run time."""
        raise NotImplementedError("QueueBase.from_list needs queue references, which opforge's queues do not have")

    # ---- state
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
                st.closed = st.cancelled = True
                st.cond.notify_all()

    def _closed_error(self, requested, size, op):
        return OutOfRangeError(f"{self._kind} '{self._name}' is closed and has insufficient elements (requested "
                               f"{requested}, current size {size})", op)

    # ---- what the element looks like
    def _components(self, vals, many):
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names) != sorted(vals):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 f"{sorted(vals)}, Queue: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        elif not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components to enqueue, got {len(vals)}")
        out = []
        for v, dt, shape in zip(vals, self._dtypes, self._shapes):
            t = to_graph_tensor(self._graph, v, dt, op_name="QueueEnqueueV2")
            if shape.rank is not None and t.shape.rank is not None:
                got = t.shape[1:] if many else t.shape
                if not shape.is_compatible_with(got):
                    raise ValueError(f"Shape {got} of an element is incompatible with the queue's {shape}")
            out.append(t)
        return out

    def _check_element(self, values):
        for v, shape in zip(values, self._shapes):
            if shape.is_fully_defined() and tuple(np.shape(v)) != tuple(shape.as_list()):
                raise InvalidArgumentError(f"Shape mismatch in tuple component. Expected {shape.as_list()}, got "
                                           f"{list(v.shape)}", "QueueEnqueueV2")

    # ---- enqueue
    def _put(self, session, elements, op):
        st = self._state(session)
        with st.cond:
            if st.closed:
                raise CancelledError(f"{self._kind} '{self._name}' is closed.", op)
            for element in elements:
                while self._capacity >= 0 and len(st.items) >= self._capacity:
                    if st.cancelled or st.enqueues_cancelled:
                        raise CancelledError(f"Enqueue of {self._kind} '{self._name}' cancelled: the queue is closed",
                                             op)
                    st.cond.wait()
                st.items.append(element)
                st.cond.notify_all()

    def _enqueue_node(self, tensors, name, op_type):
        g = self._graph
        del tensors  # fetched with the node's run (add_action), not its inputs
        with g.as_default():
            return g.create_op("NoOp", [], {}, name=name or op_type)

    def enqueue(self, vals, name=None):
        """An op adding one element (blocks while the queue is full)."""
        tensors = self._components(vals, many=False)
        op = self._enqueue_node(tensors, name, "QueueEnqueueV2")

        def run(session, values):
            values = [np.asarray(v, dt.as_numpy_dtype) if dt != _dtypes.string else np.asarray(v, dtype=object)
                      for v, dt in zip(values, self._dtypes)]
            self._check_element(values)
            self._put(session, [values], "QueueEnqueueV2")
        _runtime(self._graph).add_action(op, tensors, run)
        return op

    def enqueue_many(self, vals, name=None):
        """An op adding the elements along the first dimension of vals' components."""
        tensors = self._components(vals, many=True)
        op = self._enqueue_node(tensors, name, "QueueEnqueueManyV2")

        def run(session, values):
            values = [np.asarray(v) for v in values]
            n = {v.shape[0] if v.ndim else -1 for v in values}
            if len(n) != 1 or -1 in n:
                raise InvalidArgumentError("enqueue_many: the components must have the same, non-zero rank and "
                                           f"first dimension, got shapes {[list(v.shape) for v in values]}",
                                           "QueueEnqueueManyV2")
            elements = [[np.asarray(v[i], dtype=v.dtype) for v in values] for i in range(n.pop())]
            for e in elements:
                self._check_element(e)
            self._put(session, elements, "QueueEnqueueManyV2")
        _runtime(self._graph).add_action(op, tensors, run)
        return op

    # ---- dequeue
    def _available(self, st):
        """How many elements a dequeue may take now (RandomShuffleQueue keeps min_after_dequeue
        until closed)."""
        return len(st.items)

    def _take(self, st, n):
        taken, st.items = st.items[:n], st.items[n:]
        return taken

    def _get(self, session, n, up_to, op):
        """n elements, taken as they arrive (so a dequeue_many larger than the capacity
        completes, as TensorFlow's); when the queue closes first, those taken go back to its
        front and OutOfRangeError is raised (dequeue_up_to returns them instead)."""
        st = self._state(session)
        taken: list = []
        with st.cond:
            while True:
                if st.cancelled:
                    raise CancelledError(f"Dequeue of {self._kind} '{self._name}' cancelled: the session closed", op)
                k = min(max(self._available(st), 0), n - len(taken))
                if k:
                    taken += self._take(st, k)
                    st.cond.notify_all()
                if len(taken) == n:
                    return taken
                if st.closed:
                    if up_to and taken:
                        return taken
                    st.items[0:0] = taken
                    raise self._closed_error(n, len(st.items), op)
                st.cond.wait()

    def _pad(self, parts, i):
        return np.stack(parts)

    def _dequeue_outputs(self, n, name, op_type, batched, up_to=False):
        g = self._graph
        outputs = []
        with g.as_default(), g.name_scope(name or op_type):
            for dt, shape in zip(self._dtypes, self._shapes):
                if shape.rank is None:
                    dims = None
                else:
                    dims = [-1 if d is None else d for d in shape.as_list()]
                    if batched:
                        dims = [-1 if up_to or n is None else n] + dims
                outputs.append(g.create_op("Placeholder", [], {"dtype": dt.as_datatype_enum, "shape": dims},
                                           name="component").outputs[0])
        queue = self

        class _Source:
            def _next(self, session):
                taken = queue._get(session, n if batched else 1, up_to, op_type)
                if not batched:
                    return taken[0]
                return [queue._pad([e[i] for e in taken], i) for i in range(len(queue._dtypes))]
        _runtime(g).add_get_next(_Source(), outputs)
        if self._names is not None:
            return dict(zip(self._names, outputs))
        return outputs[0] if len(outputs) == 1 else outputs

    def dequeue(self, name=None):
        """One element (blocks until there is one; OutOfRangeError once closed and empty)."""
        return self._dequeue_outputs(None, name, "QueueDequeueV2", batched=False)

    def dequeue_many(self, n, name=None):
        """n elements stacked (blocks until there are n; OutOfRangeError once closed with fewer)."""
        return self._dequeue_outputs(int(n), name, "QueueDequeueManyV2", batched=True)

    def dequeue_up_to(self, n, name=None):
        """Up to n elements stacked: n, or after close what is left (OutOfRangeError when none)."""
        return self._dequeue_outputs(int(n), name, "QueueDequeueUpToV2", batched=True, up_to=True)

    # ---- close / size
    def close(self, cancel_pending_enqueues=False, name=None):
        """An op closing the queue: later enqueues fail, dequeues take what is left."""
        g = self._graph
        with g.as_default():
            op = g.create_op("NoOp", [], {}, name=name or "QueueCloseV2")

        def run(session, values):
            st = self._state(session)
            with st.cond:
                st.closed = True
                st.enqueues_cancelled = st.enqueues_cancelled or cancel_pending_enqueues
                st.cond.notify_all()
        _runtime(g).add_action(op, [], run)
        return op

    def _host_scalar(self, fn, dtype, name):
        g = self._graph
        with g.as_default():
            out = g.create_op("Placeholder", [], {"dtype": dtype.as_datatype_enum, "shape": []}, name=name).outputs[0]

        class _Source:
            def _next(self, session):
                return [fn(session)]
        _runtime(g).add_get_next(_Source(), [out])
        return out

    def size(self, name=None):
        """The number of elements (int32)."""
        return self._host_scalar(lambda s: np.int32(len(self._state(s).items)), _dtypes.int32, name or "QueueSizeV2")

    def is_closed(self, name=None):
        return self._host_scalar(lambda s: np.bool_(self._state(s).closed), _dtypes.as_dtype("bool"), name or "QueueIsClosedV2")


class FIFOQueue(QueueBase):
    """Elements in the order they were enqueued (tf.queue.FIFOQueue)."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        del shared_name
        super().__init__(dtypes, shapes, names, capacity=capacity, name=name)


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose dequeue_many pads each component to the batch's largest shape
    (with zeros, or empty strings); ``shapes`` may have None dimensions."""

    _kind = "PaddingFIFOQueue"

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        del shared_name
        super().__init__(dtypes, shapes, names, capacity=capacity, name=name)
        if any(s.rank is None for s in self._shapes):
            raise ValueError("PaddingFIFOQueue needs every component's rank in shapes")

    def _pad(self, parts, i):
        parts = [np.asarray(p) for p in parts]
        target = np.max([p.shape for p in parts], axis=0) if parts[0].ndim else ()
        fill = b"" if parts[0].dtype == object else 0
        out = np.full((len(parts),) + tuple(target), fill, dtype=parts[0].dtype)
        for j, p in enumerate(parts):
            out[(j,) + tuple(slice(0, d) for d in p.shape)] = p
        return out


class RandomShuffleQueue(QueueBase):
    """Elements in random order; a dequeue leaves at least ``min_after_dequeue`` until closed."""

    _kind = "RandomShuffleQueue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        del shared_name
        super().__init__(dtypes, shapes, names, capacity=capacity, name=name)
        from ..ops.random_ops import get_seed  # noqa: PLC0415
        s1, s2 = get_seed(seed, self._graph)
        self._rng = np.random.default_rng([s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]) if (s1, s2) != (0, 0) \
            else np.random.default_rng()
        self._min_after_dequeue = int(min_after_dequeue)

    def _available(self, st):
        return len(st.items) if st.closed else len(st.items) - self._min_after_dequeue

    def _take(self, st, n):
        picks = sorted(self._rng.choice(len(st.items), size=n, replace=False).tolist(), reverse=True)
        return [st.items.pop(i) for i in picks]


class PriorityQueue(QueueBase):
    """Elements by priority, lowest first: component 0 is an int64 priority, then ``types``."""

    _kind = "PriorityQueue"

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        del shared_name
        types = list(types) if isinstance(types, (list, tuple)) else [types]
        if shapes is not None:
            shapes = [()] + list(shapes)
        if names is not None:
            names = ["priority"] + list(names) if "priority" not in names else list(names)
        super().__init__([_dtypes.int64] + types, shapes, names, capacity=capacity, name=name)

    def _take(self, st, n):
        st.items.sort(key=lambda e: int(e[0]))
        return super()._take(st, n)


__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue"]
