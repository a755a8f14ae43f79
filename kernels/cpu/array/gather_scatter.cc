// Indexing ops: GatherV2, GatherNd, ScatterNd, UnsortedSegmentSum, OneHot, Where.
//
// Index values are checked before anything is read or written: an index out of range is an
// InvalidArgumentError naming the op and the offending position, never an out-of-bounds access.
#include <algorithm>
#include <atomic>
#include <string>

#include "cpu/array/array_util.h"
#include "opforge/ops/array/gather_nd.h"
#include "opforge/ops/array/gather_v2.h"
#include "opforge/ops/array/one_hot.h"
#include "opforge/ops/array/scatter_nd.h"
#include "opforge/ops/array/unsorted_segment_sum.h"
#include "opforge/ops/array/where.h"
#include "ops/array.h"

namespace opforge {
namespace {

using array::Elem;
using cpu::compute_t;

// Calls fn(I{}) with I the C++ type of an integer index dtype.
template <typename F>
bool with_index_type(DType dt, F&& fn) {
  switch (dt) {
    case DType::kInt16:
      fn(int16_t{});
      return true;
    case DType::kInt32:
      fn(int32_t{});
      return true;
    case DType::kInt64:
      fn(int64_t{});
      return true;
    case DType::kInt8:
      fn(int8_t{});
      return true;
    case DType::kUInt8:
      fn(uint8_t{});
      return true;
    default:
      return false;
  }
}

int64_t prod(const std::vector<int64_t>& d, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e && i < d.size(); ++i) p *= d[i];
  return p;
}

// a + b without signed-overflow UB (integers wrap; 16-bit floats add in float).
template <typename T>
T add_values(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(static_cast<compute_t<T>>(a) + static_cast<compute_t<T>>(b));
  }
}

// ------------------------------------------------------------------------------ GatherV2

using array_semantics::GatherDims;

// src: params' elements, dst: the output's (E is std::string for a string tensor).
template <typename E, typename I>
Status gather(KernelContext& ctx, const Tensor& params, const Tensor& indices, const GatherDims& g, const E* src,
              E* dst) {
  const auto& pd = params.shape().dims();
  const auto& id = indices.shape().dims();
  const int64_t B = prod(pd, 0, static_cast<size_t>(g.batch_dims));
  const int64_t O = prod(pd, static_cast<size_t>(g.batch_dims), static_cast<size_t>(g.axis));
  const int64_t A = pd[static_cast<size_t>(g.axis)];
  const int64_t In = prod(pd, static_cast<size_t>(g.axis) + 1, pd.size());
  const int64_t N = prod(id, static_cast<size_t>(g.batch_dims), id.size());
  const I* idx = indices.data<I>();
  const int64_t total_idx = indices.num_elements();
  const int64_t rows = B * O * N;
  // Every index is checked right before its row is read; a bad one is skipped (nothing is
  // read out of bounds) and reported below, and the call fails as a whole.
  std::atomic<bool> bad{false};
  if (rows > 0 && In > 0 && A > 0) {
    if (In == 1 && B * O == 1) {  // gathering single elements: a plain indexed load
      parallel_for(N, cpu::kGrain, [&](int64_t b, int64_t e) {
        bool local_bad = false;
        for (int64_t n = b; n < e; ++n) {
          const int64_t a = static_cast<int64_t>(idx[n]);
          const bool ok = a >= 0 && a < A;
          local_bad |= !ok;
          dst[n] = src[ok ? a : 0];
        }
        if (local_bad) bad = true;
      });
    } else {
      parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / In), [&](int64_t b, int64_t e) {
        int64_t n = b % N, bo = b / N;  // decomposed once per chunk, then stepped
        for (int64_t r = b; r < e; ++r) {
          const int64_t a = static_cast<int64_t>(idx[(bo / O) * N + n]);
          if (a < 0 || a >= A) {
            bad = true;
          } else {
            const E* s = src + (bo * A + a) * In;
            E* d = dst + r * In;
            if (In == 1)
              *d = *s;
            else
              std::copy(s, s + In, d);
          }
          if (++n == N) {
            n = 0;
            ++bo;
          }
        }
      });
    }
  } else {
    bad = true;  // nothing to read (or a 0-size axis): check the indices alone
  }
  for (int64_t k = 0; bad && k < total_idx; ++k) {  // name the first bad index
    const int64_t v = static_cast<int64_t>(idx[k]);
    if (v < 0 || v >= A) {
      return ctx.error("indices[", k, "] = ", v, " is not in [0, ", A, ")");
    }
  }
  return Status::OK();
}

