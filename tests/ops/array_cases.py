"""Case tables of the array ops for the op matrix (opmatrix.py hooks them in as family "table").

Each op gets a list of cases: the shapes of its data inputs and, in ``extra``, the exact
index-like inputs (axes, begins, paddings, multiples ...) and attrs; ``build`` turns a case
into the index inputs (and, for ConcatV2, data pieces of different sizes). Index values that
the op reads as positions (GatherV2, GatherNd, ScatterNd, UnsortedSegmentSum, OneHot) are
drawn at random in range (OneHot: with some out of range, which TensorFlow defines).

This module imports opmatrix lazily: opmatrix imports it while it is being initialized.
"""

from __future__ import annotations

import numpy as np

# (shape of the data input(s), extra) rows per op; "large" rows exercise the parallel paths.
CONCAT = [
    ("axis0", [(2, 3), (1, 3)], 0),
    ("axis1", [(2, 3), (2, 1), (2, 4)], 1),
    ("neg_axis", [(2, 2, 3), (2, 2, 1)], -1),
    ("empty_piece", [(2, 0), (2, 3)], 1),
    ("rank1", [(3,), (2,), (1,)], 0),
    ("axis0_of_3d", [(1, 2, 2), (2, 2, 2)], 0),
]
CONCAT_LARGE = [("300x517+300x100", [(300, 517), (300, 100)], 1), ("200x300+150x300", [(200, 300), (150, 300)], 0)]

SPLIT = [((6, 4), 0, 3), ((2, 6), -1, 2), ((4,), 0, 4), ((2, 3, 4), 1, 1), ((0, 4), 0, 2)]
SPLIT_LARGE = [((600, 517), 0, 2), ((300, 518), 1, 2)]
SPLIT_V = [((5, 4), [2, -1, 1], 0), ((2, 6), [1, 5], 1), ((3,), [0, 3], 0), ((2, 3, 2), [2], 2)]  # one output: the whole dimension (TF refuses [-1] there)
SPLIT_V_LARGE = [((300, 517), [100, -1, 17], 1)]

SLICE = [((4, 5), [1, 2], [2, -1]), ((3, 4, 5), [0, 1, 2], [3, 2, 1]), ((5,), [5], [0]), ((), [], []),
         ((0, 3), [0, 1], [0, 2])]
SLICE_LARGE = [((300, 517), [10, 5], [280, 500])]

# id, input shape, begin, end, strides, masks (begin, end, ellipsis, new_axis, shrink)
STRIDED = [
    ("step2", (6,), [1], [5], [2], (0, 0, 0, 0, 0)),
    ("negative", (6,), [-1], [0], [-1], (0, 0, 0, 0, 0)),
    ("reverse_step2", (6,), [0], [0], [-2], (1, 1, 0, 0, 0)),
    ("ellipsis", (3, 4, 5), [0, 1], [0, 3], [1, 1], (0, 0, 1, 0, 0)),
    ("new_axis", (3, 4), [0, 0, 1], [0, 0, 3], [1, 1, 1], (2, 2, 0, 1, 0)),
    ("shrink_both", (3, 4), [1, -1], [2, 0], [1, 1], (0, 0, 0, 0, 3)),
    ("mixed", (3, 4, 5), [1, 0, 0, 0], [2, 0, 0, 0], [1, 1, 1, -2], (8, 8, 2, 4, 1)),
    ("clamped", (4,), [-10], [10], [1], (0, 0, 0, 0, 0)),
    ("implicit_tail", (3, 4, 2), [1], [3], [1], (0, 0, 0, 0, 0)),
    ("empty_result", (5, 2), [3], [1], [1], (0, 0, 0, 0, 0)),
    ("empty_input", (0, 3), [0], [2], [1], (0, 0, 0, 0, 0)),
]
STRIDED_LARGE = [("rows2_cols3", (300, 517), [0, 10], [0, -10], [2, 3], (1, 1, 0, 0, 0)),
                 ("reversed", (517, 300), [0], [0], [-1], (1, 1, 0, 0, 0))]

