// GEMM inside the runtime's thread budget.
//
// OpenBLAS runs single-threaded (its own thread pool would fight the runtime's for the cores
// and spin while it waits); a GEMM big enough to pay for threads is cut into row or column
// blocks that the runtime's pool runs, each with a single-threaded OpenBLAS call. Inside a
// parallel region (a kernel already split over the threads) the call runs inline.
#pragma once

#include <cstdint>
#include <memory>

namespace opforge {
namespace blas {

// C = alpha * op(A) * op(B) + beta * C, row-major. Dimensions must fit OpenBLAS's 32-bit ints.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
          const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// What a GEMM with a prepared B applies to each value of C as it writes it, per column j:
// act(c * scale[j] + shift[j]) (scale null: 1; act a ColumnAct) — a fused convolution's bias
// or batch norm and activation, with no second pass over C.
struct ColumnEpilogue {
  const float* scale = nullptr;
  const float* shift = nullptr;
  int act = 0;
};

// A ColumnEpilogue's activation: none, Relu, Relu6, or hard-swish v * (Relu6(v + 3) * (1/6)).
enum ColumnAct : int { kActNone = 0, kActRelu = 1, kActRelu6 = 2, kActHardSwish = 3 };

// act(v), as the register forms compute it (max and min that keep a NaN operand: NaN stays
// NaN). The scalar form of the epilogue, for the passes and kernels without registers of their
// own; act is a compile-time constant where it is inlined into a kernel's loop.
inline float column_activate(float v, int act) {
  if (act == kActHardSwish) {
    float g = v + 3.0f;
    g = g < 0.0f ? 0.0f : g;
    g = g > 6.0f ? 6.0f : g;
    return v * (g * (1.0f / 6.0f));
  }
  if (act >= kActRelu) v = v < 0.0f ? 0.0f : v;
  if (act == kActRelu6) v = v > 6.0f ? 6.0f : v;
  return v;
}

// C[i][j] = act(C[i][j] * scale[j] + shift[j]) for rows [0, m) and columns [col0, col1): the
// epilogue as a pass of its own, where a product does not apply it as it stores (OpenBLAS, no
// depth). Single-threaded.
void apply_column_epilogue(const ColumnEpilogue& ep, int64_t m, int64_t col0, int64_t col1, float* c, int64_t ldc);

// A float32 op(B) [k x n] prepared once for many products with it (a convolution's filter,
// multiplied with every tile of its image; a Winograd-transformed filter, with every chunk of
// tiles): packed for the runtime's AVX-512 kernel, so no product packs it again and threads
// share it. With OpenBLAS as the kernel it keeps a pointer to B instead, which must then
// outlive it. Packing is split over the threads (inline inside a parallel region).
class PackedMatrix {
 public:
  PackedMatrix(bool trans_b, const float* b, int64_t ldb, int64_t k, int64_t n);
  int64_t rows() const { return k_; }
  int64_t cols() const { return n_; }

 private:
  friend void gemm(bool, int64_t, float, const float*, int64_t, const PackedMatrix&, float, float*, int64_t,
                   const ColumnEpilogue*);
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, Free> packed_;  // null: B is used as it is
  const float* b_;
  bool tb_;
  int64_t ldb_, k_, n_;
};

// C = alpha * op(A) * B + beta * C with B prepared above (C is m x B.cols(), row-major),
// split over the threads as gemm above, then ep applied to C when given.
void gemm(bool trans_a, int64_t m, float alpha, const float* a, int64_t lda, const PackedMatrix& b, float beta,
          float* c, int64_t ldc, const ColumnEpilogue* ep = nullptr);

// The float32 GEMM kernel: "avx512" (the runtime's own, on CPUs with AVX-512; the default
// there), or "openblas". OPFORGE_CPU_GEMM=openblas in the environment starts with OpenBLAS.
// set_sgemm_kernel returns false (and changes nothing) for a name this CPU cannot run.
const char* sgemm_kernel();
bool set_sgemm_kernel(const char* name);
// Whether float32 products run on the runtime's own AVX-512 kernel now (sgemm_kernel() ==
// "avx512"): the convolutions' row-gathered products (sgemm_avx512.h) need it.
bool sgemm_avx512_active();
// Pins OpenBLAS to one thread (idempotent; the thread pool calls it when it starts).
void use_single_thread();

}  // namespace blas
}  // namespace opforge
