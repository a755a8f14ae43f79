"""tf.graph_util, tf.debugging, tf.sysconfig and tf.resource_loader: TensorFlow 1's names for
functions the library has (opforge.io.graph_util, the assert ops, opforge.sysconfig)."""

from __future__ import annotations

import os
import sys

from opforge import sysconfig as _sysconfig
from opforge.compat._namespace import Namespace
from opforge.io import graph_util as _graph_util
from opforge.io.importer import import_graph_def as _import_graph_def

graph_util = Namespace(
    "graph_util", builds_graph=False, convert_variables_to_constants=_graph_util.convert_variables_to_constants,
    extract_sub_graph=_graph_util.extract_sub_graph, remove_training_nodes=_graph_util.remove_training_nodes,
    must_run_on_cpu=_graph_util.must_run_on_cpu,
    tensor_shape_from_node_def_name=_graph_util.tensor_shape_from_node_def_name, import_graph_def=_import_graph_def)

sysconfig = Namespace(
    "sysconfig", builds_graph=False, get_include=_sysconfig.get_include, get_lib=_sysconfig.get_lib,
    get_compile_flags=_sysconfig.get_compile_flags, get_link_flags=_sysconfig.get_link_flags,
    get_build_info=_sysconfig.get_build_info, CXX11_ABI_FLAG=_sysconfig.CXX11_ABI_FLAG,
    MONOLITHIC_BUILD=_sysconfig.MONOLITHIC_BUILD, CXX_VERSION=_sysconfig.CXX_VERSION)
CXX11_ABI_FLAG, MONOLITHIC_BUILD, CXX_VERSION = _sysconfig.CXX11_ABI_FLAG, _sysconfig.MONOLITHIC_BUILD, _sysconfig.CXX_VERSION


# ---- tf.resource_loader: files shipped beside a program's modules


def _caller_dir() -> str:
    """The folder of the module that called the function calling this one."""
    return os.path.dirname(os.path.abspath(sys._getframe(2).f_globals.get("__file__", os.curdir)))


def _get_data_files_path():
    """The folder of the calling module (tf.resource_loader.get_data_files_path)."""
    return _caller_dir()


def _get_path_to_datafile(path):
    """path relative to the calling module's folder."""
    return os.path.join(_caller_dir(), path)


def _load_resource(path):
    """The bytes of the file at path (relative to the calling module's folder, or absolute)."""
    with open(os.path.join(_caller_dir(), path), "rb") as f:
        return f.read()


def _get_root_dir_with_all_resources():
    """The folder resources are found under: the calling module's."""
    return _caller_dir()


def _readahead_file_path(path, readahead="128M"):
    """path itself (TensorFlow's readahead is a hint for its remote file systems)."""
    del readahead
    return path


resource_loader = Namespace(
    "resource_loader", builds_graph=False, get_data_files_path=_get_data_files_path,
    get_path_to_datafile=_get_path_to_datafile, load_resource=_load_resource,
    get_root_dir_with_all_resources=_get_root_dir_with_all_resources, readahead_file_path=_readahead_file_path)
