"""Initializing variables from a checkpoint (tf.train.init_from_checkpoint, tf.train.warm_start
with VocabInfo): the variable's initializer is rewired to assign the checkpoint's value, so
the usual init op (or a MonitoredSession's Scaffold) loads it.

The values enter the graph as constants read from the checkpoint when these functions are
called (TensorFlow's initializers read them with a RestoreV2 op at init time)."""

from __future__ import annotations

import collections
import os
import re

import numpy as np

from .. import ops as _ops
from ..framework.api import constant
from ..framework.graph import get_default_graph
from ..framework.variables import global_variables
from .saver import load_checkpoint


def _var_name(var) -> str:
    return var.op.name


def _set_initializer(var, value, name="checkpoint_initializer"):
    """var's initializer now assigns ``value`` (a NumPy array or a graph tensor)."""
    g = var.graph
    if not hasattr(value, "op"):
        with g.as_default(), g.name_scope(_var_name(var) + "/"):
            value = constant(np.asarray(value, var.dtype.as_numpy_dtype), name=name)
    g._update_input(var.initializer, 1, value)
    var._initial_value = value


def _check_shape(var, ckpt_name, got):
    want = var.shape.as_list() if var.shape.dims is not None else None
    if want is not None and (len(want) != len(got) or any(w is not None and w != s for w, s in zip(want, got))):
        raise ValueError(f"Shape of variable {_var_name(var)} ({var.shape}) doesn't match with shape of tensor "
                         f"{ckpt_name} ({list(got)}) from checkpoint reader.")


