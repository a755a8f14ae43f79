"""tf.function (graph: the body built into the caller's graph; eager: run eagerly), its
input_signature checks, get_concrete_function; tf.wrap_function; vectorized_map;
recompute_grad."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework import tf_function
from opforge.framework.type_spec import TensorSpec


def test_graph_call_builds_into_callers_graph(graph):
    @tf_function.function
    def affine(x, w, b=1.0):
        return of.matmul(x, w) + b

    x = of.placeholder(of.float32, [None, 3])
    w = np.random.rand(3, 2).astype(np.float32)
    y = affine(x, w)
    assert y.graph is graph and y.name.startswith("affine/")
    y2 = affine(x, w, b=2.0)
    assert y2.name.startswith("affine_1/")
    xv = np.random.rand(4, 3).astype(np.float32)
    with of.Session(graph=graph) as s:
        a, b = s.run([y, y2], {x: xv})
    np.testing.assert_allclose(a, xv @ w + 1, rtol=1e-5)
    np.testing.assert_allclose(b, xv @ w + 2, rtol=1e-5)


def test_eager_call_and_gradient_tape():
    f = tf_function.function(lambda x: x * x * 3.0)
    x = of.constant(np.array([1.0, 2.0], np.float32))
    with of.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(y.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [6.0, 12.0])


def test_input_signature_converts_and_checks(graph):
    @tf_function.function(input_signature=[TensorSpec([None], of.float32)])
    def double(v):
        return v * 2.0

    assert double.input_signature == (TensorSpec([None], of.float32),)
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        double(of.placeholder(of.int32, [3]))
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        double(of.placeholder(of.float32, [2, 2]))
    with pytest.raises(TypeError, match="missing a required argument"):
        double()
    with pytest.raises(TypeError, match="TensorSpec"):
        tf_function.function(lambda v: v, input_signature=[3])
    out = double([1.0, 2.0, 3.0])  # a Python list becomes a float32 tensor
    with of.Session(graph=graph) as s:
        np.testing.assert_allclose(s.run(out), [2, 4, 6])


def test_get_concrete_function_traces_once_per_signature():
    calls = []

    @tf_function.function
    def f(x, k):
        calls.append(1)
        return x * k

    c1 = f.get_concrete_function(TensorSpec([None, 2], of.float32), 3)
    assert f.get_concrete_function(TensorSpec([None, 2], of.float32), 3) is c1
    f.get_concrete_function(TensorSpec([None, 2], of.float32), 4)
    assert len(calls) == 2 and f.experimental_get_tracing_count() == 2
    assert [t.shape.as_list() for t in c1.inputs] == [[None, 2]] and c1.outputs[0].graph is c1.graph
    assert c1.structured_input_signature[0] == (TensorSpec([None, 2], of.float32), 3)


def test_method_decoration(graph):
    class Scale:
        def __init__(self, k):
            self.k = k

        @tf_function.function
        def __call__(self, x):
            return x * self.k

    a, b = Scale(2.0), Scale(5.0)
    x = of.placeholder(of.float32, [2])
    with of.Session(graph=graph) as s:
        ra, rb = s.run([a(x), b(x)], {x: [1.0, 2.0]})
    np.testing.assert_allclose(ra, [2, 4])
    np.testing.assert_allclose(rb, [5, 10])


def test_wrap_function_keeps_variables_between_calls():
    def counter(step):
        v = of.Variable(np.float32(10.0), name="acc")
        return of.assign_add(v, step)

    wrapped = tf_function.wrap_function(counter, [TensorSpec([], of.float32)])
    assert float(wrapped(np.float32(1.0))) == 11.0
    assert float(wrapped(np.float32(2.5))) == 13.5
    with pytest.raises(TypeError, match="expected 1 arguments"):
        wrapped()
    pruned = wrapped.prune(wrapped.inputs[0], wrapped.outputs[0])
    assert float(pruned(np.float32(0.5))) == 14.0


def test_vectorized_map_matches_numpy(graph):
    x = np.random.rand(5, 3).astype(np.float32)
    out = tf_function.vectorized_map(lambda row: of.reduce_sum(row * row), of.constant(x))
    with of.Session(graph=graph) as s:
        np.testing.assert_allclose(s.run(out), (x * x).sum(1), rtol=1e-5)


def test_recompute_grad_same_values_and_gradients(graph):
    f = tf_function.recompute_grad(lambda v: of.sin(v) * v)
    x = of.placeholder(of.float64, [4])
    y = f(x)
    (g,) = of.gradients(y, [x])
    xv = np.random.rand(4)
    with of.Session(graph=graph) as s:
        yv, gv = s.run([y, g], {x: xv})
    np.testing.assert_allclose(yv, np.sin(xv) * xv)
    np.testing.assert_allclose(gv, np.cos(xv) * xv + np.sin(xv))
