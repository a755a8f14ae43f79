// CumulativeLogsumexp along one axis (exclusive and/or reverse): a running log-add-exp,
// in double for every dtype. The input is viewed as [outer, n, inner] around the axis.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/cpu_util.h"
#include "cpu/math/axis_util.h"
#include "opforge/ops/math/cumulative_logsumexp.h"

namespace opforge {
namespace {

// log(exp(a) + exp(b)); -inf is the empty sum, NaN propagates, inf + inf stays inf.
inline double log_add_exp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  if (a == b) return a + 0.69314718055994530942;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

template <typename T>
Status CumulativeLogsumexpCpu(ops::CumulativeLogsumexpArgs& a) {
  int axis = 0;
  OPF_RETURN_IF_ERROR(cpu::scalar_axis("CumulativeLogsumexp", a.axis, a.x.rank(), &axis));
  if (a.x.num_elements() == 0) return Status::OK();
  const cpu::AxisLayout l = cpu::axis_layout(a.x.shape(), axis);
  const T* x = a.x.template data<T>();
  T* y = a.out.template data<T>();
  const bool ex = a.exclusive, rev = a.reverse;
  const int64_t lines = l.outer * l.inner;
  parallel_for(lines, std::max<int64_t>(1, cpu::kGrain / (8 * l.n)), [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      const int64_t o = w / l.inner, j = w % l.inner;
      double acc = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < l.n; ++k) {
        const int64_t i = (o * l.n + (rev ? l.n - 1 - k : k)) * l.inner + j;
        const double v = static_cast<double>(x[i]);
        if (ex) {
          y[i] = static_cast<T>(acc);
          acc = log_add_exp(acc, v);
        } else {
          acc = log_add_exp(acc, v);
          y[i] = static_cast<T>(acc);
        }
      }
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(CumulativeLogsumexp, CPU, CumulativeLogsumexpCpu, half, float, double)

}  // namespace opforge
