"""What the graph optimizer's tests share (test_optimizer.py, test_optimizer_remapper.py): a
config with the optimizer off or some passes switched, the optimized graphs a Session ran,
values of a graph with and without the optimizer, optimize() over a graph's GraphDef."""

import numpy as np

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework import optimizer

OFF = tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=tf.RewriterConfig(disable_meta_optimizer=True)))


def rewriter_config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=tf.RewriterConfig(**toggles)))


def optimized_graphs(sess):
    """The optimized graphs the session's plans run (as Graphs, for structural asserts)."""
    graphs = []
    for gd in sess._optimized_graph_defs():
        g = of.Graph()
        with g.as_default():
            of.import_graph_def(gd, name="")
        graphs.append(g)
    return graphs


def optimized_graph(sess):
    """The optimized graph the session built (for its one optimized run signature)."""
    runs = optimized_graphs(sess)
    assert len(runs) == 1, "the optimizer changed nothing"
    return runs[0]


def optimized_ops(sess):
    return {op.name: op.type for op in optimized_graph(sess).get_operations()}


def run_both(g, fetches, feeds, config=None):
    """(optimized values, unoptimized values, optimized session)."""
    sess = of.Session(graph=g, config=config)
    got = sess.run(fetches, feeds)
    want = of.Session(graph=g, config=OFF).run(fetches, feeds)
    return got, want, sess


def assert_close(got, want, tol=1e-4):
    for a, b in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def optimize_graph(g, outputs, **kw):
    gd, report = optimizer.optimize(g.as_graph_def(add_shapes=True), preserve=outputs, fail_on_errors=True, **kw)
    return {nd.name: nd for nd in gd.node}, report
