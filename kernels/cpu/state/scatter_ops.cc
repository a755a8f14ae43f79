// Sparse updates of ref variables: ScatterUpdate/Add/Sub/Mul/Div/Min/Max (rows of dim 0 named by
// indices) and ScatterNdUpdate/Add/Sub (slices named by the last dimension of indices); and their
// value-semantics siblings TensorScatterUpdate/Add/Sub/Min/Max (a copy of `tensor` with the
// slices updated), which share the ScatterNd* index validation.
//
// Every index is checked before anything is written, so a bad index leaves the variable as it
// was. The rows are updated under the variable's lock: in place when nothing else holds its
// buffer, else in a copy of the old value (readers holding the old value keep it).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/array/tensor_scatter_add.h"
#include "opforge/ops/array/tensor_scatter_max.h"
#include "opforge/ops/array/tensor_scatter_min.h"
#include "opforge/ops/array/tensor_scatter_sub.h"
#include "opforge/ops/array/tensor_scatter_update.h"
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
  } else if (t.dtype() == DType::kInt16) {
    const int16_t* p = t.data<int16_t>();
    std::copy(p, p + t.num_elements(), out.begin());
  } else {
    const int64_t* p = t.data<int64_t>();
    std::copy(p, p + t.num_elements(), out.begin());
  }
  return out;
}

// The update of `v` by `updates` at element offsets `offsets` (one per slice of `slice` elements).
// `out` (a copy of the old value) with each slice combined; a negative offset (an index row
// skipped under bad_indices_policy IGNORE) drops its update.
template <typename T>
void combine_slices(T* out, const std::vector<int64_t>& offsets, int64_t slice, const Tensor& updates, Combine how) {
  const T* upd = updates.data<T>();
  for (size_t i = 0; i < offsets.size(); ++i) {  // in order: duplicates combine (or the last wins)
    if (offsets[i] < 0) continue;
    T* dst = out + offsets[i];
    const T* src = upd + static_cast<int64_t>(i) * slice;
    for (int64_t k = 0; k < slice; ++k) dst[k] = combine<T>(how, dst[k], src[k]);
  }
}

template <typename T>
Status apply(Variable* v, KernelContext& ctx, const std::vector<int64_t>& offsets, int64_t slice, const Tensor& updates,
             Combine how) {
  // In place where it may be (cpu::writable_in_place, as the Apply* kernels): a sparse update of
  // an embedding then touches its rows only, not a copy of the whole table (word2vec's
  // [50000, 128]: 2.5 ms a step).
  if (cpu::writable_in_place(v->value)) {
    combine_slices<T>(const_cast<T*>(v->value.data<T>()), offsets, slice, updates, how);
    ctx.set_ref_output(0, v);
    return Status::OK();
  }
  Tensor next;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(v->value.dtype(), v->value.shape(), &next));
  if (next.nbytes()) std::memcpy(next.raw_data(), v->value.raw_data(), next.nbytes());
  combine_slices<T>(next.data<T>(), offsets, slice, updates, how);
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

// TensorFlow 2.21's bad_indices_policy: "", "DEFAULT" and "ERROR" refuse an out-of-range index,
// "IGNORE" skips that index row. Sets *ignore.
Status bad_indices_policy(KernelContext& ctx, const std::string& policy, bool* ignore) {
  *ignore = policy == "IGNORE";
  if (*ignore || policy.empty() || policy == "DEFAULT" || policy == "ERROR") return Status::OK();
  return ctx.error("unknown bad_indices_policy '", policy, "' (\"\", DEFAULT, ERROR or IGNORE)");
}

// ScatterNd* and TensorScatter*: checks indices and updates against `ref` (the shape updated)
// and sets the element offset of each slice (one per position of indices.shape[:-1]; -1 for a
// row skipped under `ignore`) and the slice size.
Status nd_slices(KernelContext& ctx, const Shape& ref, const Tensor& indices, const Tensor& updates, bool ignore,
                 std::vector<int64_t>* offsets, int64_t* slice) {
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
  *slice = 1;
  for (int d = static_cast<int>(k); d < ref.rank(); ++d) *slice *= ref.dim(d);
  const std::vector<int64_t> idx = read_indices(indices);
  // One update per position of indices.shape[:-1] (also when k == 0: each replaces all of ref).
  size_t n = 1;
  for (int d = 0; d + 1 < indices.rank(); ++d) n *= static_cast<size_t>(indices.shape().dim(d));
  offsets->assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t x = idx[i * static_cast<size_t>(k) + static_cast<size_t>(d)];
      if ((x < 0 || x >= ref.dim(static_cast<int>(d))) && ignore) {
        off = -1;
        break;
      }
      if (x < 0 || x >= ref.dim(static_cast<int>(d))) {
        return ctx.error("indices[", i, "] = [", x, " at position ", d, "] does not index into shape ",
                         ref.to_string());
      }
      off = off * ref.dim(static_cast<int>(d)) + x;
    }
    (*offsets)[i] = off < 0 ? -1 : off * *slice;
  }
  return Status::OK();
}

// ref[indices[i, :]] op= updates[i, ...]
template <typename T>
Status scatter_nd(KernelContext& ctx, const Tensor& indices, const Tensor& updates, Combine how) {
  Variable* v = nullptr;
  OPF_RETURN_IF_ERROR(ref_variable(ctx, &v));
  std::lock_guard<std::mutex> lock(v->mu);
  OPF_RETURN_IF_ERROR(check_initialized(ctx, *v));
  std::vector<int64_t> offsets;
  int64_t slice = 0;
  OPF_RETURN_IF_ERROR(nd_slices(ctx, v->value.shape(), indices, updates, false, &offsets, &slice));
  return apply<T>(v, ctx, offsets, slice, updates, how);
}

// output = tensor with output[indices[i, :]] op= updates[i, ...]; everything is checked first.
template <typename T, typename A>
Status tensor_scatter(A& a, Combine how) {
  bool ignore = false;
  OPF_RETURN_IF_ERROR(bad_indices_policy(a.ctx, a.bad_indices_policy, &ignore));
  std::vector<int64_t> offsets;
  int64_t slice = 0;
  OPF_RETURN_IF_ERROR(nd_slices(a.ctx, a.tensor.shape(), a.indices, a.updates, ignore, &offsets, &slice));
  if (a.output.nbytes()) std::memcpy(a.output.raw_data(), a.tensor.raw_data(), a.output.nbytes());
  combine_slices<T>(a.output.template data<T>(), offsets, slice, a.updates, how);
  return Status::OK();
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

#define OPF_TENSOR_SCATTER_KERNEL(Op, how)     \
  template <typename T>                        \
  Status Op##Cpu(ops::Op##Args& a) {           \
    return tensor_scatter<T>(a, Combine::how); \
  }

OPF_TENSOR_SCATTER_KERNEL(TensorScatterUpdate, kAssign)
OPF_TENSOR_SCATTER_KERNEL(TensorScatterAdd, kAdd)
OPF_TENSOR_SCATTER_KERNEL(TensorScatterSub, kSub)
OPF_TENSOR_SCATTER_KERNEL(TensorScatterMin, kMin)
OPF_TENSOR_SCATTER_KERNEL(TensorScatterMax, kMax)

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
OPFORGE_REGISTER_KERNEL(TensorScatterUpdate, CPU, TensorScatterUpdateCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(TensorScatterAdd, CPU, TensorScatterAddCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(TensorScatterSub, CPU, TensorScatterSubCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(TensorScatterMin, CPU, TensorScatterMinCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(TensorScatterMax, CPU, TensorScatterMaxCpu, OPF_NUMERIC)

}  // namespace opforge
