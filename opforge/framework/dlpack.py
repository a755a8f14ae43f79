"""DLPack: zero-copy exchange with NumPy, PyTorch, JAX, CuPy...

``of.from_dlpack(x)`` takes anything with ``__dlpack__`` (or a DLPack capsule) and shares its
memory: nothing is copied unless the producer's layout is strided, and the producer's buffer is
kept alive until the last opforge tensor over it goes away. opforge tensors export with
``__dlpack__``/``__dlpack_device__`` (``np.from_dlpack(t)``, ``torch.from_dlpack(t)``), read-only
where the consumer understands DLPack 1.0's flag. Host memory is imported; device memory raises
UnimplementedError.
"""

from __future__ import annotations

from .. import _C


def from_dlpack(x):
    """A Tensor sharing the memory of ``x`` (an object with ``__dlpack__``, or a capsule)."""
    if hasattr(x, "__dlpack__"):
        try:
            capsule = x.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer that predates DLPack 1.0's keywords
            capsule = x.__dlpack__()
    else:
        capsule = x
    if type(capsule).__name__ != "PyCapsule":
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got {type(x).__name__}")
    return _C.from_dlpack_capsule(capsule)


def to_dlpack(t):
    """A DLPack capsule of ``t`` (TensorFlow's tf.experimental.dlpack.to_dlpack)."""
    return t.__dlpack__()
