"""opforge: a declarative op toolchain with a native runtime.

    import opforge as of
    x = of.constant(np.random.rand(3, 4))
    y = of.mat_mul(x, x, transpose_b=True)   # generated wrapper, runs eagerly in C++
    with of.GradientTape() as tape:
        tape.watch(x)
        loss = of.reduce_sum(of.square(x))
    dx = tape.gradient(loss, x)
"""

from ._loader import import_runtime as _import_runtime

_C = _import_runtime()
from . import dtypes, errors  # noqa: E402
from .dtypes import (  # noqa: E402
    DType, as_dtype, bfloat16, bool_, double, float16, float32, float64, half, int8, int16,
    int32, int64, string, uint8, variant,
)
from .errors import (  # noqa: E402
    InvalidArgumentError, NotFoundError, OpError, OutOfRangeError, ResourceExhaustedError,
    UnimplementedError, InternalError, AlreadyExistsError, FailedPreconditionError,
)
from .framework import tensor as _tensor  # noqa: E402

_C.set_hooks(_tensor.convert_inputs, _tensor.convert_dtype, dict(errors.BY_CODE), dtypes.numpy_dtypes())

# ---- devices (issue 5): load the GPU backend library if this install has one.
from .framework import devices as _devices  # noqa: E402

_devices.load_gpu_backends()
_devices.install_tensor_api(_tensor.Tensor)
from . import config  # noqa: E402
# ---- end devices

from . import ops  # noqa: E402
from .ops import *  # noqa: E402,F401,F403
# The TF1 Print op is tf.compat.v1.Print; TensorFlow's tf.print (PrintV2) is another API.
del print  # noqa: F821
from . import raw_ops  # noqa: E402
from .framework.tensor import Tensor, TensorShape, convert_to_tensor  # noqa: E402
from .framework.dlpack import from_dlpack, to_dlpack  # noqa: E402
from .framework import graph as _graph  # noqa: E402
from .framework.graph import Graph, GraphTensor, Operation, get_default_graph, reset_default_graph  # noqa: E402
from .framework.session import InteractiveSession, Session, get_default_session  # noqa: E402
from .framework.variables import (  # noqa: E402
    Variable, global_variables, global_variables_initializer, trainable_variables,
    variables_initializer,
)
from .framework.api import constant, placeholder, name_scope, control_dependencies, device, group, no_op  # noqa: E402
from .framework.control_flow import case, cond, while_loop  # noqa: E402
from .tensor_array import TensorArray  # noqa: E402
from .einsum import einsum  # noqa: E402
from .gradients.tape import GradientTape  # noqa: E402
from .gradients.graph_grad import gradients  # noqa: E402
from .framework.graph_def import GraphDef, import_graph_def  # noqa: E402
from .math_api import *  # noqa: E402,F401,F403
# ---- math ops (issue 4): the of.math namespace and TensorFlow's top-level math names
from . import math  # noqa: E402
for _name in math.TOP_LEVEL:
    globals()[_name] = getattr(math, _name)
del _name
# ---- end math ops
from . import train  # noqa: E402
# ---- array and random ops (issue 4): TensorFlow's names, tensor indexing, of.random
from .array_api import *  # noqa: E402,F401,F403
from . import array_api as _array_api  # noqa: E402
from . import random_api as random  # noqa: E402
# ---- nn ops (issue 4): of.nn with TensorFlow's tf.nn names
from . import nn  # noqa: E402
from .op_library import load_op_library  # noqa: E402
from . import image  # noqa: E402
from . import linalg  # noqa: E402
from .clip_ops import clip_by_global_norm, clip_by_norm  # noqa: E402
from .linalg_ops import eye, norm  # noqa: E402
from . import summary  # noqa: E402
from . import data  # noqa: E402

_tensor.install_tensor_api(ops)
_graph.install_graph_tensor_api(ops)
_array_api.install_tensor_indexing()
_C.set_dispatch(_graph.dispatch)
bool = bool_  # noqa: A001  (TensorFlow spells it tf.bool)

__version__ = "0.1.0"
