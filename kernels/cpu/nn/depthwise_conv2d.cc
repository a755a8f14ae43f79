// DepthwiseConv2dNative and its gradients (BackpropInput / BackpropFilter).
//
// filter is [filter_height, filter_width, in_channels, channel_multiplier]; output channel
// c * multiplier + m sees input channel c through filter[:, :, c, m]. Direct loops in NHWC (the
// channels of a pixel are contiguous, so the innermost loops vectorize); NCHW is converted on
// the way in and out. Output rows are split over the threads; the input gradient splits images
// and the filter gradient sums per-thread partials. 16-bit floats compute in float. float32
// with multiplier 1 runs the AVX-512 kernel (depthwise_avx512.h) where the CPU has it, else
// the row-wise or per-pixel paths below.
// _FusedDepthwiseConv2dNative runs the same forward loop and applies its epilogue
// (fused_epilogue.h) to each output row as soon as the row is computed, or, for a bias / batch
// norm with no activation, Relu or Relu6, in the AVX-512 kernel's registers.
#include <cstring>
#include <type_traits>

#include "cpu/nn/depthwise.h"
#include "cpu/nn/depthwise_avx512.h"
#include "cpu/nn/fused_epilogue.h"
#include "cpu/nn/nn_util.h"
#include "opforge/ops/nn/_fused_depthwise_conv2d_native.h"
#include "opforge/ops/nn/depthwise_conv2d_native.h"
#include "opforge/ops/nn/depthwise_conv2d_native_backprop_filter.h"
#include "opforge/ops/nn/depthwise_conv2d_native_backprop_input.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace {

using nn::Layout;

using nn::DwGeom;

Status dw_geom(const std::string& op, const Shape& input, const Shape& filter, const Layout& l,
               const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, const std::string& padding,
               const std::vector<int64_t>& explicit_paddings, DwGeom* g) {
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "filter", filter, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "input", input, 4));
  nn::Window2D w;
  OPF_RETURN_IF_ERROR(
      nn::window2d(op, input, l, filter.dim(0), filter.dim(1), strides, dilations, padding, explicit_paddings, &w));
  if (filter.dim(2) != w.c) {
    return errors::InvalidArgument(op, ": input depth (", w.c, ") must equal the filter's in_channels (", filter.dim(2),
                                   ")");
  }
  *g = DwGeom{w.n,
              w.h.in,
              w.w.in,
              w.c,
              filter.dim(3),
              filter.dim(0),
              filter.dim(1),
              w.h.out,
              w.w.out,
              w.h.kernel_stride(),
              w.w.kernel_stride(),
              w.h.d,
              w.w.d,
              w.h.pad_before,
              w.w.pad_before};
  return Status::OK();
}

// Calls fn(ih, iw, tap) for the taps of output (oh, ow) that fall inside the input.
template <typename F>
void for_taps(const DwGeom& g, int64_t oh, int64_t ow, F fn) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.pt + i * g.dh;
    if (ih < 0 || ih >= g.h) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t iw = ow * g.sw - g.pl + j * g.dw;
      if (iw < 0 || iw >= g.w) continue;
      fn(ih, iw, i * g.kw + j);
    }
  }
}

struct NoPost {
  template <typename V>
  void operator()(V*, int64_t) const {}
};

// Float32 depthwise convolution with multiplier 1, a whole output row at a time.
//
// Output row (n, oh) is, for every tap (i, j), the input row ih = oh * sh - pt + i * dh read at
// columns ow * sw - pl + j * dw, times the tap's C weights, summed over the taps. Each valid
// input row is copied into `sw` phase rows with the horizontal padding as
// zeros (phase r holds padded columns r, r + sw, r + 2 sw, ...; DwPhaseRing keeps the rows
// that the next output rows read again): tap j then reads phase
// (j * dw) % sw from pixel (j * dw) / sw on, and its OW * C values line up with the output row
// as one contiguous run. Along that run a tap's weights repeat every C values, so each tap's
// weights are laid out repeated over one period (lcm(C, 8), at least 32 values) once per call,
// and the whole row is one nn::tap_sum_periodic over OW * C values: long vector loops whatever
// the channel count (NASNet's 11 or 44 channels no longer leave scalar tails per pixel), no
// per-pixel bookkeeping, and weights small enough to stay in L1.
struct DwRows {
  int64_t phase_len;        // pixels per phase row
  int64_t period;           // values after which a tap's weights repeat along the row
  std::vector<float> wper;  // [tap][period + 24]: each tap's weights repeated, then wrapped
};

