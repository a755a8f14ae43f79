"""``of.config.optimizer`` (TF2's ``tf.config.optimizer``): process-wide graph optimizer
switches by RewriterConfig name, e.g. ``set_experimental_options({"remapping": False})``.
A Session's own config (``graph_options.rewrite_options``) overrides them field by field."""


def set_experimental_options(options: dict) -> None:
    """Turns passes on or off: {"constant_folding": False, "disable_meta_optimizer": True, ...}."""
    from ..framework.optimizer import config  # noqa: PLC0415  (the runtime loads first)
    config.set_experimental_options(options)


def get_experimental_options() -> dict:
    from ..framework.optimizer import config  # noqa: PLC0415
    return config.get_experimental_options()
