"""tf.gradients' options: AggregationMethod and UnconnectedGradients, and their checks."""

from __future__ import annotations

import enum


class AggregationMethod:
    """How gradients reaching one tensor are summed (tf.AggregationMethod). opforge adds them
    with AddN whichever is asked; all give the same sum."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2

    _ALL = (ADD_N, EXPERIMENTAL_TREE, EXPERIMENTAL_ACCUMULATE_N)


class UnconnectedGradients(str, enum.Enum):
    """What gradients() gives for an x that does not reach ys: None or zeros."""

    NONE = "none"
    ZERO = "zero"


def check_unconnected(value) -> str:
    """``value`` (a string or UnconnectedGradients) as "none" or "zero"."""
    try:
        return UnconnectedGradients(value).value
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def check_aggregation(method) -> None:
    if method is not None and method not in AggregationMethod._ALL:
        raise ValueError(f"Invalid aggregation_method specified {method}.")
