"""The C++ face of an op: the typed call struct kernels receive and the OpSpec registration."""

from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes, shape_fns
from ..model import Attr, Op

CPP_DTYPES = {
    "float": "kFloat", "double": "kDouble", "int32": "kInt32", "uint8": "kUInt8",
    "int16": "kInt16", "int8": "kInt8", "int64": "kInt64", "bool": "kBool",
    "bfloat16": "kBFloat16", "half": "kHalf",
    "qint8": "kQInt8", "quint8": "kQUInt8", "qint32": "kQInt32", "qint16": "kQInt16", "quint16": "kQUInt16",
    "uint16": "kUInt16", "uint32": "kUInt32", "uint64": "kUInt64",
}

_ATTR_ENUM = {
    "int": "kInt", "float": "kFloat", "bool": "kBool", "string": "kString", "type": "kType",
    "shape": "kShape", "tensor": "kTensor", "func": "kFunc",
}
# (C++ member type, AttrValue field) per attr type; None: not exposed to kernels.
_MEMBER = {
    "int": ("int64_t", "i"), "float": ("float", "f"), "bool": ("bool", "b"),
    "string": ("const std::string&", "s"), "type": ("DType", "type"),
    "shape": ("const Shape&", "shape"),
    "func": ("const std::string&", "s"),  # the function's name in the library (opforge/function.h)
    "tensor": ("const Tensor&", "tensor"),
    "list(int)": ("const std::vector<int64_t>&", "list_i"),
    "list(float)": ("const std::vector<float>&", "list_f"),
    "list(bool)": ("const std::vector<bool>&", "list_b"),
    "list(string)": ("const std::vector<std::string>&", "list_s"),
    "list(type)": ("const std::vector<DType>&", "list_type"),
    "list(shape)": ("const std::vector<Shape>&", "list_shape"),
}

_CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class",
    "const", "constexpr", "continue", "default", "delete", "do", "double", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
    "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr", "operator", "or",
    "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while",
    "xor", "ctx",
}


def member_name(name: str) -> str:
    return name + "_" if name in _CPP_KEYWORDS else name


def dtype_expr(spec: str) -> str:
    if spec in CPP_DTYPES:
        return f"DType::{CPP_DTYPES[spec]}"
    return f"static_cast<DType>({dtypes.enum(spec)})"


@dataclass(frozen=True)
class Member:
    decl: str  # "const Tensor& x"
    init: str  # "x(ctx.input(0))"


@dataclass(frozen=True)
class CppOp:
    op: Op
    struct: str
    members: tuple[Member, ...]
    arg_inits: tuple[str, ...]  # ArgSpec initializers for inputs
    out_inits: tuple[str, ...]
    attr_blocks: tuple[tuple[str, ...], ...]  # statements building each AttrSpec
    dispatch_attr: int
    shape_fn: str  # the lambda body, or "" for none


def _attr_value(a: Attr, value) -> str:
    base, is_list = a.base_type, a.type.startswith("list(")
    def scalar(v):
        if base == "int":
            return f"int64_t{{{v}}}"
        if base == "float":
            return f"{float(v)!r}f".replace("inff", "INFINITY").replace("nanf", "NAN")
        if base == "bool":
            return "true" if v else "false"
        if base == "string":
            return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
        if base == "type":
            return dtype_expr(v)
        if base == "shape":
            return "Shape::UnknownRank()" if v is None else \
                "Shape(std::vector<int64_t>{" + ", ".join(str(d) for d in v) + "})"
        return None
    maker = {"int": "Int", "float": "Float", "bool": "Bool", "string": "String", "type": "Type",
             "shape": "OfShape"}.get(base)
    if maker is None:
        return "AttrValue()"
    if is_list:
        elem = {"int": "int64_t", "float": "float", "bool": "bool", "string": "std::string",
                "type": "DType", "shape": "Shape"}[base]
        return f"AttrValue::List{maker if maker != 'OfShape' else 'Shape'}(std::vector<{elem}>{{" + \
            ", ".join(scalar(v) for v in value) + "})"
    return f"AttrValue::{maker}({scalar(value)})"