PACK = [((2, 3), 0), ((2, 3), -1), ((), 0), ((0, 2), 1), ((4,), 1)]
PACK_LARGE = [((300, 517), 1)]
UNPACK = [((3, 4), 0), ((3, 4), 1), ((2, 3, 2), -1), ((4,), 0), ((2, 0), 0)]
UNPACK_LARGE = [((4, 300, 100), 1)]

# params shape, indices shape, axis, batch_dims
GATHER = [((5, 3), (4,), 0, 0), ((3, 5), (2, 2), 1, 0), ((2, 3, 4), (), -1, 0), ((2, 3, 4), (2, 2), 1, 1),
          ((2, 2, 3, 4), (2, 2, 3), 2, 2), ((5, 0), (3,), 0, 0), ((4, 3), (0,), 0, 0), ((3, 4), (3, 2), 1, -1)]
GATHER_LARGE = [((100000, 4), (50000,), 0, 0), ((300, 517), (200,), 1, 0)]
GATHER_ND = [((4, 5), (3, 2)), ((4, 5, 2), (3, 1)), ((4, 5), (2, 3, 2)), ((3, 4), (2, 0)), ((6,), (1,))]
GATHER_ND_LARGE = [((300, 517), (40000, 2))]
# output shape, indices shape (updates: indices.shape[:-1] + shape[K:])
SCATTER_ND = [((6,), (4, 1)), ((4, 3), (5, 1)), ((3, 4), (2, 2)), ((2, 3, 4), (3, 2)), ((3,), (0, 1))]
SCATTER_ND_LARGE = [((100000,), (70000, 1))]
# data shape, rank of segment_ids, num_segments
SEGMENT = [((6,), 1, 4), ((5, 3), 1, 3), ((2, 3, 2), 2, 5), ((0, 2), 1, 2)]
SEGMENT_LARGE = [((100000, 4), 1, 1000)]

PAD = [((2, 3), [[1, 2], [0, 1]]), ((3,), [[0, 0]]), ((), []), ((2, 0, 2), [[1, 0], [1, 1], [0, 2]])]
PAD_LARGE = [((300, 517), [[1, 1], [2, 3]])]
TILE = [((2, 3), [2, 1]), ((3,), [3]), ((), []), ((2, 1, 3), [1, 4, 2]), ((2, 3), [0, 2])]
TILE_LARGE = [((300, 100), [1, 6])]
EXPAND = [((2, 3), 0), ((2, 3), -1), ((2, 3), 1), ((), 0), ((0, 2), 2)]
EXPAND_LARGE = [((300, 517), 1)]
SQUEEZE = [((1, 3, 1), []), ((1, 3, 1), [0]), ((2, 1, 3), [-2]), ((), []), ((1, 0), [0])]
# indices shape, depth, axis
ONE_HOT = [((4,), 3, -1), ((2, 3), 4, 0), ((2, 3), 2, 1), ((), 3, -1), ((0,), 3, -1)]
ONE_HOT_LARGE = [((100000,), 8, -1)]
REVERSE = [((2, 3, 4), [0, 2]), ((5,), [0]), ((3, 4), [-1]), ((3, 4), []), ((0, 3), [1])]
REVERSE_LARGE = [((300, 517), [0, 1])]
BROADCAST = [((3, 1), [2, 3, 4]), ((1,), [5]), ((), [2, 2]), ((2, 3), [2, 3]), ((0, 1), [0, 3])]
BROADCAST_LARGE = [((1, 517), [300, 517])]

SPACE_TO_BATCH = [((2, 4, 6, 3), [2, 3], [[0, 0], [0, 0]]), ((1, 5, 3), [2], [[1, 0]]), ((3, 7, 2), [3], [[1, 1]]),
                  ((2, 2, 4, 1), [1, 2], [[1, 1], [0, 2]]), ((0, 4, 2), [2], [[0, 0]])]
SPACE_TO_BATCH_LARGE = [((8, 64, 64, 16), [2, 2], [[0, 0], [0, 0]])]
BATCH_TO_SPACE = [((12, 2, 2, 3), [2, 3], [[0, 0], [0, 0]]), ((2, 3, 3), [2], [[1, 0]]), ((6, 3, 2), [3], [[1, 1]]),
                  ((4, 2, 3, 1), [1, 2], [[0, 1], [1, 0]]), ((0, 2, 2), [2], [[0, 0]])]
