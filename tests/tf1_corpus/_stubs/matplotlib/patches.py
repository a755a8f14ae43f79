"""No-op stand-in (see matplotlib/__init__.py)."""
from ._anything import Anything


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything()
