"""Helpers for functions that take TensorFlow's several spellings of one argument."""

from __future__ import annotations


def legacy_argument(new_name: str, new, old_name: str, old):
    """TensorFlow's deprecated_argument_lookup: the value given under either spelling of an
    argument (keep_dims or keepdims); both is a ValueError."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old
    return new
