"""opforge: a declarative op toolchain with a native runtime.

    import opforge as of
    x = of.constant(np.random.rand(3, 4))
    y = of.mat_mul(x, x, transpose_b=True)   # generated wrapper, runs eagerly in C++
    with of.GradientTape() as tape:
        tape.watch(x)
        loss = of.reduce_sum(of.square(x))
    dx = tape.gradient(loss, x)
"""

import importlib as _importlib
import sys as _sys

from ._loader import import_runtime as _import_runtime

_C = _import_runtime()

# Public namespaces: the name users write (``of.nn``, ``import opforge.nn``, ``from
# opforge.errors import NotFoundError``) -> the module that is that namespace. Each is bound as
# an attribute here and registered in sys.modules under its public name, so both spellings
# reach the same module object; nothing else in the package imports the public names.
_PUBLIC_MODULES = {
    "errors": "opforge.framework.errors",
    "dtypes": "opforge.framework.dtypes",
    "raw_ops": "opforge.ops.raw_ops",
    "math": "opforge.ops.math",
    "nn": "opforge.ops.nn",
    "image": "opforge.ops.image_ops",
    "linalg": "opforge.ops.linalg",
    "random": "opforge.ops.random_ops",
    "sparse": "opforge.ops.sparse_ops",
    "strings": "opforge.ops.string_ops",
    "train": "opforge.training",
    "layers": "opforge.layers",
    "losses": "opforge.layers.losses",
    "metrics": "opforge.layers.metrics",
    "initializers": "opforge.layers.initializers",
    "data": "opforge.data",
    "summary": "opforge.summary",
    "config": "opforge.config",
    "saved_model": "opforge.io.saved_model",
    "timeline": "opforge.framework.timeline",  # TensorFlow's tensorflow.python.client.timeline
}
# Transitional: framework/session.py and framework/optimizer/ (replaced by the C++ optimizer,
# issue 33) still import graph_def from its old place.


def _publish(name):
    module = _importlib.import_module(_PUBLIC_MODULES[name])
    _sys.modules[f"{__name__}.{name}"] = module
    globals()[name] = module
    return module


errors = _publish("errors")
dtypes = _publish("dtypes")
from .framework.dtypes import (  # noqa: E402
    DType, as_dtype, bfloat16, bool_, double, float16, float32, float64, half, int8, int16,
    int32, int64, resource, string, uint8, variant,
)
from .framework.type_spec import TensorSpec  # noqa: E402
from .framework.errors import (  # noqa: E402
    InvalidArgumentError, NotFoundError, OpError, OutOfRangeError, ResourceExhaustedError,
    UnimplementedError, InternalError, AlreadyExistsError, FailedPreconditionError,
)
from .framework import tensor as _tensor  # noqa: E402

_C.set_hooks(_tensor.convert_inputs, _tensor.convert_dtype, dict(errors.BY_CODE), dtypes.numpy_dtypes())

# ---- devices (issue 5): load the GPU backend library if this install has one.
from .framework import devices as _devices  # noqa: E402

_devices.load_gpu_backends()
_devices.install_tensor_api(_tensor.Tensor)
# ---- end devices

from . import ops  # noqa: E402
from .ops import *  # noqa: E402,F401,F403
# The TF1 Print op is tf.compat.v1.Print; TensorFlow's tf.print (PrintV2) is another API.
del print  # noqa: F821
from .framework.tensor import Tensor, TensorShape, convert_to_tensor  # noqa: E402
from .framework.dlpack import from_dlpack, to_dlpack  # noqa: E402
from .framework import graph as _graph  # noqa: E402
from .framework import math_operators as _math_operators  # noqa: E402
from .framework.graph import Graph, GraphTensor, Operation, get_default_graph, reset_default_graph  # noqa: E402
from .framework.session import InteractiveSession, Session, get_default_session  # noqa: E402
from .framework.variables import (  # noqa: E402
    Variable, global_variables, global_variables_initializer, trainable_variables,
    variables_initializer,
)
from .framework.api import constant, placeholder, name_scope, control_dependencies, device, group, no_op  # noqa: E402
from .framework.control_flow import case, cond, while_loop  # noqa: E402
from .ops.tensor_array_ops import TensorArray  # noqa: E402
from .framework.sparse_tensor import SparseTensor, SparseTensorValue, sparse_placeholder  # noqa: E402
from .ops.einsum_ops import einsum  # noqa: E402
from .gradients.tape import GradientTape  # noqa: E402
from .gradients.graph_grad import gradients  # noqa: E402
from .io.graph_def import GraphDef  # noqa: E402
from .io.importer import import_graph_def  # noqa: E402
from .ops.math_ops import *  # noqa: E402,F401,F403
from .ops.array_ops import *  # noqa: E402,F401,F403
from .ops import array_ops as _array_ops  # noqa: E402
from .ops.op_library import load_op_library  # noqa: E402
from .ops.clip_ops import clip_by_global_norm, clip_by_norm  # noqa: E402
from .ops.linalg_ops import eye, norm  # noqa: E402

for _name in _PUBLIC_MODULES:
    _publish(_name)
# TensorFlow's top-level names for some of tf.math's (tf.reduce_prod, tf.argmax, ...)
from .ops import math as _math  # noqa: E402

for _name in _math.TOP_LEVEL:
    globals()[_name] = getattr(_math, _name)
del _name

_tensor.install_tensor_api(ops)
_math_operators.install_graph_tensor_api(_graph.GraphTensor, ops)
_array_ops.install_tensor_indexing()
_C.set_dispatch(_graph.dispatch)
bool = bool_  # noqa: A001  (TensorFlow spells it tf.bool)

__version__ = "0.1.0"
