"""Symbolic differentiation of graphs (TensorFlow 1's tf.gradients).

Walks the operations between xs and ys backwards, calling the same generated gradient
functions the eager tape uses; in graph mode those functions add nodes. Node ids are a
topological order (a node's inputs always exist before it), so the walk visits them by
decreasing id.
"""

from __future__ import annotations

from ..framework.errors import NotFoundError
from ..framework.graph import GraphTensor, get_default_graph
from . import registry
from .helpers import zeros_for_missing_grad
from .options import check_aggregation, check_unconnected


def _as_tensor(x):
    if isinstance(x, GraphTensor):
        return x
    handle = getattr(x, "_tape_handle", None)
    if handle is not None:
        return handle()
    raise TypeError(f"gradients: expected graph tensors or variables, got {type(x).__name__}")


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients="none"):
    """Symbolic partial derivatives of sum(ys) with respect to each x in xs.

    Returns a list with one graph tensor per x (None where x does not influence ys, or zeros
    with ``unconnected_gradients="zero"`` / UnconnectedGradients.ZERO). Gradients reaching one
    tensor are summed with AddN whatever ``aggregation_method`` names (all give the same sum);
    colocation and gating are accepted and change nothing (one process, one executor).
    """
    del colocate_gradients_with_ops, gate_gradients
    check_aggregation(aggregation_method)
    unconnected_gradients = check_unconnected(unconnected_gradients)
    first = ys[0] if isinstance(ys, (list, tuple)) and ys else ys
    graph = getattr(first, "graph", None) or get_default_graph()
    with graph.as_default():  # every node, even one from constants alone, goes into ys' graph
        return _gradients(ys, xs, grad_ys, name, stop_gradients, unconnected_gradients)


def _gradients(ys, xs, grad_ys, name, stop_gradients, unconnected_gradients):
    from .. import ops  # noqa: PLC0415

    ys = [_as_tensor(y) for y in (ys if isinstance(ys, (list, tuple)) else [ys])]
    single = not isinstance(xs, (list, tuple))
    xs = [_as_tensor(x) for x in ([xs] if single else xs)]
    if grad_ys is not None and not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    graph = ys[0].graph if ys else get_default_graph()
    stop = {id(t) for t in (stop_gradients or [])}

    # Ops on a path from some x to some y.
    from_x = {id(x.op) for x in xs}
    ops_list = graph.get_operations()
    reach = set()
    x_ids = {id(x) for x in xs}
    reached_loops = set()  # while loops (their contexts) with a reached op inside
    changed = True
    while changed:  # to a fixed point: a loop reached inside reaches its Exits, made before
        changed = False
        for op in ops_list:
            if id(op) in reach:
                continue
            loop = getattr(op, "_while_loop", None)
            # A NextIteration's value goes to the next iteration, not further in this one: a
            # loop is followed through its Exits instead.
            hit = any(id(t) in x_ids or (id(t.op) in reach and t.op.type != "NextIteration") for t in op.inputs)
            if hit or (loop is not None and id(loop.ctx) in reached_loops):
                reach.add(id(op))
                changed = True
                ctx = getattr(op, "_cf_context", None)
                while ctx is not None:
                    reached_loops.add(id(ctx))
                    ctx = ctx.outer
    to_y = set()
    pending = [y.op for y in ys]
    while pending:
        op = pending.pop()
        if id(op) in to_y:
            continue
        to_y.add(id(op))
        for t in op.inputs:
            if id(t) not in x_ids:
                pending.append(t.op)
    del from_x

    grads: dict[int, list] = {}

    def add_grad(t, g):
        grads.setdefault(id(t), []).append(g)

    with graph.name_scope(name):
        for i, y in enumerate(ys):
            gy = grad_ys[i] if grad_ys is not None and grad_ys[i] is not None else ops.ones_like(y)
            add_grad(y, gy)

        def total(t):
            gs = grads.get(id(t))
            if not gs:
                return None
            if len(gs) > 1:
                grads[id(t)] = [ops.add_n(gs)]
            return grads[id(t)][0]

        done_loops: set[int] = set()
        for op in sorted((o for o in ops_list if id(o) in reach and id(o) in to_y),
                         key=lambda o: o._id, reverse=True):
            if id(op) in done_loops:
                continue
            loop = getattr(op, "_while_loop", None)
            if loop is not None:  # a while loop is differentiated as a whole (at its last Exit)
                from .while_grad import while_loop_grad  # noqa: PLC0415
                exit_grads = [total(e) for e in loop.exits]
                in_grads, targets = while_loop_grad(
                    loop, exit_grads,
                    lambda ys_, xs_, grad_ys: gradients(ys_, xs_, grad_ys=grad_ys, name="body_grad"),
                    lambda t: id(t) in x_ids or id(t.op) in reach)
                for t in targets:
                    if id(t) in in_grads and id(t) not in stop:
                        add_grad(t, in_grads[id(t)])
                exit_ops = {id(e.op) for e in loop.exits}
                done_loops.update(id(o) for o in ops_list if loop.ctx.contains(o) or id(o) in exit_ops)
                continue
            outs = op.outputs
            out_grads = [total(t) for t in outs]
            if all(g is None for g in out_grads):
                continue
            grad_type = getattr(op, "_gradient_op_type", None) or op.type
            if registry.is_not_differentiable(grad_type):
                continue
            try:
                fn = registry.get_gradient(grad_type)
            except NotFoundError:
                raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})") from None
            out_grads = [g if g is not None else zeros_for_missing_grad(t) for g, t in zip(out_grads, outs)]
            view = _GradView(op)
            with graph.name_scope(op.name + "_grad"):
                in_grads = fn(view, out_grads)
            for arg, g in zip(view.inputs, in_grads):
                if g is None:
                    continue
                if isinstance(arg, (list, tuple)):
                    for a, ga in zip(arg, g):
                        if ga is not None and id(a) not in stop:
                            add_grad(a, ga)
                elif id(arg) not in stop:
                    add_grad(arg, g)

        result = []
        for x in xs:
            g = total(x)
            if g is None and unconnected_gradients == "zero":
                g = ops.zeros_like(x)
            result.append(g)
    return result


class _GradView:
    """What generated gradient functions see of a graph op (as of the eager OpRecord)."""

    def __init__(self, op):
        self.type = op.type
        self.name = op.name
        self.inputs = op._grad_inputs
        self.outputs = op._grad_outputs
        self.attrs = op._attrs
        self.cond_pred = getattr(op, "_cond_pred", None)  # Merges built by of.cond
