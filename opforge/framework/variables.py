"""Variables: eager (a mutable holder of a Tensor, watched by GradientTape) and graph (a
VariableV2 node whose value lives in each Session, as in TensorFlow 1)."""

from __future__ import annotations

import numpy as np

from .default_session import default_session
from . import dtypes as _dtypes
from .graph import Graph, GraphTensor, _explicit_graph, get_default_graph, to_graph_tensor
from . import devices as _devices
from .tensor import Tensor as EagerTensor
from .tensor import TensorShape, convert_to_tensor

from . import math_operators
from .collections import GLOBAL_VARIABLES, TRAINABLE_VARIABLES
from .tf2_behavior import create_variable


def _ops():
    from .. import ops  # noqa: PLC0415
    return ops


# Initial values with at least this many elements, all one value, become a Fill op.
_MIN_FILL_ELEMENTS = 1000


def _fill_if_uniform(value, want):
    """A Fill op (in the current graph and name scope) for a NumPy initial value of at least
    _MIN_FILL_ELEMENTS numbers that are all one value, else None. Zeros and ones initializers
    and optimizers' slots give such values. As TensorFlow's zeros and ones, the graph then holds
    one number, not a constant the variable's size: an Adam step's two slots of a 3136 x 1024
    kernel made the GraphDef that Saver and FileWriter write 26 MB bigger."""
    if not isinstance(value, np.ndarray) or value.size < _MIN_FILL_ELEMENTS or value.dtype.kind not in "biuf":
        return None
    dtype = want if want is not None else _dtypes.as_dtype(value.dtype)
    arr = value.astype(dtype.as_numpy_dtype, copy=False)
    first = arr.flat[0]
    if not (arr == first).all():  # (a NaN is never equal: NaN-filled values stay constants)
        return None
    dims = np.asarray(arr.shape, np.int64 if max(arr.shape) >= 2**31 else np.int32)
    return _ops().fill(dims, np.asarray(first, arr.dtype), name="Initializer/fill")


class _VariableBase:
    """Operators shared by both kinds: they go through the generated wrappers, which accept
    variables as inputs."""

    def __add__(self, o): return _ops().add_v2(self, o, name="add")
    def __radd__(self, o): return _ops().add_v2(o, self, name="add")
    def __sub__(self, o): return _ops().sub(self, o, name="sub")
    def __rsub__(self, o): return _ops().sub(o, self, name="sub")
    def __mul__(self, o): return _ops().mul(self, o, name="mul")
    def __rmul__(self, o): return _ops().mul(o, self, name="mul")
    def __truediv__(self, o): return math_operators.truediv(_ops(), self, o, name="truediv")
    def __rtruediv__(self, o): return math_operators.rtruediv(_ops(), self, o, name="truediv")
    def __pow__(self, o): return _ops().pow(self, o, name="pow")
    def __matmul__(self, o): return _ops().mat_mul(self, o)
    def __rmatmul__(self, o): return _ops().mat_mul(o, self)
    def __neg__(self): return _ops().neg(self)
    def __lt__(self, o): return _ops().less(self, o)
    def __gt__(self, o): return _ops().greater(self, o)
    __hash__ = object.__hash__


class EagerVariable(_VariableBase):
    """A variable in eager mode: holds a Tensor; ``assign`` replaces it."""

    def __init__(self, initial_value, dtype=None, name=None, trainable=True):
        if callable(initial_value):
            initial_value = initial_value()
        self._value = convert_to_tensor(initial_value, dtype)
        placed = _devices.current_eager_device()  # issue 5: `with of.device(...)` places variables
        if placed is not None and placed != self._value.device:
            self._value = self._value.to(placed)
        self._name = name or "Variable"
        self.trainable = trainable

    name = property(lambda self: f"{self._name}:0")
    device = property(lambda self: self._value.device)
    dtype = property(lambda self: self._value.dtype)
    shape = property(lambda self: self._value.shape)

    def _eager_tensor(self):
        from ..gradients import tape  # noqa: PLC0415
        if self.trainable:
            tape.variable_accessed(self)
        return self._value

    def _tape_handle(self):
        return self._value

    def value(self):
        return self._eager_tensor()

    read_value = value

    def numpy(self):
        return self._value.numpy()

    def assign(self, value, use_locking=False, name=None, read_value=True):
        new = convert_to_tensor(value, self.dtype)
        if tuple(new.shape) != tuple(self.shape):
            from .errors import InvalidArgumentError  # noqa: PLC0415
            raise InvalidArgumentError(f"Cannot assign a value of shape {new.shape} to variable "
                                       f"{self._name} of shape {self.shape}")
        self._value = new
        return self

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return self.assign(_ops().add_v2(self._value, delta))

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return self.assign(_ops().sub(self._value, delta))

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._value.numpy(), dtype=dtype)

    def __repr__(self):
        return f"<of.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, numpy={self._value.numpy()}>"


