// Sparse updates of ref variables: ScatterUpdate/Add/Sub/Mul/Div/Min/Max (rows of dim 0 named by
// indices) and ScatterNdUpdate/Add/Sub (slices named by the last dimension of indices).
//
// Every index is checked before anything is written, so a bad index leaves the variable as it
// was. The new value is a copy of the old one with the rows updated (tensors are immutable:
// readers holding the old value keep it), made under the variable's lock.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/state/scatter_add.h"
#include "opforge/ops/state/scatter_div.h"
#include "opforge/ops/state/scatter_max.h"
#include "opforge/ops/state/scatter_min.h"
#include "opforge/ops/state/scatter_mul.h"
#include "opforge/ops/state/scatter_nd_add.h"
#include "opforge/ops/state/scatter_nd_sub.h"
#include "opforge/ops/state/scatter_nd_update.h"
#include "opforge/ops/state/scatter_sub.h"
#include "opforge/ops/state/scatter_update.h"

namespace opforge {
namespace {

enum class Combine { kAssign, kAdd, kSub, kMul, kDiv, kMin, kMax };

template <typename T>
T combine(Combine how, T old, T upd) {
  using C = cpu::compute_t<T>;
  const C a = static_cast<C>(old), b = static_cast<C>(upd);
  switch (how) {
    case Combine::kAssign:
      return upd;
    case Combine::kAdd:
      return static_cast<T>(a + b);
    case Combine::kSub:
      return static_cast<T>(a - b);
    case Combine::kMul:
      return static_cast<T>(a * b);
    case Combine::kDiv:
      if constexpr (std::is_integral_v<C>) {
        return b == 0 ? old : static_cast<T>(a / b);  // checked before: never reached with 0
      } else {
        return static_cast<T>(a / b);
      }
    case Combine::kMin:
      return static_cast<T>(std::min(a, b));
    case Combine::kMax:
      return static_cast<T>(std::max(a, b));
  }
  return upd;
}

std::vector<int64_t> read_indices(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DType::kInt32) {
    const int32_t* p = t.data<int32_t>();
    std::copy(p, p + t.num_elements(), out.begin());
  } else {
    const int64_t* p = t.data<int64_t>();
    std::copy(p, p + t.num_elements(), out.begin());
  }
  return out;
}

// The update of `v` by `updates` at element offsets `offsets` (one per slice of `slice` elements).
template <typename T>
Status apply(Variable* v, KernelContext& ctx, const std::vector<int64_t>& offsets, int64_t slice, const Tensor& updates,
             Combine how) {
  Tensor next;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(v->value.dtype(), v->value.shape(), &next));
  if (next.nbytes()) std::memcpy(next.raw_data(), v->value.raw_data(), next.nbytes());
  T* out = next.data<T>();
  const T* upd = updates.data<T>();
  for (size_t i = 0; i < offsets.size(); ++i) {  // in order: duplicates combine (or the last wins)
    T* dst = out + offsets[i];
    const T* src = upd + static_cast<int64_t>(i) * slice;
    for (int64_t k = 0; k < slice; ++k) dst[k] = combine<T>(how, dst[k], src[k]);
  }
  v->value = std::move(next);
  ctx.set_ref_output(0, v);
  return Status::OK();
}

Status ref_variable(KernelContext& ctx, Variable** out) {
  Variable* v = ctx.ref_input(0);
  if (v == nullptr) return ctx.error("input 'ref' must be a variable");
  *out = v;
  return Status::OK();
}

// (Under the variable's lock.)
Status check_initialized(KernelContext& ctx, const Variable& v) {
  if (!v.initialized) {
    return Status(Code::kFailedPrecondition, ctx.op().name + ": Attempting to use uninitialized value " + v.name);
  }
  return Status::OK();
}

template <typename T>
bool has_zero(const Tensor& t) {
  if constexpr (std::is_integral_v<T>) {
    const T* p = t.data<T>();
    return std::any_of(p, p + t.num_elements(), [](T x) { return x == 0; });
  } else {
    return false;
  }
}

