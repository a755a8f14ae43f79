# Source: https://github.com/nlintz/TensorFlow-Tutorials/blob/d6bdab7df46492446c48537fcf37e20ba44e8168/00_multiply.py
# Changes: none
# Metrics: tf.Session().run(y, feed_dict={a: 3, b: 3})
# Tolerance: rtol=1e-4
#!/usr/bin/env python

import tensorflow as tf

a = tf.placeholder("float") # Create a symbolic variable 'a'
b = tf.placeholder("float") # Create a symbolic variable 'b'

y = tf.multiply(a, b) # multiply the symbolic variables

with tf.Session() as sess: # create a session to evaluate the symbolic expressions
    print("%f should equal 2.0" % sess.run(y, feed_dict={a: 1, b: 2})) # eval expressions with parameters for a and b
    print("%f should equal 9.0" % sess.run(y, feed_dict={a: 3, b: 3}))
