// String kernels that convert: StringToNumber, AsString, EncodeBase64/DecodeBase64, and the
// hash-bucket ops (StringToHashBucketFast: FarmHash's Fingerprint64 from the farmhash library;
// StringToHashBucketStrong: SipHash-2-4; StringToHashBucket: TensorFlow's legacy Hash64).
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/strings/string_util.h"
#include "opforge/half.h"
#include "opforge/ops/strings/as_string.h"
#include "opforge/ops/strings/decode_base64.h"
#include "opforge/ops/strings/encode_base64.h"
#include "opforge/ops/strings/fingerprint.h"
#include "opforge/ops/strings/string_to_hash_bucket.h"
#include "opforge/ops/strings/string_to_hash_bucket_fast.h"
#include "opforge/ops/strings/string_to_hash_bucket_strong.h"
#include "opforge/ops/strings/string_to_number.h"

#ifdef OPFORGE_HAVE_FARMHASH
#include <farmhash.h>
#endif

namespace opforge {
namespace {

using strings::values;

// ---- StringToNumber

// TensorFlow's safe_strto*: surrounding ASCII whitespace allowed, the rest must be the number.
template <typename T>
bool parse_number(const std::string& text, T* out) {
  size_t b = 0, e = text.size();
  while (b < e && strings::ascii_space(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && strings::ascii_space(static_cast<unsigned char>(text[e - 1]))) --e;
  if (b == e) return false;
  const std::string s = text.substr(b, e - b);
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    *out = std::is_same_v<T, float> ? std::strtof(s.c_str(), &end) : std::strtod(s.c_str(), &end);
  } else {
    if (s[0] != '-' && s[0] != '+' && (s[0] < '0' || s[0] > '9')) return false;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE || v < static_cast<long long>(std::numeric_limits<T>::min()) ||
        v > static_cast<long long>(std::numeric_limits<T>::max())) {
      return false;
    }
    *out = static_cast<T>(v);
  }
  return end == s.c_str() + s.size();
}

template <typename T>
Status StringToNumberCpu(ops::StringToNumberArgs& a) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, a.string_tensor.shape(), &a.ctx.output(0)));
  T* out = a.ctx.output(0).data<T>();
  const std::vector<std::string>& in = values(a.string_tensor);
  for (size_t k = 0; k < in.size(); ++k) {
    if (!parse_number(in[k], &out[k])) {
      return errors::InvalidArgument("StringToNumber: StringToNumberOp could not correctly convert string: ", in[k]);
    }
  }
  return Status::OK();
}

// ---- AsString

template <typename T>
Status AsStringCpu(ops::AsStringArgs& a) {
  constexpr bool is_float = std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
  const std::string type = dtype_name(DTypeOf<T>::value);
  if (a.scientific && a.shortest) return a.ctx.error("Cannot select both scientific and shortest notation");
  if (!is_float && (a.scientific || a.shortest)) {
    return a.ctx.error("scientific and shortest format not supported for datatype ", type);
  }
  if (!is_float && a.precision > -1) return a.ctx.error("precision not supported for datatype ", type);
  if (a.fill.size() > 1) return a.ctx.error("Fill string must be one or fewer characters");
  std::string format = "%";
  if (!a.fill.empty()) {
    if (std::strchr(" +-0#", a.fill[0]) == nullptr) {
      return a.ctx.error("Fill argument not supported: \"", a.fill, "\"");
    }
    format += a.fill;
  }
  if (a.width > -1) format += std::to_string(a.width);
  if (a.precision > -1) format += "." + std::to_string(a.precision);
  if constexpr (is_float) {
    format += a.shortest ? "g" : a.scientific ? "e" : "f";
  } else if constexpr (std::is_same_v<T, int64_t>) {
    format += PRId64;
  } else if constexpr (std::is_same_v<T, StringTag>) {
    format += "s";
  } else {
    format += "d";
  }
  const int64_t n = a.input.num_elements();
  std::vector<std::string> out(static_cast<size_t>(n));
  std::vector<char> buf(64);
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (std::is_same_v<T, bool>) {
      out[static_cast<size_t>(k)] = a.input.template data<bool>()[k] ? "true" : "false";
      continue;
    } else {
      while (true) {
        int len;
        if constexpr (std::is_same_v<T, StringTag>) {
          len = std::snprintf(buf.data(), buf.size(), format.c_str(), values(a.input)[static_cast<size_t>(k)].c_str());
        } else if constexpr (is_float) {
          len =
              std::snprintf(buf.data(), buf.size(), format.c_str(), static_cast<double>(a.input.template data<T>()[k]));
        } else if constexpr (std::is_same_v<T, int64_t>) {
          len = std::snprintf(buf.data(), buf.size(), format.c_str(), a.input.template data<int64_t>()[k]);
        } else {
          len = std::snprintf(buf.data(), buf.size(), format.c_str(), static_cast<int>(a.input.template data<T>()[k]));
        }
        if (len < 0) return a.ctx.error("formatting failed with format ", format);
        if (static_cast<size_t>(len) < buf.size()) {
          out[static_cast<size_t>(k)].assign(buf.data(), static_cast<size_t>(len));
          break;
        }
        buf.resize(static_cast<size_t>(len) + 1);
      }
    }
  }
  return Tensor::FromStrings(a.input.shape(), std::move(out), &a.ctx.output(0));
}

