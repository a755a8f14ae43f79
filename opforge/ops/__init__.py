"""Every generated op wrapper in one namespace (``of.ops.mat_mul``).

The list of groups comes from the generated op index, so a new opdef group appears here
without any edit. The submodules are the friendly wrappers over these, by group (array_ops,
math_ops, nn_ops, ...); the gradients of the generated ops are registered by opforge.gradients.
"""

from __future__ import annotations

import importlib

from ..generated import op_index as _index

_modules = [importlib.import_module(f"opforge.generated.gen_{g}_ops") for g in _index.GROUPS]
for _m in _modules:
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)

__all__ = sorted(n for m in _modules for n in m.__all__)
