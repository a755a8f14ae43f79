"""Loads the native runtime: OpenBLAS from the scipy-openblas32 wheel first (so the runtime
library finds it whatever the install layout), then opforge._C, with a message saying what to
do when this opforge is a source folder without one."""

from __future__ import annotations

import ctypes
import importlib
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


def import_runtime():
    """opforge._C, after OpenBLAS. Python puts the current directory first on sys.path, so run
    from the root of a checkout `import opforge` finds the source folder opforge/, which has no
    compiled runtime unless it is an editable install: that case says so instead of failing
    with a bare "cannot import name '_C'"."""
    preload_openblas()
    try:
        return importlib.import_module("opforge._C")
    except ImportError as e:
        if "opforge._C" not in str(e) and "'_C'" not in str(e):
            raise
        here = os.path.dirname(os.path.abspath(__file__))
        raise ImportError(
            f"opforge was imported from {here}, which has no compiled runtime (opforge._C). "
            f"This is the source folder of a checkout: either run from another directory to use "
            f"the installed opforge (pip install .), or install the checkout for development so "
            f"that it imports from here and rebuilds what you edit: "
            f"pip install --no-build-isolation -e . (README, \"Developing opforge\")") from e
