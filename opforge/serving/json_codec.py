"""TensorFlow Serving's JSON encoding for the REST API.

Predict takes the row format ({"instances": [row, ...]}: each row a value, or {input: value}
for several inputs) or the columnar format ({"inputs": value or {input: value}}); answers
{"predictions": [...]} or {"outputs": ...} to match. Strings are JSON strings (UTF-8) or
{"b64": "..."} for bytes; string outputs whose name ends in "_bytes" (and any that are not
UTF-8) are written as {"b64": ...}. Values are converted to each input's dtype from the
signature, refusing what TensorFlow Serving refuses (a fraction for an integer input, ragged
lists, strings for numbers) with InvalidArgumentError.
"""

from __future__ import annotations

import base64
import binascii
import json

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError


def parse_body(body: bytes) -> dict:
    """The JSON object of a request body; InvalidArgumentError when it is not one."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"JSON Parse error: {e}") from None
    if not isinstance(doc, dict):
        raise InvalidArgumentError("JSON Parse error: the request body must be a JSON object")
    return doc


def _is_b64(value) -> bool:
    return isinstance(value, dict) and len(value) == 1 and "b64" in value


def _bytes_of(value, where: str) -> bytes:
    if _is_b64(value):
        if not isinstance(value["b64"], str):
            raise InvalidArgumentError(f"{where}: 'b64' must hold a string")
        try:
            return base64.b64decode(value["b64"], validate=True)
        except (binascii.Error, ValueError):
            raise InvalidArgumentError(f"{where}: Unable to base64 decode") from None
    if isinstance(value, str):
        return value.encode("utf-8")
    raise InvalidArgumentError(f"{where}: expected a string or {{\"b64\": ...}}, got {json.dumps(value)[:80]}")


def _shape_of(value, where: str) -> tuple[int, ...]:
    """The shape of nested lists, checking that they are rectangular."""
    if not isinstance(value, list):
        return ()
    if not value:
        return (0,)
    inner = [_shape_of(v, where) for v in value]
    if any(s != inner[0] for s in inner):
        raise InvalidArgumentError(f"{where}: the lists are ragged (not a tensor): sizes differ within one dimension")
    return (len(value),) + inner[0]


def _flatten(value, out: list) -> None:
    if isinstance(value, list):
        for v in value:
            _flatten(v, out)
    else:
        out.append(value)


def to_array(value, dtype, where: str) -> np.ndarray:
    """A JSON value as an array of the opforge dtype `dtype`."""
    dt = _dtypes.as_dtype(dtype)
    shape = _shape_of(value, where)
    flat: list = []
    _flatten(value, flat)
    if dt == _dtypes.string:
        arr = np.empty(len(flat), dtype=object)
        arr[:] = [_bytes_of(v, where) for v in flat]
        return arr.reshape(shape)
    if dt == _dtypes.bool_:
        def fits(v):
            return isinstance(v, bool)
    elif np.issubdtype(np.dtype(dt.as_numpy_dtype), np.integer):
        def fits(v):
            return isinstance(v, int) and not isinstance(v, bool)
    else:
        def fits(v):
            return isinstance(v, (int, float)) and not isinstance(v, bool)
    for v in flat:
        if not fits(v):
            raise InvalidArgumentError(f"{where}: JSON Value: {json.dumps(v)[:80]} is not a {dt.name}")
    try:
        arr = np.array(flat, dtype=dt.as_numpy_dtype).reshape(shape)
    except OverflowError:
        raise InvalidArgumentError(f"{where}: a value is out of range for {dt.name}") from None
    if np.issubdtype(arr.dtype, np.integer) and flat:
        back = np.array(flat, dtype=object).reshape(shape)
        if not (arr.astype(object) == back).all():
            raise InvalidArgumentError(f"{where}: a value is out of range for {dt.name}")
    return arr


def predict_feeds(doc: dict, signature) -> tuple[dict[str, np.ndarray], str]:
    """The feeds of a predict request and its format ("row" or "columnar")."""
    names = sorted(signature.inputs)
    if "instances" in doc and "inputs" in doc:
        raise InvalidArgumentError("Not both 'inputs' and 'instances' can be set")
    if "instances" in doc:
        rows = doc["instances"]
        if not isinstance(rows, list):
            raise InvalidArgumentError("Excepted 'instances' to be a list/array")
        if not rows:
            raise InvalidArgumentError("'instances' is empty")
        columns: dict[str, list] = {n: [] for n in names}
        for i, row in enumerate(rows):
            named = isinstance(row, dict) and not _is_b64(row)
            if not named:
                if len(names) != 1:
                    raise InvalidArgumentError(f"Failed to process element: {i} of 'instances' list. "
                                               f"JSON Value: {json.dumps(row)[:80]} Type: not an object, but the "
                                               f"signature has {len(names)} inputs ({', '.join(names)})")
                row = {names[0]: row}
            if set(row) != set(names):
                missing = sorted(set(names) - set(row)) or sorted(set(row) - set(names))
                raise InvalidArgumentError(f"Failed to process element: {i} key: {missing[0]} of 'instances' "
                                           f"list. Error: Invalid argument: JSON object: does not have named "
                                           f"input: {missing[0]}" if set(names) - set(row) else
                                           f"Failed to process element: {i} of 'instances' list. Error: "
                                           f"Invalid argument: input tensor alias not found in signature: "
                                           f"{missing[0]}. Inputs expected to be in the set {{{','.join(names)}}}.")
            for n in names:
                columns[n].append(row[n])
        feeds = {n: to_array(col, signature.inputs[n].dtype, f"'instances' input '{n}'") for n, col in columns.items()}
        return feeds, "row"
    if "inputs" in doc:
        value = doc["inputs"]
        if isinstance(value, dict) and not _is_b64(value):
            unknown = sorted(set(value) - set(names))
            if unknown:
                raise InvalidArgumentError(f"input tensor alias not found in signature: {unknown[0]}. Inputs "
                                           f"expected to be in the set {{{','.join(names)}}}.")
            missing = sorted(set(names) - set(value))
            if missing:
                raise InvalidArgumentError(f"JSON object: does not have named input: {missing[0]}")
        elif len(names) == 1:
            value = {names[0]: value}
        else:
            raise InvalidArgumentError(f"'inputs' must be an object naming the signature's {len(names)} "
                                       f"inputs ({', '.join(names)})")
        feeds = {n: to_array(value[n], signature.inputs[n].dtype, f"'inputs' input '{n}'") for n in names}
        return feeds, "columnar"
    raise InvalidArgumentError("Missing 'inputs' or 'instances' key")


def _json_value(arr: np.ndarray, key: str):
    if arr.dtype == object:
        as_b64 = key.endswith("_bytes")

        def enc(v):
            if isinstance(v, list):
                return [enc(x) for x in v]
            if isinstance(v, str):
                return v
            if not as_b64:
                try:
                    return v.decode("utf-8")
                except UnicodeDecodeError:
                    pass
            return {"b64": base64.b64encode(v).decode("ascii")}
        return enc(arr.tolist())
    if arr.dtype.kind not in "biuf":  # float16/bfloat16 and the like: as float32
        arr = arr.astype(np.float32)
    return arr.tolist()


def predict_answer(outputs: dict[str, np.ndarray], fmt: str) -> dict:
    """The JSON answer of a predict request in the request's format."""
    arrays = {k: np.asarray(v) for k, v in outputs.items()}
    if fmt == "columnar":
        if len(arrays) == 1:
            (k, v), = arrays.items()
            return {"outputs": _json_value(v, k)}
        return {"outputs": {k: _json_value(v, k) for k, v in sorted(arrays.items())}}
    sizes = {k: (v.shape[0] if v.ndim else None) for k, v in arrays.items()}
    first = next(iter(sizes.values()), None)
    for k, s in sizes.items():
        if s is None or s != first:
            raise InvalidArgumentError(f"Tensor name: {k} has inconsistent batch size: {s} expecting: {first}")
    if len(arrays) == 1:
        (k, v), = arrays.items()
        return {"predictions": _json_value(v, k)}
    columns = {k: _json_value(v, k) for k, v in arrays.items()}
    return {"predictions": [{k: columns[k][i] for k in sorted(columns)} for i in range(first)]}


