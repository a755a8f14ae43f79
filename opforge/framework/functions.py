"""Functions in GraphDefs: the function library (FunctionDef) and the ops that call its functions.

TensorFlow 2 graphs call functions: PartitionedCall / StatefulPartitionedCall run a function,
If / StatelessIf pick one of two, Case one of several, While / StatelessWhile repeat one while
another returns true. opforge imports them the way TensorFlow's own executor runs them: it
lowers each call into the graph (TensorFlow's function inlining and LowerFunctionalOps):

- a call becomes the function's nodes, named ``<call>/<node>``, reading the call's inputs;
- If and Case become a Switch of every input on the predicate (for Case, a chain of them) and
  a Merge of the branches' results, as ``of.cond`` builds;
- While becomes a loop frame named after the node (Enter, Merge, LoopCond, Switch,
  NextIteration, Exit per loop variable), as ``of.while_loop`` builds.

Nodes in a branch or loop body that read nothing get a control input from the branch's or
loop's pivot, so they run there. The results keep the call's name: output k of call ``c`` is
``c:k`` as before (Identity nodes ``c`` and ``c/output_k``; consumers are rewired).

The lowered GraphDef has only ordinary ops; the library is kept on the graph and written back
by ``as_graph_def`` so an export still carries the functions.
"""

from __future__ import annotations

from .. import _C
from ..codegen._proto import attr_value_pb2, graph_pb2, node_def_pb2
from . import resource_import
from .errors import InvalidArgumentError, NotFoundError, UnimplementedError

NodeDef = node_def_pb2.NodeDef

CALL_OPS = {"PartitionedCall", "StatefulPartitionedCall"}
IF_OPS = {"If", "StatelessIf"}
WHILE_OPS = {"While", "StatelessWhile"}
CASE_OPS = {"Case", "StatelessCase"}
FUNCTIONAL_OPS = CALL_OPS | IF_OPS | WHILE_OPS | CASE_OPS

_MAX_DEPTH = 64  # nested calls (a function calling itself would never end)


def _bad(node, op, message, cls=InvalidArgumentError):
    return cls(f"{message} [[node {node}]]", op)


def needs_lowering(graph_def) -> bool:
    return any(nd.op in FUNCTIONAL_OPS for nd in graph_def.node)


