"""``of.config.optimizer`` (TF2's ``tf.config.optimizer``): process-wide graph optimizer
switches by RewriterConfig name, e.g. ``set_experimental_options({"remapping": False})``.
A Session's own config (``graph_options.rewrite_options``) overrides them field by field."""

from ..framework.optimizer.config import get_experimental_options, set_experimental_options  # noqa: F401
