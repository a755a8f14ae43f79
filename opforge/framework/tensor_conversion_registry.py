"""Conversions of other types to tensors (TensorFlow's tf.register_tensor_conversion_function):
``convert_to_tensor`` and graph construction ask the functions registered for a value's type,
lowest priority number first (registration order within one priority), before their own rules;
a function returns a tensor, or NotImplemented to pass the value on to the next one."""

from __future__ import annotations

import collections
import threading

import numpy as np

__all__ = ["register_tensor_conversion_function", "convert", "has_functions", "registered"]

_CONSTANT_CONVERTIBLES = (int, float, np.generic, np.ndarray)
_PLAIN = (_CONSTANT_CONVERTIBLES, str, bytes, list, tuple, bool, type(None))
_lock = threading.Lock()
_registry: dict[int, list] = collections.defaultdict(list)  # priority -> [(base_type, fn)]
_cache: dict[type, list] = {}


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers conversion_func(value, dtype=None, name=None, as_ref=False) for values of
    base_type (a type or a tuple of types; not Python numbers nor NumPy values)."""
    base_types = base_type if isinstance(base_type, tuple) else (base_type,)
    if any(not isinstance(x, type) for x in base_types):
        raise TypeError(f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}")
    if any(issubclass(x, _CONSTANT_CONVERTIBLES) for x in base_types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")
    with _lock:
        _registry[priority].append((base_type, conversion_func))
        _cache.clear()


def has_functions() -> bool:
    return bool(_registry)


def _functions_for(query: type) -> list:
    with _lock:
        if query not in _cache:
            _cache[query] = [fn for p in sorted(_registry) for base, fn in _registry[p] if issubclass(query, base)]
        return _cache[query]


def registered(value) -> bool:
    """Whether a function is registered for value's type."""
    return bool(_registry) and not isinstance(value, _PLAIN) and bool(_functions_for(type(value)))


def _is_tensor(value) -> bool:  # eager or of a graph
    return hasattr(value, "dtype") and hasattr(value, "shape") and not isinstance(value, (np.ndarray, np.generic))


def convert(value, dtype=None, name=None, as_ref=False):
    """The tensor a registered function makes of value, or None when none is registered for
    its type or each returned NotImplemented. RuntimeError for a function that returns something
    other than a tensor or a tensor of another dtype."""
    if not registered(value):
        return None
    for fn in _functions_for(type(value)):
        ret = fn(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is NotImplemented:
            continue
        if not _is_tensor(ret):
            raise RuntimeError(f"{fn} returned non-Tensor: {ret!r}")
        if dtype is not None and ret.dtype != dtype:
            raise RuntimeError(f"{fn}: Conversion function {fn!r} for type {type(value)} returned incompatible "
                               f"dtype: requested = {dtype}, actual = {ret.dtype}")
        return ret
    return None
