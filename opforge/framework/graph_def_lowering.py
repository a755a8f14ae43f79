"""Helpers the GraphDef lowerings share (tensor_array_import, resource_import): a node input
split into (node, output) and an import error naming the node."""

from __future__ import annotations

from .errors import InvalidArgumentError


def bad_node(nd, message, cls=InvalidArgumentError):
    """An error about NodeDef nd, naming it as TensorFlow does ([[node NAME]]) and its op."""
    return cls(f"{message} [[node {nd.name}]]", nd.op)


def split_input(name: str):
    """'node:k' -> (node, k); 'node' -> (node, 0); '^node' -> (node, -1)."""
    if name.startswith("^"):
        return name[1:], -1
    node, _, k = name.partition(":")
    return node, int(k) if k else 0
