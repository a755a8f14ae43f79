"""``of.config``: devices, the CPU thread budget and the memory allocators.

TensorFlow's spelling where it has one (``of.config.threading.set_intra_op_parallelism_threads``,
``of.config.list_physical_devices``), PyTorch's for the caching allocators
(``of.config.memory_stats()``, ``of.config.empty_cache()``).
"""

from ..framework.devices import (  # noqa: F401
    backend as gpu_backend, list_physical_devices, num_gpus, synchronize,
)
from . import optimizer
from . import threading  # noqa: F401
from .memory import empty_cache, memory_stats, reset_peak_memory_stats, set_host_cache_limit  # noqa: F401


def list_logical_devices(device_type=None):
    """Same as list_physical_devices with TensorFlow's logical names ("/device:GPU:0")."""
    return [name.replace("/physical_device:", "/device:") for name in list_physical_devices(device_type)]