// Bytes of repeated weights above which the per-pixel loop is used instead: the row loop reads
// every tap's weight row for each block of output, so they must stay in L1/L2.
constexpr int64_t kMaxRowWeightsBytes = 256 << 10;

int64_t dw_period(int64_t c) {
  int64_t p = c;
  while (p % 8 != 0) p += c;  // lcm(c, 8)
  while (p < 32) p *= 2;
  return p;
}

// Rows pay where a pixel's channels fill few vectors or leave a ragged tail (measured on the
// benchmark's models: 11, 32 and 44 channels 1.3-3x faster by rows; 88 to 728 channels faster
// pixel by pixel, whose weights stay in L1).
bool use_dw_rows(const DwGeom& g) {
  return g.m == 1 && g.kh * g.kw <= nn::kMaxTaps && (g.c < 64 || g.c % 8 != 0) &&
         g.kh * g.kw * (dw_period(g.c) + 24) * static_cast<int64_t>(sizeof(float)) <= kMaxRowWeightsBytes;
}

DwRows dw_rows_prepare(const float* f, const DwGeom& g) {
  DwRows r;
  const int64_t padded = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;  // columns any tap reads
  r.phase_len = (padded + g.sw - 1) / g.sw;
  r.period = dw_period(g.c);
  const int64_t stride = r.period + 24, taps = g.kh * g.kw;
  r.wper.resize(static_cast<size_t>(taps * stride));
  for (int64_t t = 0; t < taps; ++t) {
    float* dst = &r.wper[static_cast<size_t>(t * stride)];
    for (int64_t k = 0; k < stride; ++k) dst[k] = f[t * g.c + k % g.c];
  }
  return r;
}

// The phase rows of the input rows a thread's recent output rows read: consecutive output rows
// share all but sh of their input rows, so each input row is laid out once per run of rows.
class DwPhaseRing {
 public:
  DwPhaseRing(const DwGeom& g, const DwRows& r)
      : slots_((g.kh - 1) * g.dh + 1 + g.sh),
        len_(g.sw * r.phase_len * g.c),
        data_(static_cast<size_t>(slots_ * len_)),
        tag_(static_cast<size_t>(slots_), -1) {}

  // The phases of input row ih of image n, laid out if not already here.
  const float* row(const float* x, const DwGeom& g, const DwRows& r, int64_t n, int64_t ih) {
    const int64_t key = n * g.h + ih, slot = ih % slots_;
    float* ph = &data_[static_cast<size_t>(slot * len_)];
    if (tag_[static_cast<size_t>(slot)] == key) return ph;
    tag_[static_cast<size_t>(slot)] = key;
    const int64_t c = g.c, plen = r.phase_len * c;
    const float* in_row = x + key * g.w * c;
    for (int64_t q = 0; q < r.phase_len * g.sw; ++q) {  // padded column q -> phase q % sw, pixel q / sw
      float* dst = ph + (q % g.sw) * plen + (q / g.sw) * c;
      const int64_t iw = q - g.pl;
      if (iw < 0 || iw >= g.w) {
        std::fill(dst, dst + c, 0.0f);
      } else {
        std::memcpy(dst, in_row + iw * c, sizeof(float) * static_cast<size_t>(c));
      }
    }
    return ph;
  }

 private:
  int64_t slots_, len_;
  std::vector<float> data_;
  std::vector<int64_t> tag_;  // n * h + ih held by each slot (-1: none)
};

