// Shared pieces of the nn kernels: the window geometry
// (common/window.h, shared with the GPU kernels), layout
// conversion of 4-D tensors, and a GEMM wrapper over OpenBLAS.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <optional>

#include "common/window.h"
#include "cpu/cpu_util.h"
#include "src/blas.h"
#include "opforge/op.h"
#include "opforge/status.h"
#include "ops/shape_util.h"  // nn::attr

namespace opforge {
namespace nn {

// Per-part partial results of a parallel reduction, combined in the order of the parts (keyed
// by each part's first index), not in the order the threads finish: a result then depends only
// on how the work was cut (the thread count), never on scheduling, and a region run inline
// under contention (parallel.cc: the same parts in order) gives the parallel run's result.
template <typename V>
class OrderedPartials {
 public:
  void add(int64_t begin, V part) {
    std::lock_guard<std::mutex> lock(mu_);
    parts_.emplace_back(begin, std::move(part));
  }
  // Calls merge(part) for each part in order of its first index.
  template <typename F>
  void merge_in_order(F merge) {
    std::sort(parts_.begin(), parts_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& p : parts_) merge(p.second);
  }
  // The parts in order of their first index.
  std::vector<V*> in_order() {
    std::sort(parts_.begin(), parts_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<V*> out;
    for (auto& p : parts_) out.push_back(&p.second);
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<int64_t, V>> parts_;
};

// ---------------------------------------------------------------------------- compute types

// Convolutions and pools compute 16-bit floats in float.
template <typename T>
using acc_t = cpu::compute_t<T>;

// Converts a 4-D tensor to NHWC in compute type C (copying only when needed): a borrowed
// pointer when T == C and the layout is already NHWC.
template <typename T, typename C>
class Nhwc {
 public:
  Nhwc(const Tensor& t, const Layout& l) {
    const T* src = t.data<T>();
    if constexpr (std::is_same_v<T, C>) {
      if (!l.nchw) {
        ptr_ = src;
        return;
      }
    }
    const int64_t n = t.dim(l.n), h = t.dim(l.h), w = t.dim(l.w), c = t.dim(l.c);
    own_.resize(static_cast<size_t>(t.num_elements()));
    if (!l.nchw) {
      for (size_t i = 0; i < own_.size(); ++i) own_[i] = static_cast<C>(src[i]);
    } else {
      C* dst = own_.data();
      parallel_for(n * c, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, h * w)), [&](int64_t b, int64_t e) {
        for (int64_t nc = b; nc < e; ++nc) {
          const int64_t ni = nc / c, ci = nc % c;
          const T* s = src + nc * h * w;
          C* d = dst + ni * h * w * c + ci;
          for (int64_t i = 0; i < h * w; ++i) d[i * c] = static_cast<C>(s[i]);
        }
      });
    }
    ptr_ = own_.data();
  }
  const C* data() const { return ptr_; }

 private:
  const C* ptr_ = nullptr;
  std::vector<C> own_;
};

// An NHWC output buffer in compute type C that lands in tensor `out` (of dtype T and layout l)
// on finish(): written in place when T == C and the layout is NHWC.
template <typename T, typename C>
class NhwcOut {
 public:
  NhwcOut(Tensor& t, const Layout& l) : t_(t), l_(l) {
    if constexpr (std::is_same_v<T, C>) {
      if (!l.nchw) {
        ptr_ = t.data<T>();
        return;
      }
    }
    own_.assign(static_cast<size_t>(t.num_elements()), C(0));
    ptr_ = own_.data();
  }
  C* data() { return ptr_; }
  void finish() {
    if (own_.empty()) return;
    T* dst = t_.data<T>();
    if (!l_.nchw) {
      for (size_t i = 0; i < own_.size(); ++i) dst[i] = static_cast<T>(own_[i]);
      return;
    }
    const int64_t n = t_.dim(l_.n), h = t_.dim(l_.h), w = t_.dim(l_.w), c = t_.dim(l_.c);
    const C* src = own_.data();
    parallel_for(n * c, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, h * w)), [&](int64_t b, int64_t e) {
      for (int64_t nc = b; nc < e; ++nc) {
        const int64_t ni = nc / c, ci = nc % c;
        T* d = dst + nc * h * w;
        const C* s = src + ni * h * w * c + ci;
        for (int64_t i = 0; i < h * w; ++i) d[i] = static_cast<T>(s[i * c]);
      }
    });
  }

