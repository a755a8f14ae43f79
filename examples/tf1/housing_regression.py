"""A TensorFlow 1 housing-style regression (normal-equation check), unchanged but for the
import line. The data are synthetic (3 features + bias) so the example runs offline.

Run: python examples/tf1/housing_regression.py
"""

import numpy as np

import opforge.compat.v1 as tf

rng = np.random.default_rng(42)
n = 200
features = rng.normal(size=(n, 2)).astype(np.float32)
X_data = np.hstack([np.ones((n, 1), np.float32), features])      # bias column + 2 features
true_w = np.array([[3.0], [1.5], [-2.0]], np.float32)
y_data = (X_data @ true_w + 0.1 * rng.normal(size=(n, 1))).astype(np.float32)

X = tf.placeholder(tf.float32, X_data.shape)
y = tf.placeholder(tf.float32, y_data.shape)
W = tf.get_variable("weights", (3, 1), initializer=tf.constant_initializer())
y_pred = tf.matmul(X, W)
loss_op = 1 / (2 * n) * tf.matmul((y_pred - y), (y_pred - y), transpose_a=True)
train_op = tf.train.GradientDescentOptimizer(learning_rate=0.1).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(500):
        _, loss = sess.run([train_op, loss_op], feed_dict={X: X_data, y: y_data})
    w = sess.run(W)

w_ls = np.linalg.lstsq(X_data.astype(np.float64), y_data.astype(np.float64), rcond=None)[0]
print("loss:", loss.item())
print("weights:", w.ravel(), "least squares:", w_ls.ravel())
assert np.allclose(w, w_ls, atol=1e-3)
