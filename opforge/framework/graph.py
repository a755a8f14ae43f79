"""Graphs (TensorFlow 1's model): Graph, Operation, graph Tensors, the default-graph stack.

The generated wrappers are the same in both modes: the runtime hands an op call to
:func:`dispatch` when a graph is the default or a graph tensor is among the inputs, and
dispatch adds a node instead of computing. Nodes live in a C++ graph (opforge._C.Graph),
which infers attrs and shapes as each node is added; this module keeps the Python view
(names, scopes, control dependencies, collections).
"""

from __future__ import annotations

import contextlib
import re
import threading
import types

from .default_session import default_session
from .. import _C
from . import dtypes as _dtypes
from .errors import InvalidArgumentError, NotFoundError
from .tensor import Tensor as EagerTensor
from .dtype_resolution import resolve_input_dtypes
from .tensor import TensorShape
from . import tensor_conversion_registry as _conversions

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


class GraphTensor:
    """A symbolic tensor: output ``value_index`` of an Operation in a Graph."""

    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int, dtype, shape, is_ref: bool = False):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = TensorShape(shape)
        self._is_ref = is_ref

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._op.graph)
    name = property(lambda self: f"{self._op.name}:{self._value_index}")
    device = property(lambda self: self._op.device)

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape) -> None:
        """Refines the static shape with what the caller knows (TensorFlow's set_shape):
        ValueError if it contradicts what the graph knows."""
        self.graph._set_shape(self, self._shape.merge_with(shape))

    @property
    def ndim(self):
        if self._shape.rank is None:
            raise ValueError(f"the rank of {self.name} is not known when the graph is built")
        return self._shape.rank

    def consumers(self):
        return [op for op in self.graph.get_operations() if self in op.inputs]

    def eval(self, feed_dict=None, session=None):
        return (session or default_session()).run(self, feed_dict)

    def _ref(self):
        return (self._op._id, self._value_index)

    def __repr__(self):
        return f"<of.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise TypeError("Using a graph tensor as a Python bool is not allowed: the value is only "
                        "known when a Session runs the graph")

    def __iter__(self):
        raise TypeError("graph tensors are not iterable")


class Operation:
    """A node of a Graph."""

    def __init__(self, graph: Graph, node_id: int):
        info = graph._c.node_info(node_id)
        self._graph = graph
        self._id = node_id
        self._info = info
        self._inputs = [graph._tensor_by_ref(n, i) for n, i in info["inputs"]]
        self._control_inputs = [graph._ops[c] for c in info["control_inputs"]]
        self._outputs = [GraphTensor(self, k, _dtypes.from_enum(d), s, r)
                         for k, (d, s, r) in enumerate(zip(info["out_dtypes"], info["out_shapes"],
                                                           info["out_is_ref"]))]

    graph = property(lambda self: self._graph)
    name = property(lambda self: self._info["name"])
    type = property(lambda self: self._info["op"])
    device = property(lambda self: self._info["device"])
    inputs = property(lambda self: list(self._inputs))
    outputs = property(lambda self: list(self._outputs))
    control_inputs = property(lambda self: list(self._control_inputs))

    def get_attr(self, name: str):
        attrs = self._info["attrs"]
        if name not in attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'")
        return attrs[name]

    @property
    def node_def(self):
        from ..io.graph_def import node_def  # noqa: PLC0415
        return node_def(self)

    def run(self, feed_dict=None, session=None):
        (session or default_session()).run(self, feed_dict)

    # The view generated gradient functions use: inputs and outputs grouped per argument.
    def _grouped(self, values, ranges, info):
        out = []
        for (b, e), (_, is_list, *_) in zip(ranges, info):
            out.append(values[b:e] if is_list else values[b])
        return tuple(out)

    @property
    def _grad_inputs(self):
        spec = self._graph._spec(self.type)
        return self._grouped(self._inputs, self._info["ranges"], [(i[0], i[3]) for i in spec["input_info"]])

    @property
    def _grad_outputs(self):
        spec = self._graph._spec(self.type)
        return self._grouped(self._outputs, self._info["out_ranges"], [(o[0], o[1]) for o in spec["output_info"]])

    @property
    def _attrs(self):
        return self._info["attrs"]

    def __repr__(self):
        return f"<of.Operation '{self.name}' type={self.type}>"


