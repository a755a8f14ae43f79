"""The proto schemas: compiling proto/ into the Python package generated/proto/, and the field
numbers of the messages opforge's C++ encodes (the model of generated/cpp/proto_fields.h).

protoc is grpcio-tools' (PyPI), run as `python -m grpc_tools.protoc`. Its version shows in its
output (the "Protobuf Python Version" line), so the committed files come from one pinned
version, GRPCIO_TOOLS_VERSION. Three things in protoc's Python output are rewritten, each checked
to apply exactly where expected (a protoc whose output has another shape is an error, not a
silently different package):

- imports between the modules become relative, so the package loads under any name
  (codegen/_proto.py loads it as ``opforge_proto``) and never reaches TensorFlow's own
  ``tensorflow.core...`` modules;
- descriptors are added to the package's own pool (POOL in generated/proto/__init__.py), not to
  protobuf's default pool, where TensorFlow registers the same file and message names;
- the module name given to the message classes is the module's real one (``__name__``).

Files that define a service (TensorFlow Serving's PredictionService, ModelService) also get
their gRPC stubs, ``*_pb2_grpc.py`` from grpcio-tools' plugin, with the same relative imports;
the plugin's empty modules for files without a service are dropped. The well-known types the
schemas import (google/protobuf/any.proto, wrappers.proto) are added to the package's pool by
its __init__.py, from protobuf's own modules.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass

GRPCIO_TOOLS_VERSION = "1.85.1"

# The messages the C++ encoders write or read without libprotobuf (kernels/cpu/logging/:
# ScalarSummary, HistogramSummary, MergeSummary, ImageSummary, AudioSummary, TensorSummary).
# Event records and checkpoint entries are written in Python through the generated modules.
WIRE_MESSAGES = (
    "tensorflow.Summary",
    "tensorflow.Summary.Value",
    "tensorflow.Summary.Image",
    "tensorflow.Summary.Audio",
    "tensorflow.HistogramProto",
    "tensorflow.TensorProto",
    "tensorflow.TensorShapeProto",
    "tensorflow.TensorShapeProto.Dim",
)


class ProtoError(Exception):
    """proto/ could not be compiled (no or the wrong protoc, a .proto error, unexpected output)."""


@dataclass(frozen=True)
class Compiled:
    files: dict[str, str]    # path under the output dir ("proto/...") -> text
    descriptor_set: bytes    # a serialized FileDescriptorSet of every compiled file


def proto_files(proto_dir: str) -> list[str]:
    """The .proto files under proto_dir, as paths relative to it ("tensorflow/core/...")."""
    found = []
    for root, _, files in os.walk(proto_dir):
        for f in files:
            if f.endswith(".proto"):
                found.append(os.path.relpath(os.path.join(root, f), proto_dir).replace(os.sep, "/"))
    return sorted(found)


def _check_protoc() -> None:
    try:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415
        have = version("grpcio-tools")
    except PackageNotFoundError:
        raise ProtoError(f"compiling proto/ needs protoc from grpcio-tools=={GRPCIO_TOOLS_VERSION} "
                         f"(pip install grpcio-tools=={GRPCIO_TOOLS_VERSION}, or opforge's test "
                         f"extras)") from None
    if have != GRPCIO_TOOLS_VERSION:
        raise ProtoError(f"grpcio-tools {have} is installed; generated/proto comes from "
                         f"grpcio-tools=={GRPCIO_TOOLS_VERSION} (its protoc version is part of the "
                         f"output): pip install grpcio-tools=={GRPCIO_TOOLS_VERSION}")


def compile_protos(proto_dir: str) -> Compiled:
    """Runs protoc over every .proto under proto_dir; returns the package's files, rewritten."""
    sources = proto_files(proto_dir)
    if not sources:
        raise ProtoError(f"no .proto files under {proto_dir}")
    _check_protoc()
    with tempfile.TemporaryDirectory(prefix="opforge-protoc-") as tmp:
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        desc = os.path.join(tmp, "descriptors.pb")
        cmd = [sys.executable, "-m", "grpc_tools.protoc", "-I.", f"--python_out={out}", f"--pyi_out={out}",
               f"--grpc_python_out={out}", f"--descriptor_set_out={desc}", "--include_imports", *sources]
        proc = subprocess.run(cmd, cwd=proto_dir, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ProtoError(f"protoc failed on {proto_dir}:\n{proc.stderr.strip()}")
        with open(desc, "rb") as f:
            descriptor_set = f.read()
        raw = {}
        for root, _, files in os.walk(out):
            for name in files:
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    raw[os.path.relpath(path, out).replace(os.sep, "/")] = f.read()
    with_services, well_known = _services_and_well_known(descriptor_set)
    for rel in [r for r in raw if r.endswith("_pb2_grpc.py")]:
        if rel[:-len("_pb2_grpc.py")] + ".proto" not in with_services:
            del raw[rel]
    modules = {rel[:-3].replace("/", ".") for rel in raw if rel.endswith(".py")}
    files: dict[str, str] = {}
    for rel in sorted(raw):
        if rel.endswith("_pb2_grpc.py"):
            files[f"proto/{rel}"] = _rewrite_grpc_module(rel, raw[rel], modules)
        elif rel.endswith(".py"):
            files[f"proto/{rel}"] = _rewrite_module(rel, raw[rel], modules)
        elif rel.endswith(".pyi"):
            files[f"proto/{rel}"] = _rewrite_stub(rel, raw[rel], modules)
        else:
            raise ProtoError(f"unexpected protoc output {rel}")
    files.update(_package_inits(files, well_known))
    return Compiled(files=files, descriptor_set=descriptor_set)


def _services_and_well_known(descriptor_set: bytes) -> tuple[set[str], list[str]]:
    """The compiled files that define a service, and the well-known types' modules imported
    (google/protobuf/any.proto -> "any_pb2")."""
    from google.protobuf import descriptor_pb2  # noqa: PLC0415
    fds = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set)
    services = {f.name for f in fds.file if f.service}
    well_known = sorted(f.name[len("google/protobuf/"):-len(".proto")] + "_pb2" for f in fds.file
                        if f.name.startswith("google/protobuf/"))
    return services, well_known