template <typename T>
Status GatherV2Cpu(ops::GatherV2Args& a) {
  // The shape function has validated axis and batch_dims; recompute them here.
  const Shape& p = a.params.shape();
  std::vector<int64_t> axis_v;
  OPF_RETURN_IF_ERROR(array::read_ints(a.axis, &axis_v));
  GatherDims g;
  int64_t bd = a.batch_dims < 0 ? a.batch_dims + a.indices.rank() : a.batch_dims;
  g.batch_dims = static_cast<int>(bd);
  g.axis = static_cast<int>(axis_v[0] < 0 ? axis_v[0] + p.rank() : axis_v[0]);
  Status st;
  if constexpr (std::is_same_v<T, StringTag>) {  // tf.train.slice_input_producer gathers file names
    const Shape& shape = a.ctx.output_shape(0);  // (a string output is the kernel's to make)
    std::vector<std::string> out(static_cast<size_t>(shape.num_elements()));
    with_index_type(a.indices.dtype(), [&](auto i) {
      st = gather<std::string, decltype(i)>(a.ctx, a.params, a.indices, g, a.params.strings()->data(), out.data());
    });
    OPF_RETURN_IF_ERROR(st);
    return Tensor::FromStrings(shape, std::move(out), &a.output);
  } else {
    using E = Elem<T>;
    with_index_type(a.indices.dtype(), [&](auto i) {
      st = gather<E, decltype(i)>(a.ctx, a.params, a.indices, g, static_cast<const E*>(a.params.raw_data()),
                                  static_cast<E*>(a.output.raw_data()));
    });
    return st;
  }
}

// ------------------------------------------------------------------------------ GatherNd

// TensorFlow 2.21's bad_indices_policy: "", "DEFAULT" and "ERROR" refuse an out-of-range index
// (its CPU behaviour), "IGNORE" skips that index row. Sets *ignore.
Status bad_indices_policy(KernelContext& ctx, const std::string& policy, bool* ignore) {
  *ignore = policy == "IGNORE";
  if (*ignore || policy.empty() || policy == "DEFAULT" || policy == "ERROR") return Status::OK();
  return ctx.error("unknown bad_indices_policy '", policy, "' (\"\", DEFAULT, ERROR or IGNORE)");
}

// Element offsets of the first K dims (in units of the inner slice), checking every index tuple;
// with `ignore`, a row with an out-of-range index gets offset -1 instead of an error.
template <typename I>
Status nd_offsets(KernelContext& ctx, const Tensor& indices, const std::vector<int64_t>& dims, bool ignore,
                  std::vector<int64_t>* offs) {
  const int64_t K = indices.dim(indices.rank() - 1);
  const int64_t n_rows = prod(indices.shape().dims(), 0, static_cast<size_t>(indices.rank() - 1));
  offs->assign(static_cast<size_t>(n_rows), 0);
  const I* idx = indices.data<I>();
  for (int64_t n = 0; n < n_rows; ++n) {
    int64_t off = 0;
    for (int64_t k = 0; k < K; ++k) {
      const int64_t v = static_cast<int64_t>(idx[n * K + k]);
      const int64_t d = dims[static_cast<size_t>(k)];
      if ((v < 0 || v >= d) && ignore) {
        off = -1;
        break;
      }
      if (v < 0 || v >= d) {
        std::string where;
        for (int64_t j = 0; j < K; ++j) where += (j ? ", " : "") + std::to_string(static_cast<int64_t>(idx[n * K + j]));
        return ctx.error("index [", where, "] (row ", n, " of indices) is out of range for dimension ", k, " of size ",
                         d);
      }
      off = off * d + v;
    }
    (*offs)[static_cast<size_t>(n)] = off;
  }
  return Status::OK();
}

template <typename E>
void gather_rows(const E* src, E* dst, const std::vector<int64_t>& offs, int64_t In) {
  const int64_t rows = static_cast<int64_t>(offs.size());
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / In), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      if (offs[r] < 0) {  // an ignored bad index: zeros (empty strings)
        std::fill(dst + r * In, dst + (r + 1) * In, E());
      } else {
        std::copy(src + offs[r] * In, src + (offs[r] + 1) * In, dst + r * In);
      }
    }
  });
}

template <typename T>
Status GatherNdCpu(ops::GatherNdArgs& a) {
  const auto& pd = a.params.shape().dims();
  const int64_t K = a.indices.dim(a.indices.rank() - 1);
  const int64_t In = prod(pd, static_cast<size_t>(K), pd.size());
  bool ignore;
  OPF_RETURN_IF_ERROR(bad_indices_policy(a.ctx, a.bad_indices_policy, &ignore));
  std::vector<int64_t> offs;
  Status st;
  with_index_type(a.indices.dtype(),
                  [&](auto i) { st = nd_offsets<decltype(i)>(a.ctx, a.indices, pd, ignore, &offs); });
  OPF_RETURN_IF_ERROR(st);
  if constexpr (std::is_same_v<T, StringTag>) {
    const Shape& shape = a.ctx.output_shape(0);
    std::vector<std::string> out(static_cast<size_t>(shape.num_elements()));
    if (In > 0) gather_rows(a.params.strings()->data(), out.data(), offs, In);
    return Tensor::FromStrings(shape, std::move(out), &a.output);
  } else {
    using E = Elem<T>;
    if (In > 0) gather_rows(static_cast<const E*>(a.params.raw_data()), static_cast<E*>(a.output.raw_data()), offs, In);
    return Status::OK();
  }
}

// ------------------------------------------------------------------------------ ScatterNd

