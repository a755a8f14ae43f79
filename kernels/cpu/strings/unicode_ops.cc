// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode: decoding and encoding
// UTF-8, UTF-16 and UTF-32 (either byte order), ISO-8859-1 and US-ASCII by hand. Ill-formed
// input is replaced as Unicode recommends ("maximal subparts", W3C / WHATWG practice), which is
// also what Python's codecs and ICU do: one replacement per maximal ill-formed subpart.
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/strings/string_util.h"
#include "opforge/ops/strings/unicode_decode.h"
#include "opforge/ops/strings/unicode_decode_with_offsets.h"
#include "opforge/ops/strings/unicode_encode.h"
#include "opforge/ops/strings/unicode_transcode.h"

namespace opforge {
namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf16Le, kUtf32Be, kUtf32Le, kLatin1, kAscii };

// The encoding an ICU-style name means (case and '-'/'_' insensitive), or false.
bool parse_encoding(const std::string& name, Encoding* out) {
  std::string n;
  for (char c : name) {
    if (c == '-' || c == '_') continue;
    n += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  }
  if (n == "UTF8")
    *out = Encoding::kUtf8;
  else if (n == "UTF16BE")
    *out = Encoding::kUtf16Be;
  else if (n == "UTF16LE")
    *out = Encoding::kUtf16Le;
  else if (n == "UTF32BE")
    *out = Encoding::kUtf32Be;
  else if (n == "UTF32LE")
    *out = Encoding::kUtf32Le;
  else if (n == "ISO88591" || n == "LATIN1")
    *out = Encoding::kLatin1;
  else if (n == "USASCII" || n == "ASCII")
    *out = Encoding::kAscii;
  else
    return false;
  return true;
}

// What a decoder produces: one code point per character, or -1 for an ill-formed subpart, with
// the byte offset where it starts.
struct Decoded {
  std::vector<int32_t> chars;
  std::vector<int64_t> starts;
  void add(int32_t c, size_t at) {
    chars.push_back(c);
    starts.push_back(static_cast<int64_t>(at));
  }
};

// The length of the maximal well-formed prefix of a UTF-8 sequence at s[i] (Unicode Table 3-7),
// with *complete set when it is a whole character (decoded into *cp).
size_t utf8_prefix(const std::string& s, size_t i, bool* complete, int32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  *complete = false;
  if (c < 0x80) {
    *complete = true;
    *cp = c;
    return 1;
  }
  int need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF)
    need = 1;
  else if (c >= 0xE0 && c <= 0xEF)
    need = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4)
    need = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else
    return 1;  // 80..C1, F5..FF never start a character
  int32_t v = c & (0x3F >> need);
  size_t k = 1;
  for (; k <= static_cast<size_t>(need); ++k) {
    if (i + k >= s.size()) return k;
    const unsigned char t = b(i + k);
    if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) return k;
    v = (v << 6) | (t & 0x3F);
  }
  *complete = true;
  *cp = v;
  return k;
}

Decoded decode(const std::string& s, Encoding enc) {
  Decoded d;
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  const size_t n = s.size();
  switch (enc) {
    case Encoding::kUtf8:
      for (size_t i = 0; i < n;) {
        bool complete;
        int32_t cp = 0;
        const size_t len = utf8_prefix(s, i, &complete, &cp);
        d.add(complete ? cp : -1, i);
        i += len;
      }
      break;
    case Encoding::kUtf16Be:
    case Encoding::kUtf16Le: {
      const bool be = enc == Encoding::kUtf16Be;
      const auto unit = [&](size_t k) { return be ? (b(k) << 8 | b(k + 1)) : (b(k + 1) << 8 | b(k)); };
      size_t i = 0;
      for (; i + 1 < n;) {
        const uint32_t u = unit(i);
        if (u >= 0xD800 && u <= 0xDBFF && i + 2 < n && i + 4 > n) {  // a high surrogate, then truncated data:
          d.add(-1, i);                                              // one ill-formed sequence (as Python)
          i = n;
          break;
        }
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < n && unit(i + 2) >= 0xDC00 && unit(i + 2) <= 0xDFFF) {
          d.add(static_cast<int32_t>(0x10000 + ((u - 0xD800) << 10) + (unit(i + 2) - 0xDC00)), i);
          i += 4;
        } else {
          d.add(u >= 0xD800 && u <= 0xDFFF ? -1 : static_cast<int32_t>(u), i);
          i += 2;
        }
      }
      if (i < n) d.add(-1, i);  // a truncated code unit
      break;
    }
    case Encoding::kUtf32Be:
    case Encoding::kUtf32Le: {
      const bool be = enc == Encoding::kUtf32Be;
      size_t i = 0;
      for (; i + 3 < n; i += 4) {
        const uint32_t u = be ? (b(i) << 24 | b(i + 1) << 16 | b(i + 2) << 8 | b(i + 3))
                              : (b(i + 3) << 24 | b(i + 2) << 16 | b(i + 1) << 8 | b(i));
        d.add(u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF) ? -1 : static_cast<int32_t>(u), i);
      }
      if (i < n) d.add(-1, i);
      break;
    }
    case Encoding::kLatin1:
      for (size_t i = 0; i < n; ++i) d.add(static_cast<int32_t>(b(i)), i);
      break;
    case Encoding::kAscii:
      for (size_t i = 0; i < n; ++i) d.add(b(i) < 0x80 ? static_cast<int32_t>(b(i)) : -1, i);
      break;
  }
  return d;
}

