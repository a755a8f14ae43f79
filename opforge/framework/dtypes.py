"""DTypes: TensorFlow's names and enum numbers, NumPy interop (16-bit floats via ml_dtypes).

The quantized types (qint8, quint8, qint16, quint16, qint32) are TensorFlow's: an integer's bits
but a dtype of their own. Their NumPy dtype is TensorFlow's too, a structured dtype with one
field named after the type (``np.dtype([("qint8", np.int8)])``): ``np.array([1, 2], of.qint8.
as_numpy_dtype)`` makes one, and ``.view(np.int8)`` reads its integers.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

import ml_dtypes
import numpy as np

from .._C import Tensor as _Tensor


class DType:
    """A tensor element type, e.g. ``of.float32``. Compares equal to its name and NumPy dtype."""

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum: int, name: str, np_dtype):
        self._enum = enum
        self._name = name
        self._np = np.dtype(np_dtype)

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    @property
    def name(self) -> str:
        return self._name

    @property
    def as_numpy_dtype(self):
        # a quantized type's structured dtype is its own NumPy type (np.void would lose it)
        return self._np if self.is_quantized else self._np.type

    @property
    def size(self) -> int:
        return self._np.itemsize

    @property
    def is_floating(self) -> bool:
        return self._name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_complex(self) -> bool:
        return self._name in ("complex64", "complex128")

    @property
    def real_dtype(self) -> DType:
        """The dtype of the real and imaginary parts (float32 for complex64); self otherwise."""
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def is_integer(self) -> bool:
        """True for the plain integer types (not the quantized ones, as in TensorFlow)."""
        return self._name.startswith(("int", "uint"))

    @property
    def is_quantized(self) -> bool:
        return self._name in _QUANTIZED_NAMES

    @property
    def is_unsigned(self) -> bool:
        """True for uint8 ... uint64 (TensorFlow's rule: a type whose minimum is 0; quantized
        types have no minimum, so they are not unsigned)."""
        return self._name.startswith("uint")

    @property
    def min(self):
        """The smallest value of the type; TypeError for bool, string, variant and quantized."""
        return self._limit("min")

    @property
    def max(self):
        """The largest value of the type; TypeError for bool, string, variant and quantized."""
        return self._limit("max")

    @property
    def limits(self):
        """(min, max) of the type."""
        return self.min, self.max

    def _limit(self, which: str):
        if self.is_quantized or not (self.is_floating or self.is_integer):
            kind = "quantized type" if self.is_quantized else "type"
            raise TypeError(f"Cannot find {which}imum value of {self!r} with {kind} {self._name}.")
        info = ml_dtypes.finfo(self._np) if self.is_floating else ml_dtypes.iinfo(self._np)
        return getattr(info, which)

    @property
    def is_bool(self) -> bool:
        return self._name == "bool"

    @property
    def base_dtype(self) -> DType:
        return self

    def __repr__(self) -> str:
        return f"of.{self._name}"

    def __eq__(self, other) -> bool:
        try:
            return as_dtype(other)._enum == self._enum
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self._enum)


bool_ = DType(10, "bool", np.bool_)
int8 = DType(6, "int8", np.int8)
int16 = DType(5, "int16", np.int16)
int32 = DType(3, "int32", np.int32)
int64 = DType(9, "int64", np.int64)
uint8 = DType(4, "uint8", np.uint8)
uint16 = DType(17, "uint16", np.uint16)
uint32 = DType(22, "uint32", np.uint32)
uint64 = DType(23, "uint64", np.uint64)
float16 = DType(19, "float16", np.float16)
bfloat16 = DType(14, "bfloat16", ml_dtypes.bfloat16)
float32 = DType(1, "float32", np.float32)
float64 = DType(2, "float64", np.float64)
complex64 = DType(8, "complex64", np.complex64)
complex128 = DType(18, "complex128", np.complex128)
half = float16
double = float64

# A variant tensor holds a C++ object (a TensorList handle): it flows between graph nodes but
# has no NumPy value.
variant = DType(21, "variant", np.object_)
# A resource tensor holds a handle to a stateful object of a Session (an iterator): it flows
# between graph nodes but has no NumPy value.
resource = DType(20, "resource", np.object_)
# Byte strings (TensorFlow's tf.string): values come back as NumPy object arrays of bytes.
string = DType(7, "string", np.object_)

_QUANTIZED_NAMES = ("qint8", "quint8", "qint16", "quint16", "qint32")
qint8 = DType(11, "qint8", [("qint8", np.int8)])
quint8 = DType(12, "quint8", [("quint8", np.uint8)])
qint32 = DType(13, "qint32", [("qint32", np.int32)])
qint16 = DType(15, "qint16", [("qint16", np.int16)])
quint16 = DType(16, "quint16", [("quint16", np.uint16)])
QUANTIZED_DTYPES = frozenset({qint8, quint8, qint16, quint16, qint32})

ALL = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64,
       complex64, complex128, qint8, quint8, qint16, quint16, qint32)
_BY_ENUM = {d.as_datatype_enum: d for d in ALL + (string, variant, resource)}
_BY_NAME = {d.name: d for d in ALL + (string, variant, resource)}
_BY_NAME.update({"float": float32, "double": float64, "half": float16})
_BY_NP = {d._np: d for d in ALL}


def as_dtype(value) -> DType:
    """Converts a DType, name ("float32", "float", "DT_FLOAT"), enum number, NumPy dtype or
    Python type (float, int, bool) to a DType. Raises TypeError otherwise."""
    if isinstance(value, DType):
        return value
    if value is None:
        raise TypeError("None is not a dtype")
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if int(value) in _BY_ENUM:
            return _BY_ENUM[int(value)]
        raise TypeError(f"no opforge dtype with DataType enum {int(value)}")
    if isinstance(value, str):
        key = value[3:].lower() if value.startswith("DT_") else value
        if key in _BY_NAME:
            return _BY_NAME[key]
        raise TypeError(f"unknown dtype name {value!r}")
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value is complex:
        return complex128
    if value in (str, bytes):
        return string
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"cannot interpret {value!r} as an opforge dtype") from None
    if npd in _BY_NP:
        return _BY_NP[npd]
    if npd.kind in "SU":  # NumPy's fixed-width bytes and str arrays hold strings
        return string
    raise TypeError(f"NumPy dtype {npd} has no opforge equivalent")


def from_enum(enum: int) -> DType:
    return _BY_ENUM[enum]


def numpy_dtypes() -> dict[int, np.dtype]:
    """The NumPy dtype of each runtime dtype's values (Tensor.numpy()): a quantized tensor's
    values come back as its storage integers (int8 for qint8 ...), as TensorFlow 2 gives them."""
    return {d.as_datatype_enum: d._np.fields[d.name][0] if d.is_quantized else d._np for d in ALL}


# ---- type aliases for annotations (the generated .pyi stubs use them)
TensorLike = _Tensor | np.ndarray | float | int | bool | Sequence[Any]
DTypeLike = DType | str | type | np.dtype
ShapeLike = Sequence[int | None] | None
