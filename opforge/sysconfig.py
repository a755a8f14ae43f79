"""Where opforge's C++ headers and runtime library are, and the flags an op library built
against them needs (TensorFlow's tf.sysconfig; `opforge config` prints the same)::

    g++ -shared my_op.cc $(python -c "import opforge.compat.v1 as tf; print(' '.join(tf.sysconfig.get_compile_flags()))") ...
"""

from __future__ import annotations

import os
import platform

from . import _C

# The C++ ABI the runtime was built with: opforge-abi-N/libstdc++1 is the C++11 ABI.
ABI_TAG: str = _C.ABI_TAG
CXX11_ABI_FLAG: int = 1 if ABI_TAG.endswith("libstdc++1") else 0
MONOLITHIC_BUILD: int = 0  # the runtime is its own shared library, libopforge_runtime
CXX_VERSION: int = 201703  # op libraries compile as C++17


def _package_dir() -> str:
    """The folder holding the compiled runtime: the installed package (or, in an editable
    install, the build's install tree)."""
    return os.path.dirname(os.path.abspath(_C.__file__))


def get_include() -> str:
    """The folder of opforge's C++ headers (opforge/op.h, ...)."""
    return os.path.join(_package_dir(), "include")


def get_lib() -> str:
    """The folder of libopforge_runtime."""
    return os.path.join(_package_dir(), "lib")


def get_compile_flags() -> list[str]:
    """The compiler flags of an op library."""
    return [f"-I{get_include()}", "-std=c++17", "-fPIC", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}"]


def get_link_flags() -> list[str]:
    """The linker flags of an op library."""
    return [f"-L{get_lib()}", "-lopforge_runtime", f"-Wl,-rpath,{get_lib()}"]


def get_build_info() -> dict:
    """What the runtime was built for (TensorFlow's keys where they apply)."""
    from .framework.devices import built_backends  # noqa: PLC0415
    built = built_backends()
    return {"is_cuda_build": "CUDA" in built, "is_rocm_build": "HIP" in built, "is_tensorrt_build": False,
            "cpu_compiler": "c++", "platform": platform.machine(), "abi_tag": ABI_TAG}
