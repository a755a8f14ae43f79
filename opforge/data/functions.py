"""The functions a dataset applies (map, filter, flat_map, interleave's), traced as TensorFlow
traces them: once, into a graph of their own, with a placeholder for each component of the
element.

A function may read tensors of other graphs (a placeholder or variable of the program's graph,
a tensor of an enclosing dataset function): each such tensor is captured, i.e. the function's
graph reads a placeholder standing for it, and the dataset lists the outer tensor among its
sources, so the iterator's initializer reads its value, as TensorFlow's MapDataset takes
captured tensors as inputs (``other_arguments``) evaluated when the dataset is made. A
variable is captured by value, at initialization, as TensorFlow 1 captures reference
variables.

A traced function may run on several threads at once (parallel map, interleave): a Session may
be run from any number of threads.
"""

from __future__ import annotations

from ..framework.control_flow import _flatten, _pack
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.graph import Graph, GraphTensor, to_graph_tensor
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue, sparse_placeholder
from ..framework.tensor import TensorShape
from .dataset import Dataset, grouped_dataset, window_dataset

__all__ = ["TracedFunction"]


def _placeholder(graph, dtype, shape, name):
    dims = None if shape.dims is None else [-1 if d is None else int(d) for d in shape.dims]
    return graph.create_op("Placeholder", [], {"dtype": dtype.as_datatype_enum, "shape": dims},
                           name=name).outputs[0]


