"""Loads the native runtime: OpenBLAS from the scipy-openblas32 wheel first (so the runtime
library finds it whatever the install layout), then opforge._C."""

from __future__ import annotations

import ctypes
import os


def preload_openblas() -> None:
    """Loads scipy-openblas32 with its own thread pool off: opforge runs every GEMM inside its
    one thread budget (runtime/src/blas.cc), so OpenBLAS must not start workers of its own.
    The environment variable is set only while the library loads, so other BLAS libraries
    (NumPy's) keep their settings."""
    try:
        import scipy_openblas32  # noqa: PLC0415
    except ImportError:  # the runtime's RPATH may still find it
        return
    path = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(path):
        saved = os.environ.get("OPENBLAS_NUM_THREADS")
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        finally:
            if saved is None:
                del os.environ["OPENBLAS_NUM_THREADS"]
            else:
                os.environ["OPENBLAS_NUM_THREADS"] = saved
