// The protocol-buffer wire format, just enough for kernels that emit or read TensorFlow's
// small messages (Summary, HistogramProto) without linking libprotobuf: the runtime never
// does (DESIGN.md, section 1). Encoding follows proto3: fields in the order written, varints
// little-endian base 128, fixed64/fixed32 little-endian, length-delimited bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace opforge {
namespace wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void put_key(std::string& out, uint32_t field, WireType type) { put_varint(out, (uint64_t{field} << 3) | type); }

inline void put_double(std::string& out, uint32_t field, double v) {
  put_key(out, field, kFixed64);
  char b[8];
  std::memcpy(b, &v, 8);  // x86-64 and aarch64 are little-endian, as the wire format
  out.append(b, 8);
}

// A proto3 singular field (not in a oneof) at its default is left out, as protobuf does:
// for a double that is +0.0 exactly (its bits all zero; -0.0 is written).
inline void put_double_field(std::string& out, uint32_t field, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  if (bits != 0) put_double(out, field, v);
}

inline void put_float(std::string& out, uint32_t field, float v) {
  put_key(out, field, kFixed32);
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

inline void put_bytes(std::string& out, uint32_t field, const std::string& bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out.append(bytes);
}

inline void put_packed_doubles(std::string& out, uint32_t field, const std::vector<double>& values) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, values.size() * 8);
  const size_t at = out.size();
  out.resize(at + values.size() * 8);
  if (!values.empty()) std::memcpy(&out[at], values.data(), values.size() * 8);
}

// One field of a message being read: its number, wire type and where its payload lies
// (for a length-delimited field, the bytes; for the others, the encoded value).
struct Field {
  uint32_t number = 0;
  WireType type = kVarint;
  const char* begin = nullptr;
  const char* end = nullptr;
};

inline bool get_varint(const char*& p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    result |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

// Reads the next field at p (advancing p past it); false on malformed input.
inline bool next_field(const char*& p, const char* end, Field* f) {
  uint64_t key;
  if (!get_varint(p, end, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) return false;
  f->number = static_cast<uint32_t>(key >> 3);
  f->type = static_cast<WireType>(key & 7);
  f->begin = p;
  uint64_t n;
  switch (f->type) {
    case kVarint:
      if (!get_varint(p, end, &n)) return false;
      break;
    case kFixed64:
      if (end - p < 8) return false;
      p += 8;
      break;
    case kFixed32:
      if (end - p < 4) return false;
      p += 4;
      break;
    case kLengthDelimited:
      if (!get_varint(p, end, &n) || n > static_cast<uint64_t>(end - p)) return false;
      f->begin = p;
      p += n;
      break;
    default:
      return false;  // groups (3, 4) are not used by the messages read here
  }
  f->end = p;
  return true;
}

}  // namespace wire
}  // namespace opforge