BATCH_TO_SPACE_LARGE = [((32, 32, 32, 16), [2, 2], [[0, 0], [0, 0]])]

# The band-diagonal matrix ops (opdefs/linalg/matrix_*): (matrix or diagonal shape, k, ...).
DIAG_PART = [((4, 5), 0), ((2, 3, 6), (-1, 2)), ((3, 3), (1, 2)), ((2, 1, 4, 3), (-2, -1)), ((0, 3, 3), 0)]
DIAG_PART_LARGE = [((64, 40, 30), (-4, 7))]
DIAG = [((4,), 0, -1, -1), ((2, 2, 4), (-1, 0), -1, 6), ((3,), 1, -1, -1), ((2, 3, 3), (0, 2), 5, -1),
        ((0, 3), -1, -1, -1)]
DIAG_LARGE = [((64, 30), 0, 40, -1)]
BAND_PART = [((4, 5), 0, -1), ((2, 3, 6), 1, 2), ((3, 3), -1, 0), ((2, 4, 3), -1, -1), ((0, 2, 2), 1, 1)]
BAND_PART_LARGE = [((200, 64, 64), 3, 5)]
_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")
MATRIX_BAND_OPS = {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3", "MatrixDiag", "MatrixDiagV2",
                   "MatrixDiagV3", "MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3", "MatrixBandPart"}

TABLE_OPS = MATRIX_BAND_OPS | {"SpaceToBatchND", "BatchToSpaceND", "ConcatV2", "Split", "SplitV", "Slice", "StridedSlice", "StridedSliceGrad", "Pack",
             "Unpack", "GatherV2", "GatherNd", "ScatterNd", "UnsortedSegmentSum", "Pad", "PadV2",
             "Tile", "ExpandDims", "Squeeze", "OneHot", "ReverseV2", "BroadcastTo", "PlaceholderWithDefault"}
# PlaceholderWithDefault: (input shape, the shape attr: as given, or with unknown dims)
PLACEHOLDER_WITH_DEFAULT = [((2, 3), [2, 3]), ((4, 3), [None, 3]), ((2, 2, 2), [None, None, None]), ((), []),
                            ((0, 3), [None, 3])]
PLACEHOLDER_WITH_DEFAULT_LARGE = [((300, 517), [None, 517])]


def _sid(s):
    return "s" if len(s) == 0 else "x".join(map(str, s))


def _strided_index(shape, b, e, s, masks):
    """The NumPy index for a strided-slice spec (as the opdef's reference builds it)."""
    bm, em, elm, nam, sam = masks
    out = []
    for i in range(len(b)):
        if elm >> i & 1:
            out.append(Ellipsis)
        elif nam >> i & 1:
            out.append(None)
        elif sam >> i & 1:
            out.append(b[i])
        else:
            out.append(slice(None if bm >> i & 1 else b[i], None if em >> i & 1 else e[i], s[i]))
    return tuple(out)


