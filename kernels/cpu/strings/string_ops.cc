// String kernels that cut, join and measure strings: StringJoin, ReduceJoin, StringSplit,
// StringSplitV2, Substr, StringLength, StringStrip, StringLower/Upper, UnsortedSegmentJoin.
// Semantics and messages follow TensorFlow's kernels (core/kernels/string_*_op.cc).
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "cpu/strings/string_util.h"
#include "opforge/ops/strings/reduce_join.h"
#include "opforge/ops/strings/string_join.h"
#include "opforge/ops/strings/string_length.h"
#include "opforge/ops/strings/string_lower.h"
#include "opforge/ops/strings/string_n_grams.h"
#include "opforge/ops/strings/string_split.h"
#include "opforge/ops/strings/string_split_v2.h"
#include "opforge/ops/strings/string_strip.h"
#include "opforge/ops/strings/string_upper.h"
#include "opforge/ops/strings/substr.h"
#include "opforge/ops/strings/unsorted_segment_join.h"

namespace opforge {
namespace {

using strings::values;

Status StringJoinCpu(ops::StringJoinArgs& a) {
  const Shape* shape = nullptr;
  for (int i = 0; i < a.inputs.size; ++i) {
    const Tensor& t = a.inputs[i];
    if (t.rank() == 0) continue;
    if (shape != nullptr && *shape != t.shape()) {
      return a.ctx.error("Input shapes do not match: ", shape->to_string(), " vs. ", t.shape().to_string());
    }
    shape = &t.shape();
  }
  const Shape out_shape = shape != nullptr ? *shape : Shape{};
  const int64_t n = out_shape.num_elements();
  std::vector<std::string> out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    std::string& s = out[static_cast<size_t>(k)];
    for (int i = 0; i < a.inputs.size; ++i) {
      if (i > 0) s += a.separator;
      const Tensor& t = a.inputs[i];
      s += values(t)[static_cast<size_t>(t.rank() == 0 ? 0 : k)];
    }
  }
  return Tensor::FromStrings(out_shape, std::move(out), &a.ctx.output(0));
}

// ReduceJoin: the first listed dimension varies fastest in the joined order, as in TensorFlow.
Status ReduceJoinBody(ops::ReduceJoinArgs& a) {
  const Shape& in = a.inputs.shape();
  const int rank = in.rank();
  if (a.reduction_indices.rank() > 1) {
    return a.ctx.error("reduction_indices must be a scalar or vector, got shape ",
                       a.reduction_indices.shape().to_string());
  }
  std::vector<int> axes;
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t i = 0; i < a.reduction_indices.num_elements(); ++i) {
    const int64_t raw = a.reduction_indices.data<int32_t>()[i];
    const int64_t d = raw < 0 ? raw + rank : raw;
    if (d < 0 || d >= rank) {
      return errors::OutOfRange("ReduceJoin: Invalid reduction dimension ", raw, " for input with ", rank,
                                " dimension(s)");
    }
    if (reduced[static_cast<size_t>(d)]) return a.ctx.error("Duplicate reduction dimension ", d);
    reduced[static_cast<size_t>(d)] = true;
    axes.push_back(static_cast<int>(d));
  }
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d)
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d + 1)] * in.dim(d + 1);
  std::vector<int64_t> out_dims, kept;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      out_dims.push_back(in.dim(d));
      kept.push_back(d);
    } else if (a.keep_dims) {
      out_dims.push_back(1);
    }
  }
  int64_t group = 1;
  for (int d : axes) group *= in.dim(d);
  std::vector<int64_t> kept_dims;
  for (int64_t d : kept) kept_dims.push_back(in.dim(static_cast<int>(d)));
  const int64_t n_out = Shape(kept_dims).num_elements();
  const std::vector<std::string>& x = values(a.inputs);
  std::vector<std::string> out(static_cast<size_t>(n_out));
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t base = 0, rest = o;
    for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
      const int64_t n = kept_dims[static_cast<size_t>(k)];
      base += (rest % n) * strides[static_cast<size_t>(kept[static_cast<size_t>(k)])];
      rest /= n;
    }
    std::string& s = out[static_cast<size_t>(o)];
    for (int64_t g = 0; g < group; ++g) {
      int64_t at = base, r = g;
      for (int d : axes) {  // axes[0] fastest
        at += (r % in.dim(d)) * strides[static_cast<size_t>(d)];
        r /= in.dim(d);
      }
      if (g > 0) s += a.separator;
      s += x[static_cast<size_t>(at)];
    }
  }
  return Tensor::FromStrings(Shape(out_dims), std::move(out), &a.ctx.output(0));
}