struct ErrorPolicy {
  std::string errors;
  int64_t replacement;
  bool replace_controls;
};

// s with bytes outside printable ASCII as \xNN (messages must be valid UTF-8 text).
std::string escaped(const std::string& s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "b'";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    }
  }
  return out + "'";
}

bool valid_scalar(int64_t c) { return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

// Applies errors / replace_control_characters to decoded characters in place.
Status resolve(KernelContext& ctx, const ErrorPolicy& p, const std::string& s, Decoded* d) {
  size_t out = 0;
  for (size_t i = 0; i < d->chars.size(); ++i) {
    int32_t c = d->chars[i];
    if (c < 0) {
      if (p.errors == "strict") {
        return ctx.error("Invalid formatting on input string ", escaped(s), " at byte ", d->starts[i]);
      }
      if (p.errors == "ignore") continue;
      c = static_cast<int32_t>(p.replacement);
    } else if (p.replace_controls && c < 0x20) {
      c = static_cast<int32_t>(p.replacement);
    }
    d->chars[out] = c;
    d->starts[out++] = d->starts[i];
  }
  d->chars.resize(out);
  d->starts.resize(out);
  return Status::OK();
}

void encode_one(uint32_t c, Encoding enc, std::string* out) {
  switch (enc) {
    case Encoding::kUtf16Be:
      if (c >= 0x10000) {
        const uint32_t v = c - 0x10000, hi = 0xD800 + (v >> 10), lo = 0xDC00 + (v & 0x3FF);
        *out += {static_cast<char>(hi >> 8), static_cast<char>(hi), static_cast<char>(lo >> 8), static_cast<char>(lo)};
      } else {
        *out += {static_cast<char>(c >> 8), static_cast<char>(c)};
      }
      return;
    case Encoding::kUtf32Be:
      *out += {static_cast<char>(c >> 24), static_cast<char>(c >> 16), static_cast<char>(c >> 8), static_cast<char>(c)};
      return;
    default:  // UTF-8
      if (c < 0x80) {
        *out += static_cast<char>(c);
      } else if (c < 0x800) {
        *out += {static_cast<char>(0xC0 | c >> 6), static_cast<char>(0x80 | (c & 0x3F))};
      } else if (c < 0x10000) {
        *out += {static_cast<char>(0xE0 | c >> 12), static_cast<char>(0x80 | (c >> 6 & 0x3F)),
                 static_cast<char>(0x80 | (c & 0x3F))};
      } else {
        *out += {static_cast<char>(0xF0 | c >> 18), static_cast<char>(0x80 | (c >> 12 & 0x3F)),
                 static_cast<char>(0x80 | (c >> 6 & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
      }
  }
}

// Encodes code points; an invalid one is replaced, skipped or an error as `errors` says.
Status encode(KernelContext& ctx, const ErrorPolicy& p, const int32_t* cps, int64_t n, Encoding enc, std::string* out) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = cps[i];
    if (!valid_scalar(c)) {
      if (p.errors == "strict") return ctx.error("Invalid code point ", c, " (not a Unicode scalar value)");
      if (p.errors == "ignore") continue;
      c = p.replacement;
    }
    encode_one(static_cast<uint32_t>(c), enc, out);
  }
  return Status::OK();
}

Status input_encoding(KernelContext& ctx, const std::string& name, Encoding* enc) {
  if (!parse_encoding(name, enc)) {
    return ctx.error("Could not create converter for input encoding: ", name,
                     " (supported: UTF-8, UTF-16-BE, UTF-16-LE, UTF-32-BE, UTF-32-LE, ISO-8859-1, US-ASCII)");
  }
  return Status::OK();
}

Status check_replacement(KernelContext& ctx, int64_t replacement) {
  if (!valid_scalar(replacement)) return ctx.error("replacement_char out of unicode codepoint range: ", replacement);
  return Status::OK();
}

template <typename T>
Status DecodeAll(KernelContext& ctx, const Tensor& input, const std::string& encoding_name, const ErrorPolicy& p,
                 bool with_offsets) {
  Encoding enc;
  OPF_RETURN_IF_ERROR(input_encoding(ctx, encoding_name, &enc));
  OPF_RETURN_IF_ERROR(check_replacement(ctx, p.replacement));
  const auto& in = strings::values(input);
  std::vector<int64_t> splits{0};
  std::vector<int32_t> chars;
  std::vector<int64_t> starts;
  for (const std::string& s : in) {
    Decoded d = decode(s, enc);
    OPF_RETURN_IF_ERROR(resolve(ctx, p, s, &d));
    chars.insert(chars.end(), d.chars.begin(), d.chars.end());
    starts.insert(starts.end(), d.starts.begin(), d.starts.end());
    splits.push_back(static_cast<int64_t>(chars.size()));
  }
  const int64_t rows = static_cast<int64_t>(splits.size()), total = static_cast<int64_t>(chars.size());
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{rows}, &ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape{total}, &ctx.output(1)));
  for (int64_t i = 0; i < rows; ++i) ctx.output(0).data<T>()[i] = static_cast<T>(splits[static_cast<size_t>(i)]);
  std::copy(chars.begin(), chars.end(), ctx.output(1).data<int32_t>());
  if (with_offsets) {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{total}, &ctx.output(2)));
    std::copy(starts.begin(), starts.end(), ctx.output(2).data<int64_t>());
  }
  return Status::OK();
}

