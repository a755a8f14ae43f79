"""The hostile-input matrix (issue 36): for every op the matrix drives, the inputs TensorFlow's
security advisories are made of, generated from the opdefs.

Each op starts from a small valid call (opmatrix.valid_case and its input builders); each
hostile case changes one thing about it:

* every input (data, index and list inputs alike): each dim 0 in turn, all dims 0, a dim of
  2^31 or 2^62 with a 0 elsewhere (an empty tensor whose dims overflow any product), rank 0,
  rank 8;
* every integer input (axes, perms, shapes, sizes, indices): all values -1, the dtype's
  minimum and maximum, 2^31, and an empty vector;
* every int attr: 0, -1, INT64_MAX, INT64_MIN; every list(int) attr: empty, one element too
  many, and each element 0, -1 and INT64_MAX in turn; every float attr: NaN, inf, -inf.

A case runs three ways: eagerly, in a graph of constants (shape inference at construction
sees every value) and in a graph of placeholders of unknown shape (shape functions at run
time). Each way must end in a typed error (of.OpError other than InternalError, or TypeError /
ValueError from the wrapper's argument checks) or in a result whose dtype and shape agree with what the op's shape
function predicted at construction. Anything else fails: another exception, a result that
contradicts the static shape, a crash, a hang.

Cases run in worker processes (``python hostile.py``), one case after another, each reporting
its outcome on stdout before the next starts: a worker that dies leaves a crash naming the op
and case in flight, and a new worker goes on with the next case. Workers cap their address space
(RLIMIT_AS), so an unbounded allocation fails instead of swapping the machine.
"""

from __future__ import annotations

import json
import math
import os
import resource
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
# Workers' address-space cap and per-case time limit (sanitized builds are several times slower).
MEMORY_LIMIT = int(os.environ.get("OPFORGE_HOSTILE_MEMORY", str(6 << 30)))
CASE_TIMEOUT = float(os.environ.get("OPFORGE_HOSTILE_TIMEOUT", "20"))


@dataclass(frozen=True)
class Hostile:
    id: str
    mutate: object  # (inputs, attrs) -> (inputs, attrs)


# ------------------------------------------------------------------------------ mutations


def _reshaped(a, shape):
    """An array of `shape` with a's dtype: a's values when the size allows, else zeros."""
    import numpy as np  # noqa: PLC0415

    a = np.asarray(a)
    size = math.prod(shape)
    if size == a.size:
        return a.reshape(shape)
    if size == 0:
        return np.zeros(shape, a.dtype)
    flat = a.reshape(-1)
    vals = np.resize(flat, size) if flat.size else np.zeros(size, a.dtype)
    return vals.reshape(shape)


def _big_dim(want: int, other: tuple, itemsize: int) -> int:
    """`want`, or the largest power of two below it that NumPy can hold beside `other` (NumPy
    refuses an array whose nonzero dims times the item size overflow int64, even when empty)."""
    room = (2**63 - 1) // (itemsize * math.prod(d for d in other if d) or 1)
    return min(want, 1 << (room.bit_length() - 1))


def _shape_variants(shape, itemsize: int = 1) -> list[tuple[str, tuple]]:
    r = len(shape)
    out = []
    for i in range(r):
        if shape[i] != 0:
            out.append((f"dim{i}=0", tuple(0 if k == i else d for k, d in enumerate(shape))))
    if r and any(shape):
        out.append(("all_dims_0", (0,) * r))
    if r >= 2:
        for want in (2**31, 2**62):
            big = _big_dim(want, tuple(shape[1:-1]), itemsize)
            out.append((f"dim0=2^{big.bit_length() - 1},dim{r - 1}=0", (big,) + tuple(shape[1:-1]) + (0,)))
    elif r == 1:
        for want in (2**31, 2**62):
            big = _big_dim(want, (), itemsize)
            out.append((f"[2^{big.bit_length() - 1},0]", (big, 0)))
    if r != 0:
        out.append(("rank0", ()))
    if r < 8:
        out.append(("rank8", (1,) * (8 - r) + tuple(shape)))
    return out


