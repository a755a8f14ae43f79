// 3-D (volumetric) convolution and pooling, NDHWC: Conv3D, Conv3DBackpropInputV2,
// Conv3DBackpropFilterV2, MaxPool3D, MaxPool3DGrad, AvgPool3D, AvgPool3DGrad (Keras' Conv3D,
// MaxPooling3D, AveragePooling3D, UpSampling3D's gradients). TensorFlow's CPU kernels take only
// NDHWC too; NCDHW is refused with its message.
//
// The convolution is im2col + GEMM over tiles of output voxels (a patch row is the
// [kd, kh, kw, cin] window of one output voxel, which the [kd*kh*kw*cin, cout] filter
// multiplies), tiles spread over the threads; the input gradient multiplies the output
// gradient by the transposed filter and adds the patch rows back (col2im), the filter
// gradient sums patch^T x output-gradient over the tiles. 16-bit floats compute in float.
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/array/array_util.h"
#include "cpu/nn/nn_util.h"
#include "opforge/ops/nn/avg_pool3d.h"
#include "opforge/ops/nn/avg_pool3d_grad.h"
#include "opforge/ops/nn/conv3d.h"
#include "opforge/ops/nn/conv3d_backprop_filter_v2.h"
#include "opforge/ops/nn/conv3d_backprop_input_v2.h"
#include "opforge/ops/nn/max_pool3d.h"
#include "opforge/ops/nn/max_pool3d_grad.h"
#include "opforge/parallel.h"
#include "ops/nn.h"