// Output row (n, oh) into out.
void dw_row_f32(const float* x, const DwRows& r, float* out, const DwGeom& g, int64_t n, int64_t oh,
                DwPhaseRing* ring) {
  const float* src[nn::kMaxTaps];
  const int64_t c = g.c, plen = r.phase_len * c, row = g.ow * c, wstride = r.period + 24;
  const float* w0 = nullptr;  // the first valid tap's weight row
  int nt = 0;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.pt + i * g.dh;
    if (ih < 0 || ih >= g.h) continue;
    const float* ph = ring->row(x, g, r, n, ih);
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t q0 = j * g.dw;
      src[nt] = ph + (q0 % g.sw) * plen + (q0 / g.sw) * c;
      if (w0 == nullptr) w0 = &r.wper[static_cast<size_t>((i * g.kw + j) * wstride)];
      ++nt;
    }
  }
  nn::tap_sum_periodic(out, src, w0, wstride, r.period, nt, row);
}

// The same row pixel by pixel (wide rows, many taps): each pixel's valid taps gathered and
// summed by nn::tap_sum over its C channels, with the weights read as they are.
void dw_pixels_f32(const float* x, const float* f, float* out, const DwGeom& g, int64_t n, int64_t oh) {
  const float* src[nn::kMaxTaps];
  const float* fk[nn::kMaxTaps];
  for (int64_t ow = 0; ow < g.ow; ++ow) {
    int nt = 0;
    for_taps(g, oh, ow, [&](int64_t ih, int64_t iw, int64_t tap) {
      src[nt] = x + ((n * g.h + ih) * g.w + iw) * g.c;
      fk[nt] = f + tap * g.c;
      ++nt;
    });
    nn::tap_sum(out + ow * g.c, src, fk, nt, g.c, 1.0f);
  }
}

// Output rows split over the threads: make_row() gives each thread's share a row function
// row(n, oh, out) (which may keep state from row to row), and post(out, n) runs the epilogue
// over the n pixels of each row right after it.
template <typename V, typename Post, typename MakeRow>
void for_output_rows(V* y, const DwGeom& g, const Post& post, MakeRow make_row) {
  const int64_t cm = g.cout();
  parallel_for(g.n * g.oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, g.ow * g.kh * g.kw * cm)),
               [&](int64_t b, int64_t e) {
                 auto row_fn = make_row();
                 for (int64_t row = b; row < e; ++row) {
                   const int64_t n = row / g.oh, oh = row % g.oh;
                   V* out = y + (n * g.oh + oh) * g.ow * cm;
                   row_fn(n, oh, out);
                   post(out, g.ow);
                 }
               });
}

// x (NHWC, g's geometry) with its rows widened to wp columns: g.pl zero columns, the row, then
// zeros; held in *buffer (16 floats of slack at the end for a channel tail's plain loads).
const float* pad_columns(const float* x, const DwGeom& g, int64_t wp, Tensor* buffer) {
  const int64_t c = g.c, rows = g.n * g.h;
  if (!Tensor::Allocate(DType::kFloat, Shape({rows * wp * c + 16}), buffer).ok()) throw std::bad_alloc();
  float* dst = buffer->data<float>();
  std::fill(dst + rows * wp * c, dst + rows * wp * c + 16, 0.0f);
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, wp * c)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* d = dst + r * wp * c;
      std::fill(d, d + g.pl * c, 0.0f);
      std::memcpy(d + g.pl * c, x + r * g.w * c, sizeof(float) * static_cast<size_t>(g.w * c));
      std::fill(d + (g.pl + g.w) * c, d + wp * c, 0.0f);
    }
  });
  return dst;
}

