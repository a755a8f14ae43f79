"""TF1 names of tf.losses and tf.nn added by the nnmetrics work (implementations in
opforge/layers/losses.py, opforge/ops/nn_impl.py and opforge/ops/ctc_ops.py): wired into the namespaces _tf1 builds."""

from opforge.compat import _namespace
from opforge.compat.v1 import _tf1
from opforge.layers import losses as _losses
from opforge.ops import nn_impl as _nn_impl

_tf1.losses.mean_pairwise_squared_error = _namespace.in_default_graph(_losses.mean_pairwise_squared_error)
_tf1.nn.compute_average_loss = _namespace.in_default_graph(_nn_impl.compute_average_loss)
_tf1.nn.scale_regularization_loss = _namespace.in_default_graph(_nn_impl.scale_regularization_loss)

from opforge.ops import ctc_ops as _ctc  # noqa: E402

_tf1.nn.ctc_loss = _namespace.in_default_graph(_ctc.ctc_loss)
_tf1.nn.ctc_loss_v2 = _namespace.in_default_graph(_ctc.ctc_loss_v2)
_tf1.nn.ctc_greedy_decoder = _namespace.in_default_graph(_ctc.ctc_greedy_decoder)
_tf1.nn.collapse_repeated = _namespace.in_default_graph(_ctc.collapse_repeated)

from opforge.ops import nn_ops as _nn_ops  # noqa: E402

_tf1.nn.max_pool_with_argmax = _namespace.in_default_graph(_nn_ops.max_pool_with_argmax)

from opforge.ops import dilated_ops as _dilated  # noqa: E402

_tf1.nn.with_space_to_batch = _namespace.in_default_graph(_dilated.with_space_to_batch)
_tf1.nn.dilation2d = _namespace.in_default_graph(_dilated.dilation2d)
_tf1.nn.erosion2d = _namespace.in_default_graph(_dilated.erosion2d)
