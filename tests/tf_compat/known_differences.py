"""Where opforge knowingly differs from TensorFlow, each with its reason (issue 14).

A difference is either TensorFlow being wrong by IEEE/NumPy standards (opforge keeps the right
answer and its opdef says so), a matter of precision or evaluation order, or a case not aligned
yet. Entries match cases by op, dtype, case id (a regular expression) and optionally a predicate
over the inputs. A matching case still runs: it is an expected failure if it differs and passes
if it agrees; an entry no case differs from any more fails the run (test_differential.py's
last test), so the table cannot go stale (entries where TensorFlow returns uninitialized memory
are left out of that check: they may agree by chance).
"""

from __future__ import annotations

import re

import numpy as np
from dataclasses import dataclass

# raw_ops signatures (keyword names and defaults) that differ: op -> reason.
SIGNATURES: dict[str, str] = {
    "ImageSummary": "no bad_color attr (a tensor-valued attr default): non-finite pixels are TF's default red",
    "CollectiveReduceV2": "no ordering_token input (TF2 resource handles; opforge has no resource dtype): the "
                          "executors order collectives themselves, Nordering_token must be 0",
    "CollectiveGatherV2": "no ordering_token input (TF2 resource handles; opforge has no resource dtype): the "
                          "executors order collectives themselves, Nordering_token must be 0",
}


# Outputs TensorFlow defines as opaque scratch for its own gradient kernels: not compared.
SCRATCH_OUTPUTS: dict[str, tuple[int, ...]] = {
    "FusedBatchNormV3": (3, 4, 5),  # reserve_space_1..3: what TF's CPU kernel puts there is its own
}


@dataclass(frozen=True)
class Difference:
    op: str | None  # None: every op
    dtypes: tuple[str, ...] | None  # opdef dtype spec names; None: all
    case: str | None  # regular expression over the case id; None: all
    reason: str
    when: object = None  # optional predicate over the case's NumPy inputs and attrs
    run: bool = True  # False: never call TensorFlow on these cases (it crashes)
    # False where TensorFlow's result is uninitialized memory or a garbage read: it may happen
    # to agree in a run, so the entry is left out of the staleness check.
    deterministic: bool = True

    def matches(self, op: str, dtype: str, case_id: str, inputs: dict, attrs: dict) -> bool:
        return ((self.op is None or op == self.op) and (self.dtypes is None or dtype in self.dtypes)
                and (self.case is None or re.search(self.case, case_id) is not None)
                and (self.when is None or self.when(inputs, attrs)))


_FLOATS = ("bfloat16", "half", "float", "double")
_LOW = ("bfloat16", "half")


def _int16_dimension(inputs: dict, attrs: dict) -> bool:
    return getattr(inputs.get("dimension"), "dtype", None) == "int16"


def _channel_dim(attrs: dict) -> int:
    return 1 if attrs.get("data_format", "NHWC").startswith("NC") else -1


def _conv_output_empty(inputs: dict, attrs: dict) -> bool:
    """Conv2D whose output has no elements (empty batch, or a VALID filter larger than the input)."""
    x, f = inputs["input"], inputs["filter"]
    if x.shape[0] == 0:
        return True
    if attrs.get("padding") != "VALID":
        return False
    spatial = (2, 3) if attrs.get("data_format") == "NCHW" else (1, 2)
    dil = attrs.get("dilations", [1, 1, 1, 1])
    return any(x.shape[d] < (f.shape[i] - 1) * dil[d] + 1 for i, d in enumerate(spatial))


def _grouped_gradient(inputs: dict, attrs: dict) -> bool:
    """Conv2DBackpropFilter of a grouped convolution (input depth a multiple of the filter's)."""
    return inputs["input"].shape[_channel_dim(attrs)] != int(inputs["filter_sizes"][2])


def _window_exceeds_input(inputs: dict, attrs: dict) -> bool:
    """A VALID pooling window larger than the input (TensorFlow's MaxPool dies of SIGFPE)."""
    x = inputs.get("input", inputs.get("orig_input"))
    if x is None or attrs.get("padding") != "VALID":
        return False
    spatial = (2, 3) if attrs.get("data_format") == "NCHW" else (1, 2)
    return any(attrs["ksize"][d] > x.shape[d] for d in spatial)


