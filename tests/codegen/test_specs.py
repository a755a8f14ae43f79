"""The compact REGISTER_OP spelling: spec strings that must parse, and what they mean.

TensorFlow's grammar: attrs ``name: type [>= minimum] [= default]`` with types int, float,
bool, string, type, shape, tensor, func, list(...) of them, ``{allowed, values}`` and type
classes; args ``x: T``, ``values: N * T``, ``args: Tlist``, ``ref: Ref(T)`` or a fixed dtype.
"""

from __future__ import annotations

import pytest

from codegen import dtypes, model
from codegen.locations import Loc

LOC = Loc("spec.pbtxt", 7)

@pytest.mark.parametrize("spec,type_,default,allowed,minimum", [
    ("T: type", "type", None, None, None),
    ("T: {float, double} = DT_FLOAT", "type", "float", ("float", "double"), None),
    ("T: {half, bfloat16} = float16", "type", "half", ("half", "bfloat16"), None),
    ("T: realnumbertype", "type", None, dtypes.TYPE_CLASSES["realnumbertype"], None),
    ("n: int", "int", None, None, None),
    ("n: int = -3", "int", -3, None, None),
    ("alpha: float = 1.5", "float", 1.5, None, None),
    ("flag: bool = true", "bool", True, None, None),
    ("flag: bool = false", "bool", False, None, None),
    ("label: string = 'abc'", "string", "abc", None, None),
    ("padding: {'SAME', 'VALID'} = 'VALID'", "string", "VALID", ("SAME", "VALID"), None),
    ('padding: {"SAME", "VALID"}', "string", None, ("SAME", "VALID"), None),
    ("s: shape = [?, 4]", "shape", (-1, 4), None, None),
    ("s: shape = []", "shape", (), None, None),
    ("s: shape = ?", "shape", None, None, None),
    ("ksize: list(int) = [1, 2, 2, 1]", "list(int)", (1, 2, 2, 1), None, None),
    ("ksize: list(int) = []", "list(int)", (), None, None),
    ("Tlist: list(type) = [DT_INT32, float]", "list(type)", ("int32", "float"), None, None),
    ("shapes: list(shape) = [[1], ?]", "list(shape)", ((1,), None), None, None),
    ("modes: list({'a', 'b'}) = ['a']", "list(string)", ("a",), ("a", "b"), None),
    ("N: int >= 2", "int", None, None, 2),
    ("max_images: int >= 1 = 3", "int", 3, None, 1),
    ("ksize: list(int) >= 4", "list(int)", None, None, 4),
    ("Tlist: list(type) >= 1", "list(type)", None, None, 1),
])
def test_attr_spec(spec, type_, default, allowed, minimum):
    a = model.parse_attr_spec(spec, LOC)
    assert a.name == spec.split(":")[0]
    assert a.type == type_
    assert a.default == default
    assert a.has_default == ("=" in spec.replace(">=", ""))
    assert a.allowed == allowed
    assert a.minimum == minimum
    assert a.loc == LOC


def test_minimum_in_an_opdef_file(tmp_path):
    """A whole compact opdef with a list input and a minimum (TensorFlow's AddN)."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "add_n.pbtxt").write_text(
        'op {\n  name: "AddN"\n  signature {\n    input: "inputs: N * T"\n'
        '    output: "sum: T"\n    attr: "N: int >= 1"\n    attr: "T: numbertype"\n  }\n}\n')
    (op,) = model.load([str(tmp_path / "g")])
    assert op.attr("N").minimum == 1
    assert op.inputs[0].number_attr == "N"


@pytest.mark.parametrize("spec,fields", [
    ("x: T", dict(type=None, type_attr="T", number_attr=None, type_list_attr=None, is_ref=False)),
    ("x: float", dict(type="float", type_attr=None, number_attr=None, is_ref=False)),
    ("x: int64", dict(type="int64", type_attr=None)),
    ("values: N * T", dict(type=None, type_attr="T", number_attr="N", type_list_attr=None)),
    ("values: N * int32", dict(type="int32", type_attr=None, number_attr="N")),
    ("args: Tlist", dict(type=None, type_attr=None, type_list_attr="Tlist", number_attr=None)),
    ("ref: Ref(T)", dict(type_attr="T", is_ref=True)),
    # in the compact form an unknown bare name is a type attr (checked later against the attrs)
    ("x: U", dict(type=None, type_attr="U")),
    # a declared attr named like a dtype wins over the dtype
    ("x: half", dict(type=None, type_attr="half")),
])
def test_arg_spec(spec, fields):
    attrs = {"T": model.parse_attr_spec("T: type", LOC),
             "Tlist": model.parse_attr_spec("Tlist: list(type)", LOC),
             "half": model.parse_attr_spec("half: type", LOC)}
    if spec != "x: half":
        del attrs["half"]
    arg = model.parse_arg_spec(spec, LOC, attrs)
    assert arg.name == spec.split(":")[0]
    for k, v in fields.items():
        assert getattr(arg, k) == v, k
    assert arg.loc == LOC
