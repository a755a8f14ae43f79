"""The init op a TF1 SavedModel usually carries (tf.saved_model.main_op)."""

from __future__ import annotations

from ...framework.graph import get_default_graph
from ...framework.variables import variables_initializer

__all__ = ["main_op", "main_op_with_restore"]


def main_op():
    """One op initializing the global and local variables and the tables (what
    TensorFlow's loader runs after restoring, for the variables the checkpoint lacks)."""
    g = get_default_graph()
    inits = [variables_initializer(g.get_collection("variables")),
             variables_initializer(g.get_collection("local_variables"))]
    inits += list(g.get_collection("table_initializer"))
    return g.create_op("NoOp", [], {}, name="main_op", control_inputs=[op for op in inits if op is not None])


def main_op_with_restore(restore_op_name):
    """main_op, run after the op named ``restore_op_name``."""
    g = get_default_graph()
    with g.control_dependencies([g.as_graph_element(restore_op_name)]):
        return main_op()
