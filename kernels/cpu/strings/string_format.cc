// StringFormat: a template filled with tensors summarized as TensorFlow's print_v2 writes them
// (Tensor::SummarizeValue(summarize, print_v2=true)).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cpu/cpu_util.h"
#include "cpu/strings/string_util.h"
#include "opforge/ops/strings/string_format.h"

namespace opforge {
namespace {

// The shortest of "%.{short}g" / "%.{long}g" that reads back as v (TF's FloatToBuffer and
// DoubleToBuffer).
template <typename F>
std::string float_text(F v, int short_digits, int long_digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", short_digits, static_cast<double>(v));
  const F back = static_cast<F>(std::strtod(buf, nullptr));
  if (back != v) std::snprintf(buf, sizeof buf, "%.*g", long_digits, static_cast<double>(v));
  return buf;
}

// A string element: double-quoted, with C escapes for quotes, backslashes and control bytes
// (bytes >= 0x80 are kept: absl's Utf8SafeCEscape).
std::string quoted_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

template <typename T>
std::string element_text(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, double>) {
    return float_text<double>(v, 15, 17);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return float_text<float>(static_cast<float>(v), 6, 9);
  } else {
    return std::to_string(static_cast<int64_t>(v));
  }
}

void dim_spacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    *out += " ";
    return;
  }
  out->append(static_cast<size_t>(rank - dim - 1), '\n');
  out->append(static_cast<size_t>(dim + 1), ' ');
}

// TF's PrintOneDimV2: the first and last `ends` elements of each dimension.
template <typename Elem>
void print_dim(int dim, const Shape& shape, int64_t ends, int64_t at, const Elem& elem, std::string* out) {
  const int rank = shape.rank();
  if (dim == rank) {
    *out += elem(at);
    return;
  }
  *out += "[";
  const int64_t n = shape.dim(dim);
  int64_t per = 1;
  for (int d = dim + 1; d < rank; ++d) per *= shape.dim(d);
  for (int64_t i = 0; i < ends && i < n; ++i) {
    if (i > 0) dim_spacing(dim, rank, out);
    print_dim(dim + 1, shape, ends, at + per * i, elem, out);
  }
  if (n > 2 * ends) {
    dim_spacing(dim, rank, out);
    *out += "...";
  }
  for (int64_t i = std::max(ends, n - ends); i < n; ++i) {
    dim_spacing(dim, rank, out);
    print_dim(dim + 1, shape, ends, at + per * i, elem, out);
  }
  *out += "]";
}

template <typename Elem>
std::string summarize_with(const Tensor& t, int64_t summarize, const Elem& elem) {
  const int64_t n = t.num_elements();
  const int64_t limit = summarize < 0 ? n : std::min(summarize, n);
  std::string out;
  if (t.rank() == 0) {
    for (int64_t i = 0; i < limit; ++i) out += elem(i);
    if (n > limit) out += "...";
    return out;
  }
  print_dim(0, t.shape(), limit, 0, elem, &out);
  return out;
}

Status summarize(KernelContext& ctx, const Tensor& t, int64_t limit, std::string* out) {
  if (t.dtype() == DType::kString) {
    const auto& s = strings::values(t);
    *out = summarize_with(t, limit, [&](int64_t i) { return quoted_string(s[static_cast<size_t>(i)]); });
    return Status::OK();
  }
  if (!visit_dtype(t.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* data = t.data<T>();
        *out = summarize_with(t, limit, [&](int64_t i) { return element_text(data[i]); });
      })) {
    return ctx.error("cannot format a tensor of dtype ", dtype_name(t.dtype()));
  }
  return Status::OK();
}

Status StringFormatBody(ops::StringFormatArgs& a) {
  const std::string& tmpl = a.template_;
  if (a.placeholder.empty()) return a.ctx.error("placeholder must not be empty");
  std::vector<std::string> pieces;
  size_t start = 0;
  while (true) {
    const size_t at = tmpl.find(a.placeholder, start);
    if (at == std::string::npos) break;
    pieces.push_back(tmpl.substr(start, at - start));
    start = at + a.placeholder.size();
  }
  const std::string tail = tmpl.substr(start);
  if (static_cast<int>(pieces.size()) != a.inputs.size) {
    return a.ctx.error("Number of placeholders (", pieces.size(), ") in template does not match the number of inputs (",
                       a.inputs.size, ")");
  }
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string value;
    OPF_RETURN_IF_ERROR(summarize(a.ctx, a.inputs[static_cast<int>(i)], a.summarize, &value));
    out += pieces[i] + value;
  }
  out += tail;
  return Tensor::FromStrings(Shape{}, {std::move(out)}, &a.ctx.output(0));
}

Status StringFormatCpu(ops::StringFormatArgs& a) {
  return strings::guarded("StringFormat", [&] { return StringFormatBody(a); });
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringFormat, CPU, StringFormatCpu)

}  // namespace opforge