namespace opforge {
namespace {

using nn::acc_t;
using nn_semantics::Window3;

using nn_semantics::check_list5;

using nn_semantics::window3d;

// The shape functions of these ops are op semantics: runtime/ops/nn_conv.cc.

// ---- data in the compute type

template <typename T, typename C = acc_t<T>>
std::vector<C> to_compute(const Tensor& t) {
  const T* p = t.data<T>();
  std::vector<C> out(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(p[i]);
  return out;
}

template <typename T, typename C>
void from_compute(const std::vector<C>& v, Tensor& t) {
  T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
}

// The input coordinates a window tap reads: for output voxel (z, y, x) and tap (a, b, e).
// Calls fn(tap index, input voxel index or -1 for padding) for every tap.
template <typename F>
void for_taps(const Window3& w, int64_t oz, int64_t oy, int64_t ox, F fn) {
  int64_t t = 0;
  for (int64_t a = 0; a < w.d[0].k; ++a) {
    const int64_t iz = oz * w.d[0].s - w.d[0].pad_before + a * w.d[0].d;
    for (int64_t b = 0; b < w.d[1].k; ++b) {
      const int64_t iy = oy * w.d[1].s - w.d[1].pad_before + b * w.d[1].d;
      for (int64_t e = 0; e < w.d[2].k; ++e, ++t) {
        const int64_t ix = ox * w.d[2].s - w.d[2].pad_before + e * w.d[2].d;
        const bool inside = iz >= 0 && iz < w.d[0].in && iy >= 0 && iy < w.d[1].in && ix >= 0 && ix < w.d[2].in;
        fn(t, inside ? (iz * w.d[1].in + iy) * w.d[2].in + ix : int64_t{-1});
      }
    }
  }
}

// Output voxel index p within one batch element -> (z, y, x).
inline void unflatten(const Window3& w, int64_t p, int64_t* z, int64_t* y, int64_t* x) {
  *x = p % w.d[2].out;
  *y = (p / w.d[2].out) % w.d[1].out;
  *z = p / (w.d[2].out * w.d[1].out);
}

// Patch rows [p0, p1) of batch element n: row r is output voxel p0 + r, K = taps * c values.
template <typename C>
void im2col3(const C* in, const Window3& w, int64_t n, int64_t p0, int64_t p1, C* col) {
  const int64_t c = w.c, k = w.taps() * c;
  const C* base = in + n * w.in_voxels() * c;
  for (int64_t p = p0; p < p1; ++p) {
    int64_t z, y, x;
    unflatten(w, p, &z, &y, &x);
    C* row = col + (p - p0) * k;
    for_taps(w, z, y, x, [&](int64_t t, int64_t v) {
      if (v < 0)
        std::fill(row + t * c, row + (t + 1) * c, C(0));
      else
        std::copy(base + v * c, base + (v + 1) * c, row + t * c);
    });
  }
}

template <typename C>
void col2im3(const C* col, const Window3& w, int64_t n, int64_t p0, int64_t p1, C* dx) {
  const int64_t c = w.c, k = w.taps() * c;
  C* base = dx + n * w.in_voxels() * c;
  for (int64_t p = p0; p < p1; ++p) {
    int64_t z, y, x;
    unflatten(w, p, &z, &y, &x);
    const C* row = col + (p - p0) * k;
    for_taps(w, z, y, x, [&](int64_t t, int64_t v) {
      if (v < 0) return;
      for (int64_t j = 0; j < c; ++j) base[v * c + j] += row[t * c + j];
    });
  }
}

// Output voxels per patch tile: about 256 KiB of patch matrix.
int64_t tile_voxels(const Window3& w, size_t elem) {
  const int64_t row = std::max<int64_t>(1, w.taps() * w.c) * static_cast<int64_t>(elem);
  return std::max<int64_t>(1, (int64_t{256} << 10) / row);
}

Status conv_window(const std::string& op, const Shape& input, const Shape& filter, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& dilations, const std::string& padding, const std::string& format,
                   Window3* w) {
  if (filter.rank() != 5)
    return errors::InvalidArgument(op, ": filter must be 5-dimensional, got shape ", filter.to_string());
  OPF_RETURN_IF_ERROR(
      window3d(op, input, {filter.dim(0), filter.dim(1), filter.dim(2)}, strides, dilations, padding, format, w));
  if (w->c != filter.dim(3)) {
    return errors::InvalidArgument(op, ": input depth ", w->c, " does not match the filter's in_channels ",
                                   filter.dim(3), " (grouped 3-D convolutions are not supported)");
  }
  return Status::OK();
}

template <typename T>
Status Conv3DCpu(ops::Conv3DArgs& a) {
  using C = acc_t<T>;
  Window3 w;
  OPF_RETURN_IF_ERROR(
      conv_window("Conv3D", a.input.shape(), a.filter.shape(), a.strides, a.dilations, a.padding, a.data_format, &w));
  const int64_t co = a.filter.dim(4), k = w.taps() * w.c, per = w.out_voxels();
  if (w.n * per * co == 0) return Status::OK();
  // float and double compute in place; 16-bit floats through float copies.
  constexpr bool kSame = std::is_same_v<T, C>;
  std::vector<C> in_c, filt_c, out_c;
  if constexpr (!kSame) {
    in_c = to_compute<T>(a.input);
    filt_c = to_compute<T>(a.filter);
    out_c.resize(static_cast<size_t>(w.n * per * co));
  }
  const C* in = kSame ? reinterpret_cast<const C*>(a.input.template data<T>()) : in_c.data();
  const C* filt = kSame ? reinterpret_cast<const C*>(a.filter.template data<T>()) : filt_c.data();
  C* out = kSame ? reinterpret_cast<C*>(a.output.template data<T>()) : out_c.data();
  const int64_t tile = tile_voxels(w, sizeof(C));
  const int64_t tiles_per = (per + tile - 1) / tile;
  parallel_for(w.n * tiles_per, 1, [&](int64_t t0, int64_t t1) {
    std::vector<C> col(static_cast<size_t>(tile * k));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / tiles_per, p0 = (t % tiles_per) * tile, p1 = std::min(per, p0 + tile);
      im2col3(in, w, n, p0, p1, col.data());
      nn::gemm<C>(false, false, p1 - p0, co, k, col.data(), k, filt, co, C(0), out + (n * per + p0) * co, co);
    }
  });
  if constexpr (!kSame) from_compute<T>(out_c, a.output);
  return Status::OK();
}

template <typename T>
Status Conv3DBackpropInputV2Cpu(ops::Conv3DBackpropInputV2Args& a) {
  using C = acc_t<T>;
  std::vector<int64_t> sizes;
  OPF_RETURN_IF_ERROR(read_int_vector(a.input_sizes, &sizes));
  Window3 w;
  OPF_RETURN_IF_ERROR(conv_window("Conv3DBackpropInputV2", Shape(sizes), a.filter.shape(), a.strides, a.dilations,
                                  a.padding, a.data_format, &w));
  const int64_t co = a.filter.dim(4), k = w.taps() * w.c, per = w.out_voxels();
  if (!(a.out_backprop.shape() == Shape({w.n, w.d[0].out, w.d[1].out, w.d[2].out, co}))) {
    return a.ctx.error("out_backprop has shape ", a.out_backprop.shape().to_string(), ", the convolution's output is ",
                       Shape({w.n, w.d[0].out, w.d[1].out, w.d[2].out, co}).to_string());
  }
  const std::vector<C> dy = to_compute<T>(a.out_backprop), filt = to_compute<T>(a.filter);
  std::vector<C> dx(static_cast<size_t>(w.n * w.in_voxels() * w.c), C(0));
  const int64_t tile = tile_voxels(w, sizeof(C));
  parallel_for(w.n, 1, [&](int64_t n0, int64_t n1) {  // batch elements write disjoint dx
    std::vector<C> col(static_cast<size_t>(tile * k));
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t p0 = 0; p0 < per; p0 += tile) {
        const int64_t p1 = std::min(per, p0 + tile);
        nn::gemm<C>(false, true, p1 - p0, k, co, dy.data() + (n * per + p0) * co, co, filt.data(), co, C(0), col.data(),
                    k);
        col2im3(col.data(), w, n, p0, p1, dx.data());
      }
    }
  });
  from_compute<T>(dx, a.output);
  return Status::OK();
}