class _Lowering:
    def __init__(self, library):
        self.functions = {f.signature.name: f for f in library.function}
        self.out: list = []
        self.renames: dict[str, str] = {}  # "call:k" -> the tensor that replaces it

    # ---- helpers
    def add(self, name, op, inputs=(), attrs=None, device=""):
        nd = NodeDef(name=name, op=op)
        nd.input.extend(inputs)
        if device:
            nd.device = device
        for k, v in (attrs or {}).items():
            nd.attr[k].CopyFrom(v)
        if op == "Merge":  # a list input: the importer needs its length
            nd.attr["N"].i = sum(1 for i in inputs if not i.startswith("^"))
        self.out.append(nd)
        return name

    @staticmethod
    def type_attr(dtype_enum):
        av = attr_value_pb2.AttrValue()
        av.type = dtype_enum
        return av

    def function(self, node, op, attr_name):
        if attr_name not in node.attr or node.attr[attr_name].WhichOneof("value") != "func":
            raise _bad(node.name, op, f"attr '{attr_name}' must name a function")
        fname = node.attr[attr_name].func.name
        fdef = self.functions.get(fname)
        if fdef is None:
            raise _bad(node.name, op, f"function '{fname}' is not in the GraphDef's function library",
                       NotFoundError)
        return fdef

    # ---- inlining one function body
    def inline(self, fdef, prefix, args, pivot, device, depth):
        """Adds fdef's nodes as ``prefix/<node>`` reading ``args`` (one tensor name per input
        argument); nodes that read nothing wait on ``pivot`` (a control input) when given.
        Returns (one tensor name per output argument, the control outputs' node names)."""
        if depth > _MAX_DEPTH:
            raise _bad(prefix, fdef.signature.name, "functions nested too deeply (a recursive function?)")
        sig = fdef.signature
        if len(args) != len(sig.input_arg):
            raise _bad(prefix, sig.name, f"function '{sig.name}' takes {len(sig.input_arg)} inputs, got {len(args)}")
        arg_map = {a.name: t for a, t in zip(sig.input_arg, args)}
        nodes = {nd.name: nd for nd in fdef.node_def}
        inner = []
        for nd in fdef.node_def:
            inner.append(self._rewrite(nd, fdef, prefix, arg_map, nodes, pivot))
        for nd in _ordered(inner):
            self.lower_node(nd, depth + 1, device_default=device)
        outs = []
        for a in sig.output_arg:
            if a.name not in fdef.ret:
                raise _bad(prefix, sig.name, f"function '{sig.name}' does not return output '{a.name}'")
            outs.append(self._resolve(fdef.ret[a.name], fdef, prefix, arg_map, nodes))
        controls = [f"{prefix}/{n}" for n in fdef.control_ret.values()]
        return outs, controls

    def _resolve(self, ref, fdef, prefix, arg_map, nodes):
        """A function-body tensor reference ("x", "node:out_arg:i", "node:i") as a graph name."""
        if ref.startswith("^"):
            return "^" + f"{prefix}/{ref[1:]}"
        parts = ref.split(":")
        if len(parts) == 1:
            if parts[0] in arg_map:
                return arg_map[parts[0]]
            if parts[0] in nodes:
                return f"{prefix}/{parts[0]}"
            raise _bad(prefix, fdef.signature.name, f"'{ref}' is neither an argument nor a node of function "
                                                    f"'{fdef.signature.name}'")
        node_name = parts[0]
        if node_name not in nodes:
            raise _bad(prefix, fdef.signature.name, f"'{ref}' refers to a node not in function "
                                                    f"'{fdef.signature.name}'")
        if len(parts) == 2:
            index = int(parts[1])
        else:
            index = _output_index(nodes[node_name], parts[1], int(parts[2]), prefix)
        name = f"{prefix}/{node_name}"
        tensor = name if index == 0 else f"{name}:{index}"
        return self.renames.get(tensor, tensor)

    def _rewrite(self, nd, fdef, prefix, arg_map, nodes, pivot):
        new = NodeDef()
        new.CopyFrom(nd)
        new.name = f"{prefix}/{nd.name}"
        del new.input[:]
        has_data = False
        for ref in nd.input:
            new.input.append(self._resolve(ref, fdef, prefix, arg_map, nodes))
            has_data = has_data or not ref.startswith("^")
        if pivot and not has_data and not any(i.startswith("^") for i in nd.input):
            new.input.append("^" + pivot)
        for k, v in new.attr.items():
            if v.WhichOneof("value") == "placeholder":
                raise _bad(new.name, nd.op, f"attr '{k}' is a placeholder (${v.placeholder}): polymorphic "
                                            "functions are not supported", UnimplementedError)
        return new

    # ---- one node of the graph (or of a function being inlined)
    def lower_node(self, nd, depth=0, device_default=""):
        nd = self._renamed(nd)
        if nd.op in CALL_OPS:
            self.lower_call(nd, depth)
        elif nd.op in IF_OPS:
            self.lower_if(nd, depth)
        elif nd.op in CASE_OPS:
            self.lower_case(nd, depth)
        elif nd.op in WHILE_OPS:
            self.lower_while(nd, depth)
        else:
            if device_default and not nd.device:
                nd.device = device_default
            self.out.append(nd)

    def _renamed(self, nd):
        if not any(i.lstrip("^") in self.renames or i in self.renames for i in nd.input):
            return nd
        new = NodeDef()
        new.CopyFrom(nd)
        del new.input[:]
        for i in nd.input:
            new.input.append(("^" + self.renames.get(i[1:], i[1:]).split(":")[0]) if i.startswith("^")
                             else self.renames.get(i, i))
        return new

    def _split_inputs(self, nd):
        data = [i for i in nd.input if not i.startswith("^")]
        control = [i for i in nd.input if i.startswith("^")]
        return data, control

    def _outputs(self, nd, tensors, controls=()):
        """The call's results under its own name: node ``nd.name`` is output 0 (and waits on
        every result and control output); output k > 0 is ``nd.name/output_k``."""
        id_attr = {}
        for k, t in enumerate(tensors):
            name = nd.name if k == 0 else f"{nd.name}/output_{k}"
            extra = [f"^{x.split(':')[0]}" for x in tensors[1:]] + [f"^{c}" for c in controls] if k == 0 else []
            self.add(name, "Identity", [t] + extra, id_attr)
            if k > 0:
                self.renames[f"{nd.name}:{k}"] = name
        if not tensors:
            self.add(nd.name, "NoOp", [f"^{c}" for c in controls])

    def _control_gate(self, nd, control):
        """A NoOp carrying the call's control inputs, for the nodes inside to wait on."""
        if not control:
            return None
        return self.add(f"{nd.name}/input_control_node", "NoOp", control)

    def lower_call(self, nd, depth):
        data, control = self._split_inputs(nd)
        fdef = self.function(nd, nd.op, "f")
        gate = self._control_gate(nd, control)
        args = [self.add(f"{nd.name}/arg_{k}", "Identity", [t] + ([f"^{gate}"] if gate else []))
                for k, t in enumerate(data)]
        outs, controls = self.inline(fdef, nd.name, args, gate, nd.device, depth)
        self._outputs(nd, outs, controls)

    def lower_if(self, nd, depth):
        data, control = self._split_inputs(nd)
        if not data:
            raise _bad(nd.name, nd.op, "If needs a cond input")
        cond, inputs = data[0], data[1:]
        then_f, else_f = self.function(nd, nd.op, "then_branch"), self.function(nd, nd.op, "else_branch")
        gate = self._control_gate(nd, control)
        pred = self.add(f"{nd.name}/pred", "Identity", [cond] + ([f"^{gate}"] if gate else []))
        self._check_bool_cond(nd, cond)
        results = []
        for branch, fdef, port in (("then", then_f, 1), ("else", else_f, 0)):
            sw_pivot = self.add(f"{nd.name}/{branch}/switch_pred", "Switch", [pred, pred])
            pivot = self.add(f"{nd.name}/{branch}/pivot", "Identity", [f"{sw_pivot}:{port}"])
            args = []
            for k, t in enumerate(inputs):
                sw = self.add(f"{nd.name}/{branch}/switch_{k}", "Switch", [t, pred])
                args.append(f"{sw}:{port}" if port else sw)
            outs, _ = self.inline(fdef, f"{nd.name}/{branch}", args, pivot, nd.device, depth)
            results.append(outs)
        then_outs, else_outs = results
        if len(then_outs) != len(else_outs):
            raise _bad(nd.name, nd.op, "the two branches return different numbers of outputs")
        merged = [self.add(f"{nd.name}/merge_{k}", "Merge", [e, t]) for k, (t, e) in
                  enumerate(zip(then_outs, else_outs))]
        self._outputs(nd, merged)

    def _check_bool_cond(self, nd, cond):
        tcond = nd.attr.get("Tcond")
        if tcond is not None and tcond.WhichOneof("value") == "type" and tcond.type != 10:
            raise _bad(nd.name, nd.op, "If with a non-bool cond (TensorFlow's ToBool) is not supported yet",
                       UnimplementedError)

    def lower_case(self, nd, depth):
        data, control = self._split_inputs(nd)
        if not data:
            raise _bad(nd.name, nd.op, "Case needs a branch_index input")
        index, inputs = data[0], data[1:]
        branches = nd.attr["branches"].list.func if "branches" in nd.attr else []
        if not branches:
            raise _bad(nd.name, nd.op, "Case needs at least one branch")
        fdefs = []
        for f in branches:
            if f.name not in self.functions:
                raise _bad(nd.name, nd.op, f"function '{f.name}' is not in the GraphDef's function library",
                           NotFoundError)
            fdefs.append(self.functions[f.name])
        gate = self._control_gate(nd, control)
        idx = self.add(f"{nd.name}/index", "Identity", [index] + ([f"^{gate}"] if gate else []))
        # Branch k runs when index == k; the last branch also takes out-of-range indices
        # (TensorFlow's rule). Each branch is a Switch on its own predicate off the previous
        # branch's false side, so exactly one runs.
        n = len(fdefs)
        current = list(inputs)
        current_idx = idx
        merges_in: list[list[str]] = []
        for k, fdef in enumerate(fdefs):
            if k == n - 1:
                pivot = self.add(f"{nd.name}/branch{k}/pivot", "Identity", [current_idx])
                outs, _ = self.inline(fdef, f"{nd.name}/branch{k}", current, pivot, nd.device, depth)
                merges_in.append(outs)
                break
            kc = self.add(f"{nd.name}/branch{k}/k", "Const", [f"^{current_idx}"],
                          {"dtype": self.type_attr(3), "value": _int_tensor(k)})
            pred = self.add(f"{nd.name}/branch{k}/pred", "Equal", [current_idx, kc], {"T": self.type_attr(3)})
            sw_pivot = self.add(f"{nd.name}/branch{k}/switch_pred", "Switch", [pred, pred])
            pivot = self.add(f"{nd.name}/branch{k}/pivot", "Identity", [f"{sw_pivot}:1"])
            taken, rest = [], []
            for j, t in enumerate(current + [current_idx]):
                sw = self.add(f"{nd.name}/branch{k}/switch_{j}", "Switch", [t, pred])
                taken.append(f"{sw}:1")
                rest.append(sw)
            outs, _ = self.inline(fdef, f"{nd.name}/branch{k}", taken[:-1], pivot, nd.device, depth)
            merges_in.append(outs)
            current, current_idx = rest[:-1], rest[-1]
        counts = {len(o) for o in merges_in}
        if len(counts) != 1:
            raise _bad(nd.name, nd.op, "the branches return different numbers of outputs")
        merged = [self.add(f"{nd.name}/merge_{j}", "Merge", [o[j] for o in merges_in])
                  for j in range(counts.pop())]
        self._outputs(nd, merged)

    def lower_while(self, nd, depth):
        data, control = self._split_inputs(nd)
        cond_f, body_f = self.function(nd, nd.op, "cond"), self.function(nd, nd.op, "body")
        pi = nd.attr["parallel_iterations"].i if "parallel_iterations" in nd.attr else 10
        frame = nd.name
        gate = self._control_gate(nd, control)
        enters, merges = [], []
        for k, t in enumerate(data):
            attrs = {"frame_name": _str_attr(frame), "parallel_iterations": _int_attr(pi or 10),
                     "is_constant": _bool_attr(False)}
            enters.append(self.add(f"{nd.name}/enter_{k}", "Enter", [t] + ([f"^{gate}"] if gate else []), attrs))
        for k, e in enumerate(enters):
            merges.append(self.add(f"{nd.name}/merge_{k}", "Merge", [e, e]))  # back edge set below
        if not merges:
            raise _bad(nd.name, nd.op, "While needs at least one loop variable")
        (pred,), _ = self.inline(cond_f, f"{nd.name}/cond", list(merges), merges[0], nd.device, depth)
        loop_cond = self.add(f"{nd.name}/loop_cond", "LoopCond", [pred])
        switches = [self.add(f"{nd.name}/switch_{k}", "Switch", [m, loop_cond]) for k, m in enumerate(merges)]
        body_in = [self.add(f"{nd.name}/body_in_{k}", "Identity", [f"{s}:1"]) for k, s in enumerate(switches)]
        outs, _ = self.inline(body_f, f"{nd.name}/body", body_in, body_in[0], nd.device, depth)
        if len(outs) != len(merges):
            raise _bad(nd.name, nd.op, f"the body returns {len(outs)} values for {len(merges)} loop variables")
        for k, (m, o) in enumerate(zip(merges, outs)):
            nxt = self.add(f"{nd.name}/next_{k}", "NextIteration", [o])
            merge_node = next(x for x in reversed(self.out) if x.name == m)
            merge_node.input[1] = nxt
        exits = [self.add(f"{nd.name}/exit_{k}", "Exit", [s]) for k, s in enumerate(switches)]
        self._outputs(nd, exits)


