"""The catalogue of shape functions the runtime implements (runtime/src/shape_fns.cc).

An opdef names one of these with its arguments bound to the op's inputs and attrs, e.g.
``shape_fn: "matmul(a, b, transpose_a, transpose_b)"``. Codegen checks the name, the arity and
the kind of every argument; the C++ emitter turns the call into a registration.
"""

from __future__ import annotations

from dataclasses import dataclass

INPUT = "input"  # the shape of an input (a list input binds all of its tensors)
VALUE = "value"  # the value of an int32/int64 input, when known (host memory)
ATTR = "attr"  # an attr of the named type


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    attr_type: str = ""  # for ATTR params


@dataclass(frozen=True)
class ShapeFnSpec:
    name: str
    params: tuple[Param, ...]
    doc: str


CATALOGUE: dict[str, ShapeFnSpec] = {
    s.name: s
    for s in (
        ShapeFnSpec("unchanged", (Param("x", INPUT),),
                    "every output has the shape of x (all of x's tensors must agree)"),
        ShapeFnSpec("broadcast", (Param("x", INPUT), Param("y", INPUT)),
                    "NumPy broadcasting of x and y"),
        ShapeFnSpec("matmul",
                    (Param("a", INPUT), Param("b", INPUT), Param("transpose_a", ATTR, "bool"),
                     Param("transpose_b", ATTR, "bool")),
                    "[m, k] x [k, n] -> [m, n], after the optional transposes"),
        ShapeFnSpec("reduce",
                    (Param("input", INPUT), Param("axis", VALUE), Param("keep_dims", ATTR, "bool")),
                    "input with the axes in axis removed (or kept as 1)"),
        ShapeFnSpec("scalar", (), "a scalar"),
        ShapeFnSpec("from_attr", (Param("shape", ATTR, "shape"),), "the shape held by a shape attr"),
        ShapeFnSpec("reshape", (Param("tensor", INPUT), Param("shape", VALUE)),
                    "the value of shape, with one -1 inferred from tensor's size"),
        ShapeFnSpec("transpose", (Param("x", INPUT), Param("perm", VALUE)),
                    "x's dims permuted by perm"),
        ShapeFnSpec("fill", (Param("dims", VALUE),), "the shape given by the value of dims"),
        ShapeFnSpec("tensor_attr", (Param("value", ATTR, "tensor"),),
                    "the shape of the tensor held by a tensor attr (Const)"),
        ShapeFnSpec("shape_vector", (Param("input", INPUT),),
                    "a vector with one entry per dimension of input (Shape)"),
        ShapeFnSpec("range", (Param("start", VALUE), Param("limit", VALUE), Param("delta", VALUE)),
                    "a vector of ceil((limit - start) / delta) elements"),
        ShapeFnSpec("vector", (), "every output is a vector of unknown length"),
        ShapeFnSpec("none", (), "the op has no outputs"),
    )
}

CUSTOM = "custom"
