"""The model back as a verbose (TensorFlow-form) OpDef: what `opforge show` prints.

Parsing the result must give back the same model (tests/codegen checks the round trip), so
nothing the opdef said is lost in loading.
"""

from __future__ import annotations

from . import dtypes
from ._proto import opdef_pb2
from .model import Attr, Op


def _set_value(av, a: Attr, value, as_list: bool) -> None:
    base = a.base_type
    if base in ("tensor", "func"):
        _set_opaque(av, base, value, as_list)
        return
    if as_list:
        lv = av.list
        lv.SetInParent()
        for v in value:
            if base == "int":
                lv.i.append(v)
            elif base == "float":
                lv.f.append(v)
            elif base == "bool":
                lv.b.append(v)
            elif base == "string":
                lv.s.append(v.encode())
            elif base == "type":
                lv.type.append(dtypes.enum(v))
            elif base == "shape":
                _set_shape(lv.shape.add(), v)
        return
    if base == "int":
        av.i = value
    elif base == "float":
        av.f = value
    elif base == "bool":
        av.b = value
    elif base == "string":
        av.s = value.encode()
    elif base == "type":
        av.type = dtypes.enum(value)
    elif base == "shape":
        _set_shape(av.shape, value)


def _set_opaque(av, base: str, value, as_list: bool) -> None:
    """Tensor defaults are kept as one-line TensorProto text, func defaults as the name."""
    from google.protobuf import text_format  # noqa: PLC0415
    values = value if as_list else (value,)
    if as_list:
        av.list.SetInParent()
    for v in values:
        if base == "tensor":
            target = av.list.tensor.add() if as_list else av.tensor
            text_format.Parse(v, target)
        else:
            target = av.list.func.add() if as_list else av.func
            target.name = v


def _set_shape(sp, dims) -> None:
    sp.SetInParent()
    if dims is None:
        sp.unknown_rank = True
        return
    for d in dims:
        sp.dim.add().size = d


def _arg(pb, arg) -> None:
    pb.name = arg.name
    if arg.description:
        pb.description = arg.description
    if arg.type:
        pb.type = dtypes.enum(arg.type)
    if arg.type_attr:
        pb.type_attr = arg.type_attr
    if arg.number_attr:
        pb.number_attr = arg.number_attr
    if arg.type_list_attr:
        pb.type_list_attr = arg.type_list_attr
    if arg.is_ref:
        pb.is_ref = True


def to_proto(op: Op):
    pb = opdef_pb2.OpDef()
    pb.name = op.name
    for a in op.inputs:
        _arg(pb.input_arg.add(), a)
    for a in op.outputs:
        _arg(pb.output_arg.add(), a)
    for a in op.attrs:
        ad = pb.attr.add()
        ad.name = a.name
        ad.type = a.type
        if a.has_default:
            _set_value(ad.default_value, a, a.default, a.type.startswith("list("))
        if a.description:
            ad.description = a.description
        if a.minimum is not None:
            ad.has_minimum = True
            ad.minimum = a.minimum
        if a.allowed is not None:
            _set_value(ad.allowed_values, Attr(a.name, a.base_type, False, None, None, None, "", a.loc),
                       a.allowed, True)
    if op.summary:
        pb.summary = op.summary
    if op.description:
        pb.description = op.description
    if op.deprecation:
        pb.deprecation.version, pb.deprecation.explanation = op.deprecation
    pb.is_commutative = op.is_commutative
    pb.is_aggregate = op.is_aggregate
    pb.is_stateful = op.is_stateful
    pb.is_distributed_communication = op.is_distributed_communication
    if op.shape_fn:
        pb.shape_fn = f"{op.shape_fn.name}({', '.join(op.shape_fn.args)})"
    for g in op.gradients:
        e = pb.gradient.add()
        e.wrt, e.expr = g.wrt, g.expr
    pb.gradient_fn = op.gradient_fn
    pb.not_differentiable = op.not_differentiable
    pb.reference = op.reference
    for name, rename_to in op.python_names:
        pb.python_name.add(name=name, rename_to=rename_to)
    return pb
