"""``of.config``: TensorFlow's device listing, plus opforge's GPU helpers."""

from .framework.devices import (  # noqa: F401
    backend as gpu_backend, empty_cache, list_physical_devices, memory_stats, num_gpus, synchronize,
)


def list_logical_devices(device_type=None):
    """Same as list_physical_devices with TensorFlow's logical names ("/device:GPU:0")."""
    return [name.replace("/physical_device:", "/device:") for name in list_physical_devices(device_type)]


class optimizer:  # noqa: N801  (TF2's tf.config.optimizer namespace)
    """``of.config.optimizer.set_experimental_options({"remapping": False})``: process-wide
    graph optimizer switches (RewriterConfig names); a Session's config overrides them."""

    @staticmethod
    def set_experimental_options(options: dict) -> None:
        from .framework.optimizer import config as _cfg  # noqa: PLC0415
        _cfg.set_experimental_options(options)

    @staticmethod
    def get_experimental_options() -> dict:
        from .framework.optimizer import config as _cfg  # noqa: PLC0415
        return _cfg.get_experimental_options()
