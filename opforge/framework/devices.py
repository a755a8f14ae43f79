"""Devices: the GPU backend loaded at import, eager placement scopes, and tensor copies.

``with of.device("/gpu:0"):`` places eager ops (and the constants they create) on the first
GPU; ``"/cpu:0"`` on the CPU. Without a scope an op runs where its inputs are: on the GPU if
any input is there, else on the CPU. Inputs on another device are copied to the op's device;
shape-like inputs (Reshape's shape, reduction axes, Transpose's perm, Fill's dims) stay in
host memory, as the kernel declares. Inside a graph, ``of.device`` records the device on the
nodes it creates; Session.run places them softly (on that GPU when it exists and has a kernel
for the node, else on the CPU).
"""

from __future__ import annotations

import contextlib
import glob
import os
import site
import sys

from .. import _C

# Beside the compiled runtime: the package folder of a wheel install, the build's install
# tree in an editable one.
_LIB_DIR = os.path.join(os.path.dirname(os.path.abspath(_C.__file__)), "lib")
_BACKEND_LIBS = ("libopforge_cuda.so", "libopforge_hip.so")
load_report: list[str] = []


def _cublas_dirs() -> list[str]:
    """Library folders of PyPI's nvidia-cublas wheels (cu12 and cu13 layouts), if installed."""
    roots = [p for p in sys.path if p.endswith("site-packages")]
    try:
        roots += site.getsitepackages()
    except AttributeError:  # some virtualenvs
        pass
    dirs = []
    for root in dict.fromkeys(roots):
        for pattern in ("nvidia/cublas/lib", "nvidia/cu13/lib", "nvidia/cu12/lib"):
            d = os.path.join(root, pattern)
            if glob.glob(os.path.join(d, "libcublas.so*")):
                dirs.append(d)
    return dirs


def built_backends() -> list[str]:
    """The GPU backends this install was built with ("CUDA", "HIP"), loaded or not."""
    return [name[len("libopforge_"):-3].upper() for name in _BACKEND_LIBS
            if os.path.exists(os.path.join(_LIB_DIR, name))]


def load_gpu_backends() -> None:
    """Loads the GPU backend built into this install (CUDA first, then HIP).

    ``OPFORGE_GPU_BACKEND=cuda|hip|none`` picks one (``none``: CPU only).
    """
    choice = os.environ.get("OPFORGE_GPU_BACKEND", "").lower()
    if choice == "none":
        return
    libs = [name for name in _BACKEND_LIBS if choice in ("", name[len("libopforge_"):-3])]
    paths = [os.path.join(_LIB_DIR, name) for name in libs if os.path.exists(os.path.join(_LIB_DIR, name))]
    if not paths:
        return
    if "OPFORGE_CUBLAS_DIRS" not in os.environ:
        dirs = _cublas_dirs()
        if dirs:
            os.environ["OPFORGE_CUBLAS_DIRS"] = ":".join(dirs)
    load_report[:] = _C.load_gpu_backends(paths)


def backend() -> str | None:
    """"CUDA", "HIP", or None when no GPU backend is loaded."""
    return _C.gpu_backend()


def num_gpus() -> int:
    return _C.gpu_count()


def list_physical_devices(device_type: str | None = None) -> list[str]:
    """``tf.config.list_physical_devices``: device names of this machine ("/physical_device:GPU:0")."""
    kinds = [("CPU", 1), ("GPU", _C.gpu_count())]
    want = device_type.upper() if device_type else None
    return [f"/physical_device:{kind}:{i}" for kind, n in kinds if want in (None, kind) for i in range(n)]


def canonical(name: str) -> str:
    """"/gpu:0" -> "/device:GPU:0"; InvalidArgumentError on a malformed name."""
    return _C.parse_device(name)


@contextlib.contextmanager
def eager_device(name):
    """Places eager ops on `name` for the block (None or "": no placement)."""
    prev = _C.set_eager_device(name or "")
    try:
        yield
    finally:
        _C.set_eager_device(prev)


def current_eager_device() -> str | None:
    prev = _C.set_eager_device("")
    _C.set_eager_device(prev)
    return prev or None


def synchronize(device: str = "/gpu:0") -> None:
    """Waits for the work queued on a GPU (what timing code needs; copies to the host wait anyway)."""
    d = canonical(device)
    if d.startswith("/device:GPU:"):
        _C.gpu_synchronize(int(d.rsplit(":", 1)[1]))


def install_tensor_api(tensor_cls) -> None:
    """tensor.cpu(), tensor.gpu(i), tensor.cuda(i), tensor.to(device)."""

    def to(self, device):
        return self._to(device)

    def cpu(self):
        return self._to("/cpu:0")

    def gpu(self, index: int = 0):
        return self._to(f"/gpu:{int(index)}")

    tensor_cls.to = to
    tensor_cls.cpu = cpu
    tensor_cls.gpu = gpu
    tensor_cls.cuda = gpu
