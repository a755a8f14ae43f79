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
from .errors import InvalidArgumentError

Tensor = _C.Tensor


class TensorShape:
    """A possibly partially known shape: ``dims`` is a tuple of ints and Nones, or None."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        self._dims = None if dims is None else tuple(None if d is None or d < 0 else int(d) for d in dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return self._dims

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_compatible_with(self, other) -> bool:
        """Whether a value could have both shapes (unknown dims and ranks match anything)."""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> "TensorShape":
        """The shape with what both know; ValueError when they are incompatible."""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def concatenate(self, other) -> "TensorShape":
        """This shape's dims followed by ``other``'s (unknown rank if either is)."""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(list(self._dims) + list(other._dims))

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        return int(np.prod(self._dims, dtype=np.int64))

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return TensorShape(self._dims[i])
        return self._dims[i]

    def __eq__(self, other):
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (tuple, list)):
            return self._dims is not None and self._dims == tuple(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        return "(" + ", ".join("None" if d is None else str(d) for d in self._dims) + \
            ("," if len(self._dims) == 1 else "") + ")"


# ------------------------------------------------------------------------- conversions


def _from_numpy(array: np.ndarray, dtype: _dtypes.DType) -> Tensor:
    array = np.asarray(array, dtype=dtype._np, order="C")  # keeps 0-d arrays 0-d
    return Tensor._from_numpy(array, dtype.as_datatype_enum)


def default_dtype(value) -> _dtypes.DType:
    """TensorFlow's choice for a Python value: float32, int32 (int64 if needed), bool."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return _dtypes.as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype == np.bool_:
        return _dtypes.bool_
    if arr.dtype.kind in "iu":
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return _dtypes.int64
        return _dtypes.int32
    if arr.dtype.kind == "f":
        return _dtypes.float32
    if _holds_strings(arr):
        return _dtypes.string
    if arr.dtype.kind == "O" and any(isinstance(v, Tensor) for v in np.ravel(arr)):
        raise TypeError("cannot convert a nested list containing Tensors; use of.stack")
    raise TypeError(f"cannot convert {type(value).__name__} of NumPy kind '{arr.dtype.kind}' to a Tensor")


def _holds_strings(arr: np.ndarray) -> bool:
    """True for NumPy's bytes/str arrays and object arrays of bytes and str (TF's tf.string)."""
    if arr.dtype.kind in "SU":
        return True
    return arr.dtype.kind == "O" and arr.size > 0 and all(isinstance(v, (bytes, str)) for v in arr.flat)


def _string_tensor(value, where: str, op) -> Tensor:
    arr = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) or value.dtype.kind != "O" else value
    if arr.size and not _holds_strings(arr):
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
    if hasattr(value, "__array__") and not isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value)
    if want is None and isinstance(value, (bytes, str, np.bytes_, np.str_)):
        want = _dtypes.string
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
    with np.errstate(all="ignore"):
        converted = arr.astype(want._np)
        back = converted.astype(arr.dtype) if arr.dtype.kind in "biuf" else converted
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

_op_info_cache: dict[int, tuple] = {}


def _op_info(handle: int):
    info = _op_info_cache.get(handle)
    if info is None:
        spec = _C.op_spec_by_handle(handle)
        info = (spec["name"], spec["input_info"], spec["allowed_types"])
        _op_info_cache[handle] = info
    return info


def convert_inputs(handle: int, args: tuple) -> tuple:
    """Runtime hook: converts the non-Tensor inputs of an op call (args = inputs + attrs).

    An input whose dtype comes from a type attr takes the dtype of the first Tensor input
    sharing that attr (so ``x + 1`` keeps x's dtype); failing that, of the first NumPy array,
    else TensorFlow's default for the Python value.
    """
    op_name, inputs, allowed = _op_info(handle)
    args = list(args)
    resolved: dict[str, _dtypes.DType] = {}
    for rank in (0, 1):  # Tensors first, then NumPy arrays
        for i, (_, type_attr, _, is_list, *_) in enumerate(inputs):
            if not type_attr or type_attr in resolved:
                continue
            values = args[i] if is_list and isinstance(args[i], (list, tuple)) else [args[i]]
            for v in values:
                if isinstance(v, Tensor) or hasattr(v, "_eager_tensor"):
                    resolved[type_attr] = v.dtype
                    break
                if rank == 1 and isinstance(v, (np.ndarray, np.generic)):
                    try:
                        resolved[type_attr] = _dtypes.as_dtype(v.dtype)
                    except TypeError as e:
                        raise InvalidArgumentError(f"{op_name}: {e}", op_name) from None
                    break
    for i, (arg_name, type_attr, fixed, is_list, *_) in enumerate(inputs):
        if fixed:
            want = _dtypes.from_enum(fixed)
        else:
            want = resolved.get(type_attr)
        def conv(v):
            nonlocal want
            if isinstance(v, Tensor):
                return v
            if v is None:
                raise InvalidArgumentError(f"{op_name}: input '{arg_name}' is missing (got None)", op_name)
            if want is None:
                try:
                    want = default_dtype(v)
                except TypeError as e:
                    raise InvalidArgumentError(f"{op_name}: input '{arg_name}': {e}", op_name) from None
                ok = allowed.get(type_attr) or []
                if type_attr and ok and want.as_datatype_enum not in ok:
                    if want.is_integer and _dtypes.float32.as_datatype_enum in ok:
                        want = _dtypes.float32  # an int literal for a float-only op
                    elif np.size(v) == 0:  # an empty list carries no type: int32 if allowed
                        want = _dtypes.int32 if _dtypes.int32.as_datatype_enum in ok else _dtypes.from_enum(ok[0])
                if type_attr:
                    resolved[type_attr] = want
            try:
                return convert_to_tensor(v, want, op=op_name)
            except (TypeError, ValueError) as e:
                if isinstance(e, InvalidArgumentError):
                    raise
                raise InvalidArgumentError(f"{op_name}: input '{arg_name}': {e}", op_name) from None
        if is_list:
            if isinstance(args[i], Tensor) or not isinstance(args[i], (list, tuple)):
                raise InvalidArgumentError(f"{op_name}: input '{arg_name}' must be a list of tensors", op_name)
            args[i] = [conv(v) for v in args[i]]
        else:
            args[i] = conv(args[i])
    return tuple(args)


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

    for name, fn in (("add", ops.add_v2), ("sub", ops.sub), ("mul", ops.mul),
                     ("truediv", ops.real_div), ("pow", ops.pow)):
        setattr(T, f"__{name}__", fn)  # fn(self, other): the wrapper itself, no extra layer
        setattr(T, f"__r{name}__", lambda a, b, fn=fn: fn(b, a))
    T.__matmul__ = ops.mat_mul
    T.__rmatmul__ = lambda a, b: ops.mat_mul(b, a)
    T.__neg__ = lambda a: ops.neg(a)
    T.__abs__ = lambda a: ops.abs(a)
    T.__lt__ = lambda a, b: ops.less(a, b)
    T.__gt__ = lambda a, b: ops.greater(a, b)
    T.__eq__ = lambda a, b: ops.equal(a, b) if _is_tensor_like(b) else NotImplemented
    from . import math_operators  # noqa: PLC0415  (//, %, <=, >=, !=, ~, &, |, ^)
    math_operators.install(T, ops, with_not_equal=True, is_tensor_like=_is_tensor_like)


def _is_tensor_like(v) -> bool:
    return isinstance(v, (Tensor, np.ndarray, np.generic, numbers.Number, list, tuple))