Status ReduceJoinCpu(ops::ReduceJoinArgs& a) {
  return strings::guarded("ReduceJoin", [&] { return ReduceJoinBody(a); });
}

// The three outputs of the split ops from the tokens of each string.
Status split_outputs(KernelContext& ctx, const std::vector<std::vector<std::string>>& tokens) {
  int64_t total = 0, widest = 0;
  for (const auto& row : tokens) {
    total += static_cast<int64_t>(row.size());
    widest = std::max<int64_t>(widest, static_cast<int64_t>(row.size()));
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{total, 2}, &ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{2}, &ctx.output(2)));
  int64_t* ix = ctx.output(0).data<int64_t>();
  std::vector<std::string> vals;
  vals.reserve(static_cast<size_t>(total));
  for (size_t i = 0; i < tokens.size(); ++i) {
    for (size_t j = 0; j < tokens[i].size(); ++j) {
      *ix++ = static_cast<int64_t>(i);
      *ix++ = static_cast<int64_t>(j);
      vals.push_back(tokens[i][j]);
    }
  }
  ctx.output(2).data<int64_t>()[0] = static_cast<int64_t>(tokens.size());
  ctx.output(2).data<int64_t>()[1] = widest;
  return Tensor::FromStrings(Shape{total}, std::move(vals), &ctx.output(1));
}

Status check_split_inputs(KernelContext& ctx, const Tensor& input, const Tensor& sep, const char* sep_name) {
  if (input.rank() != 1) return ctx.error("input must be a vector, got shape: ", input.shape().to_string());
  if (sep.rank() != 0) return ctx.error(sep_name, " must be a scalar, got shape: ", sep.shape().to_string());
  return Status::OK();
}

// TF1's split: any byte of the delimiter separates tokens; an empty delimiter splits into bytes;
// an empty string has no tokens.
Status StringSplitCpu(ops::StringSplitArgs& a) {
  OPF_RETURN_IF_ERROR(check_split_inputs(a.ctx, a.input, a.delimiter, "delimiter"));
  const std::string& delim = values(a.delimiter)[0];
  std::vector<std::vector<std::string>> tokens;
  for (const std::string& s : values(a.input)) {
    std::vector<std::string> row;
    if (delim.empty()) {
      for (char c : s) row.emplace_back(1, c);
    } else if (!s.empty()) {
      size_t start = 0;
      for (size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || delim.find(s[i]) != std::string::npos) {
          if (!(a.skip_empty && i == start)) row.push_back(s.substr(start, i - start));
          start = i + 1;
        }
      }
    }
    tokens.push_back(std::move(row));
  }
  return split_outputs(a.ctx, tokens);
}

// Python's str.split(sep, maxsplit) (sep empty: str.split(None, maxsplit)).
Status StringSplitV2Cpu(ops::StringSplitV2Args& a) {
  OPF_RETURN_IF_ERROR(check_split_inputs(a.ctx, a.input, a.sep, "sep"));
  const std::string& sep = values(a.sep)[0];
  const int64_t maxsplit = a.maxsplit < 0 ? INT64_MAX : a.maxsplit;
  std::vector<std::vector<std::string>> tokens;
  for (const std::string& s : values(a.input)) {
    std::vector<std::string> row;
    if (sep.empty()) {
      size_t i = 0;
      const size_t n = s.size();
      while (i < n && strings::ascii_space(static_cast<unsigned char>(s[i]))) ++i;
      while (i < n) {
        if (static_cast<int64_t>(row.size()) == maxsplit) {
          size_t end = n;
          while (end > i && strings::ascii_space(static_cast<unsigned char>(s[end - 1]))) --end;
          row.push_back(s.substr(i, end - i));
          break;
        }
        size_t j = i;
        while (j < n && !strings::ascii_space(static_cast<unsigned char>(s[j]))) ++j;
        row.push_back(s.substr(i, j - i));
        i = j;
        while (i < n && strings::ascii_space(static_cast<unsigned char>(s[i]))) ++i;
      }
    } else {
      size_t start = 0;
      while (true) {
        const size_t at = static_cast<int64_t>(row.size()) < maxsplit ? s.find(sep, start) : std::string::npos;
        if (at == std::string::npos) {
          row.push_back(s.substr(start));
          break;
        }
        row.push_back(s.substr(start, at - start));
        start = at + sep.size();
      }
    }
    tokens.push_back(std::move(row));
  }
  return split_outputs(a.ctx, tokens);
}

