"""The eager Tensor's Python face and conversions from Python/NumPy values.

``of.Tensor`` is the runtime's C++ tensor class (``opforge._C.Tensor``); this module gives it
TensorFlow's Python API (``.numpy()``, ``.shape``, operators) and implements the conversion
hook the runtime calls when an op receives something that is not yet a Tensor.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _C
from . import dtypes as _dtypes
from .dtype_resolution import default_dtype, holds_strings, resolve_input_dtypes
from .errors import InvalidArgumentError
from . import tensor_conversion_registry as _conversions
from .tensor_shape import TensorShape  # noqa: F401  (of.TensorShape; it lives in tensor_shape.py)

Tensor = _C.Tensor


# ------------------------------------------------------------------------- conversions


def _from_numpy(array: np.ndarray, dtype: _dtypes.DType) -> Tensor:
    array = np.asarray(array, dtype=dtype._np, order="C")  # keeps 0-d arrays 0-d
    return Tensor._from_numpy(array, dtype.as_datatype_enum)


def _string_tensor(value, where: str, op) -> Tensor:
    arr = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) or value.dtype.kind != "O" else value
    if arr.size and not holds_strings(arr):
        raise InvalidArgumentError(f"{where}cannot convert {value!r} to a Tensor of string", op)
    return Tensor._from_numpy(np.asarray(arr, order="C"), _dtypes.string.as_datatype_enum)


def convert_to_tensor(value, dtype=None, name=None, op: str | None = None) -> Tensor:
    """Converts a Tensor, NumPy array, Python scalar or nested list to a Tensor.

    With ``dtype``, Python values are converted to it; a value that would change (2.5 to an
    int, 300 to uint8) is an InvalidArgumentError, and so is a NumPy array whose dtype cannot
    be cast to it without changing kind.
    """
    del name
    where = f"{op}: " if op else ""
    want = _dtypes.as_dtype(dtype) if dtype is not None else None
    eager = getattr(value, "_eager_tensor", None)
    if eager is not None:  # an eager Variable
        value = eager()
    if isinstance(value, Tensor):
        if want is not None and value._dtype_enum != want.as_datatype_enum:
            raise InvalidArgumentError(
                f"{where}Tensor of dtype {value.dtype.name} cannot be used where {want.name} is required", op)
        return value
    converted = _conversions.convert(value, want)
    if converted is not None:  # a function registered for the value's type made it
        return converted
    if value is None:  # TensorFlow's error (a ValueError) for a missing value
        raise ValueError(f"{where}Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
                         f"to a Tensor.")
    if hasattr(value, "__array__") and not isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value)
    if want is None and isinstance(value, (bytes, str, np.bytes_, np.str_)):
        want = _dtypes.string
    if want is None and isinstance(value, np.ndarray) and (value.dtype.kind in "SU" or (
            value.dtype == object and value.size and all(isinstance(v, (bytes, str)) for v in value.flat))):
        want = _dtypes.string  # NumPy arrays of bytes or str (object arrays included), as TensorFlow
    if want == _dtypes.string:
        return _string_tensor(value, where, op)
    if isinstance(value, np.ndarray) and value.ndim > 0:
        if want is None:
            return _from_numpy(value, _dtypes.as_dtype(value.dtype))
        if value.dtype == want._np or np.can_cast(value.dtype, want._np, "same_kind"):
            return _from_numpy(value, want)
        raise InvalidArgumentError(
            f"{where}cannot convert an array of dtype {value.dtype} to {want.name}", op)
    if want is None:
        want = default_dtype(value)
        if want == _dtypes.string:
            return _string_tensor(value, where, op)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(f"{where}cannot convert {type(value).__name__} to a Tensor: {e}", op) from None
    if want == _dtypes.bool_ and arr.dtype != np.bool_ and arr.size:
        # As TensorFlow: numbers are not truthiness-converted to bool (LogicalAnd, Select)
        raise InvalidArgumentError(f"{where}cannot convert {value!r} to a Tensor of bool", op)
    if arr.dtype == object:
        raise InvalidArgumentError(f"{where}cannot convert {value!r} to a Tensor", op)
    if arr.dtype.kind == "U" or arr.dtype.kind == "S":
        raise InvalidArgumentError(f"{where}cannot convert a string to a Tensor of {want.name}", op)
    if arr.dtype.kind == "c" and not want.is_complex:
        raise InvalidArgumentError(f"{where}cannot convert complex value {value!r} to {want.name}", op)
    with np.errstate(all="ignore"):
        converted = arr.astype(want._np)
        real = converted.real if want.is_complex else converted  # a real value read back from complex
        back = real.astype(arr.dtype) if arr.dtype.kind in "biuf" else converted
    if arr.dtype.kind in "biuf" and not np.array_equal(back, arr, equal_nan=arr.dtype.kind == "f"):
        if not (want.is_floating and arr.dtype.kind == "f"):  # float rounding is expected
            raise InvalidArgumentError(
                f"{where}value {value!r} cannot be represented as {want.name}", op)
    return _from_numpy(converted, want)


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """Creates a constant tensor from a Python or NumPy value (TensorFlow's tf.constant)."""
    if dtype is not None and isinstance(value, (np.ndarray, Tensor)):
        arr = value.numpy() if isinstance(value, Tensor) else value
        t = _from_numpy(np.asarray(arr).astype(_dtypes.as_dtype(dtype)._np), _dtypes.as_dtype(dtype))
    elif dtype is not None:
        want = _dtypes.as_dtype(dtype)
        arr = np.asarray(value)
        if arr.dtype.kind == "f" and want.is_integer and arr.size:  # [] is float64 in NumPy
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {want.name}")
        t = convert_to_tensor(value, want)
    else:
        t = convert_to_tensor(value)
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        arr = t.numpy()
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        else:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {arr.shape}.")
        t = _from_numpy(arr, t.dtype)
    return t


# ------------------------------------------------------------------------- runtime hooks

_spec_cache: dict[int, dict] = {}


def _op_spec(handle: int) -> dict:
    spec = _spec_cache.get(handle)
    if spec is None:
        spec = _spec_cache[handle] = _C.op_spec_by_handle(handle)
    return spec


def _eager_dtype(v):
    """The dtype of a value that already is an eager tensor (or an eager variable), else None."""
    if isinstance(v, Tensor) or hasattr(v, "_eager_tensor"):
        return v.dtype
    return None


def convert_inputs(handle: int, args: tuple) -> tuple:
    """Runtime hook: converts the non-Tensor inputs of an op call (args = inputs + attrs) to the
    dtypes :func:`~opforge.framework.dtype_resolution.resolve_input_dtypes` decides (the rule
    graph building uses too)."""
    spec = _op_spec(handle)
    op_name = spec["name"]
    args = list(args)
    wants = resolve_input_dtypes(spec, args, _eager_dtype)
    for i, ((arg_name, _, _, is_list, *_), want) in enumerate(zip(spec["input_info"], wants)):
        if is_list:
            if isinstance(args[i], Tensor) or not isinstance(args[i], (list, tuple)):
                raise InvalidArgumentError(f"{op_name}: input '{arg_name}' must be a list of tensors", op_name)
            args[i] = [_convert_input(v, want, op_name, arg_name) for v in args[i]]
        else:
            args[i] = _convert_input(args[i], want, op_name, arg_name)
    return tuple(args)


def _convert_input(v, want, op_name: str, arg_name: str) -> Tensor:
    if isinstance(v, Tensor):
        return v
    if v is None:
        raise InvalidArgumentError(f"{op_name}: input '{arg_name}' is missing (got None)", op_name)
    try:
        return convert_to_tensor(v, want, op=op_name)
    except (TypeError, ValueError) as e:
        if isinstance(e, InvalidArgumentError):
            raise
        raise InvalidArgumentError(f"{op_name}: input '{arg_name}': {e}", op_name) from None


def convert_dtype(value):
    """Runtime hook: a dtype attr value to its enum number, or None if it is not a dtype."""
    try:
        return _dtypes.as_dtype(value).as_datatype_enum
    except TypeError:
        return None


# ------------------------------------------------------------------------- Tensor methods


def _numpy(self) -> np.ndarray:
    """The tensor's values as a new NumPy array (a scalar string as its bytes, as TensorFlow)."""
    value = self._numpy()
    if self._dtype_enum == _dtypes.string.as_datatype_enum and value.ndim == 0:
        return value[()]
    return value


def _repr(self) -> str:
    if self._dtype_enum == 21:  # a variant (a TensorList handle) has no NumPy value
        return f"<of.Tensor: shape={self.shape}, dtype=variant>"
    return f"<of.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={np.array2string(self._numpy(), separator=', ')}>"


def _str(self) -> str:
    if self._dtype_enum == 21:
        return f"of.Tensor(<variant>, shape={self.shape}, dtype=variant)"
    return f"of.Tensor({self._numpy()}, shape={self.shape}, dtype={self.dtype.name})"


def _array(self, dtype=None, copy=None):
    """``np.asarray(t)``: a read-only view of the tensor's memory that keeps it alive (tensors
    are immutable); a writable copy with ``copy=True`` or ``np.array(t)``."""
    if copy:
        a = self._numpy()
        return a if dtype is None else a.astype(dtype, copy=False)
    a = self._numpy_view()
    if dtype is None or np.dtype(dtype) == a.dtype:
        return a
    if copy is False:
        raise ValueError(f"converting a {a.dtype} tensor to {np.dtype(dtype)} needs a copy")
    return a.astype(dtype)


def _scalar(conv):
    def f(self):
        if self.size != 1:
            raise TypeError(f"only single-element tensors can be converted to Python scalars (shape {self.shape})")
        return conv(self._numpy().reshape(()))
    return f


def _bool(self):
    if self.size != 1:
        raise ValueError("The truth value of a tensor with more than one element is ambiguous.")
    return bool(self._numpy().reshape(()))


def _len(self):
    if self.ndim == 0:
        raise TypeError("len() of a scalar tensor")
    return self._dims[0]


def install_tensor_api(ops) -> None:
    """Attaches TensorFlow's Tensor API to the runtime's tensor class. ``ops`` provides the
    generated wrappers the operators call."""
    T = Tensor
    T.numpy = _numpy
    T.dtype = property(lambda self: _dtypes.from_enum(self._dtype_enum))
    T.shape = property(lambda self: TensorShape(self._dims))
    T.get_shape = lambda self: self.shape
    T.__repr__ = _repr
    T.__str__ = _str
    T.__array__ = _array
    T.__array_priority__ = 100  # NumPy defers binary operators to Tensor
    T.__float__ = _scalar(float)
    T.__int__ = _scalar(int)
    T.__index__ = lambda self: int(self) if self.dtype.is_integer else (_ for _ in ()).throw(TypeError("only integer tensors can be used as an index"))
    T.__bool__ = _bool
    T.__len__ = _len
    T.__hash__ = None  # == is elementwise, as in TensorFlow 2

    for name, fn in (("add", ops.add_v2), ("sub", ops.sub), ("mul", ops.mul), ("pow", ops.pow)):
        setattr(T, f"__{name}__", fn)  # fn(self, other): the wrapper itself, no extra layer
        setattr(T, f"__r{name}__", lambda a, b, fn=fn: fn(b, a))
    T.__matmul__ = ops.mat_mul
    T.__rmatmul__ = lambda a, b: ops.mat_mul(b, a)
    T.__neg__ = lambda a: ops.neg(a)
    T.__abs__ = lambda a: ops.abs(a)
    T.__lt__ = lambda a, b: ops.less(a, b)
    T.__gt__ = lambda a, b: ops.greater(a, b)
    T.__eq__ = lambda a, b: ops.equal(a, b) if _is_tensor_like(b) else NotImplemented
    from . import math_operators  # noqa: PLC0415  (/, //, %, <=, >=, !=, ~, &, |, ^)
    math_operators.install(T, ops, with_not_equal=True, is_tensor_like=_is_tensor_like)


def _is_tensor_like(v) -> bool:
    return isinstance(v, (Tensor, np.ndarray, np.generic, numbers.Number, list, tuple))
