"""Minimal no-op stand-in for matplotlib.  The harness puts _stubs/ first on
sys.path, so corpus programs always get this stub: they plot results after
training, plotting is not what the corpus measures, and every matplotlib call
here does nothing."""
from ._anything import Anything

__version__ = "0.0-corpus-stub"


def use(*args, **kwargs):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything()
