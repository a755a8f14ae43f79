"""Op libraries that travel with a model: written into a folder beside it, loaded from there.

A graph that uses ops of a loaded op library (``of.load_op_library``) cannot run where that
library is missing. ``export_op_libraries`` finds the libraries a GraphDef needs and copies each
one into a folder (a SavedModel keeps them in ``assets.extra/opforge_op_libraries/``)::

    opforge_op_libraries/
      manifest.json            what is there: per library its name, file, SHA-256, the ABI it
                               was built for, its ops, the platform
      zero_out/zero_out.so     the library as it was loaded
      zero_out/opdefs/*.pbtxt  its opdefs, as embedded in it (for people and tools)

``load_op_libraries`` reads the manifest back and loads each library, so a model loads with
nothing but its path. Before any library code runs it checks that the file is the one the
manifest names (SHA-256) and that it was built for this opforge's ABI; a mismatch is a
``FailedPreconditionError`` naming the model's library, its ABI and ours.

The op registry is process-wide, so two models cannot bring two different libraries that define
the same op name into one process. A library whose ops are already registered is accepted only
when it is byte-identical to the loaded one (the same library, e.g. two models exported from one
build: it is shared); otherwise ``AlreadyExistsError`` names both libraries. Nothing is silently
picked.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys

from .. import _C
from ..framework.errors import AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError
from . import op_library

FOLDER = "opforge_op_libraries"
MANIFEST = "manifest.json"
FORMAT = 1


def _ops_used(graph_def) -> set[str]:
    ops = {nd.op for nd in graph_def.node}
    for fdef in graph_def.library.function:
        ops.update(nd.op for nd in fdef.node_def)
    return ops


def libraries_used(graph_defs) -> list:
    """The loaded op libraries (their modules) whose ops the GraphDef(s) use, by library name."""
    if not isinstance(graph_defs, (list, tuple)):
        graph_defs = [graph_defs]
    used = set().union(*(_ops_used(gd) for gd in graph_defs))
    modules = {}
    for op in sorted(used):
        module = op_library.module_of_op(op)
        if module is not None:
            modules[module.LIBRARY] = module
    return [modules[name] for name in sorted(modules)]


def export_op_libraries(graph_defs, folder: str) -> list[str]:
    """Copies the op libraries a GraphDef (or a list of them) needs into ``folder``, with a manifest.

    Returns the names of the libraries written; writes nothing when the graphs use only
    built-in ops.
    """
    libraries = libraries_used(graph_defs)
    if not libraries:
        return []
    os.makedirs(folder, exist_ok=True)
    entries = []
    for module in libraries:
        name = module.LIBRARY
        source = module.__file__
        if not os.path.isfile(source):
            raise NotFoundError(f"export_op_libraries: op library '{name}' was loaded from {source}, "
                                f"which no longer exists: it cannot be exported with the model")
        digest = op_library.file_sha256(source)
        if digest != module.SHA256:
            raise FailedPreconditionError(f"export_op_libraries: op library '{name}' at {source} changed on "
                                          f"disk since it was loaded (rebuilt?): load the new build before "
                                          f"exporting, so the model carries the library it ran with")
        lib_dir = os.path.join(folder, name)
        os.makedirs(os.path.join(lib_dir, "opdefs"), exist_ok=True)
        file_name = os.path.basename(source)
        shutil.copyfile(source, os.path.join(lib_dir, file_name))
        for opdef_name, text in module.OPDEFS:
            with open(os.path.join(lib_dir, "opdefs", os.path.basename(opdef_name)), "w") as f:
                f.write(text)
        entries.append({
            "name": name,
            "file": f"{name}/{file_name}",
            "sha256": digest,
            "abi": _C.ABI_TAG,
            "ops": list(module.OP_NAMES),
            "platform": f"{sys.platform}-{platform.machine()}",
        })
    with open(os.path.join(folder, MANIFEST), "w") as f:
        json.dump({"format": FORMAT, "libraries": entries}, f, indent=2, sort_keys=True)
        f.write("\n")
    return [e["name"] for e in entries]


def _read_manifest(folder: str, model: str) -> list[dict]:
    path = os.path.join(folder, MANIFEST)
    try:
        with open(path) as f:
            manifest = json.load(f)
        entries = manifest["libraries"]
        for e in entries:
            for key in ("name", "file", "sha256", "abi", "ops"):
                if key not in e:
                    raise KeyError(key)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InvalidArgumentError(f"{model}: cannot read the op library manifest {path}: "
                                   f"{type(e).__name__}: {e}") from None
    if manifest.get("format") != FORMAT:
        raise InvalidArgumentError(f"{model}: op library manifest {path} has format "
                                   f"{manifest.get('format')!r}; this opforge reads format {FORMAT}")
    return entries


def load_op_libraries(folder: str, model: str = "") -> list:
    """Loads the op libraries exported into ``folder``; returns their modules.

    ``model`` names the model in messages. A folder without a manifest holds no libraries.
    Every library is checked (file present, SHA-256, ABI) before any is loaded.
    """
    model = model or folder
    if not os.path.isfile(os.path.join(folder, MANIFEST)):
        return []
    entries = _read_manifest(folder, model)
    paths = []
    for e in entries:
        path = os.path.join(folder, e["file"])
        if not os.path.isfile(path):
            raise NotFoundError(f"{model}: op library '{e['name']}' is missing: no file {path}")
        if e["abi"] != _C.ABI_TAG:
            raise FailedPreconditionError(
                f"{model}: op library '{e['name']}' ({path}) was built for opforge ABI '{e['abi']}'; this "
                f"opforge has ABI '{_C.ABI_TAG}': rebuild the library against this opforge and export the "
                f"model again")
        if op_library.file_sha256(path) != e["sha256"]:
            raise FailedPreconditionError(f"{model}: op library '{e['name']}' ({path}) does not match the "
                                          f"SHA-256 its manifest records: the file was changed or damaged")
        paths.append((e, path))
    modules = []
    for e, path in paths:
        loaded = [m for m in (op_library.module_of_op(op) for op in e["ops"]) if m is not None]
        namesake = op_library.module_of_library(e["name"])
        if namesake is not None and namesake not in loaded:
            loaded.insert(0, namesake)
        if loaded:
            same = {m.SHA256 for m in loaded} == {e["sha256"]} and len(loaded) == len(e["ops"])
            if not same:
                other = loaded[0]
                raise AlreadyExistsError(
                    f"{model}: op library '{e['name']}' ({path}) defines ops {sorted(e['ops'])}, but a different "
                    f"op library '{other.LIBRARY}' ({other.__file__}) is already loaded, defining "
                    f"{sorted(other.OP_NAMES)}: two different libraries cannot define the same op or carry the "
                    f"same name in one process (serve these models from separate processes, or rename the ops)")
            modules.append(loaded[0])  # the same library, byte for byte: share it
            continue
        modules.append(op_library.load_op_library(path))
    return modules