def _output_index(nd, out_arg, i, where):
    """Flat output index of ``nd``'s output argument ``out_arg`` element ``i``."""
    if nd.op in FUNCTIONAL_OPS:  # one output list, "output" (calls, If, Case, While)
        if out_arg != "output":
            raise _bad(where, nd.op, f"op {nd.op} has no output '{out_arg}'")
        return i
    spec = _C.op_spec(nd.op)
    if spec is None and nd.op in resource_import.OUTPUT_ARGS:  # lowered after inlining
        if out_arg not in resource_import.OUTPUT_ARGS[nd.op]:
            raise _bad(where, nd.op, f"op {nd.op} has no output '{out_arg}'")
        return i
    if spec is None:
        from ..io.import_composites import OUTPUT_ARG  # noqa: PLC0415 (ops the importer composes)
        if nd.op in OUTPUT_ARG:
            if out_arg != OUTPUT_ARG[nd.op]:
                raise _bad(where, nd.op, f"op {nd.op} has no output '{out_arg}'")
            return i
        raise _bad(where, nd.op, f"Op type not registered '{nd.op}' in the opforge runtime", NotFoundError)
    base = 0
    for name, is_list, _, length_attr in spec["output_info"]:
        if name == out_arg:
            return base + i
        if is_list:
            if length_attr not in nd.attr:
                raise _bad(nd.name, nd.op, f"list output '{name}' needs attr '{length_attr}'")
            av = nd.attr[length_attr]
            base += av.i if av.WhichOneof("value") == "i" else len(av.list.type)
        else:
            base += 1
    raise _bad(where, nd.op, f"op {nd.op} has no output '{out_arg}'")


