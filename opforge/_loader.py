"""Loads the native runtime: OpenBLAS from the scipy-openblas32 wheel first (so the runtime
library finds it whatever the install layout), then opforge._C."""

from __future__ import annotations

import ctypes
import os


def preload_openblas() -> None:
    try:
        import scipy_openblas32  # noqa: PLC0415
    except ImportError:  # the runtime's RPATH may still find it
        return
    path = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(path):
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
