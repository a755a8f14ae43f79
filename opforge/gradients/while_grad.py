"""Gradients of while loops built by ``of.while_loop`` (TensorFlow 1's approach).

The loop is differentiated as a unit. The backward loop runs as many iterations as the
forward one did, last iteration first: each takes the gradients of the loop variables after
an iteration to the gradients before it, by the gradient of the body (the ordinary graph
gradient, built inside the backward loop). Where that gradient needs a value the forward body
computed, the value is stacked: the forward loop gets a TensorList that each iteration pushes
the value onto, and the backward loop pops it, so iteration k of the backward loop sees
iteration N-1-k's value. Loop invariants (tensors the body reads from outside) enter the
backward loop as invariants again, and their gradients are summed over the iterations.

A value computed inside a cond in the body is stacked merged with a stand-in, so every iteration
pushes, and switched again on the cond's predicate when popped (live only where the forward
iteration took its branch). A loop nested in the body gets its backward loop inside the outer
backward loop; what it reads of the outer forward iterations is stacked by the outer loop.
"""

from __future__ import annotations

import numpy as np

from ..framework.errors import UnimplementedError
from ..framework.control_flow import CondContext, LoopVar, WhileContext


def _ops():
    from .. import ops  # noqa: PLC0415
    return ops


def _differentiable(t) -> bool:
    """Float values, and variants (TensorLists: their gradients are lists too)."""
    return t.dtype.is_floating or t.dtype.name == "variant"


class _GradContext(WhileContext):
    """The backward loop's context: forward body values are popped from stacks."""

    def __init__(self, graph, outer, frame_name, parallel_iterations, loop):
        super().__init__(graph, outer, frame_name, parallel_iterations)
        self.loop = loop
        self.loop_cond = None
        self._stacks: dict[int, object] = {}
        self.stacked = []  # (forward value, backward LoopVar of its stack): closed at the end

    def process_input(self, t):
        if self.contains(t.op):
            return t
        fwd = self.loop.ctx
        if not fwd.contains(t.op):
            return super().process_input(t)
        if t.op.type == "Enter" and t.op.get_attr("is_constant"):
            return super().process_input(t.op.inputs[0])  # a loop invariant: the same outside value
        popped = self._stacks.get(id(t))
        if popped is None:
            conds = self._conds_between(t)
            popped = self._stack(t) if not conds else self._stack_from_conds(t, conds)
            self._stacks[id(t)] = popped
        return popped

    def _conds_between(self, t) -> list:
        """When t is live in a forward iteration: (predicate, branch, context the predicate is
        in) for each cond around t inside the body, innermost first; [] if always. An output of a
        Switch is live when its predicate equals its index, whatever branch routed it."""
        fwd = self.loop.ctx
        conds, op = [], t.op
        ctx = op._cf_context
        if op.type == "Switch":
            outer = ctx.outer if isinstance(ctx, CondContext) else ctx
            conds.append((op.inputs[1], t.value_index, outer))
            ctx = outer
        while ctx is not fwd:
            if not isinstance(ctx, CondContext):
                raise UnimplementedError(
                    f"the gradient of the while loop '{fwd.frame_name}' needs '{t.name}', a value inside a nested "
                    "loop in the loop body: gradients through loops nested in a while loop are not supported yet",
                    t.op.type)
            conds.append((ctx.pred, ctx.branch, ctx.outer))
            ctx = ctx.outer
        return conds

    def _stack_from_conds(self, t, conds):
        """A value computed in a cond in the body lives only in the iterations that took its
        branch. The forward loop stacks it merged with a stand-in (a zero live when the branch
        was not taken), so every iteration pushes; the backward loop switches the popped value
        on the same predicates, so it is live, as t was, only where the branch was taken."""
        ops = _ops()
        graph = self.graph
        if t.dtype.name in ("variant", "string"):
            raise UnimplementedError(
                f"the gradient of the while loop '{self.loop.ctx.frame_name}' needs '{t.name}', a "
                f"{t.dtype.name} value inside a cond in the loop body: not supported yet", t.op.type)
        from ..framework.graph import constant_node  # noqa: PLC0415
        live = t
        saved = graph._cf_context
        try:
            for pred, branch, ctx in conds:  # innermost first: each merge in the context around its cond
                graph._cf_context = ctx
                zero = constant_node(graph, np.zeros((), t.dtype.as_numpy_dtype))
                other = ops.switch(zero, pred)[1 - branch]
                live, _ = ops.merge([live, other])
        finally:
            graph._cf_context = saved
        value = self._stack(live)
        saved = graph._cf_context
        graph._cf_context = self
        try:
            for pred, branch, _ in reversed(conds):  # outermost first
                value = ops.switch(value, self.process_input(pred))[branch]
        finally:
            graph._cf_context = saved
        if t.shape.rank is not None:
            graph._set_shape(value, t.shape)
        return value

    def _stack(self, t):
        """Pushes t in every forward iteration; pops it in every backward one."""
        ops = _ops()
        graph = self.graph
        fwd = self.loop.ctx
        saved = graph._cf_context
        graph._cf_context = fwd.outer
        try:
            empty = ops.empty_tensor_list(-1, -1, element_dtype=t.dtype, name="stack")
        finally:
            graph._cf_context = saved
        push = LoopVar(fwd, self.loop.loop_cond, empty, name="stack")
        saved = graph._cf_context
        graph._cf_context = fwd
        try:
            pushed = ops.tensor_list_push_back(push.value, t)
        finally:
            graph._cf_context = saved
        full = push.finish(pushed)
        pop = LoopVar(self, self.loop_cond, full, name="unstack")
        saved = graph._cf_context
        graph._cf_context = self
        try:
            dims = t.shape.dims
            element_shape = np.int32(-1) if dims is None else np.array([-1 if d is None else d for d in dims], np.int32)
            rest, value = ops.tensor_list_pop_back(pop.value, element_shape, element_dtype=t.dtype)
        finally:
            graph._cf_context = saved
        pop.finish(rest)
        return value