def _ordered(nodes):
    """Function bodies list nodes in any order: order them inputs first (back edges of
    lowered loops are made by lower_while, never here)."""
    by_name = {nd.name: nd for nd in nodes}
    order, state = [], {}

    def visit(name):
        stack = [(name, iter(_deps(by_name[name], by_name)))]
        state[name] = 1
        while stack:
            cur, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[cur] = 2
                order.append(by_name[cur])
            elif state.get(nxt) == 1:
                raise _bad(cur, by_name[cur].op, f"the function body has a cycle through '{nxt}'")
            elif state.get(nxt) is None:
                state[nxt] = 1
                stack.append((nxt, iter(_deps(by_name[nxt], by_name))))

    for nd in nodes:
        if state.get(nd.name) is None:
            visit(nd.name)
    return order


def _deps(nd, by_name):
    out = []
    for i in nd.input:
        src = i.lstrip("^").split(":")[0]
        if src in by_name:
            out.append(src)
    return out


def _str_attr(s):
    av = attr_value_pb2.AttrValue()
    av.s = s.encode()
    return av


def _int_attr(i):
    av = attr_value_pb2.AttrValue()
    av.i = int(i)
    return av


def _bool_attr(b):
    av = attr_value_pb2.AttrValue()
    av.b = bool(b)
    return av


def _int_tensor(v):
    av = attr_value_pb2.AttrValue()
    av.tensor.dtype = 3
    av.tensor.tensor_shape.SetInParent()
    av.tensor.int_val.append(int(v))
    return av


def lower(graph_def):
    """A copy of graph_def with every function call lowered into plain nodes."""
    low = _Lowering(graph_def.library)
    for nd in graph_def.node:
        low.lower_node(nd)
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    for nd in low.out:
        nd2 = low._renamed(nd)
        out.node.append(nd2)
    return out
