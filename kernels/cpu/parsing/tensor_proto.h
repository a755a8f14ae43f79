// TensorFlow's TensorProto on the wire, written and read by hand (the runtime does not link
// libprotobuf, DESIGN.md 1): the one codec of the kernels that serialize tensors
// (SerializeTensor / ParseTensor, SerializeSparse and DeserializeManySparse, TensorSummaryV2).
//
//   TensorProto { DataType dtype = 1; TensorShapeProto tensor_shape = 2; bytes tensor_content = 4;
//                 repeated float float_val = 5; double double_val = 6; int32 int_val = 7;
//                 bytes string_val = 8; int64 int64_val = 10; bool bool_val = 11;
//                 int32 half_val = 13 (half and bfloat16 bits); uint32 uint32_val = 16;
//                 uint64 uint64_val = 17; }
//   TensorShapeProto { repeated Dim dim = 2 { int64 size = 1; string name = 2; }; bool unknown_rank = 3; }
//
// Writing follows Tensor::AsProtoTensorContent byte for byte: dtype, the shape message (always
// present; a dimension of size 0 is an empty Dim), then the elements in tensor_content (raw
// little-endian values; for strings the varint lengths followed by the bytes), left out when
// empty. Reading accepts everything Tensor::FromProto does: tensor_content or the typed
// repeated fields (packed or not), fewer values than elements repeating the last one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
namespace tensor_proto {

// How string elements are written: in tensor_content (Tensor::AsProtoTensorContent, what
// SerializeTensor writes) or one string_val each (Tensor::AsProtoField, what summaries hold).
enum class Strings { kTensorContent, kStringVal };

// The TensorProto of `count` elements of `src` from element `first` on, with shape `dims`.
std::string encode(const Tensor& src, const std::vector<int64_t>& dims, int64_t first, int64_t count,
                   Strings strings = Strings::kTensorContent);
// The TensorProto of the whole tensor.
std::string encode(const Tensor& t, Strings strings = Strings::kTensorContent);

// A TensorProto's fields, borrowed from the serialized bytes.
struct Decoded {
  int dtype = 0;
  std::vector<int64_t> dims;
  bool unknown_rank = false;
  std::string_view content;
  bool has_content = false;
  std::vector<std::string_view> string_val;
  // The varint fields by number: int_val (7), int64_val (10), bool_val (11), half_val (13),
  // uint32_val (16), uint64_val (17); other numbers stay empty.
  std::vector<uint64_t> varints[18];
  std::vector<float> float_val;
  std::vector<double> double_val;
  int64_t elements() const;  // the product of dims (decode checks that it does not overflow)
};

// Reads the fields of a serialized TensorProto. False on malformed bytes.
bool decode(std::string_view bytes, Decoded* out);

// Appends the elements of `t`, whose dtype must be `dt`, to `raw` (numbers: `elements()`
// values of dt) or `strings`. False when the dtype differs or the values do not fit the shape.
bool elements(const Decoded& t, DType dt, std::string* raw, std::vector<std::string>* strings);

// The tensor a serialized TensorProto holds (Tensor::FromProto), which must be of dtype `dt`;
// malformed bytes, another dtype or values that do not fit the shape are InvalidArgument
// errors naming `op`.
Status to_tensor(const char* op, std::string_view bytes, DType dt, Tensor* out);

}  // namespace tensor_proto
}  // namespace opforge