def _int_values(dtype) -> list[tuple[str, int]]:
    import numpy as np  # noqa: PLC0415

    info = np.iinfo(dtype)
    vals = [("-1", -1), ("min", int(info.min)), ("max", int(info.max))]
    if info.max >= 2**31:
        vals.append(("2^31", 2**31))
    return vals if info.min < 0 else [(n, v) for n, v in vals if v >= 0]


def _set_input(name, index, value):
    """A mutation replacing input `name` (element `index` of a list input) by value(old)."""

    def mutate(inputs, attrs):
        inputs = dict(inputs)
        if index is None:
            inputs[name] = value(inputs[name])
        else:
            inputs[name] = list(inputs[name])
            inputs[name][index] = value(inputs[name][index])
        return inputs, attrs

    return mutate


def _set_attr(name, value):
    def mutate(inputs, attrs):
        return inputs, {**attrs, name: value}

    return mutate


def hostile_cases(op, base_inputs, base_attrs, accepted_params) -> list[Hostile]:
    """The hostile cases of one op, from its valid call (inputs, attrs). accepted_params: the
    attr names the op's wrapper takes (inferred attrs, such as a list's N, are left out)."""
    import numpy as np  # noqa: PLC0415

    cases: list[Hostile] = []
    for arg in op.inputs:
        value = base_inputs[arg.name]
        slots = [(f"{arg.name}", None, value)] if not isinstance(value, list) else \
            [(f"{arg.name}[0]", 0, value[0])] if value else []
        for label, index, a in slots:
            a = np.asarray(a)
            for sid, shape in _shape_variants(a.shape, a.dtype.itemsize):
                cases.append(Hostile(f"{label}:{sid}", _set_input(arg.name, index,
                                                                  lambda old, s=shape: _reshaped(old, s))))
            if a.dtype.kind in "iu":
                for vid, v in _int_values(a.dtype):
                    cases.append(Hostile(f"{label}:values={vid}", _set_input(
                        arg.name, index, lambda old, v=v: np.full(np.shape(old), v, np.asarray(old).dtype))))
                cases.append(Hostile(f"{label}:empty_vector", _set_input(
                    arg.name, index, lambda old: np.zeros((0,), np.asarray(old).dtype))))
    for attr in op.attrs:
        if attr.name not in accepted_params:
            continue
        current = base_attrs.get(attr.name, attr.default if attr.has_default else None)
        if attr.type == "int":
            for vid, v in (("0", 0), ("-1", -1), ("INT64_MAX", INT64_MAX), ("INT64_MIN", INT64_MIN)):
                cases.append(Hostile(f"{attr.name}={vid}", _set_attr(attr.name, v)))
        elif attr.type == "list(int)":
            cases.append(Hostile(f"{attr.name}=[]", _set_attr(attr.name, [])))
            cur = list(current) if isinstance(current, (list, tuple)) and current else [1]
            cases.append(Hostile(f"{attr.name}=one_too_many", _set_attr(attr.name, cur + [cur[-1]])))
            for i in range(min(len(cur), 4)):
                for vid, v in (("0", 0), ("-1", -1), ("INT64_MAX", INT64_MAX)):
                    if cur[i] != v:
                        cases.append(Hostile(f"{attr.name}[{i}]={vid}",
                                             _set_attr(attr.name, cur[:i] + [v] + cur[i + 1:])))
        elif attr.type == "float":
            for vid, v in (("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf)):
                cases.append(Hostile(f"{attr.name}={vid}", _set_attr(attr.name, v)))
    return cases


# ------------------------------------------------------------------------------ the ops


def _base_calls():
    """Valid calls of ops the reference matrix does not drive (no NumPy reference in their
    opdef): {op: builder(rng) -> (inputs, attrs)}. The windowed ops, resizes, top-k, the
    stateless random ops' shape inputs and the fused contractions are where advisories cluster."""
    import numpy as np  # noqa: PLC0415

    import hostile_string_sparse  # noqa: PLC0415
    import opforge as of  # noqa: PLC0415

    f32 = lambda r, *s: r.standard_normal(s).astype(np.float32)  # noqa: E731
    i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    w3 = dict(strides=[1, 1, 1, 1, 1], padding="SAME")
    p3 = dict(ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="SAME")

    def max_pool3d_grad(r):
        x = f32(r, 1, 4, 5, 6, 2)
        y = of.raw_ops.MaxPool3D(input=x, **p3).numpy()
        return {"orig_input": x, "orig_output": y, "grad": f32(r, *y.shape)}, p3

    def lrn_grad(r):
        x = f32(r, 2, 3, 3, 6)
        y = of.raw_ops.LRN(input=x, depth_radius=2).numpy()
        return {"input_grads": f32(r, *y.shape), "input_image": x, "output_image": y}, {"depth_radius": 2}

    def random(extra=None):
        return lambda r: ({"shape": i32(2, 3), "seed": np.array([1, 2], np.int64), **(extra or {})}, {})

    return {
        "Conv3D": lambda r: ({"input": f32(r, 1, 4, 5, 6, 2), "filter": f32(r, 2, 2, 2, 2, 3)}, w3),
        "Conv3DBackpropInputV2": lambda r: ({"input_sizes": i32(1, 4, 5, 6, 2), "filter": f32(r, 2, 2, 2, 2, 3),
                                            "out_backprop": f32(r, 1, 4, 5, 6, 3)}, w3),
        "Conv3DBackpropFilterV2": lambda r: ({"input": f32(r, 1, 4, 5, 6, 2), "filter_sizes": i32(2, 2, 2, 2, 3),
                                             "out_backprop": f32(r, 1, 4, 5, 6, 3)}, w3),
        "MaxPool3D": lambda r: ({"input": f32(r, 1, 4, 5, 6, 2)}, p3),
        "AvgPool3D": lambda r: ({"input": f32(r, 1, 4, 5, 6, 2)}, p3),
        "MaxPool3DGrad": max_pool3d_grad,
        "AvgPool3DGrad": lambda r: ({"orig_input_shape": i32(1, 4, 5, 6, 2), "grad": f32(r, 1, 2, 3, 3, 2)}, p3),
        "LRN": lambda r: ({"input": f32(r, 2, 3, 3, 6)}, {"depth_radius": 2}),
        "LRNGrad": lrn_grad,
        "ResizeBilinear": lambda r: ({"images": f32(r, 1, 4, 5, 2), "size": i32(7, 3)}, {}),
        "ResizeNearestNeighbor": lambda r: ({"images": f32(r, 1, 4, 5, 2), "size": i32(7, 3)}, {}),
        "ResizeBilinearGrad": lambda r: ({"grads": f32(r, 1, 7, 3, 2), "original_image": f32(r, 1, 4, 5, 2)}, {}),
        "ResizeNearestNeighborGrad": lambda r: ({"grads": f32(r, 1, 7, 3, 2), "size": i32(4, 5)}, {}),
        "ResizeBicubic": lambda r: ({"images": f32(r, 1, 4, 5, 2), "size": i32(7, 3)}, {}),
        "ResizeBicubicGrad": lambda r: ({"grads": f32(r, 1, 7, 3, 2), "original_image": f32(r, 1, 4, 5, 2)}, {}),
        "ResizeArea": lambda r: ({"images": f32(r, 1, 4, 5, 2), "size": i32(7, 3)}, {}),
        "CropAndResize": lambda r: ({"image": f32(r, 2, 4, 5, 2), "boxes": f32(r, 3, 4), "box_ind": i32(0, 1, 1),
                                     "crop_size": i32(3, 2)}, {}),
        "CropAndResizeGradImage": lambda r: ({"grads": f32(r, 3, 3, 2, 2), "boxes": f32(r, 3, 4),
                                              "box_ind": i32(0, 1, 1), "image_size": i32(2, 4, 5, 2)},
                                             {"T": "float"}),
        "CropAndResizeGradBoxes": lambda r: ({"grads": f32(r, 3, 3, 2, 2), "image": f32(r, 2, 4, 5, 2),
                                              "boxes": f32(r, 3, 4), "box_ind": i32(0, 1, 1)}, {}),
        "RGBToHSV": lambda r: ({"images": f32(r, 2, 4, 3)}, {}),
        "HSVToRGB": lambda r: ({"images": f32(r, 2, 4, 3)}, {}),
        "AdjustContrastv2": lambda r: ({"images": f32(r, 3, 4, 3), "contrast_factor": np.float32(1.5)}, {}),
        "AdjustHue": lambda r: ({"images": f32(r, 3, 4, 3), "delta": np.float32(0.2)}, {}),
        "AdjustSaturation": lambda r: ({"images": f32(r, 3, 4, 3), "scale": np.float32(1.5)}, {}),
        "NonMaxSuppression": lambda r: ({"boxes": f32(r, 6, 4), "scores": f32(r, 6), "max_output_size": np.int32(3)},
                                        {}),
        "NonMaxSuppressionV2": lambda r: ({"boxes": f32(r, 6, 4), "scores": f32(r, 6), "max_output_size": np.int32(3),
                                           "iou_threshold": np.float32(0.5)}, {}),
        "NonMaxSuppressionV3": lambda r: ({"boxes": f32(r, 6, 4), "scores": f32(r, 6), "max_output_size": np.int32(3),
                                           "iou_threshold": np.float32(0.5), "score_threshold": np.float32(0)}, {}),
        "NonMaxSuppressionV4": lambda r: ({"boxes": f32(r, 6, 4), "scores": f32(r, 6), "max_output_size": np.int32(3),
                                           "iou_threshold": np.float32(0.5), "score_threshold": np.float32(0)},
                                          {"pad_to_max_output_size": True}),
        "NonMaxSuppressionV5": lambda r: ({"boxes": f32(r, 6, 4), "scores": f32(r, 6), "max_output_size": np.int32(3),
                                           "iou_threshold": np.float32(0.5), "score_threshold": np.float32(0),
                                           "soft_nms_sigma": np.float32(0.5)}, {"pad_to_max_output_size": True}),
        "NonMaxSuppressionWithOverlaps": lambda r: ({"overlaps": f32(r, 6, 6), "scores": f32(r, 6),
                                                     "max_output_size": np.int32(3),
                                                     "overlap_threshold": np.float32(0.5),
                                                     "score_threshold": np.float32(0)}, {}),
        "CombinedNonMaxSuppression": lambda r: ({"boxes": f32(r, 2, 6, 1, 4), "scores": f32(r, 2, 6, 3),
                                                 "max_output_size_per_class": np.int32(3),
                                                 "max_total_size": np.int32(5), "iou_threshold": np.float32(0.5),
                                                 "score_threshold": np.float32(0)}, {}),
        "ExtractGlimpse": lambda r: ({"input": f32(r, 2, 5, 6, 3), "size": i32(3, 4), "offsets": f32(r, 2, 2)}, {}),
        "ExtractGlimpseV2": lambda r: ({"input": f32(r, 2, 5, 6, 3), "size": i32(3, 4), "offsets": f32(r, 2, 2)},
                                       {"uniform_noise": False, "noise": "gaussian"}),
        "ExtractVolumePatches": lambda r: ({"input": f32(r, 1, 3, 4, 5, 2)},
                                           {"ksizes": [1, 2, 2, 3, 1], "strides": [1, 1, 2, 1, 1], "padding": "SAME"}),
        "DrawBoundingBoxes": lambda r: ({"images": f32(r, 2, 5, 6, 3), "boxes": f32(r, 2, 3, 4)}, {}),
        "DrawBoundingBoxesV2": lambda r: ({"images": f32(r, 2, 5, 6, 3), "boxes": f32(r, 2, 3, 4),
                                           "colors": f32(r, 2, 4)}, {}),
        "ExtractImagePatches": lambda r: ({"images": f32(r, 1, 5, 6, 2)},
                                          {"ksizes": [1, 2, 3, 1], "strides": [1, 2, 1, 1], "rates": [1, 1, 2, 1],
                                           "padding": "SAME"}),
        "TopKV2": lambda r: ({"input": f32(r, 3, 7), "k": np.int32(3)}, {}),
        "StatelessRandomNormal": random(),
        "StatelessRandomUniform": random(),
        "StatelessTruncatedNormal": random(),
        "StatelessRandomUniformInt": random({"minval": np.int32(0), "maxval": np.int32(10)}),
        "BroadcastGradientArgs": lambda r: ({"s0": i32(2, 1, 3), "s1": i32(4, 3)}, {}),
        # The stateful random ops: a shape input that allocates what it says.
        "RandomUniform": lambda r: ({"shape": i32(2, 3)}, {"dtype": "float", "seed": 1}),
        "RandomStandardNormal": lambda r: ({"shape": i32(2, 3)}, {"dtype": "float", "seed": 1}),
        "TruncatedNormal": lambda r: ({"shape": i32(2, 3)}, {"dtype": "float", "seed": 1}),
        "RandomUniformInt": lambda r: ({"shape": i32(2, 3), "minval": np.int32(0), "maxval": np.int32(9)},
                                       {"seed": 1}),
        "_FusedConv2D": lambda r: ({"input": f32(r, 1, 5, 5, 3), "filter": f32(r, 3, 3, 3, 4), "args": [f32(r, 4)],
                                    "host_args": []},
                                   {"strides": [1, 1, 1, 1], "padding": "SAME", "fused_ops": ["BiasAdd", "Relu"],
                                    "num_args": 1}),
        "_FusedDepthwiseConv2dNative": lambda r: ({"input": f32(r, 1, 5, 5, 3), "filter": f32(r, 3, 3, 3, 2),
                                                   "args": [f32(r, 6)]},
                                                  {"strides": [1, 1, 1, 1], "padding": "SAME",
                                                   "fused_ops": ["BiasAdd", "Relu6"]}),
        "_FusedMatMul": lambda r: ({"a": f32(r, 3, 4), "b": f32(r, 4, 5), "args": [f32(r, 5)]},
                                   {"fused_ops": ["BiasAdd"]}),
        **hostile_string_sparse.base_calls(),  # the string and SparseTensor ops
    }


def _spec_for(op, opmatrix):
    allowed = opmatrix.dispatch_dtypes(op)
    for s in ("float", "int32", "int64", "double"):
        if s in allowed:
            return s
    return allowed[0]


def op_cases(op, opmatrix):
    """(spec, base inputs, base attrs, hostile cases) of one op; deterministic per op."""
    import inspect  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    import opforge as of  # noqa: PLC0415

    rng = np.random.default_rng(opmatrix.seed_for(op.name, "hostile"))
    base = _base_calls().get(op.name)
    if base is not None:
        spec = "float"
        inputs, attrs = base(rng)
    else:
        spec = _spec_for(op, opmatrix)
        case = opmatrix.valid_case(op, spec)
        inputs = opmatrix.build_inputs(rng, op, spec, case)
        attrs = dict(case.attrs)
    params = set(inspect.signature(getattr(of.ops, op.snake_name)).parameters)
    accepted = {a.name for a in op.attrs if op.py_name(a.name) in params and a.type != "type"}
    return spec, inputs, attrs, hostile_cases(op, inputs, attrs, accepted)


def driven_ops(opmatrix):
    """The ops the reference matrix drives, and those with a base call here."""
    extra = [opmatrix.ALL_OPS_BY_NAME[n] for n in _base_calls() if n in opmatrix.ALL_OPS_BY_NAME]
    return list(opmatrix.OPS) + [op for op in extra if op.name not in opmatrix.OPS_BY_NAME]


def not_driven(opmatrix) -> dict:
    """{op: why} for the ops the hostile matrix leaves out."""
    driven = {op.name for op in driven_ops(opmatrix)}
    return {name: why for name, why in opmatrix.NOT_DRIVEN.items() if name not in driven}


# ------------------------------------------------------------------------------ running one case


def _typed(e, of) -> bool:
    """A typed error a caller can act on: an OpError (not InternalError, which for bad input
    means an unguarded path), or a TypeError / ValueError from the wrapper's argument checks."""
    if isinstance(e, of.InternalError):
        return False
    return isinstance(e, (of.OpError, TypeError, ValueError))


def _compatible(static, actual) -> bool:
    if static is None:
        return True
    if len(static) != len(actual):
        return False
    return all(s is None or s == a for s, a in zip(static, actual))


def run_case(op, opmatrix, inputs, attrs) -> str:
    """'ok ...' or 'error ...' (fine), or 'FAIL ...' with what went wrong."""
    import numpy as np  # noqa: PLC0415

    import opforge as of  # noqa: PLC0415

    outcomes = []
    # 1. eager
    try:
        out = opmatrix.as_outputs(opmatrix.call(op, inputs, attrs))
        eager = [(np.asarray(o).dtype, np.shape(o)) for o in out]
        outcomes.append("eager:ok")
    except Exception as e:  # noqa: BLE001
        if not _typed(e, of):
            return f"FAIL eager raised {type(e).__name__}: {str(e)[:300]}"
        eager = None
        outcomes.append(f"eager:{type(e).__name__}")
    # 2. a graph of constants: shape inference at construction sees every value
    # 3. a graph of placeholders of unknown shape: the shape functions run at run time
    for mode in ("constants", "placeholders"):
        g = of.Graph()
        try:
            with g.as_default():
                feeds = {}

                def convert(a):
                    if mode == "constants":
                        return of.constant(np.asarray(a))
                    p = of.placeholder(of.as_dtype(np.asarray(a).dtype), shape=None)
                    feeds[p] = np.asarray(a)
                    return p

                outs = opmatrix.as_outputs(opmatrix.call(op, inputs, attrs, convert=convert))
                static = [(o.dtype, None if o.shape.rank is None else tuple(o.shape.as_list())) for o in outs]
        except Exception as e:  # noqa: BLE001
            if not _typed(e, of):
                return f"FAIL {mode} graph construction raised {type(e).__name__}: {str(e)[:300]}"
            outcomes.append(f"{mode}:{type(e).__name__}")
            continue
        if mode == "constants" and eager is not None:
            for (sdt, sshape), (edt, eshape) in zip(static, eager):
                if np.dtype(sdt.as_numpy_dtype) != edt or not _compatible(sshape, eshape):
                    return (f"FAIL eager result {edt} {eshape} disagrees with the static "
                            f"{sdt.name} {sshape}")
        try:
            with of.Session(graph=g) as sess:
                got = sess.run(outs, feeds)
        except Exception as e:  # noqa: BLE001
            if not _typed(e, of):
                return f"FAIL {mode} graph run raised {type(e).__name__}: {str(e)[:300]}"
            outcomes.append(f"{mode}:{type(e).__name__}")
            continue
        for (sdt, sshape), r in zip(static, got):
            r = np.asarray(r, dtype=object) if isinstance(r, bytes) else np.asarray(r)  # (a scalar string)
            if np.dtype(sdt.as_numpy_dtype) != r.dtype or not _compatible(sshape, r.shape):
                return f"FAIL {mode} graph result {r.dtype} {r.shape} disagrees with the static {sdt.name} {sshape}"
        outcomes.append(f"{mode}:ok")
    return "ok " + " ".join(outcomes)


# ------------------------------------------------------------------------------ workers


def _all_cases(ops, opmatrix):
    """[(op, case id, inputs, attrs)] in a fixed order."""
    out = []
    for op in ops:
        _, inputs, attrs, cases = op_cases(op, opmatrix)
        for c in cases:
            i, a = c.mutate(inputs, attrs)
            out.append((op, c.id, i, a))
    return out


MARK = "@@hostile "  # the worker's report lines (anything else on stdout is ignored)


def _say(msg: dict) -> None:
    sys.stdout.write(MARK + json.dumps(msg) + "\n")
    sys.stdout.flush()


def worker_main(argv) -> int:
    """python hostile.py OP[,OP...] START: runs the cases of those ops from index START,
    printing one JSON line per case."""
    if "asan" not in os.environ.get("LD_PRELOAD", ""):  # (ASan's shadow memory alone is terabytes)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    sys.path.insert(0, str(HERE))
    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    import opmatrix  # noqa: PLC0415

    names, start = argv[0].split(","), int(argv[1])
    ops = [opmatrix.ALL_OPS_BY_NAME[n] for n in names]
    cases = _all_cases(ops, opmatrix)
    _say({"count": len(cases)})
    for k in range(start, len(cases)):
        op, cid, inputs, attrs = cases[k]
        _say({"start": k, "op": op.name, "case": cid})
        t0 = time.perf_counter()
        outcome = run_case(op, opmatrix, inputs, attrs)
        _say({"done": k, "op": op.name, "case": cid, "outcome": outcome,
              "seconds": round(time.perf_counter() - t0, 4)})
    return 0


def run_ops(names: list[str], env=None) -> list[dict]:
    """Runs every hostile case of `names` in workers; one record per case with its outcome
    ('ok ...', 'FAIL ...', 'CRASH signal N', 'HANG after S s')."""
    records: list[dict] = []
    start, total = 0, None
    env = dict(os.environ if env is None else env, SKBUILD_EDITABLE_VERBOSE="0")
    if "ASAN_OPTIONS" in env:  # (no RLIMIT_AS under ASan: its allocator caps a request instead)
        env["ASAN_OPTIONS"] += f":allocator_may_return_null=1:max_allocation_size_mb={MEMORY_LIMIT >> 20}"
    while total is None or start < total:
        stderr = tempfile.TemporaryFile(mode="w+")  # (a pipe could fill and stall the worker)
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), ",".join(names), str(start)],
                                stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=str(ROOT))
        in_flight = None
        deadline = None
        pending = b""
        fd = proc.stdout.fileno()
        while True:
            # Whole lines from the pipe itself (a buffered reader would hold lines that select()
            # no longer sees, and the time limit of the case among them would never start).
            lines = []
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                lines.append(line.decode())
            for line in lines:
                if not line.startswith(MARK):
                    continue
                msg = json.loads(line[len(MARK):])
                if "count" in msg:
                    total = msg["count"]
                elif "start" in msg:
                    in_flight = msg
                    deadline = time.monotonic() + CASE_TIMEOUT
                else:
                    records.append({"op": msg["op"], "case": msg["case"], "start": msg["done"],
                                    "outcome": msg["outcome"], "seconds": msg["seconds"]})
                    in_flight = None
                    deadline = None
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:  # the case in flight ran past its time
                proc.kill()
                proc.wait()
                records.append({**in_flight, "outcome": f"HANG after {CASE_TIMEOUT:.0f} s"})
                start = in_flight["start"] + 1
                break
            chunk = os.read(fd, 1 << 16)
            if chunk:
                pending += chunk
                continue
            # the worker is gone
            rc = proc.wait()
            stderr.seek(0)
            err = stderr.read()[-20000:]
            if in_flight is None:
                if total is None:
                    raise RuntimeError(f"hostile worker for {names} failed before its first case "
                                       f"(rc {rc}): {err}")
                start = total
                break
            why = f"signal {-rc}" if rc < 0 else f"exit code {rc}"
            # The sanitizer's verdict, or else the end of what the worker said.
            verdict = [ln for ln in err.splitlines() if "runtime error" in ln or "ERROR:" in ln or "Fatal" in ln]
            detail = " | ".join(verdict[:3]) if verdict else err.strip()[-600:]
            records.append({**in_flight, "outcome": f"CRASH {why}: {detail}"})
            start = in_flight["start"] + 1
            break
        if proc.poll() is None:
            proc.wait()
        stderr.close()
        if total is not None and start >= total:
            break
    return records


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
