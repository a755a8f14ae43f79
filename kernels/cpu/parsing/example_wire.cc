// Decoding of tf.train.Feature and its value lists from protobuf's wire format (see
// example_wire.h).
#include "cpu/parsing/example_wire.h"

namespace opforge {
namespace example {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kBytes:
      return "string";
    case Kind::kFloat:
      return "float";
    case Kind::kInt64:
      return "int64";
    default:
      return "none";
  }
}

bool decode_feature(std::string_view feature, FeatureView* out) {
  out->kind = Kind::kNone;
  out->pieces.clear();
  WireReader r(feature);
  while (!r.done()) {
    uint32_t field;
    int wt;
    if (!r.read_tag(&field, &wt)) return false;
    if (field < 1 || field > 3 || wt != kLengthDelimited) {
      if (!r.skip(wt)) return false;
      continue;
    }
    std::string_view list;
    if (!r.read_length_delimited(&list)) return false;
    const Kind kind = static_cast<Kind>(field);
    if (kind != out->kind) {  // a oneof: the last member set wins
      out->kind = kind;
      out->pieces.clear();
    }
    out->pieces.push_back(list);
  }
  return true;
}

namespace {

// Calls on_value(reader, wire_type) for each occurrence of field 1 in a list message; other
// fields are skipped.
template <typename OnValue>
bool for_each_value_field(const FeatureView& f, OnValue&& on_value) {
  for (std::string_view piece : f.pieces) {
    WireReader r(piece);
    while (!r.done()) {
      uint32_t field;
      int wt;
      if (!r.read_tag(&field, &wt)) return false;
      if (field != 1) {
        if (!r.skip(wt)) return false;
        continue;
      }
      if (!on_value(r, wt)) return false;
    }
  }
  return true;
}

}  // namespace

bool append_values(const FeatureView& f, std::vector<float>* out) {
  return for_each_value_field(f, [out](WireReader& r, int wt) {
    uint32_t bits;
    if (wt == kFixed32) {  // unpacked
      if (!r.read_fixed32(&bits)) return false;
      float v;
      std::memcpy(&v, &bits, 4);
      out->push_back(v);
      return true;
    }
    if (wt != kLengthDelimited) return false;
    std::string_view packed;
    if (!r.read_length_delimited(&packed) || packed.size() % 4 != 0) return false;
    const size_t n = packed.size() / 4;
    const size_t at = out->size();
    out->resize(at + n);
    if (n) std::memcpy(out->data() + at, packed.data(), packed.size());
    return true;
  });
}

bool append_values(const FeatureView& f, std::vector<int64_t>* out) {
  return for_each_value_field(f, [out](WireReader& r, int wt) {
    uint64_t v;
    if (wt == kVarint) {  // unpacked
      if (!r.read_varint(&v)) return false;
      out->push_back(static_cast<int64_t>(v));
      return true;
    }
    if (wt != kLengthDelimited) return false;
    std::string_view packed;
    if (!r.read_length_delimited(&packed)) return false;
    WireReader p(packed);
    while (!p.done()) {
      if (!p.read_varint(&v)) return false;
      out->push_back(static_cast<int64_t>(v));
    }
    return true;
  });
}

bool append_values(const FeatureView& f, std::vector<std::string>* out) {
  return for_each_value_field(f, [out](WireReader& r, int wt) {
    std::string_view s;
    if (wt != kLengthDelimited || !r.read_length_delimited(&s)) return false;
    out->emplace_back(s);
    return true;
  });
}

}  // namespace example
}  // namespace opforge
