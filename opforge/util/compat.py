"""TensorFlow's tf.compat helpers: bytes/text conversion, the numeric type tuples, paths, and the
forward-compatibility window (tf.compat.forward_compatible), over plain Python.

TF1 programs call these as ``tf.compat.as_str(b)`` or ``tf.compat.as_bytes(s)``; they build no
graph.
"""
from __future__ import annotations

import contextlib
import datetime
import numbers
import os

import numpy as np

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text, encoding: str = "utf-8") -> bytes:
    """`bytes_or_text` as bytes: str is encoded with `encoding`; TypeError for anything else."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding: str = "utf-8") -> str:
    """`bytes_or_text` as str: bytes are decoded with `encoding`; TypeError for anything else."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding: str = "utf-8") -> str:
    """str(value), but bytes are decoded (as_str) rather than written as b'...'."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """An os.PathLike as its str path; anything else unchanged."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    return path


# TensorFlow moves this date forward with every build; opforge's is the day its op set was
# last checked against TensorFlow 2.21's.
_HORIZON = datetime.date(2026, 1, 1)
_horizon_override: list[datetime.date] = []


def _horizon() -> datetime.date:
    return _horizon_override[-1] if _horizon_override else _HORIZON


def forward_compatible(year: int, month: int, day: int) -> bool:
    """Whether the forward-compatibility horizon lies past year-month-day (TF's meaning: graphs
    may use behaviour newer than that date)."""
    return _horizon() > datetime.date(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int):
    """Within the block, forward_compatible sees the horizon year-month-day."""
    _horizon_override.append(datetime.date(year, month, day))
    try:
        yield
    finally:
        _horizon_override.pop()
