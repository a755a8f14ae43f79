"""opforge quickstart: compute eagerly with generated ops, differentiate, and check against NumPy.

Run after `pip install .`:  python examples/quickstart.py
"""

import numpy as np

import opforge as of

rng = np.random.default_rng(0)
x = of.constant(rng.random((3, 4)))  # float64, from NumPy
print("x =", x)

# Generated wrappers (opdefs/math/mat_mul.pbtxt -> of.mat_mul) run eagerly in C++.
y = of.mat_mul(x, x, transpose_b=True)
print("x @ x.T =", y)
assert np.allclose(y.numpy(), x.numpy() @ x.numpy().T)

# Operators and TensorFlow's friendly names mix with Python scalars and NumPy arrays.
z = of.reduce_mean(of.sigmoid(2.0 * x - 1.0), axis=1)
print("mean(sigmoid(2x - 1), axis=1) =", z.numpy())

# Gradients through the generated gradient bindings.
w = of.constant(rng.random((4, 2)))
with of.GradientTape() as tape:
    tape.watch(w)
    loss = of.reduce_sum(of.square(of.matmul(x, w)))
dw = tape.gradient(loss, w)
expected = 2 * x.numpy().T @ (x.numpy() @ w.numpy())
print("d loss / d w =", dw.numpy().tolist())
assert np.allclose(dw.numpy(), expected)

# Bad calls raise typed errors naming the op.
try:
    of.mat_mul(x, x)
except of.InvalidArgumentError as e:
    print("InvalidArgumentError:", e)

print(f"{len(of.ops.__all__)} generated ops available, e.g. of.raw_ops.MatMul(a=..., b=...)")
print("quickstart OK")