// ---- web-safe base64 (RFC 4648 section 5), as TensorFlow's Base64Encode/Decode

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

Status EncodeBase64Cpu(ops::EncodeBase64Args& a) {
  std::vector<std::string> out;
  for (const std::string& s : values(a.input)) {
    std::string e;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    size_t i = 0;
    for (; i + 3 <= s.size(); i += 3) {
      const uint32_t v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
      for (int k = 18; k >= 0; k -= 6) e += kBase64[(v >> k) & 63];
    }
    const size_t rest = s.size() - i;
    if (rest > 0) {
      const uint32_t v = (p[i] << 16) | (rest == 2 ? p[i + 1] << 8 : 0);
      e += kBase64[(v >> 18) & 63];
      e += kBase64[(v >> 12) & 63];
      if (rest == 2) e += kBase64[(v >> 6) & 63];
      if (a.pad) e.append(3 - rest, '=');
    }
    out.push_back(std::move(e));
  }
  return Tensor::FromStrings(a.input.shape(), std::move(out), &a.ctx.output(0));
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

Status DecodeBase64Cpu(ops::DecodeBase64Args& a) {
  std::vector<std::string> out;
  for (const std::string& s : values(a.input)) {
    size_t n = s.size();
    if (n % 4 == 0) {  // padding is allowed only where it completes the last group
      for (int k = 0; k < 2 && n > 0 && s[n - 1] == '='; ++k) --n;
    }
    if (n % 4 == 1) return a.ctx.error("Base64 string length cannot be 1 modulo 4.");
    std::string d;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; ++i) {
      const int v = base64_value(s[i]);
      if (v < 0) return a.ctx.error("Invalid character found in base64.");
      acc = (acc << 6) | static_cast<uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        d += static_cast<char>((acc >> bits) & 0xFF);
      }
    }
    out.push_back(std::move(d));
  }
  return Tensor::FromStrings(a.input.shape(), std::move(out), &a.ctx.output(0));
}

// ---- hashes

uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // the runtime's hosts are little-endian
}

// SipHash-2-4 with a 128-bit key (k0, k1): TensorFlow's StrongKeyedHash (highwayhash's SipHash).
uint64_t siphash24(uint64_t k0, uint64_t k1, const std::string& s) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  const size_t n = s.size(), whole = n & ~size_t{7};
  for (size_t i = 0; i < whole; i += 8) {
    const uint64_t m = load64(s.data() + i);
    v3 ^= m;
    round(), round();
    v0 ^= m;
  }
  uint64_t b = static_cast<uint64_t>(n) << 56;
  for (size_t i = whole; i < n; ++i) b |= static_cast<uint64_t>(static_cast<unsigned char>(s[i])) << (8 * (i - whole));
  v3 ^= b;
  round(), round();
  v0 ^= b;
  v2 ^= 0xff;
  round(), round(), round(), round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// TensorFlow's Hash64 (core/lib/hash/hash.cc): MurmurHash2-64 with its own tail handling.
uint64_t tf_hash64(const std::string& s, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  size_t n = s.size();
  const char* data = s.data();
  uint64_t h = seed ^ (static_cast<uint64_t>(n) * m);
  while (n >= 8) {
    uint64_t k = load64(data);
    data += 8, n -= 8;
    k *= m, k ^= k >> r, k *= m;
    h ^= k, h *= m;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;) h ^= static_cast<uint64_t>(static_cast<unsigned char>(data[i])) << (8 * i);
    h *= m;
  }
  h ^= h >> r, h *= m, h ^= h >> r;
  return h;
}

template <typename Hash>
Status hash_buckets(KernelContext& ctx, const Tensor& input, int64_t num_buckets, Hash hash) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, input.shape(), &ctx.output(0)));
  int64_t* out = ctx.output(0).data<int64_t>();
  const std::vector<std::string>& in = values(input);
  for (size_t k = 0; k < in.size(); ++k)
    out[k] = static_cast<int64_t>(hash(in[k]) % static_cast<uint64_t>(num_buckets));
  return Status::OK();
}

