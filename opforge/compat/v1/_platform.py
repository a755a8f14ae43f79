"""tf.app, tf.flags, tf.gfile and tf.logging: the platform helpers TF1 programs use (TF2 has
absl's flags and app, and tf.io.gfile: of.io.gfile here, which tf.gfile spells with TF1's
names); flags parsed from sys.argv, logging through the `logging` module."""

from __future__ import annotations

import functools
import logging as _logging
import sys

from absl import app as _absl_app
from absl import flags as _absl_flags

from opforge.compat._namespace import Namespace
from opforge.compat.v1 import _tf1_aliases as _aliases
from opforge.io import gfile as _gfile

# ---- flags ---------------------------------------------------------------------------------
# tf.flags is absl.flags, as in TensorFlow (absl-py: Abseil's Python flags, a dependency): the
# same parsers, validators, errors and help. Two TF1 differences are kept: FLAGS parses
# sys.argv the first time a value is read before tf.app.run (leaving unknown arguments to the
# program), and the DEFINE_* functions accept TF1's keyword names flag_name / default_value /
# docstring.

_RENAMED_KEYWORDS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _tf1_keywords(define):
    @functools.wraps(define)
    def wrapper(*args, **kwargs):
        for old, new in _RENAMED_KEYWORDS.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
        return define(*args, **kwargs)
    return wrapper


class _FlagValues:
    """tf.flags.FLAGS: absl's FLAGS, parsing sys.argv (known flags only) when a value is read
    before the flags were parsed, where absl raises UnparsedFlagAccessError."""

    def __init__(self, wrapped):
        self.__dict__["_wrapped"] = wrapped

    def __getattr__(self, name):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed() and name in wrapped:
            wrapped(sys.argv, known_only=True)
        return getattr(wrapped, name)

    def __setattr__(self, name, value):
        setattr(self.__dict__["_wrapped"], name, value)

    def __delattr__(self, name):
        delattr(self.__dict__["_wrapped"], name)

    def __dir__(self):
        return dir(self.__dict__["_wrapped"])

    def __getitem__(self, name):
        return self.__dict__["_wrapped"][name]

    def __setitem__(self, name, flag):
        self.__dict__["_wrapped"][name] = flag

    def __contains__(self, name):
        return name in self.__dict__["_wrapped"]

    def __len__(self):
        return len(self.__dict__["_wrapped"])

    def __iter__(self):
        return iter(self.__dict__["_wrapped"])

    def __str__(self):
        return str(self.__dict__["_wrapped"])

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"](*args, **kwargs)


FLAGS = _FlagValues(_absl_flags.FLAGS)
_flag_names = {n: getattr(_absl_flags, n) for n in dir(_absl_flags) if not n.startswith("_") and n != "FLAGS"}
for _n in ("DEFINE_string", "DEFINE_boolean", "DEFINE_bool", "DEFINE_float", "DEFINE_integer"):
    _flag_names[_n] = _tf1_keywords(_flag_names[_n])
flags = Namespace("flags", _flag_names, builds_graph=False, FLAGS=FLAGS)
flags.flags = flags  # tf.flags.flags.FLAGS, as absl spells it


def _parse_known_flags(argv):
    return FLAGS(argv, known_only=True)


def _run(main=None, argv=None):
    """tf.app.run: absl's app.run (flags parsed from argv, default sys.argv, unknown arguments
    left to main; --help; exit with main's result) calling main, by default __main__.main."""
    main = main or sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_known_flags)


app = Namespace("app", builds_graph=False, run=_run, flags=flags)

# ---- gfile -----------------------------------------------------------------------------------


def _walk(top, in_order=True):
    return _gfile.walk(top, topdown=in_order)


# TF1's gfile functions under their argument names (filename, dirname, oldpath ...), over of.io.gfile.
def _exists(filename):
    return _gfile.exists(filename)


def _is_directory(dirname):
    return _gfile.isdir(dirname)


def _make_dirs(dirname):
    return _gfile.makedirs(dirname)


def _mk_dir(dirname):
    return _gfile.mkdir(dirname)


def _delete_recursively(dirname):
    return _gfile.rmtree(dirname)


def _remove(filename):
    return _gfile.remove(filename)


def _copy(oldpath, newpath, overwrite=False):
    return _gfile.copy(oldpath, newpath, overwrite)


def _rename(oldname, newname, overwrite=False):
    return _gfile.rename(oldname, newname, overwrite)


def _glob(filename):
    return _gfile.glob(filename)


def _stat(filename):
    return _gfile.stat(filename)


def _list_directory(dirname):
    return _gfile.listdir(dirname)


gfile = Namespace(
    "gfile", builds_graph=False, GFile=_gfile.GFile, Open=_gfile.GFile, FastGFile=_gfile.GFile, Exists=_exists,
    IsDirectory=_is_directory, MakeDirs=_make_dirs, MkDir=_mk_dir, DeleteRecursively=_delete_recursively,
    Remove=_remove, Copy=_copy, Rename=_rename, Glob=_glob, ListDirectory=_list_directory, Walk=_walk,
    Stat=_stat,
)

# ---- logging ---------------------------------------------------------------------------------

_log = _logging.getLogger("tensorflow")
if not _log.handlers:
    _handler = _logging.StreamHandler()
    _handler.setFormatter(_logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    _log.addHandler(_handler)
    _log.setLevel(_logging.WARNING)


def _log_every_n(level, msg, n, *args):
    counts = _log_every_n.__dict__.setdefault("counts", {})
    key = (level, msg)
    c = counts.get(key, 0)
    counts[key] = c + 1
    if c % n == 0:
        _log.log(level, msg, *args)


def _set_verbosity(v):
    """Logs messages at level v and above (tf.logging.set_verbosity)."""
    _log.setLevel(v)


logging = Namespace(
    "logging", builds_graph=False, DEBUG=_logging.DEBUG, INFO=_logging.INFO, WARN=_logging.WARNING, ERROR=_logging.ERROR,
    FATAL=_logging.FATAL, set_verbosity=_set_verbosity, get_verbosity=_log.getEffectiveLevel,
    vlog=_aliases.vlog, log_if=_aliases.log_if, flush=_aliases.flush, TaskLevelStatusMessage=_aliases.TaskLevelStatusMessage,
    debug=_log.debug, info=_log.info, warn=_log.warning, warning=_log.warning, error=_log.error,
    fatal=_log.critical, log=_log.log, log_every_n=_log_every_n,
    log_first_n=lambda level, msg, n, *args: _log_every_n(level, msg, 10 ** 9, *args),
)
