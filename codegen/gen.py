"""Wires the model to the emitters and writes the results.

Generation is all-or-nothing: every opdef is loaded and checked and every file rendered in
memory before anything is written. Files are written only when their bytes change (atomically,
through a temporary file), and generated files that no opdef produces any more are removed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import _proto, model, protos
from .api import python as python_api
from .emit import cpp as emit_cpp
from .emit import docs as emit_docs
from .emit import proto_fields as emit_proto_fields
from .emit import python as emit_python

# Folders under the output dir that belong to this generator; proto/ (protoc's output, see
# codegen/protos.py) only when the schemas are compiled.
OWNED = ("python", "cpp", "docs")
PROTO = "proto"


@dataclass
class Result:
    ops: int = 0
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> list[str]:
        return sorted(self.written + self.removed)


def group_ops(ops: list) -> dict[str, list]:
    groups: dict[str, list] = {}
    for op in ops:
        groups.setdefault(op.group, []).append(op)
    return dict(sorted(groups.items()))


def render_all(ops: list, python: bool = True, cpp: bool = True, docs: bool = True) -> dict[str, str]:
    groups = group_ops(ops)
    python_api.clear_cache()
    files: dict[str, str] = {}
    if python:
        files.update(emit_python.emit(groups, ops))
    if cpp:
        files.update(emit_cpp.emit(groups))
    if docs:
        files.update(emit_docs.emit(groups))
    return files


def _existing(out_dir: str, owned: tuple[str, ...] = OWNED) -> set[str]:
    found = set()
    for sub in owned:
        base = os.path.join(out_dir, sub)
        for root, _, files in os.walk(base):
            for f in files:
                if f.endswith((".py", ".pyi", ".h", ".cc", ".md")) and "__pycache__" not in root:
                    found.add(os.path.relpath(os.path.join(root, f), out_dir).replace(os.sep, "/"))
    return found


def write_if_changed(path: str, text: str) -> bool:
    data = text.encode("utf-8")
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def generate(opdef_dirs: list[str], out_dir: str, check: bool = False, ops: list | None = None,
             proto_dir: str | None = None) -> Result:
    """Regenerates out_dir from the opdefs. With check=True nothing is written; the result
    lists what would change. Raises model.OpDefError on a bad opdef (nothing written).

    With proto_dir, the .proto files there are compiled too (out_dir/proto/, protoc from
    grpcio-tools; protos.ProtoError when it is missing or fails), and cpp/proto_fields.h takes its
    field numbers from them; without, from the compiled package already committed
    (codegen/_proto.py): what the build does, which needs no protoc."""
    if ops is None:
        ops = model.load(opdef_dirs)
    owned = OWNED
    if proto_dir is not None:
        compiled = protos.compile_protos(proto_dir)
        pool = protos.pool_from_descriptor_set(compiled.descriptor_set)
        owned = (*OWNED, PROTO)
    else:
        compiled, pool = None, _proto.POOL
    files = render_all(ops)
    files.update(emit_proto_fields.emit(protos.wire_messages(pool)))
    if compiled is not None:
        files.update(compiled.files)
    result = Result(ops=len(ops))
    for rel in sorted(files):
        path = os.path.join(out_dir, rel)
        if check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == files[rel].encode("utf-8")
            except FileNotFoundError:
                same = False
            (result.unchanged if same else result.written).append(rel)
        elif write_if_changed(path, files[rel]):
            result.written.append(rel)
        else:
            result.unchanged.append(rel)
    for rel in sorted(_existing(out_dir, owned) - set(files)):
        result.removed.append(rel)
        if not check:
            os.remove(os.path.join(out_dir, rel))
    return result
