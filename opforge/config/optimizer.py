"""``of.config.optimizer`` (TF2's ``tf.config.optimizer``): which graph optimizer passes run,
by TensorFlow's RewriterConfig toggles, process-wide or read from a session config.

Accepted: a ConfigProto (``of.compat.v1.ConfigProto`` or TensorFlow's own), a GraphOptions,
a RewriterConfig, or a dict in TF2's ``tf.config.optimizer.set_experimental_options``
spelling ({"constant_folding": False, ...}). A toggle set to OFF turns its pass off; DEFAULT,
ON and AGGRESSIVE leave it on. ``disable_meta_optimizer`` turns every pass off; a non-empty
``optimizers`` list runs only the passes it names (TensorFlow's names: "constfold",
"arithmetic", "dependency", "remap", "common_subgraph_elimination"). ``fail_on_optimizer_errors``
(or OPFORGE_OPTIMIZER_ERRORS=raise) makes a failing pass an error instead of a warning.
"""

from __future__ import annotations

import os
import warnings

# Toggle values of RewriterConfig (rewriter_config.proto).
DEFAULT, ON, OFF, AGGRESSIVE = 0, 1, 2, 3

# RewriterConfig field -> the name TensorFlow's `optimizers` list uses for the pass.
TOGGLES = {
    "common_subgraph_elimination": "common_subgraph_elimination",
    "constant_folding": "constfold",
    "arithmetic_optimization": "arithmetic",
    "dependency_optimization": "dependency",
    "remapping": "remap",
}

# Process-wide options (of.config.optimizer.set_experimental_options); a session's own
# config overrides them field by field.
_experimental: dict[str, bool] = {}


def set_experimental_options(options: dict) -> None:
    """TF2's ``tf.config.optimizer.set_experimental_options``: {"remapping": False, ...}, plus
    "disable_meta_optimizer". Unknown keys are an error, as a misspelled pass would otherwise
    be silently ignored."""
    for key, value in options.items():
        if key not in TOGGLES and key != "disable_meta_optimizer":
            raise ValueError(f"unknown graph optimizer option '{key}'; known: "
                             f"{sorted(TOGGLES) + ['disable_meta_optimizer']}")
        _experimental[key] = bool(value)


def get_experimental_options() -> dict:
    return dict(_experimental)


def _rewrite_options(config):
    if config is None:
        return None
    if isinstance(config, dict):
        return config
    graph_options = getattr(config, "graph_options", None)
    if graph_options is not None:
        config = graph_options
    rewrite = getattr(config, "rewrite_options", None)
    return rewrite if rewrite is not None else config


def enabled_passes(config=None) -> dict[str, bool]:
    """{RewriterConfig field: on?} for each pass opforge implements."""
    enabled = {name: True for name in TOGGLES}
    for key, value in _experimental.items():
        if key == "disable_meta_optimizer":
            if value:
                enabled = {name: False for name in TOGGLES}
        else:
            enabled[key] = value
    rw = _rewrite_options(config)
    if rw is None:
        return enabled
    if isinstance(rw, dict):
        for key, value in rw.items():
            if key == "fail_on_optimizer_errors":
                continue
            if key == "disable_meta_optimizer":
                if value:
                    return {name: False for name in TOGGLES}
                continue
            if key not in TOGGLES:
                raise ValueError(f"unknown graph optimizer option '{key}'")
            enabled[key] = value not in (False, OFF, "OFF")
        return enabled
    if getattr(rw, "disable_meta_optimizer", False):
        return {name: False for name in TOGGLES}
    listed = list(getattr(rw, "optimizers", []) or [])
    if listed:
        names = set(listed)
        return {name: (short in names or name in names) for name, short in TOGGLES.items()}
    for name in TOGGLES:
        value = getattr(rw, name, DEFAULT)
        if value == OFF:
            enabled[name] = False
        elif value in (ON, AGGRESSIVE):
            enabled[name] = True
    return enabled


def fail_on_errors_requested(config=None) -> bool:
    """Whether a failing pass raises instead of being reported by a warning: TensorFlow's
    RewriterConfig.fail_on_optimizer_errors (or that key of a dict config), or the environment
    variable OPFORGE_OPTIMIZER_ERRORS=raise (a debug setting for every session)."""
    if os.environ.get("OPFORGE_OPTIMIZER_ERRORS", "").strip().lower() == "raise":
        return True
    rw = _rewrite_options(config)
    if isinstance(rw, dict):
        return bool(rw.get("fail_on_optimizer_errors", False))
    return bool(getattr(rw, "fail_on_optimizer_errors", False))


def report_failures(errors, stacklevel: int = 3) -> None:
    """Warns once per failed pass ("pass: error", as the runtime reports them); stacklevel
    counts from the caller of report_failures, as warnings.warn's does."""
    for e in errors:
        name, _, message = e.partition(": ")
        warnings.warn(f"graph optimizer pass '{name}' failed and was skipped (the graph stays as the previous "
                      f"pass left it): {message}", RuntimeWarning, stacklevel=stacklevel + 1)
