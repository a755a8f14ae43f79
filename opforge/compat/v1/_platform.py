"""tf.app, tf.flags, tf.gfile and tf.logging: the platform helpers TF1 programs use (TF2 has
absl's flags and app, and tf.io.gfile: of.io.gfile here, which tf.gfile spells with TF1's
names); flags parsed from sys.argv, logging through the `logging` module."""

from __future__ import annotations

import logging as _logging
import sys

from opforge.compat._namespace import Namespace
from opforge.compat.v1 import _tf1_aliases as _aliases
from opforge.io import gfile as _gfile

# ---- flags ---------------------------------------------------------------------------------


class _Flag:
    def __init__(self, name, default, help, parser, short_name=None):  # noqa: A002
        self.name, self.default, self.help, self.parser, self.short_name = name, default, help, parser, short_name
        self.value = default
        self.present = False


def _parse_bool(text):
    t = str(text).strip().lower()
    if t in ("1", "true", "t", "yes", "y"):
        return True
    if t in ("0", "false", "f", "no", "n"):
        return False
    raise ValueError(f"invalid boolean value {text!r}")


class FlagValues:
    """The flag registry and values (tf.flags.FLAGS). Flags are parsed from sys.argv the first
    time a value is read (or by tf.app.run); unknown arguments are left for the program."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)
        object.__setattr__(self, "_required", [])

    def _define(self, flag):
        if flag.name in self._flags:
            raise ValueError(f"The flag '{flag.name}' is defined twice.")
        self._flags[flag.name] = flag
        if flag.short_name:
            self._flags.setdefault(flag.short_name, flag)

    def __call__(self, argv, known_only=True):
        """Parses argv (argv[0] is the program); returns the arguments that are not flags."""
        rest = [argv[0]] if argv else []
        args = list(argv[1:])
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                rest.extend(args[i + 1:])
                break
            if not a.startswith("-") or a == "-":
                rest.append(a)
                i += 1
                continue
            body = a.lstrip("-")
            name, eq, value = body.partition("=")
            flag = self._flags.get(name)
            if flag is None and name.startswith("no") and name[2:] in self._flags and \
                    self._flags[name[2:]].parser is _parse_bool:
                flag, eq, value = self._flags[name[2:]], "=", "false"
            if flag is None:
                if known_only:
                    rest.append(a)
                    i += 1
                    continue
                raise ValueError(f"Unknown command line flag '{name}'")
            if not eq:
                if flag.parser is _parse_bool:
                    value = "true"
                else:
                    i += 1
                    if i >= len(args):
                        raise ValueError(f"Flag --{name} needs a value")
                    value = args[i]
            try:
                flag.value = flag.parser(value)
            except ValueError as e:
                raise ValueError(f"Illegal value {value!r} for flag --{name}: {e}") from None
            flag.present = True
            i += 1
        object.__setattr__(self, "_parsed", True)
        for name in self._required:
            if self._flags[name].value is None:
                raise ValueError(f"Flag --{name} must have a value other than None.")
        return rest

    def _mark_required(self, name):
        if name not in self._flags:
            raise KeyError(f"Flag --{name} is not defined")
        if self._flags[name].default is not None:
            _log.warning("Flag --%s has a non-None default value; therefore, mark_flag_as_required will pass even "
                         "if flag is not specified in the command line!", name)
        self._required.append(name)

    def _ensure_parsed(self):
        if not self._parsed:
            self(sys.argv)

    def __getattr__(self, name):
        flags = object.__getattribute__(self, "_flags")
        if name not in flags:
            raise AttributeError(f"Unknown flag: {name}")
        self._ensure_parsed()
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(f"Unknown flag: {name}")
        self._flags[name].value = value

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        object.__setattr__(self, "_parsed", True)

    def flag_values_dict(self):
        self._ensure_parsed()
        return {k: f.value for k, f in self._flags.items()}

    def __getitem__(self, name):
        return self._flags[name]


FLAGS = FlagValues()


def _definer(parser):
    def define(name, default, help=None, flag_values=FLAGS, short_name=None, **kwargs):  # noqa: A002
        flag_values._define(_Flag(name, default, help, parser, short_name))
    return define


def _list_parser(text):
    if isinstance(text, (list, tuple)):
        return list(text)
    return [t for t in str(text).split(",") if t]


def DEFINE_enum(name, default, enum_values, help=None, flag_values=FLAGS, **kwargs):  # noqa: N802,A002
    def parse(text):
        if text not in enum_values:
            raise ValueError(f"value should be one of <{'|'.join(enum_values)}>")
        return text
    flag_values._define(_Flag(name, default, help, parse))


def _mark_flag_as_required(flag_name, flag_values=FLAGS):
    """Parsing the flags (tf.app.run) fails unless flag_name gets a value other than None."""
    flag_values._mark_required(flag_name)


def _mark_flags_as_required(flag_names, flag_values=FLAGS):
    for name in flag_names:
        flag_values._mark_required(name)


flags = Namespace(
    "flags", builds_graph=False, FLAGS=FLAGS, FlagValues=FlagValues,
    DEFINE_string=_definer(str), DEFINE_integer=_definer(int), DEFINE_float=_definer(float),
    DEFINE_boolean=_definer(_parse_bool), DEFINE_bool=_definer(_parse_bool), DEFINE_list=_definer(_list_parser),
    DEFINE_enum=DEFINE_enum, mark_flag_as_required=_mark_flag_as_required,
    mark_flags_as_required=_mark_flags_as_required,
)
flags.flags = flags  # tf.flags.flags.FLAGS, as absl spells it


def _run(main=None, argv=None):
    """Parses the flags from argv (default sys.argv), runs main(remaining argv) and exits with
    its result (tf.app.run)."""
    args = FLAGS(sys.argv if argv is None else argv, known_only=True)
    if main is None:
        main = sys.modules["__main__"].main
    sys.exit(main(args))


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