VALUES: list[Difference] = [
    # ---- TensorFlow crashes: never called.
    *[Difference(op, None, None, "a VALID window larger than the input: TensorFlow's CPU kernel "
                 "dies (SIGFPE, the whole process); opforge returns the empty result, as TensorFlow's "
                 "AvgPool does", when=_window_exceeds_input, run=False)
      for op in ("MaxPool", "MaxPoolGrad", "MaxPoolGradGrad")],
    # ---- TensorFlow wrong by IEEE / NumPy standards: opforge keeps the right answer.
    Difference("Qr", ("half",), None, "TensorFlow's CPU kernel factors half matrices in half precision "
               "(Eigen); opforge computes in float32 and rounds the result once, as its other 16-bit "
               "kernels do", deterministic=False),
    Difference(None, _FLOATS, r"^subnormal",
               "TensorFlow runs with denormals flushed to zero (inputs and results): Log, Sqrt, "
               "Reciprocal, Sign, comparisons... of a subnormal act on 0; opforge follows IEEE 754 "
               "(as NumPy)"),
    Difference("Erf", ("double",), r"^(edge|special)",
               "TensorFlow's float64 Erf(±inf) and Erf(±huge) are NaN; erf(±x) tends to ±1 (IEEE, "
               "NumPy/SciPy)"),
    Difference("Round", ("int32", "int64"), None,
               "TensorFlow's Round of an integer tensor returns zeros; opforge returns the integers "
               "unchanged (NumPy's np.round)", when=lambda inputs, attrs: inputs["x"].size > 0),
    Difference("ArgMax", _FLOATS, r"^special", "with NaNs, opforge returns the first NaN's index as "
               "NumPy's argmax does; TensorFlow skips NaNs"),
    Difference("ArgMin", _FLOATS, r"^special", "with NaNs, opforge returns the first NaN's index as "
               "NumPy's argmin does; TensorFlow skips NaNs"),
    Difference("ArgMax", None, None, "TensorFlow misreads an int16 `dimension` (it reports or uses a "
               "garbage axis); opforge takes the axis given", when=_int16_dimension,
               deterministic=False),
    Difference("Conv2D", ("float", "bfloat16"), None, "an output with no elements (empty batch, or a "
               "VALID filter larger than the input): TensorFlow's oneDNN kernel (float32, bfloat16) "
               "returns its input tensor unchanged (wrong shape); opforge returns the empty output, "
               "as TensorFlow's half and double kernels do", when=_conv_output_empty),
    *[Difference(op, None, None, "grouped convolution: TensorFlow's CPU filter-gradient kernel does not "
                 "implement it (it refuses with a size error); opforge computes it (checked against "
                 "per-group NumPy references and numerically in float64)", when=_grouped_gradient)
      for op in ("Conv2DBackpropFilter",)],
    Difference("DepthwiseConv2dNative", None, None, "an output with no elements (empty batch, or a "
               "VALID filter larger than the input): TensorFlow returns its input tensor unchanged "
               "(wrong shape); opforge returns the empty output", when=_conv_output_empty),
    *[Difference(op, None, None, "no output gradient elements (the forward output was empty): "
                 "TensorFlow returns uninitialized memory (garbage, NaN) as the filter gradient; opforge "
                 "zeros", when=lambda inputs, attrs: inputs["out_backprop"].size == 0,
                 deterministic=False)
      for op in ("Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropFilter")],
    Difference("DepthwiseConv2dNativeBackpropInput", None, r"dilations=1221",
               "TensorFlow's CPU depthwise backprop ignores dilations (wrong values, checked against "
               "the NumPy reference); opforge applies them"),
    Difference("DepthwiseConv2dNativeBackpropFilter", None, r"dilations=1221",
               "TensorFlow's CPU depthwise backprop ignores dilations (wrong values, checked against "
               "the NumPy reference); opforge applies them"),
    Difference("MaxPoolGradGrad", None, None,
               "TensorFlow routes each gradient to the window element equal to orig_output; opforge to "
               "the window's maximum of orig_input: the same when orig_output = MaxPool(orig_input), "
               "the only consistent call (the matrix passes unrelated random values)"),
    # ---- precision and evaluation order
    Difference("Sum", _FLOATS, r"^edge", "floats near the type's max: whether a partial sum overflows "
               "depends on the summation order (opforge sums pairwise in wider precision)"),
    Difference("Mean", _FLOATS, r"^edge", "floats near the type's max: opforge accumulates in wider "
               "precision, so a mean of finite values stays finite where TensorFlow's float sum "
               "overflows to ±inf"),
    Difference("Prod", _FLOATS, r"^edge", "floats near the type's max: whether a partial product "
               "overflows depends on the multiplication order"),
    Difference("SoftmaxCrossEntropyWithLogits", ("bfloat16",), None,
               "bfloat16: TensorFlow computes the loss in bfloat16 steps, opforge in float32 rounded "
               "once (cancellation makes them differ by more than bfloat16's tolerance)"),
    Difference("FusedBatchNormV3", _LOW, None, "16-bit inputs: TensorFlow rounds the normalized values "
               "to 16 bits before scale/offset; opforge applies them in float32 and rounds once"),
    Difference("FusedBatchNormGradV3", _LOW, None, "16-bit inputs: TensorFlow rounds intermediate "
               "products to 16 bits; opforge computes in float32 and rounds once"),
    Difference("FusedBatchNormGradV3", None, r"NDHWC", "5-D NDHWC: values differ beyond tolerance; "
               "not yet investigated"),
    Difference("FusedBatchNormV3", None, r"^0x", "empty batch: TensorFlow's batch mean and variance are "
               "NaN (0/0) in training and its inference outputs NaN; opforge returns 0 and the given "
               "statistics (not yet aligned)"),
    # ---- special functions and CumulativeLogsumexp (opdefs/math/*.pbtxt)
    Difference("CumulativeLogsumexp", None, r"^special",
               "NaN inputs: TensorFlow's log-sum reducer (Eigen's max/min) drops a NaN and goes on; "
               "opforge propagates it, as np.logaddexp.accumulate does",
               when=lambda inputs, attrs: bool(np.isnan(np.asarray(inputs["x"], np.float64)).any())),
    *[Difference(op, None, r"^(special|edge)$",
                 "arguments at infinity or near the float maximum: TensorFlow's series returns 0 or 1 "
                 "(or NaN) where the regularized incomplete gamma is about 1/2 or undefined; opforge uses "
                 "the Wilson-Hilferty approximation for a > 1e12 and IEEE rules for infinities")
      for op in ("Igamma", "Igammac")],
]


def known(op: str, dtype: str, case_id: str, inputs: dict, attrs: dict) -> Difference | None:
    """The known difference covering this case, or None."""
    for d in VALUES:
        if d.matches(op, dtype, case_id, inputs, attrs):
            return d
    return None
