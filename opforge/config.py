"""``of.config``: TensorFlow's device listing, plus opforge's GPU helpers."""

from .framework.devices import (  # noqa: F401
    backend as gpu_backend, empty_cache, list_physical_devices, memory_stats, num_gpus, synchronize,
)


def list_logical_devices(device_type=None):
    """Same as list_physical_devices with TensorFlow's logical names ("/device:GPU:0")."""
    return [name.replace("/physical_device:", "/device:") for name in list_physical_devices(device_type)]
