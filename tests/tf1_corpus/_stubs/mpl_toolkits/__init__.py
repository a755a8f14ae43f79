"""No-op stand-in for matplotlib's mpl_toolkits (see matplotlib/__init__.py)."""
