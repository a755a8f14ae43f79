"""Automatic differentiation: the gradient registry, helpers used by generated gradient
formulas, and the eager GradientTape."""
