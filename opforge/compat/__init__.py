"""Compatibility namespaces: ``import opforge.compat.v1 as tf`` runs TensorFlow 1 programs."""
