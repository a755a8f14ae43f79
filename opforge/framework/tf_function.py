"""Python functions as TensorFlow functions: tf.function, tf.wrap_function, tf.recompute_grad,
tf.vectorized_map.

tf.function. In a graph (TF1 programs, ``with graph.as_default()``), a call builds the
function's ops into the caller's graph under a name scope named after the function: the graph
TensorFlow runs after it inlines the call (Grappler's function inlining and
LowerFunctionalOps), without a FunctionDef in between. opforge does not keep a function
library for graphs it builds, so the Python body runs at every call (TensorFlow runs it once per
input signature and replays the traced function); calls with the same input signature build the
same ops. Eagerly (``import opforge as of`` outside a graph) the body runs eagerly, GradientTape
and all. ``input_signature`` is checked and converts arguments (a mismatch raises TypeError or
ValueError, as TF); ``get_concrete_function`` traces the body into a graph of its own with
placeholders for the signature and gives its inputs, outputs and structured signatures.
AutoGraph's conversion of Python control flow is not done (``autograph`` is accepted; write
tf.cond/tf.while_loop for tensor-dependent control flow).

tf.wrap_function traces TF1-style code (variables, placeholders) once into a graph of its own
and runs it with a Session of that graph: variables are initialized at the first call, then
keep their values between calls, as TensorFlow's WrappedFunction lifts and initializes them.
"""

from __future__ import annotations

import functools
import inspect
import re
import threading

import numpy as np

from . import graph as _graph
from . import tf2_behavior
from .graph import Graph, GraphTensor
from .type_spec import TensorSpec, TypeSpec, type_spec_from_value
from ..util import nest

__all__ = ["ConcreteFunction", "Function", "WrappedFunction", "function", "recompute_grad", "vectorized_map",
           "wrap_function"]


def _in_graph() -> Graph | None:
    return _graph._explicit_graph()


def _spec_key(value):
    """What distinguishes one trace from another for an argument: a tensor's spec, a Python
    value itself (TF retraces per Python value)."""
    if isinstance(value, TypeSpec):
        return value
    if hasattr(value, "dtype") and hasattr(value, "shape") and not isinstance(value, (np.ndarray, np.generic)):
        try:
            return type_spec_from_value(value)
        except TypeError:
            pass
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return (type(value).__name__, id(value))


def _convert_to_signature(fn_name, args, signature):
    """args converted to the signature's tensors: TypeError or ValueError when they do not fit."""
    flat_sig = nest.flatten(list(signature))
    try:  # a leaf of the signature takes a whole value (a Python list becomes one tensor)
        flat_args = nest.flatten_up_to(list(signature), list(args), check_types=False)
    except (ValueError, TypeError) as e:
        raise TypeError(f"{fn_name}: the arguments {args!r} do not match the input_signature {signature!r}: {e}") \
            from None
    out = []
    for spec, value in zip(flat_sig, flat_args):
        if isinstance(value, (GraphTensor,)) or hasattr(value, "_variable_op"):
            got = TensorSpec(value.shape, value.dtype)
        else:
            from .tensor import convert_to_tensor  # noqa: PLC0415
            if hasattr(value, "dtype") and hasattr(value, "numpy"):
                tensor = value
            else:
                tensor = convert_to_tensor(value, spec.dtype) if isinstance(spec, TensorSpec) else value
            got = type_spec_from_value(tensor)
            value = tensor
        if not isinstance(spec, TensorSpec) or not spec.is_compatible_with(got):
            raise ValueError(f"{fn_name}: Python inputs incompatible with input_signature:\n  inputs: {args!r}\n  "
                             f"input_signature: {signature!r} ({got} does not fit {spec})")
        out.append(value)
    return nest.pack_sequence_as(list(signature), out)


class ConcreteFunction:
    """One trace of a tf.function for one input signature: the graph it was traced into, its
    placeholders (inputs), results (outputs) and structured signatures. Calling it calls the
    Python function again in the caller's context (see the module docstring)."""

    def __init__(self, function, args, kwargs):
        self._function = function
        self.graph = Graph()
        specs = [a if isinstance(a, TypeSpec) else type_spec_from_value(a) if _is_tensorish(a) else a
                 for a in nest.flatten(args)]
        self.structured_input_signature = (nest.pack_sequence_as(args, specs), dict(kwargs))
        with self.graph.as_default():
            from . import api  # noqa: PLC0415
            placeholders = []
            for s in specs:
                if isinstance(s, TensorSpec):
                    placeholders.append(api.placeholder(s.dtype, s.shape.dims and list(s.shape.dims)
                                                        if s.shape.rank is not None else None, name=s.name))
                else:
                    placeholders.append(s)
            self.inputs = [p for p in placeholders if isinstance(p, GraphTensor)]
            call_args = nest.pack_sequence_as(args, placeholders)
            with tf2_behavior.tracing(None):
                self.structured_outputs = function._python_function(*call_args, **kwargs)
        self.outputs = [t for t in nest.flatten(self.structured_outputs) if isinstance(t, GraphTensor)]

    @property
    def name(self):
        return self._function.__name__

    @property
    def output_dtypes(self):
        return nest.map_structure(lambda t: t.dtype if isinstance(t, GraphTensor) else None, self.structured_outputs)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda t: t.shape if isinstance(t, GraphTensor) else None, self.structured_outputs)

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)