template <typename V, typename Post = NoPost>
void dw_forward(const V* x, const V* f, V* y, const DwGeom& g, const Post& post = Post()) {
  const int64_t cm = g.cout();
  if constexpr (std::is_same_v<V, float>) {
    if (g.m == 1 && nn::dw_avx512_enabled()) {
      // Rows padded left and right where some block would read past them (dw_padded_width).
      DwGeom gp = g;
      Tensor padded_x;
      if (const int64_t wp = nn::dw_padded_width(g); wp > 0) {
        x = pad_columns(x, g, wp, &padded_x);
        gp.w = wp;
        gp.pl = 0;
      }
      // A channel tail reads its weights plainly, 16 at a time: the filter gets 16 floats of
      // slack after its end.
      std::vector<float> padded;
      if (g.c % 16 != 0) {
        padded.assign(static_cast<size_t>(g.kh * g.kw * g.c + 16), 0.0f);
        std::copy(f, f + g.kh * g.kw * g.c, padded.begin());
        f = padded.data();
      }
      // A bias or batch norm with no activation, Relu or Relu6 is applied in registers.
      if constexpr (std::is_same_v<Post, nn::Epilogue<float>>) {
        blas::ColumnEpilogue ep;
        if (post.as_column_epilogue(&ep)) {
          for_output_rows(y, g, NoPost(), [&] {
            return [&](int64_t n, int64_t oh, float* out) { nn::dw_row_avx512(x, f, out, gp, n, oh, &ep); };
          });
          return;
        }
      }
      for_output_rows(y, g, post, [&] {
        return [&](int64_t n, int64_t oh, float* out) { nn::dw_row_avx512(x, f, out, gp, n, oh); };
      });
      return;
    }
    if (use_dw_rows(g)) {
      const DwRows rows = dw_rows_prepare(f, g);
      for_output_rows(y, g, post, [&] {
        return [&, ring = DwPhaseRing(g, rows)](int64_t n, int64_t oh, float* out) mutable {
          dw_row_f32(x, rows, out, g, n, oh, &ring);
        };
      });
      return;
    }
    if (g.m == 1 && g.kh * g.kw <= nn::kMaxTaps) {
      for_output_rows(y, g, post,
                      [&] { return [&](int64_t n, int64_t oh, float* out) { dw_pixels_f32(x, f, out, g, n, oh); }; });
      return;
    }
  }
  for_output_rows(y, g, post, [&] {
    return [&](int64_t n, int64_t oh, V* out) {
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        V* o = out + ow * cm;
        std::fill(o, o + cm, V(0));
        for_taps(g, oh, ow, [&](int64_t ih, int64_t iw, int64_t tap) {
          const V* px = x + ((n * g.h + ih) * g.w + iw) * g.c;
          const V* fk = f + tap * cm;
          if (g.m == 1) {
            for (int64_t c = 0; c < g.c; ++c) o[c] += px[c] * fk[c];
          } else {
            for (int64_t c = 0; c < g.c; ++c) {
              for (int64_t k = 0; k < g.m; ++k) o[c * g.m + k] += px[c] * fk[c * g.m + k];
            }
          }
        });
      }
    };
  });
}

template <typename V>
void dw_backprop_input(const V* dy, const V* f, V* dx, const DwGeom& g) {
  const int64_t cm = g.cout();
  std::fill(dx, dx + g.n * g.h * g.w * g.c, V(0));
  const int64_t per_image = g.oh * g.ow * g.kh * g.kw * cm;
  parallel_for(g.n, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, per_image)), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const V* gy = dy + ((n * g.oh + oh) * g.ow + ow) * cm;
          for_taps(g, oh, ow, [&](int64_t ih, int64_t iw, int64_t tap) {
            V* px = dx + ((n * g.h + ih) * g.w + iw) * g.c;
            const V* fk = f + tap * cm;
            for (int64_t c = 0; c < g.c; ++c) {
              V s = 0;
              for (int64_t k = 0; k < g.m; ++k) s += gy[c * g.m + k] * fk[c * g.m + k];
              px[c] += s;
            }
          });
        }
      }
    }
  });
}

