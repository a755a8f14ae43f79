"""The op matrix's dtypes and values: dtype spec names in NumPy and opforge, tolerances, seeds,
the value domain of each data input, random data, and IEEE special values."""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass

import numpy as np

import codegen.dtypes
import opforge as of

SEED_OFFSET = int(os.environ.get("OPFORGE_OPS_SEED", "0"))

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "bfloat16", "half", "float",
              "double")
# Dtypes only the data-movement ops take (Identity, Reshape, ConcatV2, Cast ...): driven where an
# op declares them, not used as "wrong dtype" probes for every op.
WIDE_UNSIGNED = ("uint16", "uint32", "uint64")
LOW_PRECISION = ("half", "bfloat16")


# ------------------------------------------------------------------------------ dtypes


def np_dtype(spec: str) -> np.dtype:
    """NumPy dtype of an opdef dtype spec name ("half" -> float16, "bfloat16" -> ml_dtypes)."""
    return np.dtype(of.as_dtype(codegen.dtypes.python_name(spec)).as_numpy_dtype)


def of_dtype(spec: str):
    return of.as_dtype(codegen.dtypes.python_name(spec))


def kind(spec: str) -> str:
    """'b' (bool), 'u', 'i' or 'f' (the 16-bit floats included)."""
    if spec in LOW_PRECISION:
        return "f"
    return np_dtype(spec).kind


def is_float(spec: str) -> bool:
    return kind(spec) == "f"


def spec_of_np(dt) -> str:
    dt = np.dtype(dt)
    for s in ALL_DTYPES + WIDE_UNSIGNED:
        if np_dtype(s) == dt:
            return s
    raise KeyError(dt)


TOLERANCE = {"double": 1e-12, "float": 1e-5, "half": 1e-2, "bfloat16": 2e-2}


def seed_for(*parts) -> int:
    return (zlib.crc32("|".join(map(str, parts)).encode()) + SEED_OFFSET) % (2**32)


# ------------------------------------------------------------------------------ values


@dataclass(frozen=True)
class Domain:
    """Value domain of one data input, per dtype kind."""

    float: tuple = (-3.0, 3.0)
    int: tuple = (-10, 10)
    uint: tuple = (0, 20)
    away_from_zero: float = 0.0  # |v| >= this (integers: non-zero when > 0)
    choices: tuple | None = None  # draw from these values only (ties for comparisons)


DEFAULT_DOMAIN = Domain()

# Input value domains, keyed by op name then input name ("*" for every data input).
DOMAINS: dict[str, dict[str, Domain]] = {
    "Log": {"*": Domain(float=(0.1, 4.0))},
    "Sqrt": {"*": Domain(float=(0.0, 4.0))},
    "Exp": {"*": Domain(float=(-3.0, 3.0))},
    "RealDiv": {"y": Domain(float=(-4.0, 4.0), int=(-6, 6), uint=(1, 6), away_from_zero=0.5)},
    "Pow": {"x": Domain(float=(0.25, 2.5), int=(-3, 3)),
            "y": Domain(float=(-2.0, 2.0), int=(0, 3))},
    "Equal": {"*": Domain(choices=(-1, 0, 1))},
    "Less": {"*": Domain(choices=(0, 1, 2, 3))},
    "Greater": {"*": Domain(choices=(0, 1, 2, 3))},
    "Square": {"*": Domain(int=(-11, 11), uint=(0, 15))},
    # ---- math ops (issue 4)
    "Reciprocal": {"*": Domain(int=(-3, 3), away_from_zero=0.25)},
    "Rsqrt": {"*": Domain(float=(0.1, 4.0))},
    "Asin": {"*": Domain(float=(-1.0, 1.0))},
    "Acos": {"*": Domain(float=(-1.0, 1.0))},
    "Atanh": {"*": Domain(float=(-0.95, 0.95))},
    "Acosh": {"*": Domain(float=(1.0, 4.0))},
    "Log1p": {"*": Domain(float=(-0.9, 3.0))},
    "Round": {"*": Domain(choices=tuple(np.arange(-4.0, 4.01, 0.25)))},  # ties to even
    "FloorDiv": {"y": Domain(float=(-4.0, 4.0), int=(-6, 6), uint=(1, 6), away_from_zero=0.5)},
    "FloorMod": {"y": Domain(float=(-4.0, 4.0), int=(-6, 6), uint=(1, 6), away_from_zero=0.5)},
    "NotEqual": {"*": Domain(choices=(-1, 0, 1))},
    "LessEqual": {"*": Domain(choices=(0, 1, 2, 3))},
    "GreaterEqual": {"*": Domain(choices=(0, 1, 2, 3))},
    "Prod": {"*": Domain(float=(0.6, 1.4), int=(-3, 3))},
    "ArgMax": {"*": Domain(choices=(-1, 0, 1, 2, 3))},  # ties: the first index wins
    "ArgMin": {"*": Domain(choices=(-1, 0, 1, 2, 3))},
    "ClipByValue": {"clip_value_min": Domain(float=(-2.0, -0.2), int=(-5, -1), uint=(0, 5)),
                    "clip_value_max": Domain(float=(0.2, 2.0), int=(1, 5), uint=(6, 12))},
    # ---- end math ops
    # ---- special functions (opdefs/math/lgamma.pbtxt ...): inside each function's domain
    "Lgamma": {"*": Domain(float=(0.1, 6.0))},
    "Digamma": {"*": Domain(float=(0.1, 6.0))},
    "Erfinv": {"*": Domain(float=(-0.95, 0.95))},
    "Ndtri": {"*": Domain(float=(0.02, 0.98))},
    "Igamma": {"a": Domain(float=(0.2, 4.0)), "x": Domain(float=(0.05, 5.0))},
    "Igammac": {"a": Domain(float=(0.2, 4.0)), "x": Domain(float=(0.05, 5.0))},
    "Zeta": {"x": Domain(float=(1.5, 5.0)), "q": Domain(float=(0.3, 3.0))},
    "Polygamma": {"a": Domain(choices=(0, 1, 2, 3)), "x": Domain(float=(0.3, 3.0))},
    "Betainc": {"a": Domain(float=(0.3, 4.0)), "b": Domain(float=(0.3, 4.0)), "x": Domain(float=(0.05, 0.95))},
}


