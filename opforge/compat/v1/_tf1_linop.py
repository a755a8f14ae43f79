"""TF1 names added by the linear-operator work: tf.linalg's LinearOperator classes
(opforge/ops/linear_operator*.py), sqrtm / tf.matrix_square_root and eigh_tridiagonal
(opforge/ops/linalg_functions.py), tf.linalg.diag / diag_part with MatrixDiagV3's band
(opforge/ops/matrix_diag_band.py) and their TF1 names tf.matrix_diag / tf.matrix_diag_part, tf.nn.raw_rnn and
tf.nn.static_state_saving_rnn (opforge/layers/rnn_raw.py), tf.conv and the v2 Conv2D gradients
(opforge/ops/conv_generic.py): wired into the namespaces _tf1 builds.

The operator classes are spelled as subclasses whose constructors and methods build into the
default graph (as the rest of compat.v1 does); an operator a method returns (adjoint, inverse,
a composition ...) is given its compat class too, so it behaves the same."""

import types

from opforge.compat import _namespace
from opforge.compat.v1 import _tf1
from opforge.layers import rnn_raw as _rnn_raw
from opforge.ops import conv_generic as _conv
from opforge.ops import linalg as _la
from opforge.ops import matrix_diag_band as _band
from opforge.ops.linear_operator import LinearOperator as _LinearOperator

_COMPAT: dict = {}


def _returning_compat(fn):
    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        if isinstance(out, _LinearOperator) and type(out) in _COMPAT:
            out.__class__ = _COMPAT[type(out)]  # the same object, its methods building into the default graph
        return out

    wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = fn.__name__, fn.__doc__, fn
    return _namespace.in_default_graph(wrapped)


class _SpellingOf(type):
    """The metaclass of the compat classes: isinstance / issubclass against one accept the library
    class it spells (an operator built inside the library, say a composition's factor, is still a
    tf.linalg.LinearOperatorDiag); a user's subclass checks as usual."""

    def __instancecheck__(cls, obj):
        library = cls.__dict__.get("_library_class")
        return isinstance(obj, library) if library is not None else super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub):
        library = cls.__dict__.get("_library_class")
        return issubclass(sub, library) if library is not None else super().__subclasscheck__(sub)


def _compat_class(cls):
    methods = {}
    for klass in reversed(cls.__mro__[:-1]):
        for k, v in vars(klass).items():
            if isinstance(v, types.FunctionType) and (k in ("__init__", "__matmul__") or not k.startswith("_")):
                methods[k] = _returning_compat(v)
    methods["H"] = property(methods["adjoint"])
    out = _SpellingOf(cls.__name__, (cls,), {**methods, "__module__": cls.__module__, "__doc__": cls.__doc__,
                                             "_library_class": cls})
    _COMPAT[cls] = out
    return out


for _name in ["LinearOperator"] + [n for n in _la.__all__ if n.startswith("LinearOperator") and n != "LinearOperator"]:
    setattr(_tf1.linalg, _name, _compat_class(getattr(_la, _name)))

_tf1.linalg.diag = _namespace.in_default_graph(_band.matrix_diag)  # MatrixDiagV3's band, sizes, padding
_tf1.linalg.diag_part = _namespace.in_default_graph(_band.matrix_diag_part)
_tf1.linalg.sqrtm = _namespace.in_default_graph(_la.sqrtm)
_tf1.linalg.eigh_tridiagonal = _namespace.in_default_graph(_la.eigh_tridiagonal)
_tf1.nn.raw_rnn = _namespace.in_default_graph(_rnn_raw.raw_rnn)
_tf1.nn.static_state_saving_rnn = _namespace.in_default_graph(_rnn_raw.static_state_saving_rnn)

# top-level names (compat.v1 star-imports them)
matrix_diag, matrix_diag_part = _tf1.linalg.diag, _tf1.linalg.diag_part  # TF1's names of them
matrix_square_root = _tf1.linalg.sqrtm
conv = _namespace.in_default_graph(_conv.conv)
conv2d_backprop_filter_v2 = _namespace.in_default_graph(_conv.conv2d_backprop_filter_v2)
conv2d_backprop_input_v2 = _namespace.in_default_graph(_conv.conv2d_backprop_input_v2)
__all__ = ["matrix_diag", "matrix_diag_part", "matrix_square_root", "conv", "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]