template <typename T>
Status ScatterNdCpu(ops::ScatterNdArgs& a) {
  const auto& od = a.output.shape().dims();
  const int64_t K = a.indices.dim(a.indices.rank() - 1);
  const int64_t In = prod(od, static_cast<size_t>(K), od.size());
  bool ignore;
  OPF_RETURN_IF_ERROR(bad_indices_policy(a.ctx, a.bad_indices_policy, &ignore));
  std::vector<int64_t> offs;
  Status st;
  with_index_type(a.indices.dtype(),
                  [&](auto i) { st = nd_offsets<decltype(i)>(a.ctx, a.indices, od, ignore, &offs); });
  OPF_RETURN_IF_ERROR(st);
  T* out = a.output.data<T>();
  if (a.output.nbytes()) std::memset(out, 0, a.output.nbytes());
  const T* up = a.updates.template data<T>();
  for (size_t r = 0; r < offs.size(); ++r) {
    if (offs[r] < 0) continue;  // an ignored bad index: its update is dropped
    T* d = out + offs[r] * In;
    const T* s = up + static_cast<int64_t>(r) * In;
    for (int64_t j = 0; j < In; ++j) d[j] = add_values<T>(d[j], s[j]);
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------ UnsortedSegmentSum

template <typename T>
Status UnsortedSegmentSumCpu(ops::UnsortedSegmentSumArgs& a) {
  const int64_t S = a.output.dim(0);
  const int64_t inner =
      prod(a.data.shape().dims(), static_cast<size_t>(a.segment_ids.rank()), a.data.shape().dims().size());
  std::vector<int64_t> ids;
  OPF_RETURN_IF_ERROR(array::read_ints(a.segment_ids, &ids));
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] >= S) {
      return a.ctx.error("segment_ids[", j, "] = ", ids[j], " is out of range [0, ", S, ")");
    }
  }
  T* out = a.output.data<T>();
  if (a.output.nbytes()) std::memset(out, 0, a.output.nbytes());
  const T* src = a.data.template data<T>();
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] < 0) continue;  // dropped, as in TensorFlow
    T* d = out + ids[j] * inner;
    const T* s = src + static_cast<int64_t>(j) * inner;
    for (int64_t k = 0; k < inner; ++k) d[k] = add_values<T>(d[k], s[k]);
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------ OneHot

template <typename T>
Status OneHotCpu(ops::OneHotArgs& a) {
  const int64_t D = a.depth.scalar<int32_t>();
  const int rank = a.indices.rank();
  const int axis = static_cast<int>(a.axis == -1 ? rank : a.axis);
  const int64_t S = prod(a.indices.shape().dims(), static_cast<size_t>(axis), static_cast<size_t>(rank));
  const int64_t P = prod(a.indices.shape().dims(), 0, static_cast<size_t>(axis));
  const T on = a.on_value.template data<T>()[0], off = a.off_value.template data<T>()[0];
  T* out = a.output.data<T>();
  with_index_type(a.indices.dtype(), [&](auto iv) {
    using I = decltype(iv);
    const I* idx = a.indices.data<I>();
    parallel_for(P, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, S * D)), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const I* src = idx + p * S;
        T* o = out + p * D * S;
        if (S == 1) {  // the depth is the last dim: one row of off values and at most one on
          const int64_t hot = static_cast<int64_t>(src[0]);
          for (int64_t d = 0; d < D; ++d) o[d] = d == hot ? on : off;
          continue;
        }
        for (int64_t d = 0; d < D; ++d, o += S) {
          for (int64_t s = 0; s < S; ++s) o[s] = static_cast<int64_t>(src[s]) == d ? on : off;
        }
      }
    });
  });
  return Status::OK();
}

// ------------------------------------------------------------------------------ Where

using array_semantics::nonzero;

template <typename T>
Status WhereCpu(ops::WhereArgs& a) {
  const T* p = a.input.template data<T>();
  const int r = a.input.rank();
  const auto& dims = a.input.shape().dims();
  int64_t* out = a.index.data<int64_t>();
  const int64_t cap = a.index.dim(0);
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  int64_t k = 0;
  for (int64_t i = 0; i < a.input.num_elements(); ++i) {
    if (nonzero<T>(p[i])) {
      if (k >= cap) return a.ctx.error("input changed while running");  // cannot happen
      for (int d = 0; d < r; ++d) out[k * r + d] = idx[static_cast<size_t>(d)];
      ++k;
    }
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double
#define OPF_NUMERIC uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(GatherV2, CPU, GatherV2Cpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(GatherNd, CPU, GatherNdCpu, OPF_ALL)
// (String outputs cannot be allocated ahead: the kernel makes them.)
OPFORGE_REGISTER_FORWARDING_KERNEL(GatherV2, CPU, GatherV2Cpu, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(GatherNd, CPU, GatherNdCpu, StringTag)
OPFORGE_REGISTER_KERNEL(ScatterNd, CPU, ScatterNdCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(UnsortedSegmentSum, CPU, UnsortedSegmentSumCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(OneHot, CPU, OneHotCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Where, CPU, WhereCpu, OPF_ALL)

}  // namespace opforge