template <typename T>
Status Conv3DBackpropFilterV2Cpu(ops::Conv3DBackpropFilterV2Args& a) {
  using C = acc_t<T>;
  std::vector<int64_t> sizes;
  OPF_RETURN_IF_ERROR(read_int_vector(a.filter_sizes, &sizes));
  if (sizes.size() != 5) return a.ctx.error("filter_sizes must have 5 elements, got ", sizes.size());
  Window3 w;
  OPF_RETURN_IF_ERROR(conv_window("Conv3DBackpropFilterV2", a.input.shape(), Shape(sizes), a.strides, a.dilations,
                                  a.padding, a.data_format, &w));
  const int64_t co = sizes[4], k = w.taps() * w.c, per = w.out_voxels();
  if (!(a.out_backprop.shape() == Shape({w.n, w.d[0].out, w.d[1].out, w.d[2].out, co}))) {
    return a.ctx.error("out_backprop has shape ", a.out_backprop.shape().to_string(), ", the convolution's output is ",
                       Shape({w.n, w.d[0].out, w.d[1].out, w.d[2].out, co}).to_string());
  }
  const std::vector<C> in = to_compute<T>(a.input), dy = to_compute<T>(a.out_backprop);
  std::vector<C> dw(static_cast<size_t>(k * co), C(0));
  const int64_t tile = tile_voxels(w, sizeof(C));
  std::vector<C> col(static_cast<size_t>(tile * k));
  for (int64_t n = 0; n < w.n; ++n) {  // the GEMMs thread themselves (opforge/blas.h)
    for (int64_t p0 = 0; p0 < per; p0 += tile) {
      const int64_t p1 = std::min(per, p0 + tile);
      im2col3(in.data(), w, n, p0, p1, col.data());
      nn::gemm<C>(true, false, k, co, p1 - p0, col.data(), k, dy.data() + (n * per + p0) * co, co, C(1), dw.data(), co);
    }
  }
  from_compute<T>(dw, a.output);
  return Status::OK();
}

// ---- pooling