template <typename V>
void dw_backprop_filter(const V* x, const V* dy, V* df, const DwGeom& g) {
  const int64_t cm = g.cout(), fsize = g.kh * g.kw * cm;
  std::fill(df, df + fsize, V(0));
  nn::OrderedPartials<std::vector<V>> partials;  // summed in a fixed order: the same bits every run
  const int64_t per_row = g.ow * g.kh * g.kw * cm;
  parallel_for(g.n * g.oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, per_row)),
               [&](int64_t b, int64_t e) {
                 std::vector<V> part(static_cast<size_t>(fsize), V(0));
                 for (int64_t row = b; row < e; ++row) {
                   const int64_t n = row / g.oh, oh = row % g.oh;
                   for (int64_t ow = 0; ow < g.ow; ++ow) {
                     const V* gy = dy + ((n * g.oh + oh) * g.ow + ow) * cm;
                     for_taps(g, oh, ow, [&](int64_t ih, int64_t iw, int64_t tap) {
                       const V* px = x + ((n * g.h + ih) * g.w + iw) * g.c;
                       V* pf = part.data() + tap * cm;
                       for (int64_t c = 0; c < g.c; ++c) {
                         for (int64_t k = 0; k < g.m; ++k) pf[c * g.m + k] += px[c] * gy[c * g.m + k];
                       }
                     });
                   }
                 }
                 partials.add(b, std::move(part));
               });
  partials.merge_in_order([&](const std::vector<V>& part) {
    for (int64_t i = 0; i < fsize; ++i) df[i] += part[static_cast<size_t>(i)];
  });
}

template <typename T, typename V>
std::vector<V> flat(const Tensor& t) {
  std::vector<V> v(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<V>(t.data<T>()[i]);
  return v;
}

using nn_semantics::read_sizes;

Status check_dy(const std::string& op, const DwGeom& g, const Layout& l, const Shape& dy) {
  const Shape want = nn::shape4(l, g.n, g.oh, g.ow, g.cout());
  if (!(dy == want)) {
    return errors::InvalidArgument(op, ": out_backprop has shape ", dy.to_string(),
                                   " but the convolution's output shape is ", want.to_string());
  }
  return Status::OK();
}

template <typename T>
Status DepthwiseCpu(ops::DepthwiseConv2dNativeArgs& a) {
  using V = nn::acc_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  DwGeom g;
  OPF_RETURN_IF_ERROR(dw_geom("DepthwiseConv2dNative", a.input.shape(), a.filter.shape(), l, a.strides, a.dilations,
                              a.padding, a.explicit_paddings, &g));
  nn::Nhwc<T, V> in(a.input, l);
  const std::vector<V> f = flat<T, V>(a.filter);
  nn::NhwcOut<T, V> out(a.output, l);
  dw_forward<V>(in.data(), f.data(), out.data(), g);
  out.finish();
  return Status::OK();
}

template <typename T>
Status FusedDepthwiseCpu(ops::_FusedDepthwiseConv2dNativeArgs& a) {
  using V = nn::acc_t<T>;
  const std::string op = "_FusedDepthwiseConv2dNative";
  const Layout l = nn::layout_of(a.data_format);
  DwGeom g;
  OPF_RETURN_IF_ERROR(
      dw_geom(op, a.input.shape(), a.filter.shape(), l, a.strides, a.dilations, a.padding, a.explicit_paddings, &g));
  nn::Epilogue<V> post;
  OPF_RETURN_IF_ERROR(
      nn::Epilogue<V>::template make<T>(op, a.fused_ops, a.args, g.cout(), a.epsilon, a.leakyrelu_alpha, &post));
  nn::Nhwc<T, V> in(a.input, l);
  const std::vector<V> f = flat<T, V>(a.filter);
  nn::NhwcOut<T, V> out(a.output, l);
  dw_forward<V>(in.data(), f.data(), out.data(), g, post);
  out.finish();
  return Status::OK();
}

template <typename T>
Status DepthwiseBackpropInputCpu(ops::DepthwiseConv2dNativeBackpropInputArgs& a) {
  using V = nn::acc_t<T>;
  const std::string op = "DepthwiseConv2dNativeBackpropInput";
  const Layout l = nn::layout_of(a.data_format);
  Shape input;
  OPF_RETURN_IF_ERROR(read_sizes(op, "input_sizes", a.input_sizes, &input));
  DwGeom g;
  OPF_RETURN_IF_ERROR(
      dw_geom(op, input, a.filter.shape(), l, a.strides, a.dilations, a.padding, a.explicit_paddings, &g));
  OPF_RETURN_IF_ERROR(check_dy(op, g, l, a.out_backprop.shape()));
  nn::Nhwc<T, V> dy(a.out_backprop, l);
  const std::vector<V> f = flat<T, V>(a.filter);
  nn::NhwcOut<T, V> dx(a.output, l);
  dw_backprop_input<V>(dy.data(), f.data(), dx.data(), g);
  dx.finish();
  return Status::OK();
}

template <typename T>
Status DepthwiseBackpropFilterCpu(ops::DepthwiseConv2dNativeBackpropFilterArgs& a) {
  using V = nn::acc_t<T>;
  const std::string op = "DepthwiseConv2dNativeBackpropFilter";
  const Layout l = nn::layout_of(a.data_format);
  Shape fshape;
  OPF_RETURN_IF_ERROR(read_sizes(op, "filter_sizes", a.filter_sizes, &fshape));
  DwGeom g;
  OPF_RETURN_IF_ERROR(
      dw_geom(op, a.input.shape(), fshape, l, a.strides, a.dilations, a.padding, a.explicit_paddings, &g));
  OPF_RETURN_IF_ERROR(check_dy(op, g, l, a.out_backprop.shape()));
  nn::Nhwc<T, V> in(a.input, l);
  nn::Nhwc<T, V> dy(a.out_backprop, l);
  std::vector<V> df(static_cast<size_t>(a.output.num_elements()));
  dw_backprop_filter<V>(in.data(), dy.data(), df.data(), g);
  T* out = a.output.data<T>();
  for (size_t i = 0; i < df.size(); ++i) out[i] = static_cast<T>(df[i]);
  return Status::OK();
}

// The shape functions of these ops are op semantics: runtime/ops/nn_conv.cc.

}  // namespace