def _rows(op_name, large: bool):
    """(id, data shapes, attrs, extra) for op_name."""
    L = large
    if op_name == "ConcatV2":
        return [(i, {"values": sh[0]}, {}, {"pieces": sh, "axis": ax}) for i, sh, ax in (CONCAT_LARGE if L else CONCAT)]
    if op_name == "Split":
        return [(f"{_sid(s)}-axis{ax}-num{n}", {"value": s}, {"num_split": n}, {"axis": ax})
                for s, ax, n in (SPLIT_LARGE if L else SPLIT)]
    if op_name == "SplitV":
        return [(f"{_sid(s)}-{'_'.join(map(str, z))}-axis{ax}", {"value": s}, {"num_split": len(z)},
                 {"sizes": z, "axis": ax}) for s, z, ax in (SPLIT_V_LARGE if L else SPLIT_V)]
    if op_name == "Slice":
        return [(f"{_sid(s)}-b{'_'.join(map(str, b))}-z{'_'.join(map(str, z))}", {"input": s}, {},
                 {"begin": b, "size": z}) for s, b, z in (SLICE_LARGE if L else SLICE)]
    if op_name in ("StridedSlice", "StridedSliceGrad"):
        out = []
        for i, s, b, e, st, m in (STRIDED_LARGE if L else STRIDED):
            attrs = dict(zip(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), m))
            extra = {"shape": s, "begin": b, "end": e, "strides": st}
            if op_name == "StridedSlice":
                out.append((i, {"input": s}, attrs, extra))
            else:
                dy = np.empty(s)[_strided_index(s, b, e, st, m)].shape
                out.append((i, {"dy": dy}, attrs, extra))
        return out
    if op_name == "Pack":
        return [(f"{_sid(s)}-axis{ax}", {"values": s}, {"axis": ax}, {}) for s, ax in (PACK_LARGE if L else PACK)]
    if op_name == "Unpack":
        return [(f"{_sid(s)}-axis{ax}", {"value": s}, {"axis": ax, "num": s[ax]}, {})
                for s, ax in (UNPACK_LARGE if L else UNPACK)]
    if op_name == "GatherV2":
        return [(f"{_sid(p)}-i{_sid(i)}-axis{ax}-bd{bd}", {"params": p}, {"batch_dims": bd},
                 {"indices": i, "axis": ax}) for p, i, ax, bd in (GATHER_LARGE if L else GATHER)]
    if op_name == "GatherNd":
        return [(f"{_sid(p)}-i{_sid(i)}", {"params": p}, {}, {"indices": i}) for p, i in (GATHER_ND_LARGE if L else GATHER_ND)]
    if op_name == "ScatterNd":
        out = []
        for s, i in (SCATTER_ND_LARGE if L else SCATTER_ND):
            up = tuple(i[:-1]) + tuple(s[i[-1]:])
            out.append((f"{_sid(s)}-i{_sid(i)}", {"updates": up}, {}, {"indices": i, "shape": s}))
        return out
    if op_name == "UnsortedSegmentSum":
        return [(f"{_sid(d)}-ids{r}-n{n}", {"data": d}, {}, {"ids_rank": r, "num": n})
                for d, r, n in (SEGMENT_LARGE if L else SEGMENT)]
    if op_name in ("Pad", "PadV2"):
        rows = []
        for s, p in (PAD_LARGE if L else PAD):
            shapes = {"input": s, **({"constant_values": ()} if op_name == "PadV2" else {})}
            rows.append((f"{_sid(s)}-p{'_'.join(str(v) for r in p for v in r)}", shapes, {}, {"paddings": p}))
        return rows
    if op_name == "Tile":
        return [(f"{_sid(s)}-m{'_'.join(map(str, m))}", {"input": s}, {}, {"multiples": m}) for s, m in (TILE_LARGE if L else TILE)]
    if op_name == "ExpandDims":
        return [(f"{_sid(s)}-dim{d}", {"input": s}, {}, {"dim": d}) for s, d in (EXPAND_LARGE if L else EXPAND)]
    if op_name == "Squeeze":
        return [] if L else [(f"{_sid(s)}-dims{'_'.join(map(str, d))}", {"input": s}, {"squeeze_dims": d}, {})
                             for s, d in SQUEEZE]
    if op_name == "OneHot":
        return [(f"i{_sid(i)}-depth{d}-axis{ax}", {"on_value": (), "off_value": ()}, {"axis": ax},
                 {"indices": i, "depth": d}) for i, d, ax in (ONE_HOT_LARGE if L else ONE_HOT)]
    if op_name == "ReverseV2":
        return [(f"{_sid(s)}-axes{'_'.join(map(str, a))}", {"tensor": s}, {}, {"axes": a}) for s, a in (REVERSE_LARGE if L else REVERSE)]
    if op_name == "BroadcastTo":
        return [(f"{_sid(s)}-to-{_sid(t)}", {"input": s}, {}, {"target": t}) for s, t in (BROADCAST_LARGE if L else BROADCAST)]
    if op_name in ("SpaceToBatchND", "BatchToSpaceND"):
        s2b = op_name == "SpaceToBatchND"
        table = (SPACE_TO_BATCH_LARGE if L else SPACE_TO_BATCH) if s2b else (BATCH_TO_SPACE_LARGE if L else BATCH_TO_SPACE)
        return [(f"{_sid(s)}-b{'_'.join(map(str, k))}-p{'_'.join(str(v) for r in p for v in r)}", {"input": s}, {},
                 {"block_shape": k, "pads": p}) for s, k, p in table]
    if op_name == "PlaceholderWithDefault":
        return [(f"{_sid(s)}-as{'_'.join('u' if d is None else str(d) for d in a) or 's'}", {"input": s}, {"shape": a}, {})
                for s, a in (PLACEHOLDER_WITH_DEFAULT_LARGE if L else PLACEHOLDER_WITH_DEFAULT)]
    if op_name in MATRIX_BAND_OPS:
        return _matrix_band_rows(op_name, L)
    raise AssertionError(f"no case table for {op_name}")