def _init_one(var, reader, ckpt_name, ckpt_dir_or_file):
    shapes = reader.get_variable_to_shape_map()
    if ckpt_name not in shapes:
        raise ValueError(f"Tensor {ckpt_name} is not found in {ckpt_dir_or_file} checkpoint {sorted(shapes)}")
    _check_shape(var, ckpt_name, shapes[ckpt_name])
    _set_initializer(var, reader.get_tensor(ckpt_name))


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Initializes the variables named in ``assignment_map`` from the checkpoint instead of
    their initializers. Keys are checkpoint names or scopes (``'old_scope/'``, ``'/'`` for
    the root), values variable names, scopes or variables, as TensorFlow's."""
    reader = load_checkpoint(ckpt_dir_or_file)
    variable_map = reader.get_variable_to_shape_map()
    store_vars = {_var_name(v): v for v in global_variables(get_default_graph())}
    items = assignment_map.items() if isinstance(assignment_map, dict) else assignment_map
    for tensor_name_in_ckpt, current in items:
        if not isinstance(current, str):  # a variable, or a list of them
            for var in current if isinstance(current, (list, tuple)) else [current]:
                _init_one(var, reader, tensor_name_in_ckpt, ckpt_dir_or_file)
            continue
        if current in store_vars:
            _init_one(store_vars[current], reader, tensor_name_in_ckpt, ckpt_dir_or_file)
            continue
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to scope only "
                             f"{tensor_name_in_ckpt}. Should be 'scope/': 'other_scope/'.")
        matched = sorted(n for n in store_vars if not scopes or n.startswith(scopes + "/"))
        if not matched:
            raise ValueError(f"no variable of scope {current!r} to initialize from {ckpt_dir_or_file}")
        for var_name in matched:
            full = var_name[len(scopes):]
            if current != "/":
                full = full[1:]
            if tensor_name_in_ckpt != "/":
                full = tensor_name_in_ckpt + full
            if full not in variable_map:
                raise ValueError(f"Tensor {full} ({var_name} in {current}) is not found in {ckpt_dir_or_file} "
                                 f"checkpoint")
            _init_one(store_vars[var_name], reader, full, ckpt_dir_or_file)


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size", "backup_initializer",
        "axis"])):
    """How a variable's rows (axis 0) or columns (axis 1) follow a vocabulary that changed:
    each entry of ``new_vocab`` takes the old entry's slice of the same word; new words and
    the ``num_oov_buckets`` OOV slices get ``backup_initializer`` (zeros by default)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


def _read_vocab(path, size):
    with open(os.fspath(path), encoding="utf-8") as f:
        words = [line.rstrip("\n") for line in f]
    return words if size is None or size < 0 else words[:size]


def _warm_start_with_vocab(var, reader, prev_name, info):
    old = reader.get_tensor(prev_name)
    new_words = _read_vocab(info.new_vocab, info.new_vocab_size)
    old_index = {w: i for i, w in enumerate(_read_vocab(info.old_vocab, info.old_vocab_size))}
    shape = var.shape.as_list()
    axis = info.axis
    if shape[axis] != len(new_words) + info.num_oov_buckets:
        raise ValueError(f"variable {_var_name(var)} has {shape[axis]} slices on axis {axis}; the new vocabulary "
                         f"has {len(new_words)} words and {info.num_oov_buckets} OOV buckets")
    values = np.zeros(shape, var.dtype.as_numpy_dtype)
    found = np.zeros(shape[axis], bool)
    for i, w in enumerate(new_words):
        j = old_index.get(w)
        if j is not None and j < old.shape[axis]:
            found[i] = True
            values[(slice(None),) * axis + (i,)] = old[(slice(None),) * axis + (j,)]
    if info.backup_initializer is None or found.all():
        _set_initializer(var, values)
        return
    g = var.graph
    with g.as_default(), g.name_scope(_var_name(var) + "/"):
        backup = info.backup_initializer(shape, dtype=var.dtype)
        mask_shape = [1] * len(shape)
        mask_shape[axis] = shape[axis]
        mask = np.broadcast_to(found.reshape(mask_shape), shape)
        _set_initializer(var, _ops.select_v2(constant(np.ascontiguousarray(mask)), constant(values), backup))


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Initializes the variables matching ``vars_to_warm_start`` (a regular expression, or a
    list of names, expressions or variables; None: none) from the checkpoint, under their
    previous names (var_name_to_prev_var_name) and vocabularies (var_name_to_vocab_info)."""
    var_name_to_vocab_info = var_name_to_vocab_info or {}
    var_name_to_prev_var_name = var_name_to_prev_var_name or {}
    if vars_to_warm_start is None:
        chosen = []
    elif isinstance(vars_to_warm_start, str):
        chosen = [v for v in global_variables(get_default_graph()) if re.match(vars_to_warm_start, _var_name(v))]
    elif isinstance(vars_to_warm_start, (list, tuple)):
        chosen = []
        for item in vars_to_warm_start:
            if isinstance(item, str):
                chosen += [v for v in global_variables(get_default_graph()) if re.match(item, _var_name(v))]
            else:
                chosen.append(item)
    else:
        raise ValueError("vars_to_warm_start should be a string, a list of strings or variables, or None; got "
                         f"{type(vars_to_warm_start).__name__}")
    reader = load_checkpoint(ckpt_to_initialize_from)
    used_vocab, used_prev = set(), set()
    for var in chosen:
        name = _var_name(var)
        prev = var_name_to_prev_var_name.get(name, name)
        if name in var_name_to_prev_var_name:
            used_prev.add(name)
        if name in var_name_to_vocab_info:
            used_vocab.add(name)
            _warm_start_with_vocab(var, reader, prev, var_name_to_vocab_info[name])
        else:
            _init_one(var, reader, prev, ckpt_to_initialize_from)
    unused = (set(var_name_to_vocab_info) - used_vocab) | (set(var_name_to_prev_var_name) - used_prev)
    if unused:
        raise ValueError(f"You provided the following variables in var_name_to_vocab_info or "
                         f"var_name_to_prev_var_name that were not used: {sorted(unused)}.  Perhaps you misspelled "
                         f"them?  Here is the list of viable variable names: {sorted(_var_name(v) for v in chosen)}")