// The byte offset of UTF-8 character `chars` of s (s.size() past the end; -1 if s has fewer).
int64_t utf8_offset(const std::string& s, int64_t chars) {
  int64_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (strings::utf8_start(static_cast<unsigned char>(s[i]))) {
      if (seen == chars) return static_cast<int64_t>(i);
      ++seen;
    }
  }
  return seen == chars ? static_cast<int64_t>(s.size()) : -1;
}

int64_t utf8_length(const std::string& s) {
  int64_t n = 0;
  for (char c : s) n += strings::utf8_start(static_cast<unsigned char>(c));
  return n;
}

template <typename T>
Status SubstrCpu(ops::SubstrArgs& a) {
  if (a.pos.shape() != a.len.shape()) {
    return a.ctx.error("pos and len should have the same shape, got: ", a.pos.shape().to_string(), " vs. ",
                       a.len.shape().to_string());
  }
  Shape out_shape;
  OPF_RETURN_IF_ERROR(broadcast_shapes(a.input.shape(), a.pos.shape(), &out_shape, "Substr"));
  const strings::BroadcastIndex in_at(a.input.shape(), out_shape), pos_at(a.pos.shape(), out_shape);
  const bool utf8 = a.unit == "UTF8_CHAR";
  const std::vector<std::string>& in = values(a.input);
  const int64_t n = out_shape.num_elements();
  std::vector<std::string> out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const std::string& s = in[static_cast<size_t>(in_at(k))];
    const int64_t p = pos_at(k);
    int64_t pos = static_cast<int64_t>(a.pos.template data<T>()[p]);
    int64_t len = static_cast<int64_t>(a.len.template data<T>()[p]);
    const int64_t size = utf8 ? utf8_length(s) : static_cast<int64_t>(s.size());
    if (pos < -size || pos > size) {
      return a.ctx.error("pos ", pos, " out of range for string ", strings::quoted(s), " at index ", k);
    }
    if (pos < 0) pos += size;
    // A negative len runs to the end counting bytes, and is empty counting characters (TensorFlow's rules).
    if (utf8 && len < 0) len = 0;
    if (len < 0 || len > size - pos) len = size - pos;
    if (utf8) {
      const int64_t b = utf8_offset(s, pos), e = utf8_offset(s, pos + len);
      out[static_cast<size_t>(k)] = s.substr(static_cast<size_t>(b), static_cast<size_t>(e - b));
    } else {
      out[static_cast<size_t>(k)] = s.substr(static_cast<size_t>(pos), static_cast<size_t>(len));
    }
  }
  return Tensor::FromStrings(out_shape, std::move(out), &a.ctx.output(0));
}

Status StringLengthCpu(ops::StringLengthArgs& a) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, a.input.shape(), &a.ctx.output(0)));
  int32_t* out = a.ctx.output(0).data<int32_t>();
  const bool utf8 = a.unit == "UTF8_CHAR";
  const std::vector<std::string>& in = values(a.input);
  for (size_t k = 0; k < in.size(); ++k) {
    out[k] = static_cast<int32_t>(utf8 ? utf8_length(in[k]) : static_cast<int64_t>(in[k].size()));
  }
  return Status::OK();
}

template <typename F>
Status map_strings(KernelContext& ctx, const Tensor& input, F f) {
  std::vector<std::string> out(values(input));
  for (std::string& s : out) f(s);
  return Tensor::FromStrings(input.shape(), std::move(out), &ctx.output(0));
}

Status StringStripCpu(ops::StringStripArgs& a) {
  return map_strings(a.ctx, a.input, [](std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && strings::ascii_space(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && strings::ascii_space(static_cast<unsigned char>(s[e - 1]))) --e;
    s = s.substr(b, e - b);
  });
}

