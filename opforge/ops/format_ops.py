"""tf.strings.format: a template filled with the summarized values of tensors (the op StringFormat)."""

from __future__ import annotations

import opforge as _of
from opforge.framework.graph import GraphTensor
from opforge.framework.tensor import Tensor as EagerTensor
from opforge.generated import gen_strings_ops as _gen

__all__ = ["format"]


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001  (TensorFlow's name)
    """``template`` with each ``placeholder`` replaced, in order, by the next of ``inputs`` (a tensor
    or a list of them) as print_v2 writes it, at most ``summarize`` values at each end of every
    dimension (-1: all). A scalar string tensor."""
    if isinstance(inputs, (tuple, list)):
        inputs = list(inputs)
    else:
        inputs = [inputs]
    inputs = [x if isinstance(x, (GraphTensor, EagerTensor)) else _of.convert_to_tensor(x) for x in inputs]
    if not placeholder:
        raise ValueError("placeholder must not be empty")
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has {len(inputs)}. Please "
                         f"ensure the number of placeholders in template matches inputs length.")
    return _gen.string_format(inputs, template=template, placeholder=placeholder, summarize=summarize, name=name)