def _band_len(shape, k):
    lo, hi = (k, k) if isinstance(k, int) else k
    rows, cols = shape[-2:]
    return (hi - lo + 1, lo < hi, max(0, min(rows + min(hi, 0), cols - max(lo, 0))))


def _matrix_band_rows(op_name, large):
    """Rows of the band-diagonal matrix ops; V1 ops take the main diagonal, V3 cycles through the
    alignments."""
    v1, v3 = op_name[-2:] not in ("V2", "V3"), op_name.endswith("V3")
    rows = []
    if op_name == "MatrixBandPart":
        return [(f"{_sid(s)}-l{lo}-u{up}", {"input": s}, {}, {"lower": lo, "upper": up})
                for s, lo, up in (BAND_PART_LARGE if large else BAND_PART)]
    if op_name.startswith("MatrixDiagPart") or op_name.startswith("MatrixSetDiag"):
        for i, (s, k) in enumerate(DIAG_PART_LARGE if large else DIAG_PART):
            k = 0 if v1 else k
            n, band, length = _band_len(s, k)
            shapes = {"input": s}
            if op_name.startswith("MatrixSetDiag"):
                shapes["diagonal"] = tuple(s[:-2]) + ((n,) if band else ()) + (length,)
            elif not v1:
                shapes["padding_value"] = ()
            attrs = {"align": _ALIGNS[i % 4]} if v3 else {}
            rows.append((f"{_sid(s)}-k{k}", shapes, attrs, {"k": k}))
        return rows
    for i, (s, k, nr, nc) in enumerate(DIAG_LARGE if large else DIAG):  # MatrixDiag*
        if v1:
            k, nr, nc = 0, -1, -1
        shapes = {"diagonal": s} if v1 else {"diagonal": s, "padding_value": ()}
        attrs = {"align": _ALIGNS[i % 4]} if v3 else {}
        rows.append((f"{_sid(s)}-k{k}-r{nr}-c{nc}", shapes, attrs, {"k": k, "num_rows": nr, "num_cols": nc}))
    return rows


def cases(op, spec):
    from opmatrix import Case  # noqa: PLC0415
    return [Case(i, shapes, attrs, extra=extra) for i, shapes, attrs, extra in _rows(op.name, False)]


def large_cases(op, spec):
    from opmatrix import Case  # noqa: PLC0415
    return [Case(i, shapes, attrs, extra=extra) for i, shapes, attrs, extra in _rows(op.name, True)]


def _index_dtype(rng, op, name, largest=0):
    """A random allowed dtype of index input `name` that holds values up to `largest`."""
    from opmatrix import np_dtype  # noqa: PLC0415
    arg = op.input(name)
    if not arg.type_attr:
        return np.dtype(arg.type) if arg.type else np.dtype(np.int32)
    ok = [d for d in op.attr(arg.type_attr).allowed if np.iinfo(np_dtype(d)).max >= largest]
    return np_dtype(rng.choice(ok))


def _ints(rng, op, name, values):
    return np.asarray(values, dtype=np.int64).astype(_index_dtype(rng, op, name))


def _like(rng, arr, shape):
    """Random values of arr's dtype (in the default domain) and the given shape."""
    from opmatrix import random_values, spec_of_np  # noqa: PLC0415
    return random_values(rng, shape, spec_of_np(arr.dtype))


