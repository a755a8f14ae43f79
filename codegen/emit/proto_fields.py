"""generated/cpp/proto_fields.h: the field numbers of the messages opforge's C++ encodes
without libprotobuf, from the .proto files (codegen/protos.py builds the model)."""

from __future__ import annotations

from . import render

PATH = "cpp/proto_fields.h"


def emit(messages: list) -> dict[str, str]:
    return {PATH: render("cpp_proto_fields.h.j2", messages=messages)}