class TracedFunction:
    """fn traced for the elements of ``dataset``. ``returns``: "tensors" (map, filter: the
    result is a structure of tensors) or "dataset" (flat_map, interleave: a Dataset).

    After tracing: ``captured`` lists the outer tensors the function reads (sources of the
    dataset that applies it); for "tensors", ``structure``/``dtypes``/``shapes`` describe the
    result; for "dataset", ``dataset`` is the Dataset it returns, built on the placeholders."""

    def __init__(self, fn, dataset, what: str, returns: str = "tensors", grouped=False):
        """grouped: fn takes (key, window) as group_by_window's reduce_func does: an int64
        key and a dataset of some of ``dataset``'s elements (fed as [key, list of elements])."""
        self.what = what
        self.graph = Graph()
        self._captures: dict = {}  # outer tensor ref -> (outer tensor, placeholder)
        self.graph._capture = self._capture
        self._windows = []  # the window tokens standing for nested-dataset components
        with self.graph.as_default():
            args = []
            self._inputs = []  # per component, the placeholders it is fed to (3 for a SparseTensor)
            if grouped:
                key = _placeholder(self.graph, _dtypes.int64, TensorShape([]), "key")
                token = object()
                self._inputs.append([key])
                self._windows.append(token)
                result = fn(key, grouped_dataset(token, dataset))
                self._finish_dataset(result, what)
                return
            for i, (d, s, sp) in enumerate(zip(dataset._dtypes, dataset._shapes, dataset._sparse)):
                if dataset._window:
                    token = object()
                    self._windows.append(token)
                    args.append(window_dataset(token, d, s))
                elif sp:
                    st = sparse_placeholder(d, None if s.dims is None else s.as_list(), name=f"args_{i}")
                    self._inputs.append([st.indices, st.values, st.dense_shape] if not s.is_fully_defined()
                                        else [st.indices, st.values])
                    args.append(st)
                else:
                    ph = _placeholder(self.graph, d, s, f"args_{i}")
                    self._inputs.append([ph])
                    args.append(ph)
            element = _pack(dataset._structure, args)
            if isinstance(element, tuple) and not hasattr(element, "_fields"):
                result = fn(*element)
            else:
                result = fn(element)
            if returns == "dataset":
                self._finish_dataset(result, what)
                return
            else:
                leaves = _flatten(result)
                self._outputs, self._groups = [], []  # the tensors fetched; per leaf, how many (3: sparse)
                for leaf in leaves:
                    if isinstance(leaf, SparseTensor):
                        parts = [to_graph_tensor(self.graph, t, op_name=what)
                                 for t in (leaf.indices, leaf.values, leaf.dense_shape)]
                    else:
                        parts = [to_graph_tensor(self.graph, leaf, op_name=what)]
                    self._outputs.extend(parts)
                    self._groups.append(len(parts))
                self.structure = result if not isinstance(result, (GraphTensor, SparseTensor)) else 0
                self.sparse = [isinstance(leaf, SparseTensor) for leaf in leaves]
                self.dtypes = [leaf.dtype if isinstance(leaf, SparseTensor) else t.dtype
                               for leaf, t in zip(leaves, self._leaf_firsts())]
                self.shapes = [TensorShape(leaf.shape) if isinstance(leaf, SparseTensor) else t.shape
                               for leaf, t in zip(leaves, self._leaf_firsts())]
        self._finish()

    def _finish_dataset(self, result, what):
        if not isinstance(result, Dataset):
            raise InvalidArgumentError(f"{what}: the function must return a Dataset, got {type(result).__name__}",
                                       what)
        self.dataset = result
        # the returned dataset's sources, as tensors of this graph
        self._outputs = [to_graph_tensor(self.graph, s, op_name=what) for s in result._sources]
        self._finish()

    def _finish(self):
        from ..framework.session import Session  # noqa: PLC0415
        self.graph._capture = None
        self.captured = [outer for outer, _ in self._captures.values()]
        self._capture_inputs = [ph for _, ph in self._captures.values()]
        self._session = Session(graph=self.graph)
        self._fetch_refs = [t._ref() for t in self._outputs]

    def _capture(self, value):
        if not isinstance(value, GraphTensor):
            value = value._graph_element()  # a variable: its value when the iterator is initialized
        key = value._ref() if value.graph is not self.graph else None
        if key is None:
            return value
        hit = self._captures.get((id(value.graph), key))
        if hit is None:
            with self.graph.as_default():
                hit = (value, _placeholder(self.graph, value.dtype, value.shape, "captured"))
            self._captures[(id(value.graph), key)] = hit
        return hit[1]

    def _leaf_firsts(self):
        """The first fetched tensor of each result leaf."""
        at = 0
        for n in self._groups:
            yield self._outputs[at]
            at += n

    def _run(self, element, values) -> list:
        """The outputs' values (arrays) for one element: the Session's run without its
        Python-level work (fetch structures, feed lookups, pipeline hooks), which this graph
        does not need and which would cost more than the function's kernels."""
        feed = self._session._feed_value
        feeds = []
        for phs, v in zip(self._inputs, element):  # (no window components)
            if len(phs) == 1:
                feeds.append((phs[0]._ref(), feed(phs[0], v)))
            else:  # a SparseTensorValue
                feeds.extend((ph._ref(), feed(ph, part)) for ph, part in zip(phs, v))
        feeds += [(ph._ref(), feed(ph, values[outer])) for outer, ph in zip(self.captured, self._capture_inputs)]
        results = self._session._run_c(feeds, self._fetch_refs, [])
        return [r._take_numpy() for r in results]

    def __call__(self, element, values):
        """The function's result for one element (a flat list of arrays; a SparseTensorValue
        for a sparse component)."""
        if not self._outputs:
            return []
        flat = self._run(element, values)
        if len(flat) == len(self._groups):
            return flat
        out, at = [], 0
        for n in self._groups:
            out.append(flat[at] if n == 1 else SparseTensorValue(*flat[at:at + n]))
            at += n
        return out

    def dataset_values(self, element, values) -> dict:
        """For "dataset" functions: the values of the returned dataset's sources for one element
        (its window components included), to pass to its ``_elements``."""
        out = dict(values)
        if self._outputs:
            for source, value in zip(self.dataset._sources, self._run(element, values)):
                out[source] = value
        out.update(zip(self._windows, element[len(self._inputs):]))
        return out
