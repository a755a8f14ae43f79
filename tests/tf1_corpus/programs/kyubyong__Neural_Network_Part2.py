# Source: https://github.com/Kyubyong/tensorflow-exercises/blob/04dc9787de49456855cbb7c0d04596007cce8cc0/Neural_Network_Part2_Solutions.ipynb
# Changes: notebook code cells 0,1,2,3,4,5,6,7,8,10,11,12,13 joined in order; IPython magics commented out; the notebook's own asserts against NumPy stay in; cell 9 (MNIST with tf.contrib.layers.batch_norm) left out (contrib is not in TF 2); the last result is evaluated once more for the metric
# Metrics: final_output
# Tolerance: rtol=1e-6
# In[0]:
from __future__ import print_function
import numpy as np
import tensorflow as tf
import matplotlib.pyplot as plt
# corpus (IPython magic): %matplotlib inline

# In[1]:
from datetime import date
date.today()

# In[2]:
author = "kyubyong. https://github.com/Kyubyong/tensorflow-exercises"

# In[3]:
tf.__version__

# In[4]:
np.__version__

# In[5]:
_x = np.arange(1, 11)
epsilon = 1e-12
x = tf.convert_to_tensor(_x, tf.float32)

output = tf.nn.l2_normalize(x, dim=0, epsilon=epsilon)
with tf.Session() as sess:
    _output = sess.run(output)

    assert np.allclose(_output, _x / np.sqrt(np.maximum(np.sum(_x**2), epsilon)))
print(_output)

# In[6]:
_x = np.arange(1, 11)
x = tf.convert_to_tensor(_x, tf.float32)

counts_, sum_, sum_of_squares_, _ = tf.nn.sufficient_statistics(x, [0])
mean, variance = tf.nn.normalize_moments(counts_, sum_, sum_of_squares_, shift=None)
with tf.Session() as sess:
    _mean, _variance = sess.run([mean, variance])
print(_mean, _variance)

# In[7]:
tf.reset_default_graph()
_x = np.arange(1, 11)
x = tf.convert_to_tensor(_x, tf.float32)

output = tf.nn.moments(x, [0])
with tf.Session() as sess:
    _mean, _variance = sess.run(output)
print(_mean, _variance)

# In[8]:
tf.reset_default_graph()
x = tf.constant([1, 1, 2, 2, 2, 3], tf.float32)

# From `x`
mean, variance = tf.nn.moments(x, [0])
with tf.Session() as sess:
    print(sess.run([mean, variance]))

# From unique elements and their counts
unique_x, _, counts = tf.unique_with_counts(x)
mean, variance = tf.nn.weighted_moments(unique_x, [0], counts)
with tf.Session() as sess:
    print(sess.run([mean, variance]))

# In[10]:
tf.reset_default_graph()
x = tf.constant([1, 1, 2, 2, 2, 3], tf.float32)

output = tf.nn.l2_loss(x)
with tf.Session() as sess:
    print(sess.run(output))
    print(sess.run(tf.reduce_sum(x**2)/2))

# In[11]:
tf.reset_default_graph()
logits = tf.random_normal(shape=[2, 5, 10])
labels = tf.convert_to_tensor(np.random.randint(0, 10, size=[2, 5]), tf.int32)
output = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
with tf.Session() as sess:
    print(sess.run(output))

# In[12]:
logits = tf.random_normal(shape=[2, 5, 10])
labels = tf.convert_to_tensor(np.random.randint(0, 10, size=[2, 5]), tf.int32)
labels = tf.one_hot(labels, depth=10)

output = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
with tf.Session() as sess:
    print(sess.run(output))

# In[13]:
tf.reset_default_graph()
x = tf.constant([0, 2, 1, 3, 4], tf.int32)
embedding = tf.constant([0, 0.1, 0.2, 0.3, 0.4], tf.float32)
output = tf.nn.embedding_lookup(embedding, x)
with tf.Session() as sess:
    print(sess.run(output))

with tf.Session() as sess:  # corpus: the last result, kept for the metric
    final_output = sess.run(output)