def _arg_init(op: Op, arg) -> str:
    idx = {a.name: i for i, a in enumerate(op.attrs)}
    t = dtype_expr(arg.type) if arg.type else "DType::kInvalid"
    ta = idx[arg.type_attr] if arg.type_attr else -1
    na = idx[arg.number_attr] if arg.number_attr else -1
    tl = idx[arg.type_list_attr] if arg.type_list_attr else -1
    return f'ArgSpec{{"{arg.name}", {t}, {ta}, {na}, {tl}, {"true" if arg.is_ref else "false"}}}'


def _shape_fn(op: Op) -> str:
    sf = op.shape_fn
    if sf is None:
        return ""
    if sf.name == shape_fns.CUSTOM:
        # Looked up at call time: the kernel file registering it may initialize later.
        return f'[](ShapeContext& c) {{ return shape_fns::call_custom("{op.name}", c); }}'
    spec = shape_fns.CATALOGUE[sf.name]
    in_idx = {a.name: i for i, a in enumerate(op.inputs)}
    at_idx = {a.name: i for i, a in enumerate(op.attrs)}
    args = ["c"]
    for name, p in zip(sf.args, spec.params):
        args.append(str(in_idx[name] if p.kind in (shape_fns.INPUT, shape_fns.VALUE) else at_idx[name]))
    return f"[](ShapeContext& c) {{ return shape_fns::{sf.name}({', '.join(args)}); }}"


def cpp_op(op: Op) -> CppOp:
    members: list[Member] = []
    for i, arg in enumerate(op.inputs):
        n = member_name(arg.name)
        if arg.is_list:
            members.append(Member(f"TensorList {n}", f"{n}(ctx.input_list({i}))"))
        else:
            members.append(Member(f"const Tensor& {n}", f"{n}(ctx.input({i}))"))
    for i, a in enumerate(op.attrs):
        if a.type in _MEMBER:
            ctype, field = _MEMBER[a.type]
            n = member_name(a.name)
            members.append(Member(f"{ctype} {n}", f"{n}(ctx.attr({i}).{field})"))
    single_outputs = all(not o.is_list for o in op.outputs)
    if single_outputs:
        for i, o in enumerate(op.outputs):
            n = member_name(o.name)
            members.append(Member(f"Tensor& {n}", f"{n}(ctx.output({i}))"))
    members.append(Member("KernelContext& ctx", "ctx(ctx)"))

    attr_blocks = []
    for a in op.attrs:
        st = [f'a.name = "{a.name}";',
              f"a.type = AttrType::k{'List' if a.type.startswith('list(') else ''}"
              f"{_ATTR_ENUM[a.base_type][1:]};"]
        if a.name in op.inferred_attrs:
            st.append("a.inferred = true;")
        if a.has_default:
            st.append("a.has_default = true;")
            st.append(f"a.default_value = {_attr_value(a, a.default)};")
        if a.allowed:
            vals = ", ".join(_attr_value(Attr(a.name, a.base_type, False, None, None, None, "", a.loc), v)
                             for v in a.allowed)
            st.append(f"a.allowed = {{{vals}}};")
        if a.minimum is not None:
            st.append("a.has_minimum = true;")
            st.append(f"a.minimum = {a.minimum};")
        attr_blocks.append(tuple(st))

    dispatch = -1
    referenced = [x.type_attr for x in op.inputs + op.outputs if x.type_attr]
    for i, a in enumerate(op.attrs):
        if a.type == "type" and a.name in referenced:
            dispatch = i
            break
    return CppOp(op, f"{op.name.replace('>', '_')}Args", tuple(members),
                 tuple(_arg_init(op, a) for a in op.inputs),
                 tuple(_arg_init(op, a) for a in op.outputs), tuple(attr_blocks), dispatch,
                 _shape_fn(op))