template <typename Args>
Status pool_window(const std::string& op, const Args& a, const Shape& input, Window3* w) {
  OPF_RETURN_IF_ERROR(check_list5(op, "ksize", a.ksize));
  // The kernels list each window's taps: their number must stay a buffer, not 2^93 entries.
  constexpr int64_t kMaxTaps = int64_t{1} << 24;
  int64_t taps = 1;
  for (int i = 1; i <= 3; ++i) {
    const int64_t k = a.ksize[static_cast<size_t>(i)];
    if (k > kMaxTaps / taps) {
      return errors::InvalidArgument(op, ": the window ", a.ksize[1], "x", a.ksize[2], "x", a.ksize[3],
                                     " has more than ", kMaxTaps, " elements");
    }
    taps *= k;
  }
  return window3d(op, input, {a.ksize[1], a.ksize[2], a.ksize[3]}, a.strides, {1, 1, 1, 1, 1}, a.padding, a.data_format,
                  w);
}

// Max or mean of each window, a window's taps outer and the channels inner (contiguous rows of
// the input, summed or compared in the compute type into one row per output voxel).
template <typename T, bool kMax, typename Args>
Status pool3d(Args& a, const char* op) {
  using C = acc_t<T>;
  Window3 w;
  OPF_RETURN_IF_ERROR(pool_window(op, a, a.input.shape(), &w));
  if (a.output.num_elements() == 0) return Status::OK();  // (no pass over a batch of empty volumes)
  const T* in = a.input.template data<T>();
  T* out = a.output.template data<T>();
  const int64_t c = w.c;
  const int64_t per = w.out_voxels();
  parallel_for(w.n * per, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, w.taps() * c)),
               [&](int64_t q0, int64_t q1) {
                 std::vector<C> acc(static_cast<size_t>(c));
                 for (int64_t q = q0; q < q1; ++q) {
                   const T* base = in + (q / per) * w.in_voxels() * c;
                   int64_t z, y, x;
                   unflatten(w, q % per, &z, &y, &x);
                   std::fill(acc.begin(), acc.end(), kMax ? -std::numeric_limits<C>::infinity() : C(0));
                   int64_t count = 0;
                   for_taps(w, z, y, x, [&](int64_t, int64_t v) {
                     if (v < 0) return;
                     ++count;
                     const T* row = base + v * c;
                     for (int64_t j = 0; j < c; ++j) {
                       const C val = static_cast<C>(row[j]);
                       if constexpr (kMax) {
                         acc[static_cast<size_t>(j)] = std::max(acc[static_cast<size_t>(j)], val);
                       } else {
                         acc[static_cast<size_t>(j)] += val;
                       }
                     }
                   });
                   // The mean leaves out the padding (TensorFlow); a window of padding only is 0.
                   T* o = out + q * c;
                   for (int64_t j = 0; j < c; ++j) {
                     const C v = acc[static_cast<size_t>(j)];
                     o[j] = static_cast<T>(kMax ? v : (count ? v / static_cast<C>(count) : C(0)));
                   }
                 }
               });
  return Status::OK();
}

template <typename T>
Status MaxPool3DCpu(ops::MaxPool3DArgs& a) {
  return pool3d<T, true>(a, "MaxPool3D");
}

template <typename T>
Status AvgPool3DCpu(ops::AvgPool3DArgs& a) {
  return pool3d<T, false>(a, "AvgPool3D");
}

// The gradients scatter into the input: windows of one batch element overlap, so each batch
// element is one task.
template <typename F>
void for_windows_by_batch(const Window3& w, F fn) {
  const int64_t per = w.out_voxels();
  parallel_for(w.n, 1, [&](int64_t n0, int64_t n1) {
    std::vector<int64_t> taps(static_cast<size_t>(w.taps()));
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t p = 0; p < per; ++p) {
        int64_t z, y, x;
        unflatten(w, p, &z, &y, &x);
        for_taps(w, z, y, x, [&](int64_t t, int64_t v) { taps[static_cast<size_t>(t)] = v; });
        fn(n, n * per + p, taps);
      }
    }
  });
}

