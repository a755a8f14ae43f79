"""Control flow: ``of.cond``, ``of.case`` and ``of.while_loop`` (TensorFlow 1's tf.cond,
tf.case and tf.while_loop).

Eagerly they are Python: the predicate's value picks a branch, the loop runs in Python. In a
graph they build TensorFlow 1's control-flow ops, which the Session's dataflow executor runs
(runtime/src/control_flow.h):

- cond: each tensor a branch uses from outside goes through a Switch on the predicate (the
  other output is dead, so the branch that is not taken does not run); each result is a
  Merge of the two branches' values.
- while_loop: each loop variable enters the loop's frame (Enter), meets its next-iteration
  value in a Merge, and a Switch on the loop condition (LoopCond) sends it either into the
  body or out of the loop (Exit); the body's results go back through NextIteration. Tensors
  the cond or body read from outside enter as loop invariants (constant Enters).

While a branch or a body is built, the graph's control-flow context sees every node added
(``Graph.create_op`` calls it): it routes outside tensors in as above, and gives nodes that
have no inputs (constants) a control input from the context's pivot, so they run in the
branch or loop iteration rather than once outside it.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as _dtypes
from .errors import InvalidArgumentError
from .graph import GraphTensor, _explicit_graph, get_default_graph
from .tensor import Tensor as EagerTensor
from .tensor import TensorShape


# ------------------------------------------------------------------------- structures


def _flatten(structure) -> list:
    """The leaves of nested lists, tuples and dicts (dicts in sorted key order)."""
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in _flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack(structure, leaves: list):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)

    def build(s):
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)} if not hasattr(s, "_fields") else s
        if isinstance(s, (list, tuple)):
            items = [build(x) for x in s]
            if hasattr(s, "_fields"):  # namedtuple
                return type(s)(*items)
            return type(s)(items)
        leaf = next(it)
        return s._cf_rebuild(leaf) if _is_composite(s) else leaf

    return build(structure)


def _is_composite(v) -> bool:
    """Whether v is carried through a cond or loop as one tensor of its own (a TensorArray: its
    flow), and rebuilt from it there (``_cf_tensor`` / ``_cf_rebuild``)."""
    return hasattr(v, "_cf_tensor") and hasattr(v, "_cf_rebuild")


def _leaf_tensor(v):
    return v._cf_tensor() if _is_composite(v) else v


def _same_structure(a, b, what: str) -> None:
    def shape_of(s):
        if isinstance(s, dict):
            return ("dict", tuple(sorted(s)), tuple(shape_of(s[k]) for k in sorted(s)))
        if isinstance(s, (list, tuple)):
            return ("seq", len(s), tuple(shape_of(x) for x in s))
        return "leaf"
    if shape_of(a) != shape_of(b):
        raise ValueError(f"{what}: the two structures don't have the same nested structure: {a!r} and {b!r}")


# ------------------------------------------------------------------------- contexts


class _Context:
    """What cond and while contexts share: the enclosing context, the pivot that gives
    input-less nodes their place, and the outside tensors already routed in."""

    def __init__(self, graph, outer):
        self.graph = graph
        self.outer = outer
        self.pivot = None
        self._routed: dict[int, GraphTensor] = {}
        self._sources: dict[int, GraphTensor] = {}
        self._own: set[int] = set()  # ids of the ops built in this context

    def contains(self, op) -> bool:
        """Whether op was built in this context or one nested in it."""
        ctx = getattr(op, "_cf_context", None)
        while ctx is not None:
            if ctx is self:
                return True
            ctx = ctx.outer
        return False

    def process_input(self, t: GraphTensor) -> GraphTensor:
        if self.contains(t.op):
            return t
        key = id(t)
        routed = self._routed.get(key)
        if routed is None:
            saved = self.graph._cf_context
            self.graph._cf_context = self.outer  # built outside: the outer context routes t
            try:
                routed = self._route(self.outer.process_input(t) if self.outer else t)
            finally:
                self.graph._cf_context = saved
            routed.op._cf_context = self
            self._routed[key] = routed
            self._sources[key] = t
        return routed

    def routed_pairs(self):
        """(outside tensor, its value inside) for each tensor routed in so far."""
        return [(self._sources[k], self._routed[k]) for k in self._routed]

    def _route(self, t: GraphTensor) -> GraphTensor:
        raise NotImplementedError  # each context kind routes its own way

    def process_control(self, op):
        """A control input of a node built here. One from the same loop frame stays; one from
        outside the loop cannot cross the frame as a control edge, so its first output is
        routed in (as a data value would be) and the node waits on that."""
        if _frame_of(op) is _frame_of_context(self):
            return op
        if not op.outputs:
            raise InvalidArgumentError(
                f"a node inside a while loop cannot wait on '{op.name}', an operation outside the loop "
                "with no outputs: make it a control dependency of the loop's inputs instead", op.type)
        return self.process_input(op.outputs[0]).op


def _frame_of_context(ctx):
    """The innermost while loop a context is in (None: the root frame)."""
    while ctx is not None and not isinstance(ctx, WhileContext):
        ctx = ctx.outer
    return ctx


def _frame_of(op):
    return _frame_of_context(getattr(op, "_cf_context", None))


class CondContext(_Context):
    """One branch of a cond: outside tensors go through a Switch on the predicate."""

    def __init__(self, graph, outer, pred, branch: int):
        super().__init__(graph, outer)
        self.pred = pred
        self.branch = branch

    def _route(self, t):
        from .. import ops  # noqa: PLC0415
        return ops.switch(t, self.pred)[self.branch]


class WhileContext(_Context):
    """A loop body (or its condition): outside tensors enter the frame as loop invariants."""

    def __init__(self, graph, outer, frame_name: str, parallel_iterations: int):
        super().__init__(graph, outer)
        self.frame_name = frame_name
        self.parallel_iterations = parallel_iterations

    def _route(self, t):
        from .. import ops  # noqa: PLC0415
        return ops.enter(t, frame_name=self.frame_name, is_constant=True,
                         parallel_iterations=self.parallel_iterations)


def _enter_context(graph, ctx):
    saved = graph._cf_context
    graph._cf_context = ctx
    return saved


def _in_graph(*values) -> bool:
    if _explicit_graph() is not None:
        return True
    return any(isinstance(_leaf_tensor(v), GraphTensor) for v in _flatten(list(values)))


def _as_graph_tensor(graph, v, name="value"):
    from .graph import to_graph_tensor  # noqa: PLC0415
    return to_graph_tensor(graph, _leaf_tensor(v), op_name=name)


def _truth(pred) -> bool:
    value = pred.numpy() if isinstance(pred, EagerTensor) else np.asarray(pred)
    if value.size != 1:
        raise InvalidArgumentError(f"cond: pred must be a scalar, got shape {value.shape}", "cond")
    return bool(value.reshape(()))


# ------------------------------------------------------------------------- cond


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns ``true_fn()`` if ``pred`` is true, else ``false_fn()`` (TensorFlow's tf.cond).

    In a graph both branches are built and only the taken one runs; they must return the same
    structure of tensors, with the same dtypes. Eagerly only the taken branch is called.
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond: true_fn and false_fn must be callable")
    if not _in_graph(pred):
        return true_fn() if _truth(pred) else false_fn()
    from .. import ops  # noqa: PLC0415
    graph = get_default_graph()
    with graph.name_scope(name or "cond"):
        outer = graph._cf_context
        pred = _as_graph_tensor(graph, pred, "cond")
        if outer is not None:
            pred = outer.process_input(pred)
        if pred.dtype != _dtypes.bool_:
            raise InvalidArgumentError(f"cond: pred must be a bool tensor, got {pred.dtype.name}", "cond")
        if pred.shape.rank not in (None, 0):
            raise InvalidArgumentError(f"cond: pred must be a scalar, got shape {pred.shape}", "cond")
        p_false, p_true = ops.switch(pred, pred)
        pred_id = ops.identity(pred, name="pred_id")
        results = []
        for branch, fn, pivot_src, tag in ((1, true_fn, p_true, "switch_t"), (0, false_fn, p_false, "switch_f")):
            ctx = CondContext(graph, outer, pred_id, branch)
            ctx.pivot = ops.identity(pivot_src, name=tag)  # built outside, live in the branch
            ctx.pivot.op._cf_context = ctx
            saved = _enter_context(graph, ctx)
            try:
                out = fn()
                if out is None:
                    raise ValueError("cond: a branch must return a value (return the tensors it computes, or "
                                     "use of.no_op / of.group for a branch with only side effects)")
                flat = [_branch_output(graph, ctx, v) for v in _flatten(out)]
            finally:
                graph._cf_context = saved
            results.append((out, flat))
        (true_out, flat_true), (false_out, flat_false) = results
        _same_structure(true_out, false_out, "cond")
        merged = []
        for t, f in zip(flat_true, flat_false):
            if t.dtype != f.dtype:
                raise ValueError(f"cond: outputs of true_fn and false_fn must have the same type: "
                                 f"{t.dtype.name}, {f.dtype.name}")
            m, _ = ops.merge([f, t])
            m.op._cond_pred = pred_id
            merged.append(m)
    return _pack(true_out, merged)


def _branch_output(graph, ctx, v):
    """A branch result as a tensor of the branch: an outside tensor (or a Python value)
    comes through the branch's Switch, an Operation becomes a control-only value."""
    from .. import ops  # noqa: PLC0415
    from .graph import Operation  # noqa: PLC0415
    if isinstance(v, Operation):
        with graph.control_dependencies([v]):
            return ops.identity(ctx.pivot)
    t = _as_graph_tensor(graph, v, "cond")
    return ctx.process_input(t) if not ctx.contains(t.op) else t


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function of the first true predicate (TensorFlow's tf.case): nested conds, in the
    order given. With ``exclusive``, at most one predicate may be true (checked when it runs).
    ``default`` runs when none is; without it, the last pair's function does."""
    del strict
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    pairs = list(pred_fn_pairs)
    if not pairs:
        if default is None:
            raise ValueError("case: pred_fn_pairs must not be empty without a default")
        return default()
    for p, f in pairs:
        if not callable(f):
            raise TypeError(f"case: fn for pred {p!r} must be callable")
    if default is None:
        *pairs, (_, default) = pairs
    if exclusive and len(pairs) > 1 and not _in_graph(*[p for p, _ in pairs]):
        if sum(_truth(p) for p, _ in pairs) > 1:
            raise InvalidArgumentError("case: more than one condition evaluated as True with exclusive=True",
                                       "case")

    def chain(i):
        if i == len(pairs):
            return default()
        p, f = pairs[i]
        return cond(p, f, lambda: chain(i + 1), name=f"{name}_{i}" if name else None)

    return chain(0)


# ------------------------------------------------------------------------- while_loop



def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The branch branch_fns[branch_index] (a list, or a dict {int: fn}); out of range, default,
    or the last branch without one (TensorFlow's tf.switch_case), as a tf.case over the index."""
    from .. import ops as _ops  # noqa: PLC0415
    items = sorted(branch_fns.items()) if isinstance(branch_fns, dict) else list(enumerate(branch_fns))
    if not items:
        raise ValueError("switch_case: branch_fns must not be empty")
    if default is None:
        items, default = items[:-1], items[-1][1]
    index = branch_index if hasattr(branch_index, "dtype") and not isinstance(branch_index, np.ndarray) \
        else np.int32(branch_index)
    pairs = [(_ops.equal(index, np.asarray(k, np.int32)), fn) for k, fn in items]
    return case(pairs, default=default, exclusive=False, name=name)

def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None, return_same_structure=False):
    """Repeats ``body`` while ``cond`` is true (TensorFlow's tf.while_loop).

    ``cond(*loop_vars)`` returns a bool scalar, ``body(*loop_vars)`` the next values, of the
    same structure. ``maximum_iterations`` bounds the number of iterations (the loop ends
    then even if cond is still true); ``shape_invariants`` gives loop variables whose shape
    changes from one iteration to the next a less specific shape. In a graph at most
    ``parallel_iterations`` iterations are under way at once.
    """
    del swap_memory
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    if isinstance(parallel_iterations, bool) or not isinstance(parallel_iterations, (int, np.integer)) \
            or parallel_iterations < 1:
        raise ValueError("while_loop: parallel_iterations must be a positive integer")
    single = not isinstance(loop_vars, (list, tuple, dict))
    structure = [loop_vars] if single else loop_vars
    if not _in_graph(loop_vars, maximum_iterations):
        values = structure
        i = 0
        while True:
            if maximum_iterations is not None and i >= int(_as_numpy(maximum_iterations)):
                break
            if not _truth(cond(*values) if not isinstance(values, dict) else cond(**values)):
                break
            nxt = body(*values) if not isinstance(values, dict) else body(**values)
            if single or (isinstance(nxt, (list, tuple)) is False and len(_flatten(structure)) == 1):
                nxt = [nxt] if not isinstance(nxt, (list, tuple)) else nxt
            values = nxt
            i += 1
        return values[0] if single and not return_same_structure else values
    return _while_graph(cond, body, structure, single, shape_invariants, int(parallel_iterations), back_prop,
                        maximum_iterations, name, return_same_structure)


def _as_numpy(v):
    return v.numpy() if isinstance(v, EagerTensor) else np.asarray(v)


def _while_graph(cond_fn, body_fn, structure, single, shape_invariants, parallel_iterations, back_prop,
                 maximum_iterations, name, return_same_structure):
    from .. import ops  # noqa: PLC0415
    graph = get_default_graph()
    with graph.name_scope(name or "while") as scope:
        frame_name = scope.rstrip("/")
        outer = graph._cf_context
        flat = [_as_graph_tensor(graph, v, "while_loop") for v in _flatten(structure)]
        if outer is not None:
            flat = [outer.process_input(t) for t in flat]
        invariants = None
        if shape_invariants is not None:
            inv = [shape_invariants] if single else shape_invariants
            invariants = [TensorShape(s) for s in _flatten_shapes(inv, len(flat))]
        counted = maximum_iterations is not None
        if counted:
            limit = _as_graph_tensor(graph, maximum_iterations, "while_loop")
            if outer is not None:
                limit = outer.process_input(limit)
            flat = [ops.zeros_like(limit)] + flat
            if invariants is not None:
                invariants = [TensorShape([])] + invariants
        ctx = WhileContext(graph, outer, frame_name, parallel_iterations)
        saved = _enter_context(graph, ctx)
        try:
            enters = []
            for k, t in enumerate(flat):
                saved_inner = _enter_context(graph, outer)
                try:
                    e = ops.enter(t, frame_name=frame_name, is_constant=False,
                                  parallel_iterations=parallel_iterations)
                finally:
                    graph._cf_context = saved_inner
                e.op._cf_context = ctx
                if invariants is not None:
                    graph._set_shape(e, invariants[k])
                enters.append(e)
            merges = []
            for e in enters:
                m, _ = ops.merge([e, e])
                merges.append(m)
            ctx.pivot = merges[0]
            user = merges[1:] if counted else merges
            c = cond_fn(*_unflatten_vars(structure, user))
            c = _as_graph_tensor(graph, c, "while_loop")
            c = ctx.process_input(c) if not ctx.contains(c.op) else c
            if c.dtype != _dtypes.bool_ or c.shape.rank not in (None, 0):
                raise ValueError(f"while_loop: cond must return a bool scalar, got {c.dtype.name} of shape {c.shape}")
            if counted:
                c = ops.logical_and(ops.less(merges[0], ctx.process_input(limit)), c)
            loop_cond = ops.loop_cond(c)
            switches = [ops.switch(m, loop_cond) for m in merges]
            body_in = [ops.identity(s[1]) for s in switches]
            ctx.pivot = body_in[0]
            nxt = body_fn(*_unflatten_vars(structure, body_in[1:] if counted else body_in))
            if single and not isinstance(nxt, (list, tuple)) or (not single and not isinstance(nxt, (list, tuple, dict))):
                nxt = [nxt]
            _same_structure(list(structure) if not isinstance(structure, dict) else structure,
                            list(nxt) if isinstance(nxt, tuple) and not hasattr(nxt, "_fields") else nxt,
                            "while_loop")
            flat_next = []
            for v in _flatten(nxt):
                t = _as_graph_tensor(graph, v, "while_loop")
                flat_next.append(ctx.process_input(t) if not ctx.contains(t.op) else t)
            if counted:
                flat_next = [ops.add_v2(body_in[0], ops.ones_like(body_in[0]))] + flat_next
            for k, (m, e, t) in enumerate(zip(merges, enters, flat_next)):
                if t.dtype != e.dtype:
                    raise ValueError(f"while_loop: loop variable {k} enters the loop as {e.dtype.name} "
                                     f"but the body returns {t.dtype.name}")
                if not e.shape.is_compatible_with(t.shape):
                    raise ValueError(
                        f"Input tensor '{flat[k].name}' enters the loop with shape {e.shape}, but has shape "
                        f"{t.shape} after one iteration. To allow the shape to vary across iterations, use "
                        f"the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.")
            nexts = [ops.next_iteration(t) for t in flat_next]
        finally:
            graph._cf_context = saved
        saved_inner = _enter_context(graph, ctx)
        try:
            exits = [ops.exit(s[0]) for s in switches]
        finally:
            graph._cf_context = saved_inner
        for e in exits:
            e.op._cf_context = outer  # an Exit's value is outside the loop
        for m, n in zip(merges, nexts):
            graph._update_input(m.op, 1, n)
        loop = _WhileLoop(ctx, flat, enters, merges, switches, body_in, flat_next, exits, counted, back_prop,
                          loop_cond)
        for e in exits:
            e.op._while_loop = loop
    results = exits[1:] if counted else exits
    out = _unflatten_vars(structure, results)
    if single and not return_same_structure:
        return out[0]
    return out


class _WhileLoop:
    """What a loop's gradient needs to know of the loop (kept on its Exit ops)."""

    def __init__(self, ctx, inputs, enters, merges, switches, body_in, body_out, exits, counted, back_prop,
                 loop_cond):
        self.ctx, self.inputs, self.enters, self.merges = ctx, inputs, enters, merges
        self.switches, self.body_in, self.body_out, self.exits = switches, body_in, body_out, exits
        self.counted, self.back_prop, self.loop_cond = counted, back_prop, loop_cond


class LoopVar:
    """A loop variable added to a loop that exists (by its context and LoopCond): how a
    gradient adds the forward loop's counters and stacks, and builds the backward loop.
    ``value`` is the variable's value in the body; ``finish(next)`` closes the loop with the
    body's next value and returns the value after the loop (its Exit)."""

    def __init__(self, ctx: WhileContext, loop_cond, init, name: str = "loop_var"):
        from .. import ops  # noqa: PLC0415
        graph = ctx.graph
        saved = _enter_context(graph, ctx.outer)
        try:
            init = ctx.outer.process_input(init) if ctx.outer is not None else init
            self.enter = ops.enter(init, frame_name=ctx.frame_name, is_constant=False,
                                   parallel_iterations=ctx.parallel_iterations, name=f"{name}_enter")
        finally:
            graph._cf_context = saved
        self.enter.op._cf_context = ctx
        self.ctx = ctx
        saved = _enter_context(graph, ctx)
        try:
            self.merge, _ = ops.merge([self.enter, self.enter], name=f"{name}_merge")
            self.switch = ops.switch(self.merge, loop_cond, name=f"{name}_switch")
            self.value = ops.identity(self.switch[1], name=f"{name}_body")
        finally:
            graph._cf_context = saved

    def finish(self, next_value):
        from .. import ops  # noqa: PLC0415
        graph = self.ctx.graph
        saved = _enter_context(graph, self.ctx)
        try:
            nxt = ops.next_iteration(next_value)
            out = ops.exit(self.switch[0])
        finally:
            graph._cf_context = saved
        out.op._cf_context = self.ctx.outer
        graph._update_input(self.merge.op, 1, nxt)
        return out


def _unflatten_vars(structure, flat):
    if isinstance(structure, dict):
        return [_pack(structure, flat)]
    return list(_pack(list(structure), flat))


def _flatten_shapes(inv, n):
    """Shape invariants, one per loop variable (a shape is a leaf, not a nested list)."""
    out = []

    def walk(s):
        if s is None or isinstance(s, TensorShape) or (isinstance(s, (list, tuple)) and all(
                d is None or isinstance(d, (int, np.integer)) for d in s)):
            out.append(s)
        elif isinstance(s, dict):
            for k in sorted(s):
                walk(s[k])
        else:
            for x in s:
                walk(x)
    walk(inv)
    if len(out) != n:
        raise ValueError(f"while_loop: {len(out)} shape invariants for {n} loop variables")
    return out