def _feature_values(value, where: str) -> list:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if isinstance(v, (str, dict)):
            out.append(_bytes_of(v, where))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(v)
        else:
            raise InvalidArgumentError(f"{where}: JSON Value: {json.dumps(v)[:80]} is not a feature value")
    return out


def examples_input(doc: dict):
    """The tensorflow.serving.Input of a classify/regress request ({"examples": [...],
    "context": {...}} of features)."""
    from ..codegen._proto import input_pb2  # noqa: PLC0415
    from .predictor import example_from_features  # noqa: PLC0415
    examples = doc.get("examples")
    if not isinstance(examples, list) or not examples:
        raise InvalidArgumentError("Request must have a non-empty 'examples' list")
    parsed = []
    for i, ex in enumerate(examples):
        if not isinstance(ex, dict):
            raise InvalidArgumentError(f"'examples' element {i} is not a JSON object")
        parsed.append(example_from_features({k: _feature_values(v, f"example {i} feature '{k}'") for k, v in ex.items()}))
    inp = input_pb2.Input()
    if "context" in doc:
        if not isinstance(doc["context"], dict):
            raise InvalidArgumentError("'context' is not a JSON object")
        ctx = example_from_features({k: _feature_values(v, f"context feature '{k}'") for k, v in doc["context"].items()})
        inp.example_list_with_context.context.CopyFrom(ctx)
        inp.example_list_with_context.examples.extend(parsed)
    else:
        inp.example_list.examples.extend(parsed)
    return inp


def classify_answer(result) -> dict:
    return {"result": [[[c.label, c.score] for c in row.classes] for row in result.classifications]}


def regress_answer(result) -> dict:
    return {"result": [r.value for r in result.regressions]}


def status_answer(response) -> dict:
    """GetModelStatusResponse as TensorFlow Serving's REST API writes it."""
    from ..codegen._proto import error_codes_pb2, get_model_status_pb2  # noqa: PLC0415
    state = get_model_status_pb2.ModelVersionStatus.State
    return {"model_version_status": [
        {"version": str(s.version), "state": state.Name(s.state),
         "status": {"error_code": error_codes_pb2.Code.Name(s.status.error_code),
                    "error_message": s.status.error_message}}
        for s in response.model_version_status]}


def metadata_answer(response) -> dict:
    """GetModelMetadataResponse as JSON (protobuf's JSON mapping, TensorFlow's field names)."""
    from google.protobuf import json_format  # noqa: PLC0415

    from ..codegen._proto import POOL  # noqa: PLC0415
    doc = json_format.MessageToDict(response, preserving_proto_field_name=True, descriptor_pool=POOL)
    doc["model_spec"].setdefault("signature_name", "")
    return doc