Status StringToHashBucketFastCpu(ops::StringToHashBucketFastArgs& a) {
#ifdef OPFORGE_HAVE_FARMHASH
  return hash_buckets(a.ctx, a.input, a.num_buckets,
                      [](const std::string& s) { return util::Fingerprint64(s.data(), s.size()); });
#else
  return errors::Unimplemented("StringToHashBucketFast: opforge was built without the farmhash library ",
                               "(Debian/Ubuntu: apt-get install libfarmhash-dev, then rebuild)");
#endif
}

Status StringToHashBucketStrongCpu(ops::StringToHashBucketStrongArgs& a) {
  if (a.key.size() != 2) return a.ctx.error("Key must have 2 elements");
  const uint64_t k0 = static_cast<uint64_t>(a.key[0]), k1 = static_cast<uint64_t>(a.key[1]);
  return hash_buckets(a.ctx, a.input, a.num_buckets, [k0, k1](const std::string& s) { return siphash24(k0, k1, s); });
}

Status StringToHashBucketCpu(ops::StringToHashBucketArgs& a) {
  return hash_buckets(a.ctx, a.string_tensor, a.num_buckets,
                      [](const std::string& s) { return tf_hash64(s, 0xDECAFCAFFEULL); });
}

// ---- Fingerprint: TensorFlow's FingerprintOp (core/kernels/fingerprint_op.cc)

template <typename T>
Status FingerprintCpu(ops::FingerprintArgs& a) {
  if (a.data.rank() < 1) return a.ctx.error("data must have rank at least one, got shape ", a.data.shape().to_string());
  if (a.method.rank() != 0) return a.ctx.error("`method` should be a scalar string: ", a.method.shape().to_string());
  const std::string& method = values(a.method)[0];
  if (method != "farmhash64") return a.ctx.error("Unsupported fingerprint method is used: ", method);
#ifdef OPFORGE_HAVE_FARMHASH
  const int64_t rows = a.data.dim(0), cols = rows == 0 ? 0 : a.data.num_elements() / rows;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kUInt8, Shape{rows, 8}, &a.ctx.output(0)));
  uint8_t* out = a.ctx.output(0).data<uint8_t>();
  auto put = [out](int64_t row, uint64_t h) { std::memcpy(out + row * 8, &h, 8); };  // little-endian hosts
  if constexpr (std::is_same_v<T, StringTag>) {
    const std::vector<std::string>& in = values(a.data);
    for (int64_t r = 0; r < rows; ++r) {
      if (cols == 1) {
        put(r, util::Fingerprint64(in[static_cast<size_t>(r)].data(), in[static_cast<size_t>(r)].size()));
        continue;
      }
      std::string prints(static_cast<size_t>(cols) * 8, '\0');  // the row's strings' fingerprints, concatenated
      for (int64_t c = 0; c < cols; ++c) {
        const std::string& s = in[static_cast<size_t>(r * cols + c)];
        const uint64_t h = util::Fingerprint64(s.data(), s.size());
        std::memcpy(&prints[static_cast<size_t>(c) * 8], &h, 8);
      }
      put(r, util::Fingerprint64(prints.data(), prints.size()));
    }
  } else {
    const size_t row_bytes = static_cast<size_t>(cols) * sizeof(T);
    const char* bytes = static_cast<const char*>(a.data.raw_data());
    for (int64_t r = 0; r < rows; ++r)
      put(r, util::Fingerprint64(bytes + static_cast<size_t>(r) * row_bytes, row_bytes));
  }
  return Status::OK();
#else
  return errors::Unimplemented("Fingerprint: opforge was built without the farmhash library ",
                               "(Debian/Ubuntu: apt-get install libfarmhash-dev, then rebuild)");
#endif
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(Fingerprint, CPU, FingerprintCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t,
                                   bfloat16, half, float, double, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(StringToNumber, CPU, StringToNumberCpu, float, double, int32_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(AsString, CPU, AsStringCpu, float, double, int32_t, uint8_t, int16_t, int8_t,
                                   int64_t, bfloat16, half, bool, StringTag)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(EncodeBase64, CPU, EncodeBase64Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(DecodeBase64, CPU, DecodeBase64Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringToHashBucketFast, CPU, StringToHashBucketFastCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringToHashBucketStrong, CPU, StringToHashBucketStrongCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringToHashBucket, CPU, StringToHashBucketCpu)

}  // namespace opforge
