"""TensorFlow's device-configuration API (tf.config's device functions and tf.config.experimental)
over opforge's devices: the CPU and the GPUs of the loaded backend, as of.config lists them.

opforge's runtime is started when it is imported, so, as TensorFlow once its runtime is
initialized, the visible devices and virtual (logical) device configurations can no longer be
changed: set_visible_devices and set_logical_device_configuration accept only what is already
so and otherwise raise TensorFlow's RuntimeError. Memory figures come from opforge's caching
allocators (config/memory.py)."""

from __future__ import annotations

import collections

from ..framework import devices as _devices
from . import memory as _memory

__all__ = ["LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice",
           "get_logical_device_configuration", "get_memory_growth", "get_memory_info", "get_memory_usage",
           "get_visible_devices", "list_logical_devices", "list_physical_devices", "reset_memory_stats",
           "set_logical_device_configuration", "set_memory_growth", "set_visible_devices"]


class PhysicalDevice(collections.namedtuple("PhysicalDevice", ["name", "device_type"])):
    """A device of this machine (tf.config.PhysicalDevice): "/physical_device:GPU:0", "GPU"."""


class LogicalDevice(collections.namedtuple("LogicalDevice", ["name", "device_type"])):
    """A device ops are placed on (tf.config.LogicalDevice): "/device:GPU:0", "GPU"."""


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """A virtual device's configuration (tf.config.LogicalDeviceConfiguration)."""

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


def _type(name):
    return name.rsplit(":", 2)[-2]


def list_physical_devices(device_type=None):
    """The PhysicalDevices of this machine, of device_type ("CPU", "GPU") when given."""
    return [PhysicalDevice(n, _type(n)) for n in _devices.list_physical_devices(device_type)]


def list_logical_devices(device_type=None):
    """The LogicalDevices ops may be placed on: one per physical device (opforge has no virtual
    devices)."""
    return [LogicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
            for d in list_physical_devices(device_type)]


def get_visible_devices(device_type=None):
    """The visible PhysicalDevices: all of them."""
    return list_physical_devices(device_type)


def _check_device(device):
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")


def set_visible_devices(devices, device_type=None):
    """Accepted when it keeps every device of device_type visible; anything else raises
    RuntimeError, as TensorFlow's once its runtime is initialized (opforge's always is)."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        _check_device(d)
    current = get_visible_devices(device_type)
    if sorted(d for d in devices if device_type is None or d.device_type == device_type) != sorted(current):
        raise RuntimeError("Visible devices cannot be modified after being initialized")


def get_logical_device_configuration(device):
    """None: opforge does not split a physical device into virtual ones."""
    _check_device(device)
    return None


def set_logical_device_configuration(device, logical_devices):
    """Accepted with None (no virtual devices); a configuration raises TensorFlow's RuntimeError
    for an initialized runtime."""
    _check_device(device)
    if logical_devices:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")


def get_memory_growth(device):
    """True: opforge's allocators take memory as tensors need it (they never reserve a device's
    memory up front)."""
    _check_device(device)
    return True


def set_memory_growth(device, enable):
    """Accepted with enable=True (how opforge's allocators always behave); False, reserving the
    whole device up front, raises ValueError."""
    _check_device(device)
    if not enable:
        raise ValueError("opforge's allocators grow as needed; memory growth cannot be disabled")


def get_memory_info(device):
    """{"current": bytes in use, "peak": the most in use since the last reset} of "CPU:0" (or
    "/device:CPU:0"); GPUs report "current" (their allocator keeps no peak, so "peak" is it too)."""
    name = device if device.startswith("/") else "/device:" + device
    stats = _memory.memory_stats(name)
    if "bytes_in_use" in stats:
        return {"current": int(stats["bytes_in_use"]), "peak": int(stats["peak_bytes_in_use"])}
    return {"current": int(stats["in_use"]), "peak": int(stats["in_use"])}


def get_memory_usage(device):
    """The bytes in use on device (get_memory_info(device)["current"])."""
    return get_memory_info(device)["current"]


def reset_memory_stats(device):
    """Resets the peak of get_memory_info (the CPU's allocator keeps one)."""
    name = device if device.startswith("/") else "/device:" + device
    _memory.reset_peak_memory_stats(name)

