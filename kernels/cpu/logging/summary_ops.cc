// Summary ops: ScalarSummary, HistogramSummary and MergeSummary. Each outputs a scalar string
// holding a serialized `Summary` in TensorFlow's wire format (proto/tensorflow/core/framework/
// summary.proto; field numbers from the generated proto_fields.h), which FileWriter wraps in an
// Event for TensorBoard.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/logging/proto_wire.h"
#include "cpu/logging/summary_util.h"
#include "opforge/ops/logging/histogram_summary.h"
#include "opforge/ops/logging/merge_summary.h"
#include "opforge/ops/logging/scalar_summary.h"
#include "proto_fields.h"

namespace opforge {
namespace {

using namespace proto_fields;  // the k...Field numbers, from the .proto files

template <typename T>
double as_double(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double as_double(double v) {
  return v;
}
template <>
double as_double(int64_t v) {
  return static_cast<double>(v);
}
template <>
double as_double(int32_t v) {
  return static_cast<double>(v);
}

template <typename T>
Status ScalarSummaryCpu(ops::ScalarSummaryArgs& a) {
  if (a.tags.shape() != a.values.shape()) {
    return a.ctx.error("tags and values are not the same shape: ", a.tags.shape().to_string(),
                       " != ", a.values.shape().to_string());
  }
  const std::vector<std::string>& tags = *a.tags.strings();
  const T* values = a.values.data<T>();
  std::string summary;
  for (size_t i = 0; i < tags.size(); ++i) {
    std::string value;
    wire::put_bytes(value, kSummaryValueTagField, tags[i]);
    wire::put_float(value, kSummaryValueSimpleValueField, static_cast<float>(as_double(values[i])));
    wire::put_bytes(summary, kSummaryValueField, value);
  }
  return set_scalar_string(a.summary, std::move(summary));
}

// TensorFlow's default histogram buckets: limits growing by 10% from 1e-12 to 1e20, the same
// mirrored below zero, with 0 between and +-DBL_MAX at the ends. A value x falls in the first
// bucket whose limit is greater than x.
const std::vector<double>& bucket_limits() {
  static const std::vector<double> limits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    std::vector<double> all;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}

// The bucket of a finite v: the index of the first limit greater than v, as std::upper_bound
// over `limits` gives it (clamped to the last bucket). The index is guessed from log(|v|) and
// then corrected against the limits themselves (products of 1.1 rounded step by step), so it is
// exactly upper_bound's: the binary search's unpredictable branches took 36 ns a value.
size_t bucket_index(double v, const std::vector<double>& limits) {
  const int64_t p = static_cast<int64_t>(limits.size() - 1) / 2;  // positive limits, after 0 at [p]
  const double* pos = limits.data() + p + 1;                      // 1e-12, 1.1e-12, ..., DBL_MAX
  const double a = std::fabs(v);
  static const double kLogStep = std::log(1.1);
  int64_t j = a <= 1.0e-12 ? 0 : static_cast<int64_t>(std::log(a / 1.0e-12) / kLogStep);
  j = std::clamp<int64_t>(j, 0, p - 1);
  if (v >= 0) {  // the first positive limit > a
    while (j > 0 && pos[j - 1] > a) --j;
    while (j < p && pos[j] <= a) ++j;
    return static_cast<size_t>(std::min<int64_t>(p + 1 + j, 2 * p));
  }
  // v < 0: the first limit -pos[m] > v is that of the largest m with pos[m] < a; k = the first
  // m with pos[m] >= a, and the bucket p - k (p itself, the limit 0, when a <= 1e-12).
  while (j > 0 && pos[j - 1] >= a) --j;
  while (j < p && pos[j] < a) ++j;
  return static_cast<size_t>(p - j);
}

template <typename T>
Status HistogramSummaryCpu(ops::HistogramSummaryArgs& a) {
  const std::string* tag_ptr;
  OPF_RETURN_IF_ERROR(scalar_string_input(a.ctx, a.tag, "tag", &tag_ptr));
  const std::string& tag = *tag_ptr;
  const std::vector<double>& limits = bucket_limits();
  std::vector<double> counts(limits.size(), 0.0);
  double lo = DBL_MAX, hi = -DBL_MAX, sum = 0, sum_squares = 0;
  const T* values = a.values.data<T>();
  const int64_t n = a.values.num_elements();
  // One pass in order for the checks and the sums (their rounding as TensorFlow's), then the
  // bucket counts over the threads (whole numbers: any order adds them exactly).
  for (int64_t i = 0; i < n; ++i) {
    const double v = as_double(values[i]);
    if (!std::isfinite(v)) return a.ctx.error("Nan in summary histogram for: ", tag);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    sum_squares += v * v;
  }
  std::mutex counts_mu;
  parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t e) {
    std::vector<double> part(limits.size(), 0.0);
    for (int64_t i = b; i < e; ++i) part[bucket_index(as_double(values[i]), limits)] += 1;
    std::lock_guard<std::mutex> lock(counts_mu);
    for (size_t k = 0; k < part.size(); ++k) counts[k] += part[k];
  });
  // Each run of empty buckets becomes one entry, with the run's last limit.
  std::vector<double> out_limits, out_counts;
  for (size_t i = 0; i < limits.size(); ++i) {
    if (counts[i] == 0 && i + 1 < limits.size() && counts[i + 1] == 0) continue;
    out_limits.push_back(limits[i]);
    out_counts.push_back(counts[i]);
  }
  std::string histo;
  wire::put_double_field(histo, kHistogramProtoMinField, lo);
  wire::put_double_field(histo, kHistogramProtoMaxField, hi);
  wire::put_double_field(histo, kHistogramProtoNumField, static_cast<double>(n));
  wire::put_double_field(histo, kHistogramProtoSumField, sum);
  wire::put_double_field(histo, kHistogramProtoSumSquaresField, sum_squares);
  wire::put_packed_doubles(histo, kHistogramProtoBucketLimitField, out_limits);
  wire::put_packed_doubles(histo, kHistogramProtoBucketField, out_counts);
  std::string value;
  wire::put_bytes(value, kSummaryValueTagField, tag);
  wire::put_bytes(value, kSummaryValueHistoField, histo);
  std::string summary;
  wire::put_bytes(summary, kSummaryValueField, value);
  return set_scalar_string(a.summary, std::move(summary));
}

// The tag of a serialized Summary.Value; false if it does not parse.
bool value_tag(const char* p, const char* end, std::string* tag) {
  tag->clear();
  wire::Field f;
  while (p < end) {
    if (!wire::next_field(p, end, &f)) return false;
    if (f.number == kSummaryValueTagField && f.type == wire::kLengthDelimited) tag->assign(f.begin, f.end);
  }
  return true;
}

Status MergeSummaryCpu(ops::MergeSummaryArgs& a) {
  std::string merged;
  std::set<std::string> tags;
  std::string tag;
  for (int i = 0; i < a.inputs.size; ++i) {
    for (const std::string& summary : *a.inputs[i].strings()) {
      const char* p = summary.data();
      const char* end = p + summary.size();
      wire::Field f;
      while (p < end) {
        if (!wire::next_field(p, end, &f)) return a.ctx.error("Could not parse one of the summary inputs");
        if (f.number != kSummaryValueField || f.type != wire::kLengthDelimited) continue;
        if (!value_tag(f.begin, f.end, &tag)) return a.ctx.error("Could not parse one of the summary inputs");
        if (!tags.insert(tag).second) return a.ctx.error("Duplicate tag ", tag, " found in summary inputs");
        wire::put_bytes(merged, kSummaryValueField, std::string(f.begin, f.end));
      }
    }
  }
  return set_scalar_string(a.summary, std::move(merged));
}

#define OPF_REAL float, double, int32_t, uint8_t, int16_t, int8_t, int64_t, bfloat16, half

}  // namespace

// The kernels make their string outputs themselves.
OPFORGE_REGISTER_FORWARDING_KERNEL(ScalarSummary, CPU, ScalarSummaryCpu, OPF_REAL)
OPFORGE_REGISTER_FORWARDING_KERNEL(HistogramSummary, CPU, HistogramSummaryCpu, OPF_REAL)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MergeSummary, CPU, MergeSummaryCpu)

}  // namespace opforge