def _is_tensorish(value) -> bool:
    return isinstance(value, (GraphTensor, np.ndarray)) or (hasattr(value, "dtype") and hasattr(value, "shape"))


class Function:
    """A Python function made a TensorFlow function by tf.function (see the module docstring)."""

    def __init__(self, python_function, input_signature=None, name=None):
        self._python_function = python_function
        self._input_signature = None if input_signature is None else tuple(input_signature)
        if self._input_signature is not None:
            for s in nest.flatten(list(self._input_signature)):
                if not isinstance(s, TensorSpec):
                    raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, "
                                    f"got {s!r}")
        self.__name__ = name or getattr(python_function, "__name__", "function")
        functools.update_wrapper(self, python_function, updated=())
        self._concrete: dict = {}
        self._lock = threading.Lock()
        self._descriptor_cache: dict = {}

    python_function = property(lambda self: self._python_function)
    input_signature = property(lambda self: self._input_signature)

    def _canonical(self, args, kwargs):
        if self._input_signature is None:
            return args, kwargs
        try:
            bound = inspect.signature(self._python_function).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}: {e}") from None
        bound.apply_defaults()
        values = list(bound.arguments.values())
        n = len(self._input_signature)
        if len(values) < n:
            raise TypeError(f"{self.__name__}: expected {n} arguments for its input_signature, got {len(values)}")
        converted = _convert_to_signature(self.__name__, values[:n], self._input_signature)
        return tuple(converted) + tuple(values[n:]), {}

    def __call__(self, *args, **kwargs):
        args, kwargs = self._canonical(args, kwargs)
        g = _in_graph()
        if g is None:  # eager: the body runs eagerly
            return self._python_function(*args, **kwargs)
        with g.name_scope(self._scope_name()), tf2_behavior.tracing(g):
            return self._python_function(*args, **kwargs)

    def _scope_name(self) -> str:
        """The function's name as a node-name scope (TF's node names start with a letter, digit
        or dot: ``__call__`` becomes ``call``)."""
        return re.sub(r"[^A-Za-z0-9_.\-]", "_", self.__name__).lstrip("_-") or "function"

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments (TensorSpecs or values), made once per signature; with an
        input_signature and no arguments, the signature's."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        elif self._input_signature is not None:
            args, kwargs = self._canonical(args, kwargs)
        key = (tuple(_spec_key(a) for a in nest.flatten(list(args))), tuple(sorted(
            (k, _spec_key(v)) for k, v in kwargs.items())))
        with self._lock:
            if key not in self._concrete:
                self._concrete[key] = ConcreteFunction(self, tuple(args), kwargs)
            return self._concrete[key]

    def experimental_get_tracing_count(self) -> int:
        return len(self._concrete)

    def __get__(self, instance, owner):
        """A tf.function used as a method: bound to the instance, one Function per instance."""
        if instance is None:
            return self
        bound = self._descriptor_cache.get(id(instance))
        if bound is None:
            bound = type(self)(self._python_function.__get__(instance, owner), None, self.__name__)
            if self._input_signature is not None:
                bound._input_signature = self._input_signature
            self._descriptor_cache[id(instance)] = bound
        return bound


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """tf.function: func as a Function (see the module docstring); without func, a decorator.
    autograph, jit_compile, reduce_retracing, experimental_* are TF's compilation hints: opforge
    builds the same ops whatever they say."""
    del autograph, jit_compile, reduce_retracing, experimental_implements, experimental_autograph_options
    del experimental_attributes, experimental_relax_shapes, experimental_compile, experimental_follow_type_hints

    def decorate(f):
        if isinstance(f, Function):
            return f
        return Function(f, input_signature)

    return decorate if func is None else decorate(func)


# ---------------------------------------------------------------------------- wrap_function

