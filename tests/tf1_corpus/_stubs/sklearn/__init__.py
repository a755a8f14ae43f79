"""Blocks scikit-learn inside corpus runs.  Some programs optionally run
sklearn (e.g. a t-SNE plot) when it is importable; that work is slow, is not
TensorFlow, and would make runs depend on the machine, so the harness makes
`import sklearn` fail the way it does where sklearn is not installed."""
raise ImportError("scikit-learn is disabled in the TF1 corpus runs")
