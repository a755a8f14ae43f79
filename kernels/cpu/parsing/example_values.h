// Helpers of the example parsers (example_parser.cc, sequence_parser.cc): the values of one
// feature gathered over a batch, in one of the three types a Feature holds, and the pieces of
// their error messages.
#pragma once

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "cpu/parsing/example_wire.h"
#include "opforge/tensor.h"

namespace opforge {
namespace example {

// The values of one feature, of one of the three types an Example holds.
struct Values {
  std::vector<float> f;
  std::vector<int64_t> i;
  std::vector<std::string> s;

  size_t size(DType dt) const { return dt == DType::kFloat ? f.size() : dt == DType::kInt64 ? i.size() : s.size(); }

  bool append(const FeatureView& v, DType dt) {
    if (dt == DType::kFloat) return append_values(v, &f);
    if (dt == DType::kInt64) return append_values(v, &i);
    return append_values(v, &s);
  }

  void append_from(const Tensor& t, int64_t begin, int64_t count, DType dt) {
    if (dt == DType::kFloat) {
      f.insert(f.end(), t.data<float>() + begin, t.data<float>() + begin + count);
    } else if (dt == DType::kInt64) {
      i.insert(i.end(), t.data<int64_t>() + begin, t.data<int64_t>() + begin + count);
    } else {
      const auto& src = *t.strings();
      s.insert(s.end(), src.begin() + begin, src.begin() + begin + count);
    }
  }

  // Appends all of o's values (of whichever type is in use).
  void extend(Values&& o) {
    f.insert(f.end(), o.f.begin(), o.f.end());
    i.insert(i.end(), o.i.begin(), o.i.end());
    s.insert(s.end(), std::make_move_iterator(o.s.begin()), std::make_move_iterator(o.s.end()));
  }

  // Appends count values of `from`, starting at `begin` (strings are moved).
  void take(Values& from, DType dt, size_t begin, size_t count) {
    if (dt == DType::kFloat) {
      f.insert(f.end(), from.f.begin() + static_cast<ptrdiff_t>(begin),
               from.f.begin() + static_cast<ptrdiff_t>(begin + count));
    } else if (dt == DType::kInt64) {
      i.insert(i.end(), from.i.begin() + static_cast<ptrdiff_t>(begin),
               from.i.begin() + static_cast<ptrdiff_t>(begin + count));
    } else {
      for (size_t k = 0; k < count; ++k) s.push_back(std::move(from.s[begin + k]));
    }
  }

  void pad(DType dt, const Tensor* value, size_t count) {
    const bool has = value != nullptr && value->num_elements() > 0;
    if (dt == DType::kFloat) {
      f.insert(f.end(), count, has ? value->data<float>()[0] : 0.0f);
    } else if (dt == DType::kInt64) {
      i.insert(i.end(), count, has ? value->data<int64_t>()[0] : int64_t{0});
    } else {
      s.insert(s.end(), count, has ? (*value->strings())[0] : std::string());
    }
  }

  Status to_tensor(DType dt, Shape shape, Tensor* out) {
    if (dt == DType::kString) return Tensor::FromStrings(std::move(shape), std::move(s), out);
    OPF_RETURN_IF_ERROR(Tensor::Allocate(dt, std::move(shape), out));
    if (dt == DType::kFloat) {
      if (!f.empty()) std::memcpy(out->data<float>(), f.data(), f.size() * sizeof(float));
    } else if (!i.empty()) {
      std::memcpy(out->data<int64_t>(), i.data(), i.size() * sizeof(int64_t));
    }
    return Status::OK();
  }
};

inline Kind kind_of(DType dt) {
  return dt == DType::kFloat ? Kind::kFloat : dt == DType::kInt64 ? Kind::kInt64 : Kind::kBytes;
}

inline const char* type_name(DType dt) { return kind_name(kind_of(dt)); }

// Printable, bounded rendering of a malformed proto for an error message.
inline std::string preview(const std::string& bytes) {
  std::string out;
  const size_t n = std::min<size_t>(bytes.size(), 64);
  for (size_t k = 0; k < n; ++k) {
    const unsigned char c = static_cast<unsigned char>(bytes[k]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  if (bytes.size() > n) out += "...";
  return out;
}

inline Status make_int64(Shape shape, const std::vector<int64_t>& v, Tensor* out) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, std::move(shape), out));
  if (!v.empty()) std::memcpy(out->data<int64_t>(), v.data(), v.size() * sizeof(int64_t));
  return Status::OK();
}

}  // namespace example
}  // namespace opforge
