"""Data types as the opdef language names them.

Numbers are TensorFlow's DataType enum values, so attrs and GraphDefs interoperate. Spec
strings use TensorFlow's REGISTER_OP spellings (``float``, ``half``); Python uses NumPy-style
names (``float32``, ``float16``).
"""

from __future__ import annotations

# spec name -> (enum number, python name)
DTYPES: dict[str, tuple[int, str]] = {
    "float": (1, "float32"),
    "double": (2, "float64"),
    "int32": (3, "int32"),
    "uint8": (4, "uint8"),
    "int16": (5, "int16"),
    "int8": (6, "int8"),
    "string": (7, "string"),
    "complex64": (8, "complex64"),
    "int64": (9, "int64"),
    "bool": (10, "bool"),
    "qint8": (11, "qint8"),
    "quint8": (12, "quint8"),
    "qint32": (13, "qint32"),
    "bfloat16": (14, "bfloat16"),
    "qint16": (15, "qint16"),
    "quint16": (16, "quint16"),
    "uint16": (17, "uint16"),
    "complex128": (18, "complex128"),
    "half": (19, "float16"),
    "resource": (20, "resource"),
    "variant": (21, "variant"),
    "uint32": (22, "uint32"),
    "uint64": (23, "uint64"),
    "float8_e5m2": (24, "float8_e5m2"),
    "float8_e4m3fn": (25, "float8_e4m3fn"),
    "float8_e4m3fnuz": (26, "float8_e4m3fnuz"),
    "float8_e4m3b11fnuz": (27, "float8_e4m3b11fnuz"),
    "float8_e5m2fnuz": (28, "float8_e5m2fnuz"),
    "int4": (29, "int4"),
    "uint4": (30, "uint4"),
    "int2": (31, "int2"),
    "uint2": (32, "uint2"),
    "float4_e2m1fn": (33, "float4_e2m1fn"),
}

BY_ENUM: dict[int, str] = {num: spec for spec, (num, _) in DTYPES.items()}

# The dtypes the opforge runtime can hold in a tensor.
RUNTIME = ("bool", "int8", "int16", "int32", "int64", "uint8", "half", "bfloat16", "float", "double",
           "complex64", "complex128",
           "qint8", "quint8", "qint32", "qint16", "quint16", "uint16", "uint32", "uint64")

# TensorFlow's type classes, usable inside `{...}` in attr specs.
_QUANTIZED = ("qint8", "quint8", "qint32", "qint16", "quint16")
_REAL = ("float", "double", "int32", "uint8", "int16", "int8", "int64", "bfloat16", "uint16",
         "half", "uint32", "uint64")
TYPE_CLASSES: dict[str, tuple[str, ...]] = {
    "realnumbertype": _REAL,
    "numbertype": _REAL + ("complex64", "complex128") + _QUANTIZED,
    "quantizedtype": _QUANTIZED,
    "all": tuple(DTYPES),
}


def spec_name(token: str) -> str | None:
    """Canonical spec name for ``float``, ``DT_FLOAT`` or ``float32``; None if unknown."""
    t = token.strip()
    if t.startswith("DT_"):
        t = t[3:].lower()
    if t in DTYPES:
        return t
    for spec, (_, py) in DTYPES.items():
        if py == t:
            return spec
    return None


def python_name(spec: str) -> str:
    return DTYPES[spec][1]


def enum(spec: str) -> int:
    return DTYPES[spec][0]