class Graph:
    """A dataflow graph. Use ``with g.as_default():`` to build into it."""

    def __init__(self):
        self._c = _C.Graph()
        self._ops: list[Operation] = []
        self._names: dict[str, int] = {}
        self._name_stack = ""
        self._control_stack: list[list] = []
        self._device_stack: list[str] = []
        self._collections: dict[str, list] = {}
        self._specs: dict[str, dict] = {}
        self._lock = threading.RLock()
        self._finalized = False
        self._cf_context = None  # the cond branch or loop being built (control_flow.py)
        self._library_proto = None  # functions of imported GraphDefs, kept for export
        # Per-graph state that other modules own, declared here so that every attribute of a
        # Graph is in one place (none is attached from outside):
        self.seed = None  # the graph-level random seed (ops/random_ops.py, tf.set_random_seed)
        self._random_op_counter = 0  # op seeds handed out under the graph seed (ops/random_ops.py)
        self._initializer_count = 0  # seeds handed to initializers under the graph seed (layers/initializers.py)
        self._variable_store = None  # get_variable's variables by name (framework/variable_scope.py)
        self._data_pipeline = None  # the graph's dataset iterators, run by the Session (data/iterator_ops.py)
        # A dataset function's graph (data/functions.py): takes a tensor or variable of another
        # graph that an op of this graph reads and gives this graph's stand-in for it.
        self._capture = None
        self._gradient_override: dict[str, str] = {}  # op type -> gradient to use (gradient_override_map)

    # ---- context
    @contextlib.contextmanager
    def as_default(self):
        _stack.append(self)
        _C.set_graph_mode(True)
        try:
            yield self
        finally:
            _stack.pop()
            _C.set_graph_mode(bool(_stack))

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of the mapped types created inside use the gradient registered under the mapped
        name (tf.RegisterGradient) instead of their own, as in TensorFlow."""
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override)
        self._gradient_override.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override = saved

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._name_stack
        if name is None or name == "":
            self._name_stack = ""
        elif name.endswith("/"):
            self._name_stack = name[:-1]
        else:
            self._name_stack = self.unique_name(name, mark_as_used=True)
        try:
            yield self._name_stack + "/" if self._name_stack else ""
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            ops.append(c.op if isinstance(c, GraphTensor) else getattr(c, "op", c))
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def _device_for(self, op_type: str, node_name: str, attrs: dict) -> str:
        """The device of a new node: the innermost device string, or what the device
        functions (``with g.device(fn)``: fn(op) -> device, as tf.train.replica_device_setter's)
        make of it, outermost first, each seeing the device given so far as ``op.device``."""
        device = ""
        for entry in self._device_stack:
            if callable(entry):
                node_def = types.SimpleNamespace(op=op_type, name=node_name, device=device, attr=dict(attrs or {}))
                device = entry(types.SimpleNamespace(type=op_type, name=node_name, device=device,
                                                     node_def=node_def)) or ""
            else:
                device = entry
        return device

    @contextlib.contextmanager
    def device(self, name):
        self._device_stack.append(name or "")
        try:
            yield
        finally:
            self._device_stack.pop()

    def finalize(self):
        self._finalized = True

    # ---- names
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """TensorFlow's rule: "Add", then "Add_1", "Add_2", ... within the current scope."""
        full = f"{self._name_stack}/{name}" if self._name_stack else name
        key = full.lower()
        i = self._names.get(key, 0)
        if mark_as_used:
            self._names[key] = i + 1
        if i > 0:
            base = key
            while True:
                candidate = f"{full}_{i}"
                if candidate.lower() not in self._names:
                    break
                i += 1
            if mark_as_used:
                self._names[candidate.lower()] = 1
                self._names[base] = i + 1
            return candidate
        return full

    # ---- lookup
    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        nid = self._c.find(name)
        if nid < 0:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return self._ops[nid]

    def get_tensor_by_name(self, name: str) -> GraphTensor:
        op_name, _, idx = name.rpartition(":")
        if not op_name or not idx.isdigit():
            raise ValueError(f"The name '{name}' looks like an (invalid) Operation name, not a Tensor; "
                             "Tensor names must be of the form '<op_name>:<output_index>'.")
        op = self.get_operation_by_name(op_name)
        i = int(idx)
        if i >= len(op.outputs):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist: the operation "
                           f"'{op_name}' has {len(op.outputs)} outputs.")
        return op.outputs[i]

    def as_graph_element(self, obj):
        if isinstance(obj, (GraphTensor, Operation)):
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        handle = getattr(obj, "_graph_element", None)
        if handle is not None:
            return handle()
        raise TypeError(f"Can not convert a {type(obj).__name__} into a graph element.")

    # ---- collections
    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, []))
        if scope:
            items = [v for v in items if getattr(v, "name", "").startswith(scope)]
        return items

    # ---- building
    def _spec(self, op_type: str) -> dict:
        spec = self._specs.get(op_type)
        if spec is None:
            spec = _C.op_spec(op_type)
            if spec is None:
                raise NotFoundError(f"op '{op_type}' is not registered in the opforge runtime", op_type)
            self._specs[op_type] = spec
        return spec

    def _tensor_by_ref(self, node: int, index: int) -> GraphTensor:
        return self._ops[node]._outputs[index]

    def create_op(self, op_type: str, inputs, attrs: dict, name: str | None = None,
                  control_inputs=(), exact_name: bool = False) -> Operation:
        """Adds a node. ``inputs``: per input argument a GraphTensor, or a list for list arguments.
        Attrs not given are inferred or defaulted. With exact_name, or a ``name`` ending in "/"
        (a scope's: TF's composites name their result so), the name minus "/" is used as is."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        with self._lock:
            handle = _C.op_handle(op_type)
            if exact_name or (name and name.endswith("/")):
                node_name = name.rstrip("/")
                if self._c.find(node_name) >= 0:
                    node_name = self.unique_name(node_name)
                self._names[node_name.lower()] = max(1, self._names.get(node_name.lower(), 0))
            else:
                node_name = self.unique_name(name or op_type)
            if not _VALID_NAME.match(node_name):
                raise InvalidArgumentError(f"'{node_name}' is not a valid node name", op_type)
            ctx = self._cf_context
            if ctx is not None:  # a cond branch or loop body: outside tensors are routed in
                inputs = [[ctx.process_input(t) for t in v] if isinstance(v, (list, tuple))
                          else ctx.process_input(v) for v in inputs]
            refs = []
            for v in inputs:
                refs.append([t._ref() for t in v] if isinstance(v, (list, tuple)) else v._ref())
            control = []
            for group in self._control_stack:
                control.extend(group)
            control.extend(control_inputs)
            if ctx is not None:
                control = [ctx.process_control(c) for c in control]
                has_inputs = any(len(v) if isinstance(v, (list, tuple)) else True for v in inputs)
                if not has_inputs and ctx.pivot is not None and not any(ctx.contains(c) for c in control):
                    control.append(ctx.pivot.op)  # a constant runs in the branch or iteration
            control = [c for c in control if c is not None]
            ctrl_ids = sorted({c._id for c in control})
            device = self._device_for(op_type, node_name, attrs)
            nid = self._c.add_node(node_name, handle, refs, attrs, ctrl_ids, device)
            op = Operation(self, nid)
            op._cf_context = ctx
            op._gradient_op_type = self._gradient_override.get(op_type)  # gradient_override_map
            self._ops.append(op)
            return op

    def _set_shape(self, tensor: GraphTensor, shape) -> None:
        """Declares a less specific (compatible) static shape for tensor: a loop variable's
        shape invariant."""
        ts = TensorShape(shape)
        dims = [-1 if d is None else int(d) for d in ts.as_list()] if ts.rank is not None else None
        with self._lock:
            self._c.set_output_shape(tensor.op._id, tensor.value_index, dims)
            tensor._shape = TensorShape(shape)

    def _update_input(self, op: Operation, index: int, tensor: GraphTensor) -> None:
        """Replaces flattened input ``index`` of ``op`` by ``tensor`` (same dtype): a loop's
        Merge gets its NextIteration back edge this way, after both exist."""
        with self._lock:
            self._c.update_input(op._id, index, tensor._ref())
            op._info = self._c.node_info(op._id)
            op._inputs[index] = tensor
            shapes = op._info["out_shapes"]
            for t, shape in zip(op._outputs, shapes):
                t._shape = TensorShape(shape)

    @contextlib.contextmanager
    def _all_or_nothing(self):
        """Nodes added inside are removed again if the block raises (imports)."""
        n, names = len(self._ops), dict(self._names)
        try:
            yield
        except BaseException:
            self._c.truncate(n)
            del self._ops[n:]
            self._names = names
            raise

    def _outputs_structure(self, op: Operation):
        spec = self._spec(op.type)
        groups = []
        for (b, e), (_, is_list, *_) in zip(op._info["out_ranges"], spec["output_info"]):
            groups.append(op._outputs[b:e] if is_list else op._outputs[b])
        if not groups:
            return op
        if len(groups) == 1:
            return groups[0]
        return tuple(groups)

    def as_graph_def(self, add_shapes=False):
        from ..io.graph_def import graph_to_graph_def  # noqa: PLC0415
        return graph_to_graph_def(self, add_shapes)

    @property
    def _library(self):
        if self._library_proto is None:
            from ..codegen._proto import function_pb2  # noqa: PLC0415
            self._library_proto = function_pb2.FunctionDefLibrary()
        return self._library_proto

    @property
    def version(self) -> int:
        return len(self._ops)

    @property
    def building_function(self) -> bool:
        return False


_stack: list[Graph] = []
_global_default: list[Graph] = []


def get_default_graph() -> Graph:
    """The innermost ``as_default`` graph, else the global default graph (created on demand)."""
    if _stack:
        return _stack[-1]
    if not _global_default:
        _global_default.append(Graph())
    return _global_default[0]


def reset_default_graph() -> None:
    if _stack:
        raise AssertionError("Do not use reset_default_graph() inside a `with graph.as_default()` block")
    _global_default.clear()


def _explicit_graph() -> Graph | None:
    return _stack[-1] if _stack else None


# ------------------------------------------------------------------------- conversion


def _graph_of(value):
    if isinstance(value, GraphTensor):
        return value.graph
    g = getattr(value, "_graph_for_dispatch", None)
    if g is not None:
        return g
    if isinstance(value, (list, tuple)):
        for v in value:
            g = _graph_of(v)
            if g is not None:
                return g
    return None


def constant_node(graph: Graph, value, dtype=None, name=None) -> GraphTensor:
    """A Const node holding value (converted with opforge's rules)."""
    from .tensor import convert_to_tensor  # noqa: PLC0415
    t = value if isinstance(value, EagerTensor) and dtype is None else convert_to_tensor(value, dtype)
    op = graph.create_op("Const", [], {"value": t, "dtype": t._dtype_enum}, name=name or "Const")
    return op.outputs[0]


def to_graph_tensor(graph: Graph, value, dtype=None, as_ref=False, op_name=""):
    """Converts an op input for graph construction: graph tensors pass, variables give their
    value (or reference), anything else becomes a Const node."""
    if graph._capture is not None and _of_another_graph(value, graph):
        value = graph._capture(value)
    if isinstance(value, GraphTensor):
        if value.graph is not graph:
            raise InvalidArgumentError(f"{op_name}: {value.name} belongs to another graph", op_name)
        if dtype is not None and value.dtype != dtype:
            raise InvalidArgumentError(
                f"{op_name}: Tensor {value.name} has dtype {value.dtype.name}, but {dtype.name} is "
                f"required", op_name)
        return value
    conv = getattr(value, "_as_graph_tensor", None)
    if conv is not None:
        return conv(graph, as_ref)
    converted = _conversions.convert(value, dtype, as_ref=as_ref)
    if converted is not None:  # a function registered for the value's type made it
        return to_graph_tensor(graph, converted, dtype, as_ref, op_name)
    if as_ref:
        raise InvalidArgumentError(f"{op_name}: input must be a variable", op_name)
    if isinstance(value, (list, tuple)) and _holds_graph_values(value):
        return _pack(graph, value, dtype, op_name)
    return constant_node(graph, value, dtype)


def _of_another_graph(value, graph: Graph) -> bool:
    """Whether value is a graph tensor or variable of a graph other than graph."""
    if isinstance(value, GraphTensor):
        return value.graph is not graph
    owner = getattr(value, "_graph_for_dispatch", None) if hasattr(value, "_as_graph_tensor") else None
    return owner is not None and owner is not graph


def _holds_graph_values(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_graph_values(v) for v in value)
    return isinstance(value, GraphTensor) or hasattr(value, "_as_graph_tensor")


def _pack(graph: Graph, values, dtype, op_name):
    """A list mixing graph tensors and numbers, as TensorFlow converts one: a Pack of its
    elements (nested lists packed first), numbers converted to the tensors' dtype."""
    if dtype is None:
        for v in values:
            if isinstance(v, GraphTensor) or hasattr(v, "_as_graph_tensor"):
                dtype = v.dtype
                break
    elems = [_pack(graph, v, dtype, op_name) if isinstance(v, (list, tuple)) and _holds_graph_values(v)
             else to_graph_tensor(graph, v, dtype, op_name=op_name) for v in values]
    with graph.as_default():
        return graph.create_op("Pack", [elems], {"axis": 0}, name="packed").outputs[0]


def dispatch(handle: int, name, args: tuple):
    """Runtime hook: build a node when a graph is the default or a graph value is an input."""
    graph = _explicit_graph()
    spec = _C.op_spec_by_handle(handle)
    if spec is None:
        return NotImplemented
    inputs_info = spec["input_info"]
    n_in = len(inputs_info)
    if graph is None:
        for v in args[:n_in]:
            graph = _graph_of(v)
            if graph is not None:
                break
    if graph is None:
        return NotImplemented
    op_type = spec["name"]
    # A list holding graph tensors given for a single tensor is packed into one (tf.stack).
    args = tuple(_pack(graph, a, None, op_type) if i < n_in and not inputs_info[i][3] and
                 isinstance(a, (list, tuple)) and _holds_graph_values(a) else a for i, a in enumerate(args))
    args = tuple(to_graph_tensor(graph, a, op_name=op_type) if i < n_in and _conversions.registered(a) else a
                 for i, a in enumerate(args))  # values of types with a registered conversion function
    wants = resolve_input_dtypes(spec, args, _static_dtype)  # the rule eager conversion uses
    inputs = []
    for i, ((arg_name, _, _, is_list, is_ref, *_), want) in enumerate(zip(inputs_info, wants)):
        if is_list:
            if not isinstance(args[i], (list, tuple)):
                raise InvalidArgumentError(f"{op_type}: input '{arg_name}' must be a list of tensors", op_type)
            inputs.append([_input_node(graph, v, want, is_ref, op_type, arg_name) for v in args[i]])
        else:
            inputs.append(_input_node(graph, args[i], want, is_ref, op_type, arg_name))
    attrs = {}
    explicit = [a[0] for a in spec["attrs"] if not a[2]]
    for attr_name, value in zip(explicit, args[n_in:]):
        if hasattr(value, "as_datatype_enum"):
            value = value.as_datatype_enum
        attrs[attr_name] = value
    op = graph.create_op(op_type, inputs, attrs, name=name)
    return graph._outputs_structure(op)


def _static_dtype(v):
    """The dtype of a value that already is a tensor when building a graph (a graph or eager
    tensor, a variable), else None."""
    if isinstance(v, GraphTensor) or isinstance(v, EagerTensor):
        return v.dtype
    return getattr(v, "_dispatch_dtype", None)


def _input_node(graph: Graph, value, want, is_ref: bool, op_type: str, arg_name: str):
    if value is None:
        raise InvalidArgumentError(f"{op_type}: input '{arg_name}' is missing (got None)", op_type)
    try:
        return to_graph_tensor(graph, value, want, is_ref, op_type)
    except (TypeError, ValueError) as e:
        if isinstance(e, InvalidArgumentError):
            raise
        raise InvalidArgumentError(f"{op_type}: input '{arg_name}': {e}", op_type) from None
