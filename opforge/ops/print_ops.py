"""TensorFlow 2's tf.print: prints tensors and Python values, formatted as TensorFlow does.

Each input is formatted and the pieces joined by ``sep`` and followed by ``end``:
a tensor as TensorFlow's PrintV2 prints it (``[0 1 2 ... 7 8 9]``: at most ``summarize``
values at each end of every dimension, all with summarize=-1; rows on new lines; floats in the
shorter of 6 or 9 significant digits that reads back exactly, doubles of 15 or 17; bools as
1/0; strings quoted); a nested structure of Python values and tensors as its ``str()`` with
every tensor formatted in place (dicts in sorted key order); anything else as ``str()``.

Eagerly it prints at once and returns None. In a graph it returns an operation that prints
each time it runs: fetch it, or make other ops depend on it (tf.control_dependencies), as
TensorFlow's. The operation is a stateful PyFunc calling the formatter (opforge has no PrintV2
kernel), so a GraphDef exported with it prints only in the process that built it.

``output_stream``: sys.stdout, sys.stderr (the default), any object with ``write``, a
callable taking the text (tf.compat.v1.logging.info ...), or ``"file://<path>"`` (appended to).
"""

from __future__ import annotations

import sys

import numpy as np

from ..framework import graph as _graph
from ..framework.graph import GraphTensor
from ..util import nest

__all__ = ["format_tensor", "print_v2"]


def _format_element(value, dtype_kind: str, itemsize: int) -> str:
    if dtype_kind == "b":
        return "1" if value else "0"
    if dtype_kind in "SUO":
        raw = value if isinstance(value, bytes) else str(value).encode("utf-8")
        return '"' + _c_escape(raw) + '"'
    if dtype_kind in "iu":
        return str(int(value))
    f = float(value)
    if np.isnan(f):
        return "nan" if not np.signbit(f) else "-nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    # TensorFlow's DoubleToBuffer / FloatToBuffer: the short form when it reads back exactly
    if itemsize == 8:
        text = "%.15g" % f
        return text if float(text) == f else "%.17g" % f
    text = "%.6g" % f
    return text if np.float32(float(text)) == np.float32(f) else "%.9g" % f


def _c_escape(raw: bytes) -> str:
    """TensorFlow's CEscape: \\n \\r \\t \\" \\' \\\\ and octal for other non-printable bytes."""
    out = []
    for b in raw:
        c = chr(b)
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c in "\"'\\":
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return "".join(out)


def format_tensor(value, summarize: int = 3) -> str:
    """A tensor's values as tf.print shows them (TensorFlow's SummarizeValue for PrintV2)."""
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind == "V" or array.dtype.name in ("bfloat16", "float16"):  # ml_dtypes' 16-bit floats
        array, kind = array.astype(np.float32), "f"
    itemsize = array.dtype.itemsize if kind == "f" else 4
    if array.ndim == 0:
        return _format_element(array.item() if kind not in "SO" else array[()], kind, itemsize)
    if array.size == 0:
        return "[]"
    ends = array.size if summarize is None or summarize < 0 else int(summarize)
    shape = array.shape
    flat = array.reshape(-1)
    rank = len(shape)
    out: list[str] = []

    def spacing(dim):
        if dim == rank - 1:
            out.append(" ")
            return
        out.append("\n" * (rank - dim - 1) + " " * (dim + 1))

    def one_dim(dim, index):
        if dim == rank:
            out.append(_format_element(flat[index], kind, itemsize))
            return
        out.append("[")
        count = shape[dim]
        per = int(np.prod(shape[dim + 1:], dtype=np.int64)) if dim + 1 < rank else 1
        for i in range(min(ends, count)):
            if i > 0:
                spacing(dim)
            one_dim(dim + 1, index + per * i)
        if count > 2 * ends:
            spacing(dim)
            out.append("...")
        for i in range(max(ends, count - ends), count):
            spacing(dim)
            one_dim(dim + 1, index + per * i)
        out.append("]")

    one_dim(0, 0)
    return "".join(out)


class _Slot:
    """Stands for a tensor inside a Python structure while it is printed with str()."""

    def __init__(self, index):
        self.token = f"\x00{index}\x00"

    def __repr__(self):
        return self.token

    __str__ = __repr__


def _is_tensor(value) -> bool:
    if isinstance(value, GraphTensor) or hasattr(value, "_variable_op"):
        return True
    return hasattr(value, "numpy") and hasattr(value, "dtype")


def _sorted_dicts(value):
    """value with every dict's items in sorted key order (tf.print shows them so)."""
    if isinstance(value, dict):
        return {k: _sorted_dicts(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_dicts(v) for v in value]
    if isinstance(value, tuple) and not hasattr(type(value), "_fields"):
        return tuple(_sorted_dicts(v) for v in value)
    return value


def _template(inputs):
    """(pieces, tensors): each input as a text with tokens where its tensors go."""
    tensors, pieces = [], []
    for x in inputs:
        if _is_tensor(x):
            pieces.append(_Slot(len(tensors)).token)
            tensors.append(x)
        elif nest.is_nested(x):
            leaves = nest.flatten(x)
            slots = []
            for leaf in leaves:
                if _is_tensor(leaf):
                    slots.append(_Slot(len(tensors)))
                    tensors.append(leaf)
                else:
                    slots.append(leaf)
            pieces.append(str(_sorted_dicts(nest.pack_sequence_as(x, slots))))
        else:
            pieces.append(str(x))
    return pieces, tensors


def _render(pieces, values, summarize, sep, end) -> str:
    text = sep.join(pieces) + end
    for i, v in enumerate(values):
        text = text.replace(f"\x00{i}\x00", format_tensor(v, summarize))
    return text


def _writer(output_stream):
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(f"tf.print: output_stream must be sys.stdout, sys.stderr, a logging function, a "
                             f"stream or 'file://<path>', got {output_stream!r}")
        path = output_stream[len("file://"):]

        def to_file(text):
            with open(path, "a", encoding="utf-8") as f:
                f.write(text)
        return to_file
    if hasattr(output_stream, "write"):
        def to_stream(text):
            output_stream.write(text)
            if hasattr(output_stream, "flush"):
                output_stream.flush()
        return to_stream
    if callable(output_stream):  # a logging function: one record, without the line end
        return lambda text: output_stream(text[:-1] if text.endswith("\n") else text)
    raise ValueError(f"tf.print: unsupported output_stream {output_stream!r}")


def print_v2(*inputs, **kwargs):
    """tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\\n", name=None)."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"tf.print: unrecognized keyword arguments: {sorted(kwargs)}")
    summarize = -1 if summarize is None else int(summarize)
    write = _writer(output_stream)
    pieces, tensors = _template(inputs)
    graph = _graph._explicit_graph()
    symbolic = [t for t in tensors if isinstance(t, GraphTensor) or hasattr(t, "_variable_op")]
    if graph is None and not symbolic:
        write(_render(pieces, [t.numpy() for t in tensors], summarize, sep, end))
        return None
    from .script_ops import py_func  # noqa: PLC0415

    def run(*values):
        write(_render(pieces, [v.numpy() if hasattr(v, "numpy") else v for v in values], summarize, sep, end))
        return []

    g = graph or symbolic[0].graph
    with g.as_default():
        return py_func(run, list(tensors), [], stateful=True, name=name or "PrintV2")
