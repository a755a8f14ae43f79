"""Gradients of TensorFlow 1's control-flow ops (``gradient_fn`` in their opdefs).

A cond (``of.cond``) is a Switch per value that enters a branch and a Merge per output. The
gradient runs the same branch backwards: the gradient of a Merge output is switched by the
cond's predicate into the branch whose input was taken, and the gradients arriving at a
Switch's two outputs are merged (the one of the branch that did not run is dead).
"""

from __future__ import annotations

from ..framework.errors import UnimplementedError


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def merge_grad(op, grads):
    """Merge(inputs) -> output: input i's gradient is output's gradient when i was taken."""
    pred = getattr(op, "cond_pred", None)
    if pred is None:
        raise UnimplementedError(
            f"the gradient of Merge '{op.name}' needs the predicate of the cond that built it; "
            "only Merges built by of.cond (or inside of.while_loop) are differentiable", "Merge")
    n = len(op.inputs[0])
    if n != 2:
        raise UnimplementedError(f"the gradient of Merge '{op.name}' with {n} inputs", "Merge")
    false_grad, true_grad = _ops().switch(grads[0], pred)
    return ([false_grad, true_grad],)


def switch_grad(op, grads):
    """Switch(data, pred) -> (output_false, output_true): data's gradient is whichever of the
    two output gradients is live. pred has none."""
    merged, _ = _ops().merge([grads[0], grads[1]])
    return merged, None