_ROOT_INIT = '''\
# Generated by `opforge generate` (codegen/protos.py). DO NOT EDIT!
"""opforge's proto schemas (proto/), compiled by protoc; imported through codegen/_proto.py."""
from google.protobuf import descriptor_pool as _descriptor_pool

# opforge's own descriptor pool: TensorFlow's modules register the same file and message names
# in protobuf's default pool, and both load in one process.
POOL = _descriptor_pool.DescriptorPool()
'''


def _package_inits(files: dict[str, str], well_known: list[str]) -> dict[str, str]:
    """An __init__.py in the package root (the pool, with the well-known types the schemas
    import) and in every folder below it."""
    root = _ROOT_INIT
    if well_known:
        root += ("\n# The well-known types the schemas import, from protobuf's own modules.\n"
                 f"from google.protobuf import {', '.join(well_known)}  # noqa: E402\n\n"
                 f"for _wkt in ({', '.join(well_known)},):\n"
                 "    POOL.AddSerializedFile(_wkt.DESCRIPTOR.serialized_pb)\n")
    inits = {"proto/__init__.py": root}
    for rel in files:
        parts = rel.split("/")[1:-1]
        for i in range(1, len(parts) + 1):
            inits.setdefault("proto/" + "/".join(parts[:i]) + "/__init__.py", "")
    return inits


def _relative(package: list[str], target: str) -> str:
    """`target` (a dotted module path from the package root) as seen from `package`."""
    parts = target.split(".")
    common = 0
    while common < min(len(package), len(parts)) and package[common] == parts[common]:
        common += 1
    return "." * (len(package) - common + 1) + ".".join(parts[common:])


def _replace(pattern: str, repl, text: str, rel: str) -> str:
    """re.sub that must apply exactly once."""
    new, n = re.subn(pattern, repl, text, flags=re.M)
    if n != 1:
        raise ProtoError(f"protoc's output for {rel} has an unexpected shape (pattern {pattern!r} "
                         f"matched {n} times, not once): update codegen/protos.py for this protoc")
    return new


def _own_import(rel: str, modules: set[str]):
    """A replacement function for `from X import Y ...` lines that names one of the package's
    own modules (X.Y or X itself); other imports stay as they are."""
    package = rel.split("/")[:-1]

    def fix(m: re.Match) -> str:
        source, rest = m.group(1), m.group(2)
        first = rest.split()[0]
        if source in modules or f"{source}.{first}" in modules:
            return f"from {_relative(package, source)} import {rest}"
        return m.group(0)
    return fix