template <typename T>
Status UnicodeDecodeWithOffsetsCpu(ops::UnicodeDecodeWithOffsetsArgs& a) {
  const ErrorPolicy p{a.errors, a.replacement_char, a.replace_control_characters};
  return strings::guarded("UnicodeDecodeWithOffsets",
                          [&] { return DecodeAll<T>(a.ctx, a.input, a.input_encoding, p, true); });
}

template <typename T>
Status UnicodeDecodeCpu(ops::UnicodeDecodeArgs& a) {
  const ErrorPolicy p{a.errors, a.replacement_char, a.replace_control_characters};
  return strings::guarded("UnicodeDecode", [&] { return DecodeAll<T>(a.ctx, a.input, a.input_encoding, p, false); });
}

template <typename T>
Status UnicodeEncodeBody(ops::UnicodeEncodeArgs& a) {
  Encoding enc;
  parse_encoding(a.output_encoding, &enc);  // the attr's allowed values are all known
  const ErrorPolicy p{a.errors, a.replacement_char, false};
  OPF_RETURN_IF_ERROR(check_replacement(a.ctx, p.replacement));
  if (a.input_values.rank() != 1 || a.input_splits.rank() != 1) {
    return a.ctx.error("input_values and input_splits must be vectors, got shapes ", a.input_values.shape().to_string(),
                       " and ", a.input_splits.shape().to_string());
  }
  const T* splits = a.input_splits.data<T>();
  const int64_t nsplits = a.input_splits.num_elements(), nvals = a.input_values.num_elements();
  if (nsplits == 0) return a.ctx.error("input_splits must not be empty");
  if (splits[0] != 0) return a.ctx.error("input_splits must start at 0, got ", static_cast<int64_t>(splits[0]));
  const int32_t* vals = a.input_values.data<int32_t>();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(nsplits - 1));
  for (int64_t i = 0; i + 1 < nsplits; ++i) {
    const int64_t lo = splits[i], hi = splits[i + 1];
    if (hi < lo || hi > nvals) {
      return a.ctx.error("input_splits must be sorted and at most the number of values (", nvals, "), got ", hi,
                         " after ", lo);
    }
    std::string s;
    OPF_RETURN_IF_ERROR(encode(a.ctx, p, vals + lo, hi - lo, enc, &s));
    out.push_back(std::move(s));
  }
  return Tensor::FromStrings(Shape{nsplits - 1}, std::move(out), &a.ctx.output(0));
}

template <typename T>
Status UnicodeEncodeCpu(ops::UnicodeEncodeArgs& a) {
  return strings::guarded("UnicodeEncode", [&] { return UnicodeEncodeBody<T>(a); });
}

Status UnicodeTranscodeBody(ops::UnicodeTranscodeArgs& a) {
  Encoding in_enc, out_enc;
  OPF_RETURN_IF_ERROR(input_encoding(a.ctx, a.input_encoding, &in_enc));
  parse_encoding(a.output_encoding, &out_enc);
  const ErrorPolicy p{a.errors, a.replacement_char, a.replace_control_characters};
  OPF_RETURN_IF_ERROR(check_replacement(a.ctx, p.replacement));
  std::vector<std::string> out;
  for (const std::string& s : strings::values(a.input)) {
    Decoded d = decode(s, in_enc);
    OPF_RETURN_IF_ERROR(resolve(a.ctx, p, s, &d));
    std::string t;
    OPF_RETURN_IF_ERROR(encode(a.ctx, p, d.chars.data(), static_cast<int64_t>(d.chars.size()), out_enc, &t));
    out.push_back(std::move(t));
  }
  return Tensor::FromStrings(a.input.shape(), std::move(out), &a.ctx.output(0));
}

Status UnicodeTranscodeCpu(ops::UnicodeTranscodeArgs& a) {
  return strings::guarded("UnicodeTranscode", [&] { return UnicodeTranscodeBody(a); });
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(UnicodeDecodeWithOffsets, CPU, UnicodeDecodeWithOffsetsCpu, int32_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(UnicodeDecode, CPU, UnicodeDecodeCpu, int32_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(UnicodeEncode, CPU, UnicodeEncodeCpu, int32_t, int64_t)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(UnicodeTranscode, CPU, UnicodeTranscodeCpu)

}  // namespace opforge
