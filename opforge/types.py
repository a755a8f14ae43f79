"""Type aliases used by the generated .pyi stubs."""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from ._C import Tensor
from .dtypes import DType

TensorLike = Union[Tensor, np.ndarray, float, int, bool, Sequence[Any]]
DTypeLike = Union[DType, str, type, np.dtype]
ShapeLike = Union[Sequence[Union[int, None]], None]

__all__ = ["Tensor", "TensorLike", "DTypeLike", "ShapeLike"]