class WrappedFunction:
    """TF1-style code traced once into a graph of its own (tf.wrap_function); calling it feeds
    the arguments to its placeholders and runs it with a Session of that graph. Variables made
    by the code are initialized at the first call and keep their values between calls."""

    def __init__(self, graph, inputs, structured_outputs, name, session=None, initializer=None):
        self.graph = graph
        self.inputs = list(inputs)
        self.structured_outputs = structured_outputs
        self.outputs = [t for t in nest.flatten(structured_outputs) if isinstance(t, GraphTensor)]
        self.name = name
        self._session = session
        self._initializer = initializer
        self._initialized = session is not None

    def _ensure_session(self):
        if self._session is None:
            from .session import Session  # noqa: PLC0415
            self._session = Session(graph=self.graph)
        if not self._initialized:
            if self._initializer is not None:
                self._session.run(self._initializer)
            self._initialized = True
        return self._session

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise TypeError(f"{self.name}: expected {len(self.inputs)} arguments, got {len(args)}")
        for a in args:
            if isinstance(a, GraphTensor):
                raise TypeError(f"{self.name}: a wrapped function is called with values (NumPy arrays, eager "
                                f"tensors), not with graph tensors of another graph")
        sess = self._ensure_session()
        feeds = {p: (a.numpy() if hasattr(a, "numpy") else a) for p, a in zip(self.inputs, args)}
        fetched = sess.run(self.outputs, feeds) if self.outputs else []
        values = iter(fetched)
        return nest.map_structure(lambda t: next(values) if isinstance(t, GraphTensor) else t,
                                  self.structured_outputs)

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """A function of the same graph (and variables) from feeds (graph tensors of it) to fetches
        (a structure of its tensors or operation names)."""
        del input_signature
        feeds = nest.flatten(feeds)
        resolved = nest.map_structure(
            lambda f: self.graph.as_graph_element(f) if isinstance(f, str) else f, fetches)
        for t in feeds + [t for t in nest.flatten(resolved) if isinstance(t, GraphTensor)]:
            if getattr(t, "graph", self.graph) is not self.graph:
                raise ValueError(f"prune: {t} is not in the wrapped function's graph")
        pruned = WrappedFunction(self.graph, feeds, resolved, name or f"{self.name}_pruned",
                                 initializer=self._initializer)
        pruned._session = self._session
        pruned._initialized = self._initialized
        pruned._parent = self
        return pruned


def wrap_function(fn, signature, name=None):
    """fn (TF1-style code building a graph) traced once with placeholders for signature (a list
    of TensorSpecs), as a WrappedFunction (tf.wrap_function)."""
    g = Graph()
    with g.as_default():
        from . import api  # noqa: PLC0415
        from .variables import global_variables_initializer  # noqa: PLC0415
        specs = nest.flatten(list(signature or []))
        placeholders = [api.placeholder(s.dtype, None if s.shape.rank is None else list(s.shape.dims), name=s.name)
                        for s in specs]
        args = nest.pack_sequence_as(list(signature or []), placeholders)
        outputs = fn(*args)
        init = global_variables_initializer() if g.get_collection("variables") else None
    return WrappedFunction(g, placeholders, outputs, name or getattr(fn, "__name__", "wrapped_function"),
                           initializer=init)


# ---------------------------------------------------------------------------- recompute_grad, vectorized_map

def recompute_grad(f):
    """f, whose gradient TensorFlow computes by running f's forward pass again instead of
    keeping its activations (a memory saving). opforge keeps the activations: the values and
    gradients are the same, the memory use is that of f itself."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)
    return inner


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """fn applied to each slice of elems along the first dimension, the results stacked
    (tf.vectorized_map). opforge runs it as tf.map_fn (a while loop), TensorFlow's fallback
    when it cannot vectorize fn: the results are the same."""
    del fallback_to_while_loop, warn
    from ..ops.functional_ops import map_fn  # noqa: PLC0415  (ops build on framework)
    return map_fn(fn, elems, fn_output_signature=_output_signature(fn, elems))


def _output_signature(fn, elems):
    """The dtypes of fn's results, found by tracing fn on one slice in a scratch graph."""
    from .tensor_shape import TensorShape  # noqa: PLC0415
    scratch = Graph()
    with scratch.as_default():
        from . import api  # noqa: PLC0415

        def slice_placeholder(e):
            dtype = e.dtype if hasattr(e, "dtype") else np.asarray(e).dtype
            shape = TensorShape(e.shape if hasattr(e, "shape") else np.shape(e))
            return api.placeholder(dtype, None if shape.rank is None else list(shape.dims[1:]))

        out = fn(nest.map_structure(slice_placeholder, elems))
    return nest.map_structure(lambda t: t.dtype, out)
