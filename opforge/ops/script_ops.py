"""Python functions as ops: tf.py_func, tf.numpy_function (PyFunc, PyFuncStateless) and
tf.py_function (EagerPyFunc).

The callable is registered in this process under a token (the op's ``token`` attr); the kernel
(kernels/cpu/script/py_func.cc) calls back through the runtime's host-callback hook, which takes
the GIL, into ``_dispatch`` here. PyFunc passes NumPy arrays and takes back NumPy values whose
dtypes must be ``Tout`` exactly (as TensorFlow: a Python float is float64); EagerPyFunc passes
eager Tensors, runs the function eagerly under a GradientTape and converts its results to
``Tout``, and its gradient replays that tape (TensorFlow's _EagerPyFuncGrad). An exception
becomes the typed error TensorFlow gives (ValueError/TypeError: InvalidArgumentError,
StopIteration/IndexError: OutOfRangeError, an OpError: its own class, ...) naming the op.

The callable is not serialized: a graph exported with a PyFunc runs only in the process that
registered it; elsewhere the op fails with NotFoundError saying so.
"""

from __future__ import annotations

import itertools
import threading
import traceback

import numpy as np

from .. import _C
from ..framework import dtypes as _dtypes
from ..framework import graph as _graph
from ..framework.eager_scope import eager_scope
from ..framework.errors import OpError
from ..framework.tensor import Tensor, convert_to_tensor

_funcs: dict[str, object] = {}
_tapes: dict[str, tuple] = {}  # EagerPyFunc token -> (tape, inputs, outputs) of its last run
_lock = threading.Lock()
_counter = itertools.count()

# Python exception class -> runtime error code (TensorFlow's py_func.cc mapping)
_CODES = ((StopIteration, 11), (IndexError, 11), (MemoryError, 8), (NotImplementedError, 12),
          (ValueError, 3), (TypeError, 3))


def _register(func) -> str:
    token = f"pyfunc_{next(_counter)}"
    with _lock:
        _funcs[token] = func
    return token


def _error(op_type: str, node: str, token: str, exc: BaseException) -> tuple[int, str]:
    where = f"{op_type} '{node}'" if node else op_type
    if isinstance(exc, OpError):
        code = exc.error_code
    else:
        code = next((c for cls, c in _CODES if isinstance(exc, cls)), 2)
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
    return code, f"{where}: function '{token}' raised {type(exc).__name__}: {exc}\n{trace}"


def _dispatch(op_type: str, node: str, token: str, inputs: list):
    func = _funcs.get(token)
    if func is None:
        return 5, (f"{op_type}: no Python function is registered under token '{token}' in this process "
                   f"(a graph holding {op_type} can run only in the process that built it)")
    try:
        if op_type == "EagerPyFunc":
            return _run_eager(token, func, inputs)
        results = func(*[t.numpy() for t in inputs])
        return [_to_tensor(r) for r in _as_list(results)]
    except BaseException as exc:  # noqa: BLE001  (every failure becomes the op's typed error)
        return _error(op_type, node, token, exc)


def _as_list(results):
    if results is None:
        return []
    return list(results) if isinstance(results, (list, tuple)) else [results]


def _to_tensor(value):
    if isinstance(value, Tensor):
        return value
    arr = np.asarray(value, order="C")
    if arr.dtype.kind in "SUO":
        return convert_to_tensor(arr, _dtypes.string)
    return convert_to_tensor(arr)


def _run_eager(token, func, inputs):
    from ..gradients.tape import GradientTape  # noqa: PLC0415

    tout = func._opforge_tout
    with eager_scope():
        with GradientTape(persistent=True) as tape:
            for t in inputs:
                if t.dtype.is_floating:
                    tape.watch(t)
            results = _as_list(func(*inputs))
        if len(results) != len(tout):
            raise ValueError(f"the function returned {len(results)} values, Tout lists {len(tout)}")
        outputs = [convert_to_tensor(r, dtype) for r, dtype in zip(results, tout)]
    with _lock:
        _tapes[token] = (tape, list(inputs), outputs)
    return outputs


def _tout_list(Tout):
    single = not isinstance(Tout, (list, tuple))
    return [_dtypes.as_dtype(t) for t in ([Tout] if single else Tout)], single


def _build(op_fn, func, inp, Tout, name, **attrs):
    tout, single = _tout_list(Tout)
    inp = list(inp) if isinstance(inp, (list, tuple)) else [inp]
    token = _register(func)
    outs = op_fn(inp, token=token, Tout=tout, name=name, **attrs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    if not tout and _graph._stack:  # no outputs: the op itself, to run or depend on (as TensorFlow)
        last = _graph.get_default_graph().get_operations()[-1]
        return last if last.get_attr("token") == token else None
    if single:
        return outs[0] if outs else None
    return outs


def py_func(func, inp, Tout, stateful=True, name=None):
    """Wraps a Python function taking and returning NumPy arrays as an op (TensorFlow 1's
    tf.py_func). Each result's dtype must be its Tout entry's; outputs' static shapes are
    unknown (set_shape them)."""
    from .. import ops  # noqa: PLC0415

    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    op_fn = ops.py_func if stateful else ops.py_func_stateless
    return _build(op_fn, func, inp, Tout, name)


def numpy_function(func, inp, Tout, stateful=True, name=None):
    """tf.numpy_function: py_func's TF 1.14+ spelling."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def py_function(func, inp, Tout, name=None):
    """Wraps a Python function taking and returning eager Tensors as an op (tf.py_function): the
    function runs eagerly, even inside a graph, and gradients flow through it."""
    from .. import ops  # noqa: PLC0415

    if not callable(func):
        raise TypeError(f"py_function: func must be callable, got {type(func).__name__}")
    tout, _ = _tout_list(Tout)

    def run(*args):
        return func(*args)

    run._opforge_tout = tout
    return _build(ops.eager_py_func, run, inp, Tout, name)


def eager_py_func_grad(op, grads):
    """EagerPyFunc's gradient: another EagerPyFunc that replays the forward run's tape
    (it runs after the forward op: a control dependency on its outputs in a graph)."""
    from .. import ops  # noqa: PLC0415

    token = op.attrs["token"]
    inputs = list(op.inputs[0])
    tin = [t.dtype for t in inputs]

    def grad_fn(*dy):
        with _lock:
            entry = _tapes.pop(token, None)
        if entry is None:
            raise ValueError(f"no forward run of '{token}' is recorded to differentiate")
        tape, xs, ys = entry
        gs = tape.gradient(ys, xs, output_gradients=list(dy))
        return [g if g is not None else ops.zeros_like(x) for g, x in zip(gs, xs)]

    grad_fn._opforge_tout = tin
    outputs = list(op.outputs)
    if _C_graph_mode(outputs):
        with outputs[0].graph.control_dependencies(outputs):
            result = _build(ops.eager_py_func, grad_fn, list(grads), tin, None)
    else:
        result = _build(ops.eager_py_func, grad_fn, list(grads), tin, None)
    return [[g if dt.is_floating else None for g, dt in zip(result, tin)]]


def _C_graph_mode(outputs) -> bool:  # noqa: N802
    return bool(outputs) and hasattr(outputs[0], "graph") and not isinstance(outputs[0], Tensor)


_C.set_py_func_dispatcher(_dispatch)
