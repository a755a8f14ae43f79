"""Loads the protoc-generated schema module that lives in generated/proto/.

The same relative layout holds in the source tree (codegen/ beside generated/) and in the
installed package (opforge/codegen beside opforge/generated), so the module is found by path
and registered once under a fixed name.
"""

from __future__ import annotations

import importlib.util
import os
import sys

_NAME = "opforge_op_def_pb2"


def _load():
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "generated", "proto", "op_def_pb2.py")
    spec = importlib.util.spec_from_file_location(_NAME, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module


op_def_pb2 = _load()
