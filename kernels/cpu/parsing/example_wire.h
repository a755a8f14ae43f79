// A reader of protobuf's wire format, and on it the decoding of tf.train.Example and its Feature
// lists, for the parsing kernels: the runtime does not link libprotobuf (DESIGN.md), so the few
// messages an input pipeline parses are read by hand. Everything here works on borrowed bytes
// (std::string_view) and reports malformed input by returning false, never by reading past the
// end.
//
//   Example   { Features features = 1; }
//   SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
//   FeatureLists { map<string, FeatureList> feature_list = 1; }  FeatureList { repeated Feature feature = 1; }
//   Features  { map<string, Feature> feature = 1; }   (entries: key = 1, value = 2)
//   Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                            Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1 [packed]; }
//   Int64List { repeated int64 value = 1 [packed]; }
//
// Repeated numbers are accepted packed and unpacked alike, as protobuf parsers must.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opforge {
namespace example {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool done() const { return p_ == end_; }

  bool read_varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const uint8_t b = static_cast<uint8_t>(*p_++);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }

  // A field's tag: its number and wire type. Field number 0 is malformed.
  bool read_tag(uint32_t* field, int* wire_type) {
    uint64_t tag = 0;
    if (!read_varint(&tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
    *field = static_cast<uint32_t>(tag >> 3);
    *wire_type = static_cast<int>(tag & 7);
    return true;
  }

  bool read_fixed32(uint32_t* out) {
    if (end_ - p_ < 4) return false;
    std::memcpy(out, p_, 4);  // little-endian on every target the runtime builds for
    p_ += 4;
    return true;
  }

  bool read_fixed64(uint64_t* out) {
    if (end_ - p_ < 8) return false;
    std::memcpy(out, p_, 8);
    p_ += 8;
    return true;
  }

  // Bytes not yet read.
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  bool read_length_delimited(std::string_view* out) {
    uint64_t n = 0;
    if (!read_varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *out = std::string_view(p_, static_cast<size_t>(n));
    p_ += n;
    return true;
  }

  // Skips a field's value of the given wire type (groups, long deprecated, are malformed here).
  bool skip(int wire_type) {
    uint64_t v = 0;
    std::string_view s;
    switch (wire_type) {
      case kVarint:
        return read_varint(&v);
      case kFixed64:
        if (end_ - p_ < 8) return false;
        p_ += 8;
        return true;
      case kLengthDelimited:
        return read_length_delimited(&s);
      case kFixed32:
        if (end_ - p_ < 4) return false;
        p_ += 4;
        return true;
      default:
        return false;
    }
  }

 private:
  const char* p_;
  const char* end_;
};

// What a Feature holds: which list, and the bytes of that list message (several pieces when
// the field repeats: protobuf merges them, so their values concatenate).
enum class Kind : int { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

struct FeatureView {
  Kind kind = Kind::kNone;
  std::vector<std::string_view> pieces;
};

const char* kind_name(Kind k);

// Decodes a serialized Feature. An empty one (no list set) has kind kNone.
bool decode_feature(std::string_view feature, FeatureView* out);

// Calls fn(key, value_bytes) for every entry of the map<string, message> field `field` of a
// serialized message, in order (entries: key = 1, value = 2; a field or entry given twice is
// visited twice: a later entry for the same key wins, as protobuf's map parsing does, when fn
// overwrites). fn returns false to stop with an error. Returns false on malformed input.
template <typename Fn>
bool for_each_map_entry(std::string_view message, uint32_t map_field, Fn&& fn) {
  WireReader outer(message);
  while (!outer.done()) {
    uint32_t field;
    int wt;
    if (!outer.read_tag(&field, &wt)) return false;
    if (field != map_field || wt != kLengthDelimited) {
      if (!outer.skip(wt)) return false;
      continue;
    }
    std::string_view map;
    if (!outer.read_length_delimited(&map)) return false;
    WireReader entries(map);
    while (!entries.done()) {
      if (!entries.read_tag(&field, &wt)) return false;
      if (field != 1 || wt != kLengthDelimited) {
        if (!entries.skip(wt)) return false;
        continue;
      }
      std::string_view entry;
      if (!entries.read_length_delimited(&entry)) return false;
      std::string_view key, value;  // absent fields are empty, as protobuf defaults them
      WireReader en(entry);
      while (!en.done()) {
        if (!en.read_tag(&field, &wt)) return false;
        if (field == 1 && wt == kLengthDelimited) {
          if (!en.read_length_delimited(&key)) return false;
        } else if (field == 2 && wt == kLengthDelimited) {
          if (!en.read_length_delimited(&value)) return false;
        } else if (!en.skip(wt)) {
          return false;
        }
      }
      if (!fn(key, value)) return false;
    }
  }
  return true;
}

// The features of an Example (Example.features = 1 -> Features.feature = 1), or the context
// of a SequenceExample (SequenceExample.context = 1, the same layout).
template <typename Fn>
bool for_each_feature(std::string_view example, Fn&& fn) {
  return for_each_map_entry(example, 1, std::forward<Fn>(fn));
}

// The feature lists of a SequenceExample (SequenceExample.feature_lists = 2 ->
// FeatureLists.feature_list = 1, map<string, FeatureList>).
template <typename Fn>
bool for_each_feature_list(std::string_view sequence_example, Fn&& fn) {
  return for_each_map_entry(sequence_example, 2, std::forward<Fn>(fn));
}

// Calls fn(bytes) for each occurrence of length-delimited field `field` (FeatureList.feature
// = 1: the steps of a feature list). Returns false on malformed input or when fn does.
template <typename Fn>
bool for_each_repeated(std::string_view message, uint32_t wanted, Fn&& fn) {
  WireReader r(message);
  while (!r.done()) {
    uint32_t field;
    int wt;
    if (!r.read_tag(&field, &wt)) return false;
    if (field != wanted || wt != kLengthDelimited) {
      if (!r.skip(wt)) return false;
      continue;
    }
    std::string_view value;
    if (!r.read_length_delimited(&value) || !fn(value)) return false;
  }
  return true;
}

// The values of a feature's list, appended to out. False on malformed input.
bool append_values(const FeatureView& f, std::vector<float>* out);
bool append_values(const FeatureView& f, std::vector<int64_t>* out);
bool append_values(const FeatureView& f, std::vector<std::string>* out);

}  // namespace example
}  // namespace opforge