// ref[indices[i], ...] op= updates[i, ...]
template <typename T>
Status scatter(KernelContext& ctx, const Tensor& indices, const Tensor& updates, Combine how) {
  Variable* v = nullptr;
  OPF_RETURN_IF_ERROR(ref_variable(ctx, &v));
  std::lock_guard<std::mutex> lock(v->mu);
  OPF_RETURN_IF_ERROR(check_initialized(ctx, *v));
  const Shape& ref = v->value.shape();
  if (ref.rank() < 1) return ctx.error("ref must be at least 1-D, got shape ", ref.to_string());
  std::vector<int64_t> want = indices.shape().dims();
  want.insert(want.end(), ref.dims().begin() + 1, ref.dims().end());
  if (updates.shape().dims() != want) {
    return ctx.error("updates must have shape indices.shape + ref.shape[1:] = ", Shape(want).to_string(), ", got ",
                     updates.shape().to_string());
  }
  if (how == Combine::kDiv && has_zero<T>(updates)) return ctx.error("integer division by zero");
  const int64_t rows = ref.dim(0), slice = rows > 0 ? ref.num_elements() / rows : 0;
  std::vector<int64_t> offsets = read_indices(indices);
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] < 0 || offsets[i] >= rows) {
      return ctx.error("indices[", i, "] = ", offsets[i], " is not in [0, ", rows, ")");
    }
    offsets[i] *= slice;
  }
  return apply<T>(v, ctx, offsets, slice, updates, how);
}

// ref[indices[i, :]] op= updates[i, ...]
template <typename T>
Status scatter_nd(KernelContext& ctx, const Tensor& indices, const Tensor& updates, Combine how) {
  Variable* v = nullptr;
  OPF_RETURN_IF_ERROR(ref_variable(ctx, &v));
  std::lock_guard<std::mutex> lock(v->mu);
  OPF_RETURN_IF_ERROR(check_initialized(ctx, *v));
  const Shape& ref = v->value.shape();
  if (indices.rank() < 1) return ctx.error("indices must be at least 1-D, got shape ", indices.shape().to_string());
  const int64_t k = indices.shape().dim(indices.rank() - 1);
  if (k > ref.rank()) {
    return ctx.error("the last dimension of indices (", k, ") exceeds the rank of ref (", ref.rank(), ")");
  }
  std::vector<int64_t> want(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
  want.insert(want.end(), ref.dims().begin() + k, ref.dims().end());
  if (updates.shape().dims() != want) {
    return ctx.error("updates must have shape indices.shape[:-1] + ref.shape[indices.shape[-1]:] = ",
                     Shape(want).to_string(), ", got ", updates.shape().to_string());
  }
  int64_t slice = 1;
  for (int d = static_cast<int>(k); d < ref.rank(); ++d) slice *= ref.dim(d);
  const std::vector<int64_t> idx = read_indices(indices);
  // One update per position of indices.shape[:-1] (also when k == 0: each replaces all of ref).
  size_t n = 1;
  for (int d = 0; d + 1 < indices.rank(); ++d) n *= static_cast<size_t>(indices.shape().dim(d));
  std::vector<int64_t> offsets(n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t x = idx[i * static_cast<size_t>(k) + static_cast<size_t>(d)];
      if (x < 0 || x >= ref.dim(static_cast<int>(d))) {
        return ctx.error("indices[", i, "] = [", x, " at position ", d, "] does not index into shape ",
                         ref.to_string());
      }
      off = off * ref.dim(static_cast<int>(d)) + x;
    }
    offsets[i] = off * slice;
  }
  return apply<T>(v, ctx, offsets, slice, updates, how);
}

#define OPF_SCATTER_KERNEL(Op, fn, how)                      \
  template <typename T>                                      \
  Status Op##Cpu(ops::Op##Args& a) {                         \
    return fn<T>(a.ctx, a.indices, a.updates, Combine::how); \
  }

OPF_SCATTER_KERNEL(ScatterUpdate, scatter, kAssign)
OPF_SCATTER_KERNEL(ScatterAdd, scatter, kAdd)
OPF_SCATTER_KERNEL(ScatterSub, scatter, kSub)
OPF_SCATTER_KERNEL(ScatterMul, scatter, kMul)
OPF_SCATTER_KERNEL(ScatterDiv, scatter, kDiv)
OPF_SCATTER_KERNEL(ScatterMin, scatter, kMin)
OPF_SCATTER_KERNEL(ScatterMax, scatter, kMax)
OPF_SCATTER_KERNEL(ScatterNdUpdate, scatter_nd, kAssign)
OPF_SCATTER_KERNEL(ScatterNdAdd, scatter_nd, kAdd)
OPF_SCATTER_KERNEL(ScatterNdSub, scatter_nd, kSub)

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double
#define OPF_NUMERIC uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double
#define OPF_REAL bfloat16, half, float, double, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterUpdate, CPU, ScatterUpdateCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterAdd, CPU, ScatterAddCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterSub, CPU, ScatterSubCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterMul, CPU, ScatterMulCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterDiv, CPU, ScatterDivCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterMin, CPU, ScatterMinCpu, OPF_REAL)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterMax, CPU, ScatterMaxCpu, OPF_REAL)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterNdUpdate, CPU, ScatterNdUpdateCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterNdAdd, CPU, ScatterNdAddCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(ScatterNdSub, CPU, ScatterNdSubCpu, OPF_NUMERIC)

}  // namespace opforge