class RefVariable(_VariableBase):
    """A graph variable: a VariableV2 node, its initializer (Assign) and a read (Identity)."""

    __array_priority__ = 100  # NumPy defers binary operators (ndarray * variable) to the variable

    def __init__(self, initial_value, dtype=None, name=None, trainable=True, graph: Graph | None = None,
                 collections=None, validate_shape=True, caching_device=None, variable_def=None,
                 expected_shape=None, import_scope=None, constraint=None, use_resource=None,
                 synchronization=None, aggregation=None, shape=None):
        # TF1's tf.Variable keywords: placement (caching_device), the deprecated expected_shape
        # (TF1 ignores it too), resource-ness and distribution settings change nothing on one
        # device; the constraint is kept (TF1's optimizers do not apply it either).
        del caching_device, expected_shape, import_scope, use_resource, synchronization, aggregation
        if variable_def is not None:
            raise NotImplementedError("Variable(variable_def=...) is not supported: restore variables with "
                                      "tf.train.import_meta_graph")
        self.constraint = constraint
        shape_arg = shape
        g = graph or get_default_graph()
        self._graph = g
        if name and name.endswith("/"):  # an absolute name (get_variable has applied scopes)
            base = name[:-1]
            if g._c.find(base) >= 0:  # taken by another node (tf.Variable(name='w') then get_variable('w')):
                with g.name_scope(None):  # TF names this one w_1, as graph names are uniquified
                    base = g.unique_name(base)
        else:
            base = g.unique_name(name or "Variable")
        ops = _ops()
        with g.name_scope(base + "/"):
            if callable(initial_value):
                initial_value = initial_value()
            want = _dtypes.as_dtype(dtype) if dtype is not None else None
            if isinstance(initial_value, GraphTensor):
                init = initial_value
            else:
                init = _fill_if_uniform(initial_value, want)
                if init is None:
                    init = to_graph_tensor(g, initial_value if want is None else
                                           convert_to_tensor(initial_value, want), want)
            shape = init.shape.dims if validate_shape else None
            if shape_arg is not None:  # tf.Variable(shape=...): the variable's static shape
                shape = TensorShape(shape_arg).dims
            self._variable_op = g.create_op(
                "VariableV2", [], {"shape": None if shape is None else [(-1 if d is None else d) for d in shape],
                                   "dtype": init.dtype.as_datatype_enum},
                name=base + "/", exact_name=True)
            self._ref = self._variable_op.outputs[0]
            self._initializer_op = g.create_op("Assign", [self._ref, init],
                                               {"validate_shape": validate_shape}, name="Assign")
            self._snapshot = ops.identity(self._ref, name="read")
        self._initial_value = init
        self.trainable = trainable
        for c in collections or ([GLOBAL_VARIABLES] + ([TRAINABLE_VARIABLES] if trainable else [])):
            g.add_to_collection(c, self)

    @classmethod
    def _from_nodes(cls, graph, variable_op, initializer_op, snapshot, initial_value, trainable):
        """A variable over nodes already in the graph (an imported MetaGraphDef's VariableDef)."""
        v = cls.__new__(cls)
        v._graph = graph
        v._variable_op = variable_op
        v._ref = variable_op.outputs[0]
        v._initializer_op = initializer_op
        v._snapshot = snapshot
        v._initial_value = initial_value
        v.trainable = trainable
        return v

    # ---- identity
    name = property(lambda self: self._ref.name)
    op = property(lambda self: self._variable_op)
    graph = property(lambda self: self._graph)
    dtype = property(lambda self: self._ref.dtype)
    shape = property(lambda self: self._ref.shape)
    initializer = property(lambda self: self._initializer_op)
    initial_value = property(lambda self: self._initial_value)
    device = property(lambda self: self._variable_op.device)

    def get_shape(self) -> TensorShape:
        return self.shape

    # ---- how ops and sessions see it
    _graph_for_dispatch = property(lambda self: self._graph)
    _dispatch_dtype = property(lambda self: self.dtype)

    def _as_graph_tensor(self, graph, as_ref):
        # Ops take the reference itself, as in TensorFlow 1: the executor reads the variable
        # when the consuming node runs, so control dependencies on assignments are honoured.
        if graph is not self._graph:
            raise ValueError(f"variable {self.name} belongs to another graph")
        return self._ref

    def _graph_element(self):
        return self._snapshot

    def _tape_handle(self):
        return self._ref  # of.gradients differentiates with respect to the reference

    def value(self):
        return self._snapshot

    def read_value(self):
        return _ops().identity(self._ref)

    def initialized_value(self):
        with self._graph.control_dependencies([self._initializer_op]):
            return _ops().identity(self._ref)

    def eval(self, session=None):
        return self._snapshot.eval(session=session)

    def load(self, value, session=None):
        (session or default_session()).run(self._initializer_op, {self._initial_value: value})

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return _ops().assign(self, value, use_locking=use_locking, name=name)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return _ops().assign_add(self, delta, use_locking=use_locking, name=name)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return _ops().assign_sub(self, delta, use_locking=use_locking, name=name)

    def count_up_to(self, limit):
        """The value before an increment; OutOfRangeError once it has reached limit (CountUpTo)."""
        return _ops().count_up_to(self, limit=int(limit))

    def batch_scatter_update(self, sparse_delta, use_locking=True, name=None):
        from ..ops.state_ops import batch_scatter_update  # noqa: PLC0415
        return batch_scatter_update(self, sparse_delta.indices, sparse_delta.values, use_locking, name=name)

    def scatter_nd_update(self, indices, updates, name=None):
        return _ops().scatter_nd_update(self, indices, updates, use_locking=True, name=name)

    def scatter_nd_add(self, indices, updates, name=None):
        return _ops().scatter_nd_add(self, indices, updates, name=name)

    def scatter_nd_sub(self, indices, updates, name=None):
        return _ops().scatter_nd_sub(self, indices, updates, name=name)

    def __repr__(self):
        return f"<of.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def Variable(initial_value=None, dtype=None, name=None, trainable=True, **kwargs):  # noqa: N802
    """Creates a variable (TensorFlow's tf.Variable).

    In eager mode the variable holds a Tensor and GradientTape watches it when trainable.
    Inside ``with graph.as_default()`` (or when the initial value is a graph tensor) it is a
    graph variable: a node whose value lives in each Session and must be initialized there
    (``of.global_variables_initializer()``).
    """
    if isinstance(dtype, bool):  # TF1's second positional parameter was `trainable`
        trainable, dtype = dtype, None
    graph_mode = kwargs.pop("_graph", False) or _explicit_graph() is not None or \
        isinstance(initial_value, GraphTensor)
    if graph_mode:  # through the variable_creator_scopes (framework/tf2_behavior.py)
        return create_variable(RefVariable, initial_value=initial_value, dtype=dtype, name=name, trainable=trainable,
                               **kwargs)
    return create_variable(EagerVariable, initial_value=initial_value, dtype=dtype, name=name, trainable=trainable)


def global_variables(graph=None):
    return (graph or get_default_graph()).get_collection(GLOBAL_VARIABLES)


def trainable_variables(graph=None):
    return (graph or get_default_graph()).get_collection(TRAINABLE_VARIABLES)


def variables_initializer(var_list, name="init"):
    g = var_list[0].graph if var_list else get_default_graph()
    with g.control_dependencies([v.initializer for v in var_list]):
        return g.create_op("NoOp", [], {}, name=name)


def global_variables_initializer(graph=None):
    """An op that initializes every global variable of the (default) graph."""
    g = graph or get_default_graph()
    return variables_initializer(global_variables(g), name="init") if global_variables(g) else \
        g.create_op("NoOp", [], {}, name="init")


_ = EagerTensor


def _scatter_method(op: str):
    def method(self, sparse_delta, use_locking=False, name=None):
        return getattr(_ops(), op)(self, sparse_delta.indices, sparse_delta.values, use_locking, name=name)
    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"The {op} of an IndexedSlices (rows `indices` of this variable, new `values`)."
    return method


for _op in ("scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_min",
            "scatter_max"):
    setattr(RefVariable, _op, _scatter_method(_op))