def _rewrite_module(rel: str, text: str, modules: set[str]) -> str:
    package = rel.split("/")[:-1]
    dotted = rel[:-3].replace("/", ".")
    text = _replace(r"^(# Generated by the protocol buffer compiler\.  DO NOT EDIT!)$",
                    r"\1\n# Compiled from proto/" + rel[:-7] + ".proto by `opforge generate` "
                    r"(codegen/protos.py: relative imports, opforge's descriptor pool).", text, rel)
    text = re.sub(r"^from ([\w.]+) import (.+)$", _own_import(rel, modules), text, flags=re.M)
    text = _replace(r"^(from google\.protobuf\.internal import builder as _builder)$",
                    r"\1\nfrom " + "." * (len(package) + 1) + " import POOL as _POOL", text, rel)
    text = _replace(r"^DESCRIPTOR = _descriptor_pool\.Default\(\)\.AddSerializedFile\(",
                    "DESCRIPTOR = _POOL.AddSerializedFile(", text, rel)
    text = _replace(r"^(_builder\.BuildTopDescriptorsAndMessages\(DESCRIPTOR, )'" + re.escape(dotted) + "'",
                    r"\1__name__", text, rel)
    return text


def _rewrite_grpc_module(rel: str, text: str, modules: set[str]) -> str:
    text = _replace(r"^(# Generated by the gRPC Python protocol compiler plugin\. DO NOT EDIT!)$",
                    r"\1\n# Compiled from proto/" + rel[:-len("_pb2_grpc.py")] + ".proto by `opforge generate` "
                    r"(codegen/protos.py: relative imports).", text, rel)
    return re.sub(r"^from ([\w.]+) import (.+)$", _own_import(rel, modules), text, flags=re.M)


def _rewrite_stub(rel: str, text: str, modules: set[str]) -> str:
    return re.sub(r"^from ([\w.]+) import (.+)$", _own_import(rel, modules), text, flags=re.M)


# ---------------------------------------------------------------- field numbers for C++


@dataclass(frozen=True)
class WireField:
    constant: str      # kSummaryValueTagField
    number: int
    declaration: str   # "string tag" (as in the .proto)


@dataclass(frozen=True)
class WireMessage:
    full_name: str     # tensorflow.Summary.Value
    file: str          # tensorflow/core/framework/summary.proto
    fields: tuple[WireField, ...]


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _declaration(field) -> str:
    from google.protobuf.descriptor import FieldDescriptor  # noqa: PLC0415
    if field.message_type is not None:
        type_name = field.message_type.name
    elif field.enum_type is not None:
        type_name = field.enum_type.name
    else:
        type_name = {FieldDescriptor.TYPE_DOUBLE: "double", FieldDescriptor.TYPE_FLOAT: "float",
                     FieldDescriptor.TYPE_INT64: "int64", FieldDescriptor.TYPE_UINT64: "uint64",
                     FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_FIXED64: "fixed64",
                     FieldDescriptor.TYPE_FIXED32: "fixed32", FieldDescriptor.TYPE_BOOL: "bool",
                     FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BYTES: "bytes",
                     FieldDescriptor.TYPE_UINT32: "uint32", FieldDescriptor.TYPE_SFIXED32: "sfixed32",
                     FieldDescriptor.TYPE_SFIXED64: "sfixed64", FieldDescriptor.TYPE_SINT32: "sint32",
                     FieldDescriptor.TYPE_SINT64: "sint64"}[field.type]
    repeated = field.is_repeated
    return f"{'repeated ' if repeated else ''}{type_name} {field.name}"


def wire_messages(pool, names: tuple[str, ...] = WIRE_MESSAGES) -> list[WireMessage]:
    """The field numbers of the named messages, from the descriptors in pool: one constant per
    field, k<Message path><Field>Field (Summary.Value.tag -> kSummaryValueTagField)."""
    out, seen = [], {}
    for full_name in names:
        try:
            desc = pool.FindMessageTypeByName(full_name)
        except KeyError:
            raise ProtoError(f"message {full_name} (codegen/protos.py WIRE_MESSAGES) is in no "
                             f"file under proto/") from None
        path = full_name.split(".", 1)[1]  # without the package
        prefix = "k" + "".join(_camel(p) for p in path.split("."))
        fields = []
        for f in desc.fields:
            const = f"{prefix}{_camel(f.name)}Field"
            if const in seen:
                raise ProtoError(f"{full_name}.{f.name} and {seen[const]} both map to {const}")
            seen[const] = f"{full_name}.{f.name}"
            fields.append(WireField(const, f.number, _declaration(f)))
        out.append(WireMessage(full_name, desc.file.name, tuple(fields)))
    return out


def pool_from_descriptor_set(data: bytes):
    """A descriptor pool holding the files of a serialized FileDescriptorSet (protoc's output)."""
    from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: PLC0415
    fds = descriptor_pb2.FileDescriptorSet.FromString(data)
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:  # --include_imports lists a file after the files it imports
        pool.Add(f)
    return pool