// ASCII case mapping; with encoding "utf-8" a non-ASCII byte is an error rather than a silently
// unmapped letter (TensorFlow maps every Unicode letter with ICU; opforge does not link ICU).
template <typename Args>
Status change_case(Args& a, bool upper) {
  if (!a.encoding.empty() && a.encoding != "utf-8") {
    return a.ctx.error("encoding must be '' or 'utf-8', got '", a.encoding, "'");
  }
  if (!a.encoding.empty()) {
    for (const std::string& s : values(a.input)) {
      for (char c : s) {
        if (static_cast<unsigned char>(c) >= 0x80) {
          return errors::Unimplemented(Args::kOpName, ": case mapping of non-ASCII UTF-8 characters is not ",
                                       "supported (string ", strings::quoted(s), ")");
        }
      }
    }
  }
  return map_strings(a.ctx, a.input, [upper](std::string& s) {
    for (char& c : s) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (upper && u >= 'a' && u <= 'z') c = static_cast<char>(u - 'a' + 'A');
      if (!upper && u >= 'A' && u <= 'Z') c = static_cast<char>(u - 'A' + 'a');
    }
  });
}

Status StringLowerCpu(ops::StringLowerArgs& a) { return change_case(a, false); }
Status StringUpperCpu(ops::StringUpperArgs& a) { return change_case(a, true); }

template <typename T>
Status UnsortedSegmentJoinBody(ops::UnsortedSegmentJoinArgs& a) {
  const Shape& in = a.inputs.shape();
  const Shape& ids = a.segment_ids.shape();
  bool prefix = ids.rank() <= in.rank();
  for (int d = 0; prefix && d < ids.rank(); ++d) prefix = ids.dim(d) == in.dim(d);
  if (!prefix) {
    return a.ctx.error("segment_ids.shape = ", ids.to_string(), " is not a prefix of input.shape = ", in.to_string());
  }
  if (a.num_segments.num_elements() != 1) {
    return a.ctx.error("num_segments should be a scalar, got shape ", a.num_segments.shape().to_string());
  }
  const int64_t segments = strings::int_scalar(a.num_segments);
  if (segments < 0) return a.ctx.error("num_segments must be non-negative, got ", segments);
  std::vector<int64_t> out_dims{segments};
  int64_t inner = 1;
  for (int d = ids.rank(); d < in.rank(); ++d) {
    out_dims.push_back(in.dim(d));
    inner *= in.dim(d);
  }
  const int64_t n_ids = a.segment_ids.num_elements();
  int64_t cells = 0;
  if (__builtin_mul_overflow(segments, inner, &cells)) return a.ctx.error("num_segments * inner size overflows");
  OPF_RETURN_IF_ERROR(cpu::check_allocation("UnsortedSegmentJoin", cells, sizeof(std::string) + 1));
  std::vector<std::string> out(static_cast<size_t>(cells));
  std::vector<bool> started(out.size(), false);
  const std::vector<std::string>& x = values(a.inputs);
  for (int64_t j = 0; j < n_ids; ++j) {
    const int64_t seg = static_cast<int64_t>(a.segment_ids.template data<T>()[j]);
    if (seg < 0 || seg >= segments) {
      return a.ctx.error("segment_ids are not allowed to exceed num_segments or to have negative values.");
    }
    for (int64_t i = 0; i < inner; ++i) {
      const size_t o = static_cast<size_t>(seg * inner + i);
      if (started[o]) out[o] += a.separator;
      out[o] += x[static_cast<size_t>(j * inner + i)];
      started[o] = true;
    }
  }
  return Tensor::FromStrings(Shape(out_dims), std::move(out), &a.ctx.output(0));
}

template <typename T>
Status UnsortedSegmentJoinCpu(ops::UnsortedSegmentJoinArgs& a) {
  return strings::guarded("UnsortedSegmentJoin", [&] { return UnsortedSegmentJoinBody<T>(a); });
}

