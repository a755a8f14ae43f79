"""Automatic differentiation: the gradient registry, helpers used by generated gradient
formulas, and the eager GradientTape.

Importing the package registers the gradient of every generated op (the generated
gen_<group>_grads modules, which bind hand-written functions of this package by name)."""

import importlib as _importlib

from ..generated import op_index as _index

for _group in _index.GROUPS:
    _importlib.import_module(f"opforge.generated.gen_{_group}_grads")
del _group
