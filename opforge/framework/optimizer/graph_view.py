"""The mutable view of a GraphDef that the optimizer passes rewrite.

Nodes are TensorFlow NodeDef protos (the repository's wire-compatible ones); inputs are
TensorFlow strings ("node", "node:1", "^node"). The view keeps a name index and, on demand,
the consumers of each node; a pass calls :meth:`GraphView.changed` after editing so the next
query sees the edit. Node order is irrelevant (import orders the nodes topologically).
"""

from __future__ import annotations

import numpy as np

from ... import _C
from .. import graph_def as _gd

NodeDef = _gd.NodeDef


def parse_input(name: str) -> tuple[str, int]:
    """("node", index) for "node" / "node:i"; index -1 for a control input "^node"."""
    if name.startswith("^"):
        return name[1:], -1
    node, _, idx = name.partition(":")
    return node, int(idx) if idx else 0


def tensor_name(node: str, index: int) -> str:
    if index < 0:
        return "^" + node
    return node if index == 0 else f"{node}:{index}"


class GraphView:
    """A GraphDef's nodes plus what the passes must not break.

    ``preserve``: names of nodes that must survive with their name, op and outputs (fetched,
    fed and target nodes). ``fed``: nodes one of whose outputs is fed, so none of their
    outputs is a compile-time constant even when the node is a Const.
    """

    def __init__(self, graph_def, preserve=(), fed=()):
        self.graph_def = graph_def
        self.preserve = set(preserve)
        self.fed = set(fed)
        self._index: dict[str, NodeDef] | None = None
        self._consumers: dict[str, list[NodeDef]] | None = None
        self._specs: dict[str, dict | None] = {}

    # ---- lookup
    @property
    def nodes(self):
        return self.graph_def.node

    def changed(self) -> None:
        """Inputs were edited: the consumer index is rebuilt on the next query. (Node names
        never change; make_const and remove keep the name index current.)"""
        self._consumers = None

    def reset(self) -> None:
        """The node list was replaced (a pass rolled back): every index is rebuilt."""
        self._index = None
        self._consumers = None

    def node(self, name: str) -> NodeDef | None:
        if self._index is None:
            self._index = {nd.name: nd for nd in self.graph_def.node}
        nd = self._index.get(name)
        if nd is not None and nd.name != name:  # defensive: a stale entry
            self._index = None
            return self.node(name)
        return nd

    def consumers(self, name: str) -> list[NodeDef]:
        """Nodes with a data or control input from ``name``."""
        if self._consumers is None:
            cons: dict[str, list[NodeDef]] = {}
            for nd in self.graph_def.node:
                seen = set()
                for inp in nd.input:
                    src = parse_input(inp)[0]
                    if src not in seen:
                        seen.add(src)
                        cons.setdefault(src, []).append(nd)
            self._consumers = cons
        return self._consumers.get(name, [])

    def data_consumers(self, tensor: str) -> list[NodeDef]:
        """Nodes reading tensor ("node" or "node:i") as a data input (once per input slot)."""
        node, idx = parse_input(tensor)
        out = []
        for nd in self.consumers(node):
            for inp in nd.input:
                if parse_input(inp) == (node, idx):
                    out.append(nd)
        return out

    def has_single_data_consumer(self, name: str) -> bool:
        """Exactly one data use of any output of ``name``, no control use, not preserved."""
        if name in self.preserve:
            return False
        uses = 0
        for nd in self.consumers(name):
            for inp in nd.input:
                src, idx = parse_input(inp)
                if src == name:
                    if idx < 0:
                        return False
                    uses += 1
        return uses == 1

    def data_inputs(self, nd: NodeDef) -> list[str]:
        return [i for i in nd.input if not i.startswith("^")]

    def control_inputs(self, nd: NodeDef) -> list[str]:
        return [i for i in nd.input if i.startswith("^")]

    def producer(self, nd: NodeDef, i: int) -> NodeDef | None:
        """The node producing data input i of nd."""
        return self.node(parse_input(self.data_inputs(nd)[i])[0])

    def spec(self, op: str) -> dict | None:
        if op not in self._specs:
            self._specs[op] = _C.op_spec(op)
        return self._specs[op]

    def is_stateful(self, nd: NodeDef) -> bool:
        spec = self.spec(nd.op)
        return spec is None or bool(spec.get("is_stateful"))

    def recorded_shape(self, tensor: str) -> tuple | None:
        """tensor's static shape as recorded by add_shapes=True (-1 for an unknown dimension),
        or None when the rank is unknown or no shape was recorded."""
        src, idx = parse_input(tensor)
        nd = self.node(src)
        if nd is None or "_output_shapes" not in nd.attr:
            return None
        shapes = nd.attr["_output_shapes"].list.shape
        if idx < 0 or idx >= len(shapes) or shapes[idx].unknown_rank:
            return None
        return tuple(d.size for d in shapes[idx].dim)

    # ---- constants
    def is_constant(self, name: str) -> bool:
        """A Const node whose value the run cannot change (not fed)."""
        nd = self.node(name)
        return nd is not None and nd.op == "Const" and name not in self.fed

    def constant_value(self, tensor: str) -> np.ndarray | None:
        """The value of tensor when it is an (unfed) Const's output, else None."""
        name, idx = parse_input(tensor)
        if idx != 0 or not self.is_constant(name):
            return None
        return _gd.tensor_from_proto(self.node(name).attr["value"].tensor, name, "Const").numpy()

    def make_const(self, name: str, value: np.ndarray, device: str = "") -> NodeDef:
        """Appends a Const node holding value (name must be free)."""
        from ..tensor import convert_to_tensor  # noqa: PLC0415
        t = convert_to_tensor(np.ascontiguousarray(value))
        nd = self.graph_def.node.add()
        nd.name = name
        nd.op = "Const"
        if device:
            nd.device = device
        _gd.tensor_to_proto(t, nd.attr["value"].tensor)
        nd.attr["dtype"].type = t._dtype_enum
        if self._index is not None:
            self._index[name] = nd
        self.changed()
        return nd

    def rewrite_to_fixpoint(self, rule) -> None:
        """Applies ``rule(node) -> bool`` (whether it rewrote something) to every live node,
        sweeping again until a whole sweep changes nothing."""
        changed = True
        while changed:
            changed = False
            for nd in list(self.nodes):
                if self.node(nd.name) is nd:  # not removed by an earlier rewrite of this sweep
                    changed |= bool(rule(nd))

    # ---- names and edits
    def unique_name(self, base: str) -> str:
        name, i = base, 0
        while self.node(name) is not None:
            i += 1
            name = f"{base}_{i}"
        return name

    def replace_uses(self, old: str, new: str, skip: NodeDef | None = None) -> None:
        """Every data input reading tensor ``old`` reads ``new`` instead."""
        o_node, o_idx = parse_input(old)
        for nd in list(self.consumers(o_node)):
            if nd is skip:
                continue
            for k, inp in enumerate(nd.input):
                if parse_input(inp) == (o_node, o_idx):
                    nd.input[k] = new
        self.changed()

    def redirect(self, old: str, new: str) -> None:
        """Every input (data or control) from node ``old`` reads node ``new`` instead, output
        for output. Keeps the name and consumer indexes current, so a pass can redirect many
        nodes without rebuilding them each time."""
        moved = self.consumers(old)
        for c in moved:
            for k, inp in enumerate(c.input):
                src, idx = parse_input(inp)
                if src == old:
                    c.input[k] = tensor_name(new, idx)
        if self._consumers is not None:
            have = self._consumers.setdefault(new, [])
            known = {id(c) for c in have}
            have.extend(c for c in moved if id(c) not in known)
            self._consumers[old] = []

    def forward_controls(self, removed: NodeDef, to_consumers_of: str) -> None:
        """Control inputs of a removed node move to the nodes that consumed it, so the order
        they enforced still holds."""
        ctrls = self.control_inputs(removed)
        if not ctrls:
            return
        for nd in self.consumers(to_consumers_of):
            for c in ctrls:
                if c not in nd.input and c != "^" + nd.name:
                    nd.input.append(c)
        self.changed()

    def remove(self, names) -> None:
        names = set(names) - self.preserve
        if not names:
            return
        # Delete in place, from the back: rebuilding the repeated field would copy every
        # node, weights included, on each removal.
        nodes = self.graph_def.node
        doomed = [i for i, nd in enumerate(nodes) if nd.name in names]
        for i in reversed(doomed):
            del nodes[i]
        if self._index is not None:
            for name in names:
                self._index.pop(name, None)
        self.changed()

    def prune_dead(self) -> int:
        """Removes nodes nothing preserved depends on (data or control); returns how many."""
        live, stack = set(), [n for n in self.preserve if self.node(n) is not None]
        while stack:
            name = stack.pop()
            if name in live:
                continue
            live.add(name)
            for inp in self.node(name).input:
                src = parse_input(inp)[0]
                if src not in live and self.node(src) is not None:
                    stack.append(src)
        dead = [nd.name for nd in self.graph_def.node if nd.name not in live]
        self.remove(dead)
        return len(dead)

    def attr_list_s(self, nd: NodeDef, name: str) -> list[str]:
        return [s.decode() for s in nd.attr[name].list.s] if name in nd.attr else []
