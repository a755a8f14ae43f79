"""The caching allocators: statistics and giving memory back.

Host memory: every CPU tensor comes from one size-bucketed caching allocator (see
runtime/include/opforge/host_allocator.h), so steady-state runs reuse warm blocks instead of
faulting fresh pages in. GPU memory: each GPU's caching allocator.
"""

from __future__ import annotations

from .. import _C
from ..framework.devices import canonical


def _is_cpu(device: str) -> bool:
    return canonical(device).startswith("/device:CPU")


def memory_stats(device: str = "/cpu:0") -> dict:
    """Allocator statistics of a device.

    CPU: ``bytes_in_use``, ``peak_bytes_in_use``, ``bytes_cached``, ``cache_limit``,
    ``num_allocs``, ``cache_hits``, ``os_allocs``, ``os_frees``, ``constant_cache_bytes`` (what
    kernels derived from graph constants and keep across runs: packed convolution filters). GPU ("/gpu:0"): bytes
    ``in_use`` and ``cached`` and ``raw_allocs``, and the tensor copies between the host and the
    device so far, ``copies_to_device`` / ``bytes_to_device`` and ``copies_to_host`` /
    ``bytes_to_host``.
    """
    if _is_cpu(device):
        return dict(_C.host_memory_stats())
    d = canonical(device)
    return dict(_C.gpu_memory_stats(int(d.rsplit(":", 1)[1])))


def reset_peak_memory_stats(device: str = "/cpu:0") -> None:
    if not _is_cpu(device):
        raise ValueError(f"reset_peak_memory_stats: only the CPU keeps a peak, got {device!r}")
    _C.host_reset_peak()


def empty_cache() -> None:
    """Gives every cached block back: host memory to the OS, GPU memory to the driver (like
    torch.cuda.empty_cache), and drops the filters kernels packed from graph constants (they
    are packed again on the next run)."""
    _C.host_empty_cache()
    _C.gpu_empty_cache()


def set_host_cache_limit(num_bytes: int) -> None:
    """Most bytes of freed host blocks kept for reuse (default: ``OPFORGE_HOST_CACHE_LIMIT``, or a
    quarter of the machine's memory up to 4 GiB). Lowering it releases cached blocks at once;
    0 turns caching off."""
    n = int(num_bytes)
    if n < 0:
        raise ValueError(f"set_host_cache_limit: num_bytes must be >= 0, got {n}")
    _C.host_set_cache_limit(n)
