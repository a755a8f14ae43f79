"""Device names as objects (TensorFlow 1's tf.DeviceSpec).

A device name is ``/job:<job>/replica:<n>/task:<n>/device:<TYPE>:<index>``, each part optional;
DeviceSpec parses and prints it, merges two (the other's known parts win) and, as TF1's
DeviceSpec, may be changed in place (the properties are settable, ``merge_from``,
``parse_from_string``); ``to_string()`` gives the name ``tf.device`` takes.
"""

from __future__ import annotations

__all__ = ["DeviceSpec"]

_FIELDS = ("job", "replica", "task", "device_type", "device_index")


def _int_or_none(value, what):
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"Unknown attribute: '{what}' must be an integer, got {value!r}") from None


def _device_type(value):
    if value is None:
        return None
    value = str(value)
    return value.upper() if value.upper() in ("CPU", "GPU", "TPU") else value


class DeviceSpec:
    """A (partial) device specification: job, replica, task, device_type, device_index, each
    None when not given (tf.compat.v1.DeviceSpec)."""

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = _int_or_none(replica, "replica")
        self._task = _int_or_none(task, "task")
        self._device_type = _device_type(device_type)
        self._device_index = _int_or_none(device_index, "device_index")

    # ---- properties (settable, as TF1's DeviceSpec)
    job = property(lambda self: self._job, lambda self, v: setattr(self, "_job", None if v is None else str(v)))
    replica = property(lambda self: self._replica,
                       lambda self, v: setattr(self, "_replica", _int_or_none(v, "replica")))
    task = property(lambda self: self._task, lambda self, v: setattr(self, "_task", _int_or_none(v, "task")))
    device_type = property(lambda self: self._device_type,
                           lambda self, v: setattr(self, "_device_type", _device_type(v)))
    device_index = property(lambda self: self._device_index,
                            lambda self, v: setattr(self, "_device_index", _int_or_none(v, "device_index")))

    # ---- parsing and printing
    @staticmethod
    def _parse(spec: str) -> dict:
        """The fields of a device string; ValueError on a malformed one."""
        out = dict.fromkeys(_FIELDS)
        for part in (spec or "").split("/"):
            if not part:
                continue
            pieces = part.split(":")
            key = pieces[0].lower()
            if len(pieces) == 2 and key == "job":
                out["job"] = pieces[1]
            elif len(pieces) == 2 and key == "replica":
                out["replica"] = _int_or_none(pieces[1], "replica")
            elif len(pieces) == 2 and key == "task":
                out["task"] = _int_or_none(pieces[1], "task")
            elif len(pieces) == 3 and key == "device":
                out["device_type"] = _device_type(pieces[1])
                out["device_index"] = None if pieces[2] == "*" else _int_or_none(pieces[2], "device_index")
            elif len(pieces) in (1, 2) and key in ("cpu", "gpu"):  # the short form /cpu:0
                out["device_type"] = key.upper()
                out["device_index"] = None if len(pieces) == 1 or pieces[1] == "*" else _int_or_none(pieces[1],
                                                                                                    "device_index")
            elif len(pieces) == 2 and key == "device":
                out["device_type"] = _device_type(pieces[1])
            else:
                raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
        return out

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """The DeviceSpec of a device string."""
        return cls(**cls._parse(spec))

    def parse_from_string(self, spec: str) -> DeviceSpec:
        """Sets every field from the device string (unnamed ones become None); returns self."""
        for k, v in self._parse(spec).items():
            setattr(self, k, v)
        return self

    def to_string(self) -> str:
        out = ""
        if self._job is not None:
            out += f"/job:{self._job}"
        if self._replica is not None:
            out += f"/replica:{self._replica}"
        if self._task is not None:
            out += f"/task:{self._task}"
        if self._device_type is not None:
            index = "*" if self._device_index is None else str(self._device_index)
            out += f"/device:{self._device_type}:{index}"
        return out

    # ---- merging
    def merge_from(self, dev) -> None:
        """Takes over every field dev has (a DeviceSpec or a string)."""
        other = dev if isinstance(dev, DeviceSpec) else DeviceSpec.from_string(dev)
        for k in _FIELDS:
            v = getattr(other, k)
            if v is not None:
                setattr(self, k, v)

    def make_merged_spec(self, dev) -> DeviceSpec:
        """A new DeviceSpec: this one with dev's known fields taking over."""
        out = self.replace()
        out.merge_from(dev)
        return out

    def replace(self, **kwargs) -> DeviceSpec:
        """A copy with the named fields replaced."""
        unknown = set(kwargs) - set(_FIELDS)
        if unknown:
            raise TypeError(f"DeviceSpec.replace: unknown fields {sorted(unknown)}")
        fields = {k: getattr(self, k) for k in _FIELDS}
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def _key(self):
        return tuple(getattr(self, k) for k in _FIELDS)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"<DeviceSpec {self.to_string()!r}>"

    __str__ = to_string