template <typename T>
Status MaxPool3DGradCpu(ops::MaxPool3DGradArgs& a) {
  using C = acc_t<T>;
  Window3 w;
  if (a.TInput != a.T) {
    return a.ctx.error("orig_input of ", dtype_name(a.TInput), " with grad of ", dtype_name(a.T), " is not supported");
  }
  OPF_RETURN_IF_ERROR(pool_window("MaxPool3DGrad", a, a.orig_input.shape(), &w));
  const Shape want({w.n, w.d[0].out, w.d[1].out, w.d[2].out, w.c});
  if (!(a.grad.shape() == want) || !(a.orig_output.shape() == want)) {
    return a.ctx.error("grad and orig_output must have the pool's output shape ", want.to_string(), ", got ",
                       a.grad.shape().to_string(), " and ", a.orig_output.shape().to_string());
  }
  const T* in = a.orig_input.template data<T>();
  const T* g = a.grad.template data<T>();
  std::vector<C> dx(static_cast<size_t>(a.orig_input.num_elements()), C(0));
  const int64_t c = w.c;
  // Each output's gradient goes to the first maximum of its window.
  for_windows_by_batch(w, [&](int64_t n, int64_t q, const std::vector<int64_t>& taps) {
    for (int64_t j = 0; j < c; ++j) {
      int64_t arg = -1;
      C best = -std::numeric_limits<C>::infinity();
      for (int64_t v : taps) {
        if (v < 0) continue;
        const C val = static_cast<C>(in[(n * w.in_voxels() + v) * c + j]);
        if (arg < 0 || val > best) {
          best = val;
          arg = v;
        }
      }
      if (arg >= 0) dx[static_cast<size_t>((n * w.in_voxels() + arg) * c + j)] += static_cast<C>(g[q * c + j]);
    }
  });
  from_compute<T>(dx, a.output);
  return Status::OK();
}

template <typename T>
Status AvgPool3DGradCpu(ops::AvgPool3DGradArgs& a) {
  using C = acc_t<T>;
  std::vector<int64_t> sizes;
  OPF_RETURN_IF_ERROR(read_int_vector(a.orig_input_shape, &sizes));
  if (sizes.size() != 5) return a.ctx.error("orig_input_shape must have 5 elements, got ", sizes.size());
  Window3 w;
  OPF_RETURN_IF_ERROR(pool_window("AvgPool3DGrad", a, Shape(sizes), &w));
  const Shape want({w.n, w.d[0].out, w.d[1].out, w.d[2].out, w.c});
  if (!(a.grad.shape() == want)) {
    return a.ctx.error("grad must have the pool's output shape ", want.to_string(), ", got ",
                       a.grad.shape().to_string());
  }
  const T* g = a.grad.template data<T>();
  std::vector<C> dx(static_cast<size_t>(a.output.num_elements()), C(0));
  const int64_t c = w.c;
  for_windows_by_batch(w, [&](int64_t n, int64_t q, const std::vector<int64_t>& taps) {
    int64_t count = 0;
    for (int64_t v : taps) count += v >= 0 ? 1 : 0;
    if (count == 0) return;
    for (int64_t v : taps) {
      if (v < 0) continue;
      for (int64_t j = 0; j < c; ++j) {
        dx[static_cast<size_t>((n * w.in_voxels() + v) * c + j)] +=
            static_cast<C>(g[q * c + j]) / static_cast<C>(count);
      }
    }
  });
  from_compute<T>(dx, a.output);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Conv3D, CPU, Conv3DCpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(Conv3DBackpropInputV2, CPU, Conv3DBackpropInputV2Cpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(Conv3DBackpropFilterV2, CPU, Conv3DBackpropFilterV2Cpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(MaxPool3D, CPU, MaxPool3DCpu, half, bfloat16, float)
OPFORGE_REGISTER_KERNEL(MaxPool3DGrad, CPU, MaxPool3DGradCpu, half, bfloat16, float)
OPFORGE_REGISTER_KERNEL(AvgPool3D, CPU, AvgPool3DCpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(AvgPool3DGrad, CPU, AvgPool3DGradCpu, half, bfloat16, float, double)

}  // namespace opforge
