"""Wrapper names follow TensorFlow's op-name rule (python_op_gen's GenerateLowerCaseOpName).

TensorFlow puts an underscore before an upper-case letter (not the first) when the previous
character is lower-case or the next one is lower-case: MatMul -> mat_mul, Conv2D -> conv2d,
L2Loss -> l2_loss. A result that is a Python keyword gets a trailing underscore.
"""

import keyword

import pytest

from codegen.model import snake_case

TF_NAMES = [
    ("MatMul", "mat_mul"),
    ("Conv2D", "conv2d"),
    ("BiasAdd", "bias_add"),
    ("AddV2", "add_v2"),
    ("BatchMatMulV2", "batch_mat_mul_v2"),
    ("Conv2DBackpropInput", "conv2d_backprop_input"),
    ("LRN", "lrn"),
    ("FusedBatchNormV3", "fused_batch_norm_v3"),
    ("DepthwiseConv2dNative", "depthwise_conv2d_native"),
    ("IsNan", "is_nan"),
    ("Relu", "relu"),
    ("Add", "add"),
    ("Conv3DBackpropFilterV2", "conv3d_backprop_filter_v2"),
    ("MaxPool3DGrad", "max_pool3d_grad"),
    ("TPUReplicatedInput", "tpu_replicated_input"),
    ("RGBToHSV", "rgb_to_hsv"),
    ("CTCLoss", "ctc_loss"),
    ("DecodeJSONExample", "decode_json_example"),
    ("SparseSegmentSqrtNGrad", "sparse_segment_sqrt_n_grad"),
    ("FFT2D", "fft2d"),
    ("IRFFT3D", "irfft3d"),
    ("NonMaxSuppressionV5", "non_max_suppression_v5"),
    ("Relu6", "relu6"),
    ("Foo>BarBaz", "foo_bar_baz"),  # ">" separates namespaces
]

# A digit followed by an upper-case letter that starts a word: "_" (the next char is lower-case).
TF_NAMES_DIGIT = [
    ("L2Loss", "l2_loss"),
    ("Relu6Grad", "relu6_grad"),
    ("MergeV2Checkpoints", "merge_v2_checkpoints"),
    ("QuantizeAndDequantizeV4Grad", "quantize_and_dequantize_v4_grad"),
    ("Int64Output", "int64_output"),
    ("KMC2ChainInitialization", "kmc2_chain_initialization"),
]


@pytest.mark.parametrize("op_name,expected", TF_NAMES + TF_NAMES_DIGIT)
def test_tensorflow_rule(op_name, expected):
    assert snake_case(op_name) == expected


@pytest.mark.parametrize("op_name,expected", [
    ("If", "if_"),
    ("While", "while_"),
    ("Assert", "assert_"),
    ("Print", "print"),  # a builtin, not a keyword
    ("Lambda", "lambda_"),
    ("Import", "import_"),
    ("Pass", "pass_"),
    ("Raise", "raise_"),
    ("Return", "return_"),
    ("Yield", "yield_"),
    ("Not", "not_"),
    ("Async", "async_"),
    ("Await", "await_"),
    ("Global", "global_"),
    ("Nonlocal", "nonlocal_"),
])
def test_python_keywords_get_trailing_underscore(op_name, expected):
    assert snake_case(op_name) == expected


def test_every_lowercase_keyword_is_escaped():
    for kw in keyword.kwlist:
        if not kw.islower():
            continue  # None, True, False cannot come out of snake_case (it lower-cases)
        name = kw.capitalize()
        assert snake_case(name) == kw + "_", name


def test_result_is_an_identifier_and_never_a_keyword():
    for name in [n for n, _ in TF_NAMES] + ["If", "Class", "For", "And", "Or", "Is", "In"]:
        s = snake_case(name)
        assert s.isidentifier(), (name, s)
        assert not keyword.iskeyword(s), (name, s)
