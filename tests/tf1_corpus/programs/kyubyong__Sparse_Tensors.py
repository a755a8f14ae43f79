# Source: https://github.com/Kyubyong/tensorflow-exercises/blob/04dc9787de49456855cbb7c0d04596007cce8cc0/Sparse_Tensors-Solutions.ipynb
# Changes: notebook code cells 0-9 joined in order; IPython magics commented out; the notebook's own asserts against NumPy stay in; cell 10 (uses an undefined name `s`; fails under TensorFlow too) left out; the last result is the metric
# Metrics: output.eval()
# Tolerance: rtol=0
# In[0]:
from __future__ import print_function
import tensorflow as tf
import numpy as np

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
sess = tf.InteractiveSession()

# In[6]:
x = tf.constant([[1, 0, 0, 0],
                 [0, 0, 2, 0],
                 [0, 0, 0, 0]], dtype=tf.int32)
sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
print(sp.eval())

# In[7]:
print("dtype:", sp.dtype)
print("indices:", sp.indices.eval())
print("dense_shape:", sp.dense_shape.eval())
print("values:", sp.values.eval())

# In[8]:
def dense_to_sparse(tensor):
    indices = tf.where(tf.not_equal(tensor, 0))
    return tf.SparseTensor(indices=indices,
                           values=tf.gather_nd(tensor, indices) - 1,  # for zero-based index
                           dense_shape=tf.to_int64(tf.shape(tensor)))

# Test
print(dense_to_sparse(x).eval())

# In[9]:
output = tf.sparse_to_dense(sparse_indices=[[0, 0], [1, 2]], sparse_values=[1, 2], output_shape=[3, 4])
print(output.eval())
print("Check if this is identical with x:\n", x.eval())