def domain(op_name: str, input_name: str) -> Domain:
    d = DOMAINS.get(op_name, {})
    return d.get(input_name, d.get("*", DEFAULT_DOMAIN))


def random_values(rng, shape, spec: str, dom: Domain = DEFAULT_DOMAIN) -> np.ndarray:
    """Random data of dtype `spec` in domain `dom` (16-bit floats rounded from float64)."""
    shape = tuple(shape)
    dt = np_dtype(spec)
    k = kind(spec)
    if dom.choices is not None:
        vals = np.asarray(dom.choices)
        if k == "u":
            vals = np.abs(vals)
        if k == "b":
            vals = vals != 0
        return rng.choice(vals, size=shape).astype(dt)
    if k == "b":
        return rng.random(shape) < 0.5
    if k == "f":
        lo, hi = dom.float
        v = rng.uniform(lo, hi, shape)
        if dom.away_from_zero:
            small = np.abs(v) < dom.away_from_zero
            v = np.where(small, np.copysign(dom.away_from_zero + np.abs(v), v + (v == 0)), v)
        return v.astype(dt)
    lo, hi = dom.uint if k == "u" else dom.int
    info = np.iinfo(dt)
    lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
    v = rng.integers(lo, hi + 1, shape)
    if dom.away_from_zero:
        v = np.where(v == 0, hi if hi != 0 else lo, v)
    return v.astype(dt)


def cast_domain(src: str, dst: str) -> Domain:
    """Values every (src, dst) pair converts exactly or by truncation toward zero (no overflow)."""
    lo = 0 if "u" in (kind(src), kind(dst)) else -100
    return Domain(float=(lo, 100.0), int=(lo, 100), uint=(0, 100))


# IEEE special values (and the edges of half precision) for the float elementwise/reduce ops.
SPECIAL_VALUES = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -3.5, 1e30, -1e-30, 65504.0, 7e4)


def special_values(shape, spec, k: int) -> np.ndarray:
    """SPECIAL_VALUES along the (last) axis of `shape` that has their length, rotated by
    k + 3 * (index along the other axes) so that rows differ."""
    v = np.asarray(SPECIAL_VALUES)
    ax = max(i for i, d in enumerate(shape) if d == len(v))
    out = np.empty(shape)
    others = [d for i, d in enumerate(shape) if i != ax]
    for r, idx in enumerate(np.ndindex(*others)):
        idx = list(idx)
        idx.insert(ax, slice(None))
        out[tuple(idx)] = np.roll(v, k + 3 * r)
    with np.errstate(all="ignore"):
        return out.astype(np_dtype(spec))
