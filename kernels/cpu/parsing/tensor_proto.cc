// TensorFlow's TensorProto, written and read by hand: see tensor_proto.h.
#include "cpu/parsing/tensor_proto.h"

#include <cstring>

#include "cpu/alloc_guard.h"
#include "cpu/logging/proto_wire.h"
#include "cpu/parsing/example_wire.h"
#include "proto_fields.h"

namespace opforge {
namespace tensor_proto {

using namespace proto_fields;  // the k...Field numbers, from the .proto files

std::string encode(const Tensor& src, const std::vector<int64_t>& dims, int64_t first, int64_t count, Strings strings) {
  std::string out;
  wire::put_key(out, kTensorProtoDtypeField, wire::kVarint);
  wire::put_varint(out, static_cast<uint64_t>(src.dtype()));  // opforge's DType numbers are TensorFlow's
  std::string shape;
  for (int64_t d : dims) {
    std::string dim;
    if (d != 0) {  // proto3 leaves a zero size out
      wire::put_key(dim, kTensorShapeProtoDimSizeField, wire::kVarint);
      wire::put_varint(dim, static_cast<uint64_t>(d));
    }
    wire::put_bytes(shape, kTensorShapeProtoDimField, dim);
  }
  wire::put_bytes(out, kTensorProtoTensorShapeField, shape);
  std::string content;
  if (src.dtype() == DType::kString) {
    const std::vector<std::string>& s = *src.strings();
    if (strings == Strings::kStringVal) {
      for (int64_t k = first; k < first + count; ++k)
        wire::put_bytes(out, kTensorProtoStringValField, s[static_cast<size_t>(k)]);
      return out;
    }
    for (int64_t k = first; k < first + count; ++k) wire::put_varint(content, s[static_cast<size_t>(k)].size());
    for (int64_t k = first; k < first + count; ++k) content += s[static_cast<size_t>(k)];
  } else if (count > 0) {
    const size_t size = dtype_size(src.dtype());
    content.assign(static_cast<const char*>(src.raw_data()) + static_cast<size_t>(first) * size,
                   static_cast<size_t>(count) * size);
  }
  if (!content.empty()) wire::put_bytes(out, kTensorProtoTensorContentField, content);
  return out;
}

std::string encode(const Tensor& t, Strings strings) {
  return encode(t, t.shape().dims(), 0, t.num_elements(), strings);
}

int64_t Decoded::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

namespace {

using example::WireReader;

bool decode_shape(std::string_view s, Decoded* out) {
  WireReader shape(s);
  uint32_t field;
  int wt;
  uint64_t x = 0;
  while (!shape.done()) {
    if (!shape.read_tag(&field, &wt)) return false;
    if (field == kTensorShapeProtoUnknownRankField && wt == example::kVarint) {
      if (!shape.read_varint(&x)) return false;
      out->unknown_rank = x != 0;
      continue;
    }
    if (field != kTensorShapeProtoDimField || wt != example::kLengthDelimited) {
      if (!shape.skip(wt)) return false;
      continue;
    }
    std::string_view dim;
    if (!shape.read_length_delimited(&dim)) return false;
    WireReader d(dim);
    int64_t size = 0;
    while (!d.done()) {
      if (!d.read_tag(&field, &wt)) return false;
      if (field == kTensorShapeProtoDimSizeField && wt == example::kVarint) {
        if (!d.read_varint(&x)) return false;
        size = static_cast<int64_t>(x);
      } else if (!d.skip(wt)) {
        return false;
      }
    }
    if (size < 0) return false;  // -1 (unknown) is no shape a tensor can have
    out->dims.push_back(size);
  }
  return true;
}

// A repeated fixed-width field, packed (length-delimited) or one value per tag.
template <typename V>
bool read_fixed(WireReader& r, int wt, std::vector<V>* out) {
  static_assert(sizeof(V) == 4 || sizeof(V) == 8);
  constexpr int kType = sizeof(V) == 4 ? example::kFixed32 : example::kFixed64;
  std::string_view s;
  if (wt == example::kLengthDelimited) {
    if (!r.read_length_delimited(&s) || s.size() % sizeof(V) != 0) return false;
    const size_t at = out->size();
    out->resize(at + s.size() / sizeof(V));
    if (!s.empty()) std::memcpy(out->data() + at, s.data(), s.size());
    return true;
  }
  if (wt != kType) return false;
  if constexpr (sizeof(V) == 4) {
    uint32_t bits;
    if (!r.read_fixed32(&bits)) return false;
    V v;
    std::memcpy(&v, &bits, 4);
    out->push_back(v);
  } else {
    uint64_t bits;
    if (!r.read_fixed64(&bits)) return false;
    V v;
    std::memcpy(&v, &bits, 8);
    out->push_back(v);
  }
  return true;
}

bool read_varints(WireReader& r, int wt, std::vector<uint64_t>* out) {
  uint64_t x = 0;
  if (wt == example::kVarint) {
    if (!r.read_varint(&x)) return false;
    out->push_back(x);
    return true;
  }
  std::string_view s;
  if (wt != example::kLengthDelimited || !r.read_length_delimited(&s)) return false;
  WireReader p(s);
  while (!p.done()) {
    if (!p.read_varint(&x)) return false;
    out->push_back(x);
  }
  return true;
}

bool is_varint_field(uint32_t f) {
  return f == kTensorProtoIntValField || f == kTensorProtoInt64ValField || f == kTensorProtoBoolValField ||
         f == kTensorProtoHalfValField || f == kTensorProtoUint32ValField || f == kTensorProtoUint64ValField;
}

// The varint field that holds dtype dt's values when tensor_content is empty (0: none).
uint32_t varint_field_of(DType dt) {
  switch (dt) {
    case DType::kInt32:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kUInt8:
      return kTensorProtoIntValField;
    case DType::kInt64:
      return kTensorProtoInt64ValField;
    case DType::kBool:
      return kTensorProtoBoolValField;
    case DType::kHalf:
    case DType::kBFloat16:
      return kTensorProtoHalfValField;
    default:
      return 0;
  }
}

// n values from `vals` (fewer: the last one repeated; none: zeros), converted to T by `conv`.
template <typename T, typename V, typename Conv>
void fill_values(const std::vector<V>& vals, int64_t n, std::string* raw, Conv conv) {
  const size_t at = raw->size();
  raw->resize(at + static_cast<size_t>(n) * sizeof(T));
  char* dst = raw->data() + at;
  for (int64_t k = 0; k < n; ++k) {
    T v{};
    if (!vals.empty()) v = conv(vals[std::min(static_cast<size_t>(k), vals.size() - 1)]);
    std::memcpy(dst + static_cast<size_t>(k) * sizeof(T), &v, sizeof(T));
  }
}

bool decode_string_list(std::string_view content, int64_t n, std::vector<std::string>* strings) {
  // n varint lengths, then the strings' bytes back to back.
  WireReader r(content);
  std::vector<uint64_t> lengths;
  for (int64_t k = 0; k < n; ++k) {
    uint64_t v = 0;
    if (!r.read_varint(&v)) return false;
    lengths.push_back(v);
  }
  size_t at = content.size() - r.remaining();
  for (uint64_t len : lengths) {
    if (len > content.size() - at) return false;
    strings->emplace_back(content.substr(at, static_cast<size_t>(len)));
    at += static_cast<size_t>(len);
  }
  return at == content.size();
}

}  // namespace

bool decode(std::string_view bytes, Decoded* out) {
  WireReader r(bytes);
  while (!r.done()) {
    uint32_t field;
    int wt;
    if (!r.read_tag(&field, &wt)) return false;
    uint64_t x = 0;
    std::string_view s;
    bool ok = true;
    if (field == kTensorProtoDtypeField && wt == example::kVarint) {
      ok = r.read_varint(&x);
      out->dtype = static_cast<int>(x);
    } else if (field == kTensorProtoTensorShapeField && wt == example::kLengthDelimited) {
      ok = r.read_length_delimited(&s) && decode_shape(s, out);  // a repeated message merges
    } else if (field == kTensorProtoTensorContentField && wt == example::kLengthDelimited) {
      ok = r.read_length_delimited(&out->content);
      out->has_content = !out->content.empty();
    } else if (field == kTensorProtoStringValField && wt == example::kLengthDelimited) {
      ok = r.read_length_delimited(&s);
      out->string_val.push_back(s);
    } else if (field == kTensorProtoFloatValField) {
      ok = read_fixed(r, wt, &out->float_val);
    } else if (field == kTensorProtoDoubleValField) {
      ok = read_fixed(r, wt, &out->double_val);
    } else if (is_varint_field(field)) {
      ok = read_varints(r, wt, &out->varints[field]);
    } else {
      ok = r.skip(wt);
    }
    if (!ok) return false;
  }
  int64_t n = 1;
  for (int64_t d : out->dims) {
    if (__builtin_mul_overflow(n, d, &n)) return false;
  }
  return true;
}

bool elements(const Decoded& t, DType dt, std::string* raw, std::vector<std::string>* strings) {
  const int64_t n = t.elements();
  if (t.dtype != static_cast<int>(dt) || t.unknown_rank) return false;
  if (dt == DType::kString) {
    if (t.has_content) return decode_string_list(t.content, n, strings);
    for (int64_t k = 0; k < n; ++k) {
      if (t.string_val.empty()) {
        strings->emplace_back();
      } else {
        strings->emplace_back(t.string_val[std::min(static_cast<size_t>(k), t.string_val.size() - 1)]);
      }
    }
    return true;
  }
  const size_t size = dtype_size(dt);
  if (size == 0) return false;
  if (t.has_content) {
    if (t.content.size() != static_cast<size_t>(n) * size) return false;
    raw->append(t.content.data(), t.content.size());
    return true;
  }
  if (dt == DType::kFloat) {
    fill_values<float>(t.float_val, n, raw, [](float v) { return v; });
    return true;
  }
  if (dt == DType::kDouble) {
    fill_values<double>(t.double_val, n, raw, [](double v) { return v; });
    return true;
  }
  const std::vector<uint64_t>& v = t.varints[varint_field_of(dt)];
  switch (dt) {
    case DType::kInt32:
      fill_values<int32_t>(v, n, raw, [](uint64_t x) { return static_cast<int32_t>(x); });
      return true;
    case DType::kInt16:
      fill_values<int16_t>(v, n, raw, [](uint64_t x) { return static_cast<int16_t>(x); });
      return true;
    case DType::kInt8:
      fill_values<int8_t>(v, n, raw, [](uint64_t x) { return static_cast<int8_t>(x); });
      return true;
    case DType::kUInt8:
      fill_values<uint8_t>(v, n, raw, [](uint64_t x) { return static_cast<uint8_t>(x); });
      return true;
    case DType::kInt64:
      fill_values<int64_t>(v, n, raw, [](uint64_t x) { return static_cast<int64_t>(x); });
      return true;
    case DType::kBool:
      fill_values<bool>(v, n, raw, [](uint64_t x) { return x != 0; });
      return true;
    case DType::kHalf:
    case DType::kBFloat16:  // the 16 bits of each value in an int32
      fill_values<uint16_t>(v, n, raw, [](uint64_t x) { return static_cast<uint16_t>(x); });
      return true;
    default:
      return false;
  }
}

Status to_tensor(const char* op, std::string_view bytes, DType dt, Tensor* out) {
  Decoded t;
  if (!decode(bytes, &t)) return errors::InvalidArgument(op, ": could not parse the bytes as a TensorProto");
  if (t.dtype != static_cast<int>(dt)) {
    const DType got = static_cast<DType>(t.dtype);
    return errors::InvalidArgument(op, ": type mismatch between parsed tensor (",
                                   dtype_supported(got) ? dtype_name(got) : "DataType " + std::to_string(t.dtype),
                                   ") and dtype (", dtype_name(dt), ")");
  }
  if (t.unknown_rank) return errors::InvalidArgument(op, ": the TensorProto's shape has an unknown rank");
  const size_t size = dt == DType::kString ? sizeof(std::string) : dtype_size(dt);
  OPF_RETURN_IF_ERROR(cpu::check_allocation(op, t.elements(), size));
  std::string raw;
  std::vector<std::string> strings;
  const bool ok = elements(t, dt, &raw, &strings);
  if (!ok) {
    return errors::InvalidArgument(op, ": the TensorProto's values do not fit its shape ", Shape(t.dims).to_string());
  }
  if (dt == DType::kString) return Tensor::FromStrings(Shape(t.dims), std::move(strings), out);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(dt, Shape(t.dims), out));
  if (!raw.empty()) std::memcpy(out->raw_data(), raw.data(), raw.size());
  return Status::OK();
}

}  // namespace tensor_proto
}  // namespace opforge