 private:
  Tensor& t_;
  Layout l_;
  C* ptr_ = nullptr;
  std::vector<C> own_;
};

// ---------------------------------------------------------------------------- GEMM

// C = alpha * op(A) * op(B) + beta * C, row-major. float/double through OpenBLAS; integers
// with a plain loop that wraps on overflow.
template <typename C>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const C* a, int64_t lda, const C* b, int64_t ldb, C beta,
          C* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<C, float> || std::is_same_v<C, double>) {
    blas::gemm(ta, tb, m, n, k, C(1), a, lda, b, ldb, beta, c, ldc);
  } else {
    using U = std::make_unsigned_t<C>;
    for (int64_t i = 0; i < m; ++i) {
      U* row = reinterpret_cast<U*>(c + i * ldc);
      if (beta == C(0)) std::fill(row, row + n, U(0));
      for (int64_t p = 0; p < k; ++p) {
        const U av = static_cast<U>(ta ? a[p * lda + i] : a[i * lda + p]);
        if (av == 0) continue;
        for (int64_t j = 0; j < n; ++j) {
          const U bv = static_cast<U>(tb ? b[j * ldb + p] : b[p * ldb + j]);
          row[j] = static_cast<U>(row[j] + av * bv);
        }
      }
    }
  }
}

// The right-hand matrix B [k x n] (row-major, leading dimension ldb) of many GEMMs C = A * B,
// such as a filter multiplied with every tile of an image: float32 is packed once for the
// runtime's GEMM kernel (blas::PackedMatrix), so the tiles and threads share it; other types
// call gemm above each time.
template <typename C>
class RightOperand {
 public:
  RightOperand(const C* b, int64_t ldb, int64_t k, int64_t n) : b_(b), ldb_(ldb), k_(k), n_(n) {
    if constexpr (std::is_same_v<C, float>) {
      if (k > 0 && n > 0) packed_.emplace(false, b, ldb, k, n);
    }
  }
  // C [m x n] = A [m x k] * B (+ beta * C), then ep per column when given (float32 only).
  void gemm_into(int64_t m, const C* a, int64_t lda, C* c, int64_t ldc, C beta = C(0),
                 const blas::ColumnEpilogue* ep = nullptr) const {
    if (m == 0 || n_ == 0) return;
    if constexpr (std::is_same_v<C, float>) {
      if (packed_) {
        blas::gemm(false, m, 1.0f, a, lda, *packed_, beta, c, ldc, ep);
        return;
      }
    }
    gemm<C>(false, false, m, n_, k_, a, lda, b_, ldb_, beta, c, ldc);
    if constexpr (std::is_same_v<C, float>) {
      if (ep != nullptr) blas::apply_column_epilogue(*ep, m, 0, n_, c, ldc);  // (no depth: nothing was packed)
    }
  }

 private:
  const C* b_;
  int64_t ldb_, k_, n_;
  std::optional<blas::PackedMatrix> packed_;
};

// ---------------------------------------------------------------------------- tap sums

// Most taps (window positions) tap_sum takes; larger windows go through the generic loops.
constexpr int kMaxTaps = 64;

// out[c] = scale * sum over t < taps of src[t][c] * (weights ? weights[t][c] : 1), for c < channels,
// added in tap order from tap 0 (taps >= 1): one output pixel of a depthwise convolution
// (weights) or an average pool (no weights, scale 1 / count), a float32 AddN (scale 1).
// Channels are summed 32 at a time in vector registers, one store per output (tap_sum.cc; an
// AVX2 clone is chosen at load time).
void tap_sum(float* out, const float* const* src, const float* const* weights, int taps, int64_t channels, float scale);

// out[i] = max over t < taps of src[t][i], a NaN winning (max pooling); taps >= 1.
void tap_max(float* out, const float* const* src, int taps, int64_t len);

// out[i] = sum over t < taps of src[t][i] * weights[t * wstride + i % period], for i < len: a
// row of depthwise-convolution output pixels (len = pixels * C) whose tap weights repeat every
// `period` values (a multiple of C and of 8, at least 32). Each weight row holds period + 24
// values (the period, then its first 24 again), so the weights stay in L1 however long the row.
void tap_sum_periodic(float* out, const float* const* src, const float* weights, int64_t wstride, int64_t period,
                      int taps, int64_t len);

}  // namespace nn
}  // namespace opforge
