"""TensorFlow Serving's JSON encoding (opforge/serving/json_codec.py): both request formats,
dtype conversion and its refusals, b64, answers in the request's format."""

from __future__ import annotations

import base64
from types import SimpleNamespace

import numpy as np
import pytest

from opforge import float32, int32, int64, string
from opforge.errors import InvalidArgumentError
from opforge.serving.json_codec import parse_body, predict_answer, predict_feeds, to_array


def _signature(**inputs):
    return SimpleNamespace(inputs={k: SimpleNamespace(dtype=v, shape=None) for k, v in inputs.items()})


def test_row_format_with_named_inputs():
    sig = _signature(a=float32, b=string)
    feeds, fmt = predict_feeds({"instances": [{"a": [1, 2], "b": "x"}, {"a": [3, 4.5], "b": {"b64": "eQ=="}}]}, sig)
    assert fmt == "row"
    np.testing.assert_array_equal(feeds["a"], np.array([[1, 2], [3, 4.5]], np.float32))
    assert feeds["a"].dtype == np.float32 and feeds["b"].tolist() == [b"x", b"y"]


def test_columnar_format():
    feeds, fmt = predict_feeds({"inputs": [[1, 2], [3, 4]]}, _signature(x=int64))
    assert fmt == "columnar" and feeds["x"].dtype == np.int64 and feeds["x"].shape == (2, 2)


@pytest.mark.parametrize("value, dtype, message", [
    ([1.5], int32, "JSON Value: 1.5 is not a int32"),
    ([True], float32, "JSON Value: true is not a float32"),
    ([1], "bool", "JSON Value: 1 is not a bool"),
    ([2**40], int32, "a value is out of range for int32"),
    ([[1], [2, 3]], float32, "the lists are ragged"),
    ([{"b64": "!!"}], string, "Unable to base64 decode"),
    ([1], string, "expected a string or"),
])
def test_refusals(value, dtype, message):
    with pytest.raises(InvalidArgumentError, match=message):
        to_array(value, dtype, "where")


def test_request_shape_errors():
    sig = _signature(a=float32, b=float32)
    with pytest.raises(InvalidArgumentError, match="Failed to process element: 0 of 'instances' list"):
        predict_feeds({"instances": [[1, 2]]}, sig)
    with pytest.raises(InvalidArgumentError, match="'inputs' must be an object naming the signature's 2 inputs"):
        predict_feeds({"inputs": [1, 2]}, sig)
    with pytest.raises(InvalidArgumentError, match="Excepted 'instances' to be a list"):
        predict_feeds({"instances": {"a": 1}}, sig)
    with pytest.raises(InvalidArgumentError, match="'instances' is empty"):
        predict_feeds({"instances": []}, sig)
    with pytest.raises(InvalidArgumentError, match="JSON Parse error"):
        parse_body(b"\xff\xfe")


def test_answers():
    out = {"p": np.array([[0.5, 0.25], [1, 2]], np.float32), "k": np.array([3, 4], np.int64)}
    assert predict_answer(out, "row") == {"predictions": [{"k": 3, "p": [0.5, 0.25]}, {"k": 4, "p": [1.0, 2.0]}]}
    assert predict_answer(out, "columnar") == {"outputs": {"k": [3, 4], "p": [[0.5, 0.25], [1.0, 2.0]]}}
    assert predict_answer({"k": out["k"]}, "row") == {"predictions": [3, 4]}
    with pytest.raises(InvalidArgumentError, match="Tensor name: s has inconsistent batch size: 1 expecting: 2"):
        predict_answer({"k": out["k"], "s": np.ones(1)}, "row")


def test_bytes_inputs_and_outputs_b64():
    arr = to_array([{"b64": base64.b64encode(b"\x00\xff").decode()}, "text"], "string", "where")
    assert arr.tolist() == [b"\x00\xff", b"text"]
    doc = predict_answer({"out_bytes": arr, "label": np.array([b"cat", b"\xff"], dtype=object)}, "columnar")
    assert doc == {"outputs": {"label": ["cat", {"b64": "/w=="}], "out_bytes": [{"b64": "AP8="}, {"b64": "dGV4dA=="}]}}