def build(rng, op, case, data):
    """The index inputs of one case (and ConcatV2's pieces)."""
    x = case.extra
    n = op.name
    if n == "ConcatV2":
        first = data["values"][0]
        return {"values": [_like(rng, first, s) for s in x["pieces"]], "axis": _ints(rng, op, "axis", x["axis"])}
    if n == "Split":
        return {"split_dim": np.int32(x["axis"])}
    if n == "SplitV":
        return {"size_splits": _ints(rng, op, "size_splits", x["sizes"]), "split_dim": np.int32(x["axis"])}
    if n == "Slice":
        dt = _index_dtype(rng, op, "begin")
        return {"begin": np.asarray(x["begin"], np.int64).astype(dt), "size": np.asarray(x["size"], np.int64).astype(dt)}
    if n in ("StridedSlice", "StridedSliceGrad"):
        dt = _index_dtype(rng, op, "begin")
        out = {k: np.asarray(x[k], np.int64).astype(dt) for k in ("begin", "end", "strides")}
        if n == "StridedSliceGrad":
            out["shape"] = np.asarray(x["shape"], np.int64).astype(dt)
        return out
    if n == "GatherV2":
        p = case.shapes["params"]
        ax = x["axis"] % len(p)
        bd = case.attrs["batch_dims"]
        bd = bd + len(x["indices"]) if bd < 0 else bd
        lead = list(p[:bd])
        idx = rng.integers(0, max(p[ax], 1), size=lead + list(x["indices"][bd:]) if bd else x["indices"])
        return {"indices": idx.astype(_index_dtype(rng, op, "indices", p[ax])), "axis": _ints(rng, op, "axis", x["axis"])}
    if n == "GatherNd":
        p, i = case.shapes["params"], x["indices"]
        k = i[-1]
        cols = [rng.integers(0, p[j], size=i[:-1]) for j in range(k)]
        idx = np.stack(cols, axis=-1) if k else np.zeros(i, np.int64)
        return {"indices": idx.astype(_index_dtype(rng, op, "indices", max(p, default=0)))}
    if n == "ScatterNd":
        s, i = x["shape"], x["indices"]
        cols = [rng.integers(0, s[j], size=i[:-1]) for j in range(i[-1])]
        idx = np.stack(cols, axis=-1) if cols else np.zeros(i, np.int64)
        dt = _index_dtype(rng, op, "indices", max(s, default=0))
        return {"indices": idx.astype(dt), "shape": np.asarray(s, np.int64).astype(dt)}
    if n == "UnsortedSegmentSum":
        d = case.shapes["data"]
        ids = rng.integers(-1, x["num"], size=d[:x["ids_rank"]])
        return {"segment_ids": ids.astype(_index_dtype(rng, op, "segment_ids", x["num"])),
                "num_segments": _ints(rng, op, "num_segments", x["num"])}
    if n in ("SpaceToBatchND", "BatchToSpaceND"):
        pads = np.asarray(x["pads"], np.int64).reshape(-1, 2)
        key = "paddings" if n == "SpaceToBatchND" else "crops"
        return {"block_shape": _ints(rng, op, "block_shape", x["block_shape"]), key: pads.astype(_index_dtype(rng, op, key))}
    if n in ("Pad", "PadV2"):
        return {"paddings": np.asarray(x["paddings"], np.int64).reshape(-1, 2).astype(_index_dtype(rng, op, "paddings"))}
    if n == "Tile":
        return {"multiples": _ints(rng, op, "multiples", x["multiples"])}
    if n == "ExpandDims":
        return {"dim": _ints(rng, op, "dim", x["dim"])}
    if n == "OneHot":
        dt = _index_dtype(rng, op, "indices")
        lo = 0 if np.dtype(dt).kind == "u" else -1
        idx = rng.integers(lo, x["depth"] + 1, size=x["indices"]).astype(dt)
        return {"indices": idx, "depth": np.int32(x["depth"])}
    if n == "ReverseV2":
        return {"axis": _ints(rng, op, "axis", x["axes"])}
    if n == "BroadcastTo":
        return {"shape": _ints(rng, op, "shape", x["target"])}
    if n == "MatrixBandPart":
        dt = _index_dtype(rng, op, "num_lower")
        return {"num_lower": np.asarray(x["lower"], dt), "num_upper": np.asarray(x["upper"], dt)}
    if n in MATRIX_BAND_OPS and n[-2:] in ("V2", "V3"):
        out = {"k": np.asarray(x["k"], np.int32)}
        if "num_rows" in x:
            out.update(num_rows=np.int32(x["num_rows"]), num_cols=np.int32(x["num_cols"]))
        return out
    return {}
