"""Validating parsed ops, one by one (args name declared attrs of the right type, defaults
within their constraints, shape functions from the catalogue with fitting arguments, gradients
that use only known names) and as a set (unique op names and wrapper names)."""

from __future__ import annotations

from . import shape_fns
from .locations import Loc
from .model_types import CAMEL_NAME, IDENTIFIER, Arg, Attr, Op, OpDefError, ShapeFn


def _check_op(op: Op, known_ops: set[str]) -> None:
    if not CAMEL_NAME.match(op.name):
        raise OpDefError(op.loc, f"op name '{op.name}' is not CamelCase (e.g. 'MatMul')")
    seen: dict[str, Loc] = {}
    for item in op.attrs + op.inputs + op.outputs:
        if not IDENTIFIER.match(item.name):
            raise OpDefError(item.loc, f"'{item.name}' is not a valid name in op {op.name}")
    for a in op.attrs:
        if a.name in seen:
            raise OpDefError(a.loc, f"op {op.name} declares attr '{a.name}' twice")
        seen[a.name] = a.loc
    args_seen: set[str] = set()
    for group in (op.inputs, op.outputs):
        for arg in group:
            if arg.name in args_seen and group is op.inputs:
                raise OpDefError(arg.loc, f"op {op.name} declares input '{arg.name}' twice")
            args_seen.add(arg.name)
            _check_arg(op, arg)
    for a in op.attrs:
        _check_attr(op, a)
    if op.shape_fn is not None:
        _check_shape_fn(op, op.shape_fn)
    _check_gradients(op, known_ops)


def _check_arg(op: Op, arg: Arg) -> None:
    kinds = sum(bool(x) for x in (arg.type, arg.type_attr, arg.type_list_attr))
    if kinds != 1:
        raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} needs exactly one of "
                                  f"type, type_attr, type_list_attr")
    if arg.type_attr:
        a = op.attr(arg.type_attr)
        if a is None:
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} names type attr "
                                      f"'{arg.type_attr}', which is not declared")
        if a.type != "type":
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name}: attr "
                                      f"'{arg.type_attr}' is '{a.type}', not 'type'")
    if arg.type_list_attr:
        a = op.attr(arg.type_list_attr)
        if a is None:
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} names type list attr "
                                      f"'{arg.type_list_attr}', which is not declared")
        if a.type != "list(type)":
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name}: attr "
                                      f"'{arg.type_list_attr}' is '{a.type}', not 'list(type)'")
    if arg.number_attr:
        a = op.attr(arg.number_attr)
        if a is None:
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} names number attr "
                                      f"'{arg.number_attr}', which is not declared")
        if a.type != "int":
            raise OpDefError(arg.loc, f"number_attr '{arg.number_attr}' of arg '{arg.name}' in op "
                                      f"{op.name} is '{a.type}', not an int attr")


def _check_attr(op: Op, a: Attr) -> None:
    if not a.has_default:
        return
    values = a.default if a.type.startswith("list(") else (a.default,)
    if a.allowed is not None:
        for v in values:
            if v not in a.allowed:
                shown = ", ".join(map(str, a.allowed))
                raise OpDefError(a.loc, f"default {v!r} of attr '{a.name}' in op {op.name} is not "
                                        f"among its allowed values {{{shown}}}")
    if a.minimum is not None:
        n = len(values) if a.type.startswith("list(") else a.default
        if n < a.minimum:
            raise OpDefError(a.loc, f"default of attr '{a.name}' in op {op.name} is below its "
                                    f"minimum {a.minimum}")


def _check_shape_fn(op: Op, sf: ShapeFn) -> None:
    if sf.name == shape_fns.CUSTOM:
        return
    spec = shape_fns.CATALOGUE.get(sf.name)
    if spec is None:
        known = ", ".join(sorted(shape_fns.CATALOGUE) + [shape_fns.CUSTOM])
        raise OpDefError(sf.loc, f"unknown shape function '{sf.name}' in op {op.name} "
                                 f"(known: {known})")
    if len(sf.args) != len(spec.params):
        raise OpDefError(sf.loc, f"shape function '{sf.name}' takes {len(spec.params)} "
                                 f"argument(s), op {op.name} gives {len(sf.args)}")
    for arg, param in zip(sf.args, spec.params):
        if param.kind in (shape_fns.INPUT, shape_fns.VALUE):
            if op.input(arg) is None:
                raise OpDefError(sf.loc, f"shape function '{sf.name}' of op {op.name}: "
                                         f"'{param.name}' must be an input, '{arg}' is not one")
        else:
            a = op.attr(arg)
            if a is None or a.type != param.attr_type:
                raise OpDefError(sf.loc, f"shape function '{sf.name}' of op {op.name}: "
                                         f"'{param.name}' must be a {param.attr_type} attr, "
                                         f"'{arg}' is not one")


# Names a gradient expression may use besides the op's own names and the op wrappers.
GRADIENT_HELPERS = ("unbroadcast", "reduce_grad", "reduce_max_grad", "invert_permutation",
                    "shape_of", "dtype_of", "conj_of")


def _check_gradients(op: Op, known_ops: set[str]) -> None:
    if op.not_differentiable and (op.gradients or op.gradient_fn):
        raise OpDefError(op.loc, f"op {op.name} is not_differentiable but declares a gradient")
    own = {a.name for a in op.inputs + op.outputs + op.attrs} | {"grad", "grads"}
    allowed = own | known_ops | set(GRADIENT_HELPERS)
    wrts: set[str] = set()
    for g in op.gradients:
        if op.input(g.wrt) is None:
            raise OpDefError(g.loc, f"gradient of op {op.name} is with respect to '{g.wrt}', "
                                    f"which is not an input")
        if g.wrt in wrts:
            raise OpDefError(g.loc, f"op {op.name} has two gradients with respect to '{g.wrt}'")
        wrts.add(g.wrt)
        for n in g.names:
            if n not in allowed:
                raise OpDefError(g.loc, f"gradient of op {op.name} with respect to '{g.wrt}' "
                                        f"uses unknown name '{n}'")



def check(ops: list[Op]) -> list[Op]:
    """Validates a whole set of ops together; returns them sorted by (group, name)."""
    first: dict[str, Op] = {}
    for op in ops:
        if op.name in first:
            raise OpDefError(op.loc, f"duplicate op name '{op.name}' (first defined at "
                                     f"{first[op.name].loc})")
        first[op.name] = op
    by_wrapper: dict[str, Op] = {}
    for op in ops:
        other = by_wrapper.get(op.snake_name)
        if other is not None:
            raise OpDefError(op.loc, f"op '{op.name}' and op '{other.name}' (at {other.loc}) both "
                                     f"get the Python wrapper name '{op.snake_name}'")
        by_wrapper[op.snake_name] = op
    known = set(by_wrapper)
    for op in ops:
        _check_op(op, known)
    return sorted(ops, key=lambda o: (o.group, o.name))

