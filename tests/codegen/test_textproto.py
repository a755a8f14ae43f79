"""codegen.textproto, the fast opdef reader, against protobuf's own text parser.

The fast reader is only a fast path: on any text it must either fill exactly the message
protobuf's parser fills, or give up (``Unsupported``) so that protobuf decides. It must never
accept text protobuf rejects.
"""

from __future__ import annotations

import glob
import gzip
import math
import os

import pytest
from google.protobuf import text_format

from codegen import textproto
from codegen._proto import opdef_pb2

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _files():
    out = sorted(glob.glob(os.path.join(ROOT, "opdefs", "**", "*.pbtxt"), recursive=True))
    out += sorted(glob.glob(os.path.join(ROOT, "tests", "codegen", "data", "golden", "**", "*.pbtxt"),
                            recursive=True))
    return out


def _fast(text):
    msg = opdef_pb2.OpList()
    textproto.parse(text, msg)
    return msg


def _slow(text):
    msg = opdef_pb2.OpList()
    text_format.Parse(text, msg)
    return msg


def test_tf_ops_pbtxt_same_message():
    with gzip.open(os.path.join(ROOT, "tests", "codegen", "data", "tf2.21_ops.pbtxt.gz"), "rt") as f:
        text = f.read()
    fast = _fast(text)  # must not need the fallback: it is the case the fast path exists for
    assert len(fast.op) == 1908
    assert fast == _slow(text)


@pytest.mark.parametrize("path", _files(), ids=lambda p: os.path.relpath(p, ROOT))
def test_opdef_files_same_message(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert _fast(text) == _slow(text)


def _attr(default: str, type_: str = "float") -> str:
    return f'op {{ name: "A" attr {{ name: "x" type: "{type_}" default_value {{ {default} }} }} }}'


TRICKY = [
    'op { name: "A" summary: "a" "b" }',  # adjacent strings concatenate
    r'op { name: "A" summary: "q\"\n\t\\" }',
    "op { name: 'A' }",
    'op < name: "A" >',
    'op: { name: "A" }',
    'op { name: "A"; summary: "b", }',
    'op { name: "A" # a comment\n summary: "b" }',
    'op { name: "A" } op { name: "B" }',
    'op [{ name: "A" }, { name: "B" }]',
    'op { name: "A" signature { input: ["x: T", "y: T"] } }',
    'op { name: "A" summary: "\\303\\251" }',
    'op { name: "A" summary: "\u00e9" }',
    'op { name: "A" input_arg { name: "x" type: DT_FLOAT } }',
    'op { name: "A" input_arg { name: "x" type: 1 } }',
    'op { name: "A" is_stateful: true }',
    'op { name: "A" is_stateful: True }',
    'op { name: "A" is_stateful: 1 }',
    'op { name: "A" is_stateful: t }',
    'op { name: "A" deprecation { version: 3 explanation: "x" } }',
    _attr("f: inf"), _attr("f: -inf"), _attr("f: Infinity"), _attr("f: 1e-3"), _attr("f: 1.5f"),
    _attr("f: .5"), _attr("f: 5."), _attr("f: -0"), _attr("f: 10"), _attr("f: 1e40"),
    _attr("f: nan"),
    _attr("i: 0x10", "int"), _attr("i: -7", "int"), _attr("i: +3", "int"), _attr("i: 010", "int"),
    _attr("b: 0", "bool"),
    _attr("list { i: [1, 2] }", "list(int)"), _attr("list { i: [] }", "list(int)"),
    _attr("list { i: 1 i: 2 }", "list(int)"),
    _attr("list { b: [true, f] }", "list(bool)"),
    _attr("list { type: [DT_FLOAT, 3] }", "list(type)"),
    _attr('s: "\\xff"', "string"),
    _attr("shape { dim { size: -1 } dim { size: 4 } }", "shape"),
    _attr("shape { unknown_rank: true }", "shape"),
    _attr("tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 }", "tensor"),
    # invalid: both parsers must reject (the fast one by giving up)
    'op { name: "A" summary: B }',
    'op { name: "A" name: "B" }',
    'op { name: "A" summary "x" }',
    'op { name: "A" nosuchfield: 1 }',
    'op { name: "A"',
    'op { name: "A" } }',
    'op { name: "A" input_arg { name: "x" type: DT_NOPE } }',
    _attr("i: 1.5", "int"),
    _attr("i: 99999999999999999999", "int"),
    'op { name: "A" deprecation { version: 3000000000 } }',
    _attr("b: yes", "bool"),
    _attr("i: 1 b: true", "int"),
]


def _same(a, b) -> bool:
    if a == b:
        return True
    # NaN != NaN: compare the text forms instead
    return text_format.MessageToString(a) == text_format.MessageToString(b) and \
        "nan" in text_format.MessageToString(a)


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_text_agrees_with_protobuf(text):
    try:
        want = _slow(text)
    except text_format.ParseError:
        want = None
    try:
        got = _fast(text)
    except textproto.Unsupported:
        return  # protobuf decides: fine either way
    assert want is not None, "the fast reader accepted text protobuf rejects"
    assert _same(got, want), f"fast:\n{got}\nprotobuf:\n{want}"


def test_nan_default_is_nan():
    got = _fast(_attr("f: nan"))
    assert math.isnan(got.op[0].attr[0].default_value.f)


def test_lines_are_recorded():
    text = 'op {\n  name: "A"\n  signature {\n    input: "x: T"\n    input: "y: T"\n  }\n}\n'
    lines = textproto.parse(text, opdef_pb2.OpList())
    assert lines[("op", 0)] == 1
    assert lines[("op", 0, "name", 0)] == 2
    assert lines[("op", 0, "signature", 0)] == 3
    assert lines[("op", 0, "signature", 0, "input", 1)] == 5