namespace nn {

template <typename V>
void depthwise_forward(const V* x, const V* f, V* y, const DwGeom& g) {
  dw_forward<V>(x, f, y, g);
}
template <typename V>
void depthwise_forward(const V* x, const V* f, V* y, const DwGeom& g, const Epilogue<V>& post) {
  dw_forward<V>(x, f, y, g, post);
}
template <typename V>
void depthwise_backprop_input(const V* dy, const V* f, V* dx, const DwGeom& g) {
  dw_backprop_input<V>(dy, f, dx, g);
}
template <typename V>
void depthwise_backprop_filter(const V* x, const V* dy, V* df, const DwGeom& g) {
  dw_backprop_filter<V>(x, dy, df, g);
}

template void depthwise_forward<float>(const float*, const float*, float*, const DwGeom&);
template void depthwise_forward<double>(const double*, const double*, double*, const DwGeom&);
template void depthwise_forward<float>(const float*, const float*, float*, const DwGeom&, const Epilogue<float>&);
template void depthwise_forward<double>(const double*, const double*, double*, const DwGeom&, const Epilogue<double>&);
template void depthwise_backprop_input<float>(const float*, const float*, float*, const DwGeom&);
template void depthwise_backprop_input<double>(const double*, const double*, double*, const DwGeom&);
template void depthwise_backprop_filter<float>(const float*, const float*, float*, const DwGeom&);
template void depthwise_backprop_filter<double>(const double*, const double*, double*, const DwGeom&);

}  // namespace nn

OPFORGE_REGISTER_KERNEL(DepthwiseConv2dNative, CPU, DepthwiseCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(_FusedDepthwiseConv2dNative, CPU, FusedDepthwiseCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(DepthwiseConv2dNativeBackpropInput, CPU, DepthwiseBackpropInputCpu, bfloat16, half, float,
                        double)
OPFORGE_REGISTER_KERNEL(DepthwiseConv2dNativeBackpropFilter, CPU, DepthwiseBackpropFilterCpu, bfloat16, half, float,
                        double)

}  // namespace opforge