def while_loop_grad(loop, exit_grads, gradients_fn, needs_grad=lambda t: True):
    """Gradients of a forward loop's inputs and of the outside tensors its body reads, given
    the gradients of its Exits (None where nothing flows). ``needs_grad(t)``: whether the
    caller wants gradients to flow to an outside tensor t. Returns {id(tensor): gradient} and
    the tensors themselves."""
    ops = _ops()
    fwd = loop.ctx
    if not loop.back_prop:
        return {}, []
    graph = fwd.graph
    # Where the backward loop goes: the context the gradient is being built in. For a loop in
    # another loop's body that is the outer loop's backward loop, which stacks what the inner
    # backward loop reads of the outer forward iterations (its counts and stacks included).
    grad_outer = graph._cf_context
    first = 1 if loop.counted else 0
    # Every float loop variable: one whose value after the loop is unused still carries
    # gradient between iterations (h in an RNN whose outputs are collected). A TensorList
    # whose value after the loop is unused has none to carry.
    var_idx = [k for k in range(first, len(loop.exits)) if _differentiable(loop.exits[k])
               and (exit_grads[k] is not None or loop.exits[k].dtype.is_floating)]
    if all(exit_grads[k] is None for k in var_idx):
        return {}, []
    exit_grads = list(exit_grads)
    saved = graph._cf_context
    graph._cf_context = grad_outer
    try:
        for k in var_idx:
            if exit_grads[k] is None:
                exit_grads[k] = ops.zeros_like(loop.exits[k])
    finally:
        graph._cf_context = saved
    # Invariants: float tensors, and TensorLists the body reads (their gradients are lists,
    # summed over the iterations by AddN of lists as floats are by AddV2).
    invariants = [(outside, routed) for outside, routed in _invariants(fwd)
                  if outside.dtype.is_floating or (outside.dtype.name == "variant" and needs_grad(outside))]
    # The forward iteration count: a counter added to the forward loop.
    counter = LoopVar(fwd, loop.loop_cond, _int_zero(graph, fwd.outer), name="iterations")
    saved = graph._cf_context
    graph._cf_context = fwd
    try:
        count = counter.finish(ops.add_v2(counter.value, _int_one(graph, fwd)))
    finally:
        graph._cf_context = saved
    # The backward loop.
    bwd = _GradContext(graph, grad_outer, fwd.frame_name + "_grad", fwd.parallel_iterations, loop)
    saved = graph._cf_context
    graph._cf_context = grad_outer
    try:
        # Its counter comes first: its Merge is the pivot, and its LoopCond drives the others.
        n_enter = ops.enter(count, frame_name=bwd.frame_name, parallel_iterations=bwd.parallel_iterations,
                            name="iterations_enter")
        n_enter.op._cf_context = bwd
        graph._cf_context = bwd
        n_merge, _ = ops.merge([n_enter, n_enter])
        bwd.pivot = n_merge
        bwd.loop_cond = ops.loop_cond(ops.greater(n_merge, _int_zero(graph, bwd)))
        n_switch = ops.switch(n_merge, bwd.loop_cond)
        n_body = ops.identity(n_switch[1])
        bwd.pivot = n_body
        n_next = ops.next_iteration(ops.sub(n_body, _int_one(graph, bwd)))
        graph._update_input(n_merge.op, 1, n_next)
    finally:
        graph._cf_context = saved
    grad_vars = [LoopVar(bwd, bwd.loop_cond, exit_grads[k], name="grad") for k in var_idx]
    ys = [loop.body_out[k] for k in var_idx]
    xs = [loop.body_in[k] for k in var_idx] + [routed for _, routed in invariants]
    saved = graph._cf_context
    graph._cf_context = bwd
    try:
        grads = gradients_fn(ys, xs, grad_ys=[g.value for g in grad_vars])
        step = []
        for k, g, gv in zip(var_idx, grads[:len(var_idx)], grad_vars):
            if g is None:  # the body does not change this variable's gradient... a list's stays
                g = gv.value if loop.body_in[k].dtype.name == "variant" else ops.zeros_like(loop.body_in[k])
            step.append(g)
    finally:
        graph._cf_context = saved
    # One tensor may enter the loop more than once (two loop variables, or a loop variable that
    # is also an invariant, as an outer body's value is for a nested loop): its gradients add up.
    parts: dict[int, list] = {}
    targets: dict[int, object] = {}

    def put(t, g):
        parts.setdefault(id(t), []).append(g)
        targets[id(t)] = t

    for k, gv, g in zip(var_idx, grad_vars, step):
        put(loop.inputs[k], gv.finish(g))
    # Gradients of the invariants: summed over the iterations.
    for (outside, _), g in zip(invariants, grads[len(var_idx):]):
        if g is None:
            continue
        saved = graph._cf_context
        graph._cf_context = grad_outer
        try:
            init = ops.zeros_like(outside)
        finally:
            graph._cf_context = saved
        acc = LoopVar(bwd, bwd.loop_cond, init, name="invariant_grad")
        saved = graph._cf_context
        graph._cf_context = bwd
        try:
            total = acc.finish(ops.add_n([acc.value, g]) if outside.dtype.name == "variant"
                               else ops.add_v2(acc.value, g))
        finally:
            graph._cf_context = saved
        put(outside, total)
    result = {}
    saved = graph._cf_context
    graph._cf_context = grad_outer
    try:
        for key, gs in parts.items():
            result[key] = gs[0] if len(gs) == 1 else ops.add_n(gs)
    finally:
        graph._cf_context = saved
    return result, list(targets.values())


def _invariants(ctx):
    """(outside tensor, its constant Enter) for the tensors the loop reads from outside. The
    outside tensor is the Enter's input: in a loop nested in another loop's body, the value
    the outer loop routed in (its gradient is what the outer body's gradient asks for)."""
    return [(routed.op.inputs[0], routed) for _, routed in ctx.routed_pairs()]


def _int_zero(graph, ctx):
    return _int_const(graph, ctx, 0)


def _int_one(graph, ctx):
    return _int_const(graph, ctx, 1)


def _int_const(graph, ctx, v):
    from ..framework.graph import constant_node  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415
    saved = graph._cf_context
    graph._cf_context = ctx
    try:
        return constant_node(graph, np.int32(v))
    finally:
        graph._cf_context = saved
