"""``of.load_op_library``: ops defined, compiled and loaded out of tree.

A library built by ``opforge_add_op_library`` carries its opdefs and the ABI tag of the
opforge it was compiled against. Loading it:

1. ``_C.OpLibrary.open`` checks the file (exists, is a shared library, carries this opforge's
   ABI tag) before any of its code runs, then dlopens it with a registration stage active:
   its ops, kernels and custom shape functions are staged, not registered.
2. The staged batch is checked against the registries (op name clashes), and the Python
   wrappers and gradient bindings are generated from the embedded opdefs by the same codegen
   as the built-in ops, without registering anything yet.
3. Only then is the batch committed (C++) and the generated modules executed (gradients).

A failure at any step raises a typed error and leaves every registry as it was; the library
is unloaded.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import types

from .. import _C
from ..framework.errors import InvalidArgumentError

_LOCK = threading.Lock()
_LOADED: dict[str, types.ModuleType] = {}  # real path -> module
_MODULE_OF: dict[str, str] = {}             # wrapper name -> module of a loaded library
_LIBRARY_OPS: list = []                     # model ops of loaded libraries
RAW_OPS: dict[str, tuple[str, str]] = {}   # op name -> (module, wrapper name)


def _codegen():
    from ..codegen import library, model  # noqa: PLC0415 (only needed when a library loads)
    return library, model


def load_op_library(path: str) -> types.ModuleType:
    """Loads the op library at ``path`` and returns a module of its op wrappers.

    The wrappers are generated now from the opdefs embedded in the library, by the same
    generator as the built-in ones (docstrings, attr defaults); gradients are registered
    as for built-in ops, so the ops work eagerly, under ``GradientTape`` and in graphs.
    Loading the same file again returns the same module.

    Raises ``NotFoundError`` (no such file), ``InvalidArgumentError`` (not a shared library,
    not an opforge op library, bad opdefs), ``FailedPreconditionError`` (built against an
    incompatible opforge ABI) or ``AlreadyExistsError`` (an op name is already registered);
    nothing is registered then.
    """
    path = os.fspath(path)
    real = os.path.realpath(path)
    with _LOCK:
        if real in _LOADED:
            return _LOADED[real]
        lib = _C.OpLibrary.open(path)
        digest = file_sha256(path)  # what was loaded, so exports can tell a rebuild (op_library_bundle)
        try:
            lib.check()
            module, grads_src = _generate(lib)
            lib.commit()
        except BaseException:
            del lib  # not committed: dlclose'd with its staged registrations
            raise
        sys.modules[module.__name__] = module
        try:
            exec(compile(module.__dict__.pop("__opforge_source__"), f"<op library {lib.name}>", "exec"),
                 module.__dict__)
            grads = types.ModuleType(module.__name__ + "._grads")
            exec(compile(grads_src, f"<op library {lib.name} gradients>", "exec"), grads.__dict__)
        except BaseException:
            sys.modules.pop(module.__name__, None)
            raise
        module._grads = grads
        module.SHA256 = digest
        for op in module.__opforge_ops__:
            _MODULE_OF[op.snake_name] = module.__name__
            RAW_OPS[op.name] = (module.__name__, op.snake_name)
            _LIBRARY_OPS.append(op)
        _LOADED[real] = module
        return module


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def module_of_op(op_name: str) -> types.ModuleType | None:
    """The module of the loaded op library that defines op_name; None for built-in ops."""
    entry = RAW_OPS.get(op_name)
    return sys.modules.get(entry[0]) if entry else None


def module_of_library(name: str) -> types.ModuleType | None:
    """The module of the loaded op library called name, if one is loaded."""
    return sys.modules.get(f"opforge.op_libraries.{name}")


def _generate(lib):
    """The library's module (source not executed yet) and its gradient source."""
    library, model = _codegen()
    name = lib.name
    module_name = f"opforge.op_libraries.{name}"
    if module_name in sys.modules:
        raise InvalidArgumentError(f"load_op_library: a library named '{name}' is already loaded "
                                   f"(from {sys.modules[module_name].__file__})")
    try:
        ops = library.parse(name, list(lib.opdefs))
        base = library.builtin_ops() + _LIBRARY_OPS
        ops = library.check(name, ops, base)
        wrappers, grads = library.python_sources(name, ops, base, _MODULE_OF, module_name)
    except model.OpDefError as e:
        raise InvalidArgumentError(f"load_op_library: {lib.path}: bad opdefs embedded in the "
                                   f"library: {e}") from None
    staged = sorted(lib.op_names)
    defined = sorted(op.name for op in ops)
    if staged != defined:
        raise InvalidArgumentError(f"load_op_library: {lib.path}: the library registers ops "
                                   f"{staged} but its opdefs define {defined}")
    module = types.ModuleType(module_name, f"Op library '{name}' loaded from {lib.path}.")
    module.__file__ = lib.path
    module.__opforge_source__ = wrappers
    module.__opforge_ops__ = ops
    module.OP_NAMES = tuple(defined)
    module.OPDEFS = tuple(lib.opdefs)  # (file name, text) as embedded in the library
    module.LIBRARY = name
    return module, grads


def load_library(library_location):
    """Loads the op library at library_location, or every one (*.so) in that folder
    (TensorFlow's tf.load_library)."""
    if os.path.isdir(library_location):
        paths = sorted(os.path.join(library_location, f) for f in os.listdir(library_location) if f.endswith(".so"))
    else:
        paths = [library_location]
    for path in paths:
        load_op_library(path)