// StringNGrams: TensorFlow's StringNGramsOp (core/kernels/string_ngrams_op.cc), ngram by ngram.
template <typename T>
Status StringNGramsBody(ops::StringNGramsArgs& a) {
  if (a.data.rank() != 1 || a.data_splits.rank() != 1) {
    return a.ctx.error("data and data_splits must be vectors, got shapes ", a.data.shape().to_string(), " and ",
                       a.data_splits.shape().to_string());
  }
  for (int64_t w : a.ngram_widths) {
    if (w < 1) return a.ctx.error("Each ngram width must be greater than 0, got ", w);
  }
  const std::vector<std::string>& data = values(a.data);
  const T* splits = a.data_splits.template data<T>();
  const int64_t n_splits = a.data_splits.num_elements(), n_data = static_cast<int64_t>(data.size());
  if (n_splits > 0) {
    if (splits[0] != 0) return a.ctx.error("First split value must be 0, got ", static_cast<int64_t>(splits[0]));
    for (int64_t i = 1; i < n_splits; ++i) {
      const int64_t prev = splits[i - 1], v = splits[i];
      if (v < prev || v > n_data)
        return a.ctx.error("Invalid split value ", v, ", must be in [", prev, ", ", n_data, "]");
    }
    if (static_cast<int64_t>(splits[n_splits - 1]) != n_data) {
      return a.ctx.error("Last split value must be data size. Expected ", n_data, ", got ",
                         static_cast<int64_t>(splits[n_splits - 1]));
    }
  }
  if (n_data == 0 || n_splits == 0) {  // no data: no ngrams, the splits as given (TensorFlow's early exit)
    a.ctx.output(1) = a.data_splits;
    return Tensor::FromStrings(Shape{0}, {}, &a.ctx.output(0));
  }
  auto pad_of = [&](int64_t width) { return std::min<int64_t>(a.pad_width < 0 ? width - 1 : a.pad_width, width - 1); };
  std::vector<std::string> out;
  std::vector<T> out_splits{0};
  // The ngrams of `width` over items [start, start + length), padded pad_of(width) times a side.
  auto make = [&](int64_t start, int64_t length, int64_t width, int64_t pad, int64_t count) {
    for (int64_t k = 0; k < count; ++k) {
      const int64_t left = std::max<int64_t>(0, pad - k);
      const int64_t right = std::max<int64_t>(0, pad - (count - (k + 1)));
      const int64_t tokens = width - (left + right);
      const int64_t first = left > 0 ? 0 : k - pad;
      // The pads and tokens joined by the separator (an ngram of padding only has no empty token).
      std::string g;
      int64_t pieces = 0;
      auto add = [&](const std::string& piece) {
        if (pieces++ > 0) g += a.separator;
        g += piece;
      };
      for (int64_t n = 0; n < left; ++n) add(a.left_pad);
      for (int64_t n = 0; n < tokens; ++n) add(data[static_cast<size_t>(start + first + n)]);
      for (int64_t n = 0; n < right; ++n) add(a.right_pad);
      out.push_back(std::move(g));
    }
    (void)length;
  };
  for (int64_t row = 0; row + 1 < n_splits; ++row) {
    const int64_t start = splits[row], length = static_cast<int64_t>(splits[row + 1]) - start;
    const size_t before = out.size();
    for (int64_t width : a.ngram_widths) {
      const int64_t pad = pad_of(width);
      make(start, length, width, pad, std::max<int64_t>(0, length + 2 * pad - width + 1));
    }
    if (a.preserve_short_sequences && out.size() == before && length > 0) {
      const int64_t pad = std::max<int64_t>(a.pad_width, 0);  // one ngram of the whole padded row
      const int64_t width = length + 2 * pad;
      make(start, length, width, std::min<int64_t>(a.pad_width < 0 ? width - 1 : a.pad_width, width - 1), 1);
    }
    out_splits.push_back(static_cast<T>(out.size()));
  }
  if (n_splits == 0) out_splits.clear();
  Tensor& splits_out = a.ctx.output(1);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{static_cast<int64_t>(out_splits.size())}, &splits_out));
  std::copy(out_splits.begin(), out_splits.end(), splits_out.template data<T>());
  const int64_t n = static_cast<int64_t>(out.size());
  return Tensor::FromStrings(Shape{n}, std::move(out), &a.ctx.output(0));
}

template <typename T>
Status StringNGramsCpu(ops::StringNGramsArgs& a) {
  return strings::guarded("StringNGrams", [&] { return StringNGramsBody<T>(a); });
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(StringNGrams, CPU, StringNGramsCpu, int32_t, int64_t)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringJoin, CPU, StringJoinCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ReduceJoin, CPU, ReduceJoinCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringSplit, CPU, StringSplitCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringSplitV2, CPU, StringSplitV2Cpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(Substr, CPU, SubstrCpu, int32_t, int64_t)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringLength, CPU, StringLengthCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringStrip, CPU, StringStripCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringLower, CPU, StringLowerCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StringUpper, CPU, StringUpperCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(UnsortedSegmentJoin, CPU, UnsortedSegmentJoinCpu, int32_t, int64_t)

}  // namespace opforge
