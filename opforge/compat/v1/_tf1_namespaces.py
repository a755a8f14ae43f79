"""tf.graph_util, tf.debugging, tf.sysconfig and tf.resource_loader: TensorFlow 1's names for
functions the library has (opforge.io.graph_util, the assert ops, opforge.sysconfig)."""

from __future__ import annotations

from opforge import sysconfig as _sysconfig
from opforge.compat._namespace import Namespace
from opforge.io import graph_util as _graph_util
from opforge.io import resource_loader as _resource_loader
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


resource_loader = Namespace(
    "resource_loader", builds_graph=False, get_data_files_path=_resource_loader.get_data_files_path,
    get_path_to_datafile=_resource_loader.get_path_to_datafile, load_resource=_resource_loader.load_resource,
    get_root_dir_with_all_resources=_resource_loader.get_root_dir_with_all_resources,
    readahead_file_path=_resource_loader.readahead_file_path)
