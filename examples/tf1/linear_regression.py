"""TensorFlow 1's getting-started linear model, unchanged but for the import line.

Run: python examples/tf1/linear_regression.py
"""

import numpy as np

import opforge.compat.v1 as tf

# Model parameters
W = tf.Variable(0.3, tf.float32)
b = tf.Variable(-0.3, tf.float32)
# Model input and output
x = tf.placeholder(tf.float32)
y = tf.placeholder(tf.float32)
out = W * x + b
loss = tf.reduce_sum(tf.square(out - y))
optimizer = tf.train.GradientDescentOptimizer(0.001)
train = optimizer.minimize(loss)

x_train = [1, 2, 3, 4]
y_train = [0, -1, -2, -3]
init = tf.global_variables_initializer()
with tf.Session() as sess:
    sess.run(init)
    for i in range(10000):
        sess.run(train, {x: x_train, y: y_train})
    curr_W, curr_b, curr_loss = sess.run([W, b, loss], {x: x_train, y: y_train})

print(f"W: {curr_W} b: {curr_b} loss: {curr_loss}")
A = np.vstack([x_train, np.ones(len(x_train))]).T
w_ls, b_ls = np.linalg.lstsq(A, np.array(y_train, dtype=np.float64), rcond=None)[0]
print(f"least squares: W: {w_ls} b: {b_ls}")
assert abs(curr_W - w_ls) < 1e-3 and abs(curr_b - b_ls) < 1e-3
