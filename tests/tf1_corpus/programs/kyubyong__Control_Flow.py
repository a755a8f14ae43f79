# Source: https://github.com/Kyubyong/tensorflow-exercises/blob/04dc9787de49456855cbb7c0d04596007cce8cc0/Control_Flow_Solutions.ipynb
# Changes: notebook code cells joined in order; IPython magics commented out; the notebook's own asserts against NumPy stay in; the last result is the metric
# Metrics: out.eval()
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
x = tf.random_uniform([])
y = tf.random_uniform([])
out = tf.cond(x < y, lambda: x + y,  lambda: x - y)
print(out.eval())

# This is equalvant to the following.
_x = np.random.uniform()
_y = np.random.uniform()
_out = np.where(_x < _y, _x + _y, _x - _y)
print(_out)

# In[7]:
x = tf.random_uniform([], minval=0, maxval=5, dtype=tf.int32)
y = tf.random_uniform([], minval=0, maxval=5, dtype=tf.int32)
out = tf.case({x < y: lambda: x + y, x > y: lambda: x - y}, default=lambda: tf.constant(0), exclusive=True)
print(out.eval())

# Compare
_x = np.random.randint(0, 5)
_y = np.random.randint(0, 5)
_out = np.select([_x > _y, _x < _y, _x == _y], [_x + _y, _x - _y, 0])
print(_out)

# In[8]:
_X = np.array([[-1, -2, -3], [0, 1, 2]])
X = tf.constant(_X)
Y = tf.zeros_like(X)
out = tf.equal(X, Y)
print(out.eval())

_Y = np.zeros_like(_X)
assert np.allclose(out.eval(), np.equal(_X, _Y))

# In[9]:
x = tf.constant([True, False, False], tf.bool)
y = tf.constant([True, True, False], tf.bool)
out1 = tf.logical_and(x, y)
out2 = tf.logical_or(x, y)
out3 = tf.logical_xor(x, y)
print(out1.eval(), out2.eval(), out3.eval())

# In[10]:
x = tf.constant([True, False, False], tf.bool)
out = tf.logical_not(x)
print(out.eval())

# In[11]:
X = tf.constant( [[-1, -2, -3], [0, 1, 2]] )
Y = tf.zeros_like(X)
out = tf.not_equal(X, Y)
print(out.eval())
_X = np.array([[-1, -2, -3], [0, 1, 2]])
_Y = np.zeros_like(_X)
assert np.allclose(out.eval(), np.not_equal(_X, _Y))
# tf.not_equal == np.not_equal

# In[12]:
X = tf.constant( [[-1, -2, -3], [0, 1, 2]] )
Y = tf.zeros_like(X)
out = tf.greater_equal(X, Y)
out2 = tf.logical_not(tf.less(X, Y))
assert np.allclose(out.eval(), out2.eval())
print(out.eval())
_X = np.array([[-1, -2, -3], [0, 1, 2]])
_Y = np.zeros_like(_X)
assert np.allclose(out.eval(), np.greater_equal(_X, _Y))
# tf.great_equal == np.greater_equal

# In[13]:
X = tf.constant([[1, 2], [3, 4]])
Y = tf.constant([[5, 6], [7, 8]])
Z = tf.constant([[True, False], [False, True]], tf.bool)
out = tf.where(Z, X, Y)
print(out.eval())

# In[14]:

