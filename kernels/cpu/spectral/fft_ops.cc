// The FFT family: FFT/IFFT, RFFT/IRFFT in 1, 2, 3 and n dimensions, over kissfft's C++ template
// (kissfft.hh from Debian's libkissfft-dev: any length, float and double). Without kissfft
// (OPFORGE_HAVE_KISSFFT unset) the ops raise UnimplementedError naming the package.
//
// A transform over several axes is a 1-D transform along each axis in turn, line by line
// (kissfft reads a strided line; the result goes back through a contiguous buffer). The shape
// functions (runtime/ops/spectral.cc) have validated the arguments and sized the output.
#include <algorithm>
#include <cstring>
#include <vector>

#include "opforge/complex.h"
#include "opforge/kernel.h"
#include "opforge/ops/spectral/fft.h"
#include "opforge/ops/spectral/fft2d.h"
#include "opforge/ops/spectral/fft3d.h"
#include "opforge/ops/spectral/fftnd.h"
#include "opforge/ops/spectral/ifft.h"
#include "opforge/ops/spectral/ifft2d.h"
#include "opforge/ops/spectral/ifft3d.h"
#include "opforge/ops/spectral/ifftnd.h"
#include "opforge/ops/spectral/irfft.h"
#include "opforge/ops/spectral/irfft2d.h"
#include "opforge/ops/spectral/irfft3d.h"
#include "opforge/ops/spectral/irfftnd.h"
#include "opforge/ops/spectral/rfft.h"
#include "opforge/ops/spectral/rfft2d.h"
#include "opforge/ops/spectral/rfft3d.h"
#include "opforge/ops/spectral/rfftnd.h"
#include "opforge/parallel.h"

#ifdef OPFORGE_HAVE_KISSFFT
#include <kissfft/kissfft.hh>
#endif

namespace opforge {
namespace {

#ifdef OPFORGE_HAVE_KISSFFT

using Dims = std::vector<int64_t>;

int64_t product(const Dims& d, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= d[i];
  return n;
}

// dst (dims ddims) = src (dims sdims, the same rank), each dim cropped or zero-padded; F
// converts one element.
template <typename S, typename D, typename F>
void copy_resized(const S* src, const Dims& sdims, D* dst, const Dims& ddims, F convert) {
  const size_t rank = ddims.size();
  const int64_t total = product(ddims, 0, rank);
  if (total == 0) return;
  if (rank == 0) {
    dst[0] = convert(src[0]);
    return;
  }
  const int64_t last = ddims[rank - 1], keep = std::min(last, sdims[rank - 1]);
  Dims idx(rank, 0);
  for (int64_t out = 0; out < total; out += last) {
    bool inside = true;
    int64_t s = 0;
    for (size_t k = 0; k + 1 < rank; ++k) {
      inside = inside && idx[k] < sdims[k];
      s = s * sdims[k] + idx[k];
    }
    int64_t j = 0;
    if (inside) {
      const S* line = src + s * sdims[rank - 1];
      for (; j < keep; ++j) dst[out + j] = convert(line[j]);
    }
    for (; j < last; ++j) dst[out + j] = D{};
    for (size_t k = rank - 1; k-- > 0;) {  // next outer index (row-major)
      if (++idx[k] < ddims[k]) break;
      idx[k] = 0;
    }
  }
}

// In place, along `axis` of the contiguous array `data` of dims `d`: the 1-D DFT of every line
// (inverse: unnormalized, then scaled by 1/n).
template <typename C>
void transform_axis(C* data, const Dims& d, int axis, bool inverse) {
  using R = typename C::value_type;
  const int64_t n = d[static_cast<size_t>(axis)];
  const int64_t outer = product(d, 0, static_cast<size_t>(axis));
  const int64_t inner = product(d, static_cast<size_t>(axis) + 1, d.size());
  if (n <= 1 || outer * inner == 0) return;  // a 1-point DFT is the identity
  const kissfft<R> fft(static_cast<size_t>(n), inverse);
  const R scale = inverse ? R(1) / static_cast<R>(n) : R(1);
  parallel_for(outer * inner, std::max<int64_t>(1, 4096 / n), [&](int64_t lo, int64_t hi) {
    std::vector<C> buf(static_cast<size_t>(n));
    for (int64_t l = lo; l < hi; ++l) {
      C* line = data + (l / inner) * n * inner + l % inner;
      fft.transform(line, buf.data(), 0, 1, static_cast<size_t>(inner));
      for (int64_t k = 0; k < n; ++k) line[k * inner] = buf[static_cast<size_t>(k)] * scale;
    }
  });
}

// Complex-to-complex over `axes` with the given lengths (input cropped or padded to them).
template <typename C>
Status complex_fft(const Tensor& in, Tensor& out, const std::vector<int>& axes, bool inverse) {
  const Dims odims = out.shape().dims();
  copy_resized(in.data<C>(), in.shape().dims(), out.data<C>(), odims, [](C v) { return v; });
  for (int ax : axes) transform_axis(out.data<C>(), odims, ax, inverse);
  return Status::OK();
}

// Real-to-complex: the full complex transform along the last of `axes` (lengths[-1] points),
// of which the first n / 2 + 1 are kept, then the other axes.
template <typename C>
Status real_fft(const Tensor& in, Tensor& out, const std::vector<int>& axes, const Dims& lengths) {
  using R = typename C::value_type;
  Dims full = out.shape().dims();
  const int last = axes.back();
  full[static_cast<size_t>(last)] = lengths.back();
  std::vector<C> tmp(static_cast<size_t>(product(full, 0, full.size())));
  copy_resized(in.data<R>(), in.shape().dims(), tmp.data(), full, [](R v) { return C(v, 0); });
  transform_axis(tmp.data(), full, last, false);
  const Dims odims = out.shape().dims();
  copy_resized(tmp.data(), full, out.data<C>(), odims, [](C v) { return v; });
  for (size_t i = 0; i + 1 < axes.size(); ++i) transform_axis(out.data<C>(), odims, axes[i], false);
  return Status::OK();
}

// Complex-to-real: the inverse along the other axes first, then along the last of `axes` the
// inverse of each line's Hermitian extension (X[n - k] = conj(X[k])), whose real part is the
// output (the imaginary parts of the DC and Nyquist terms drop out there, as in TensorFlow).
template <typename C>
Status inverse_real_fft(const Tensor& in, Tensor& out, const std::vector<int>& axes, const Dims& lengths) {
  using R = typename C::value_type;
  const Dims odims = out.shape().dims();
  const int last = axes.back();
  const int64_t n = lengths.back(), half = n / 2 + 1;
  Dims hdims = odims;
  hdims[static_cast<size_t>(last)] = half;
  std::vector<C> tmp(static_cast<size_t>(product(hdims, 0, hdims.size())));
  copy_resized(in.data<C>(), in.shape().dims(), tmp.data(), hdims, [](C v) { return v; });
  for (size_t i = 0; i + 1 < axes.size(); ++i) transform_axis(tmp.data(), hdims, axes[i], true);
  const int64_t outer = product(hdims, 0, static_cast<size_t>(last));
  const int64_t inner = product(hdims, static_cast<size_t>(last) + 1, hdims.size());
  R* y = out.data<R>();
  if (n == 0 || outer * inner == 0) return Status::OK();
  const kissfft<R> fft(static_cast<size_t>(n), true);
  const R scale = R(1) / static_cast<R>(n);
  parallel_for(outer * inner, std::max<int64_t>(1, 4096 / n), [&](int64_t lo, int64_t hi) {
    std::vector<C> full(static_cast<size_t>(n)), res(static_cast<size_t>(n));
    for (int64_t l = lo; l < hi; ++l) {
      const int64_t o = l / inner, i = l % inner;
      const C* h = tmp.data() + o * half * inner + i;
      for (int64_t k = 0; k < half; ++k) full[static_cast<size_t>(k)] = h[k * inner];
      for (int64_t k = half; k < n; ++k) full[static_cast<size_t>(k)] = std::conj(h[(n - k) * inner]);
      R* line = y + o * n * inner + i;
      if (n == 1) {
        line[0] = full[0].real();
        continue;
      }
      fft.transform(full.data(), res.data());
      for (int64_t k = 0; k < n; ++k) line[k * inner] = res[static_cast<size_t>(k)].real() * scale;
    }
  });
  return Status::OK();
}

// The inner-most `rank` axes of x.
std::vector<int> inner_axes(const Tensor& x, int rank) {
  std::vector<int> axes;
  for (int i = rank; i > 0; --i) axes.push_back(x.rank() - i);
  return axes;
}

// The normalized `axes` input of an ND op (validated by the shape function).
std::vector<int> listed_axes(const Tensor& x, const Tensor& axes) {
  std::vector<int> out;
  for (int64_t i = 0; i < axes.num_elements(); ++i) {
    const int a = axes.data<int32_t>()[i];
    out.push_back(a < 0 ? a + x.rank() : a);
  }
  return out;
}

Dims lengths_of(const Tensor& fft_length) {
  const int32_t* p = fft_length.data<int32_t>();
  return Dims(p, p + fft_length.num_elements());
}

#define OPF_COMPLEX_FFT(OP, RANK, INVERSE)                                        \
  template <typename C>                                                           \
  Status OP##Cpu(ops::OP##Args& a) {                                              \
    return complex_fft<C>(a.input, a.output, inner_axes(a.input, RANK), INVERSE); \
  }
// The real ops dispatch on Treal; Tcomplex must be its complex type (as TensorFlow's kernels
// are registered: float with complex64, double with complex128).
template <typename R, typename Args>
Status check_pair(Args& a) {
  if (a.Tcomplex != DTypeOf<std::complex<R>>::value) {
    return a.ctx.error("Treal ", dtype_name(a.Treal), " needs Tcomplex ", dtype_name(DTypeOf<std::complex<R>>::value),
                       ", got ", dtype_name(a.Tcomplex));
  }
  return Status::OK();
}
#define OPF_REAL_FFT(OP, RANK, FN)                                                                      \
  template <typename R>                                                                                 \
  Status OP##Cpu(ops::OP##Args& a) {                                                                    \
    OPF_RETURN_IF_ERROR(check_pair<R>(a));                                                              \
    return FN<std::complex<R>>(a.input, a.output, inner_axes(a.input, RANK), lengths_of(a.fft_length)); \
  }

#else  // no kissfft

Status missing(KernelContext& ctx) {
  return errors::Unimplemented(ctx.op().name,
                               ": opforge was built without kissfft, which runs the FFT ops "
                               "(Debian/Ubuntu: apt-get install libkissfft-dev, then rebuild)");
}
#define OPF_COMPLEX_FFT(OP, RANK, INVERSE) \
  template <typename C>                    \
  Status OP##Cpu(ops::OP##Args& a) {       \
    return missing(a.ctx);                 \
  }
#define OPF_REAL_FFT(OP, RANK, FN) OPF_COMPLEX_FFT(OP, RANK, false)
template <typename R, typename Args>
Status check_pair(Args&) {
  return Status::OK();
}

#endif

OPF_COMPLEX_FFT(FFT, 1, false)
OPF_COMPLEX_FFT(IFFT, 1, true)
OPF_COMPLEX_FFT(FFT2D, 2, false)
OPF_COMPLEX_FFT(IFFT2D, 2, true)
OPF_COMPLEX_FFT(FFT3D, 3, false)
OPF_COMPLEX_FFT(IFFT3D, 3, true)
OPF_REAL_FFT(RFFT, 1, real_fft)
OPF_REAL_FFT(IRFFT, 1, inverse_real_fft)
OPF_REAL_FFT(RFFT2D, 2, real_fft)
OPF_REAL_FFT(IRFFT2D, 2, inverse_real_fft)
OPF_REAL_FFT(RFFT3D, 3, real_fft)
OPF_REAL_FFT(IRFFT3D, 3, inverse_real_fft)

template <typename C>
Status FFTNDCpu(ops::FFTNDArgs& a) {
#ifdef OPFORGE_HAVE_KISSFFT
  return complex_fft<C>(a.input, a.output, listed_axes(a.input, a.axes), false);
#else
  return missing(a.ctx);
#endif
}
template <typename C>
Status IFFTNDCpu(ops::IFFTNDArgs& a) {
#ifdef OPFORGE_HAVE_KISSFFT
  return complex_fft<C>(a.input, a.output, listed_axes(a.input, a.axes), true);
#else
  return missing(a.ctx);
#endif
}
template <typename R>
Status RFFTNDCpu(ops::RFFTNDArgs& a) {
  OPF_RETURN_IF_ERROR(check_pair<R>(a));
#ifdef OPFORGE_HAVE_KISSFFT
  if (a.axes.num_elements() == 0) return a.ctx.error("axes must not be empty");
  return real_fft<std::complex<R>>(a.input, a.output, listed_axes(a.input, a.axes), lengths_of(a.fft_length));
#else
  return missing(a.ctx);
#endif
}
template <typename R>
Status IRFFTNDCpu(ops::IRFFTNDArgs& a) {
  OPF_RETURN_IF_ERROR(check_pair<R>(a));
#ifdef OPFORGE_HAVE_KISSFFT
  if (a.axes.num_elements() == 0) return a.ctx.error("axes must not be empty");
  return inverse_real_fft<std::complex<R>>(a.input, a.output, listed_axes(a.input, a.axes), lengths_of(a.fft_length));
#else
  return missing(a.ctx);
#endif
}

}  // namespace

OPFORGE_REGISTER_KERNEL(FFT, CPU, FFTCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(IFFT, CPU, IFFTCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(FFT2D, CPU, FFT2DCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(IFFT2D, CPU, IFFT2DCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(FFT3D, CPU, FFT3DCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(IFFT3D, CPU, IFFT3DCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(FFTND, CPU, FFTNDCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(IFFTND, CPU, IFFTNDCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(RFFT, CPU, RFFTCpu, float, double)
OPFORGE_REGISTER_KERNEL(IRFFT, CPU, IRFFTCpu, float, double)
OPFORGE_REGISTER_KERNEL(RFFT2D, CPU, RFFT2DCpu, float, double)
OPFORGE_REGISTER_KERNEL(IRFFT2D, CPU, IRFFT2DCpu, float, double)
OPFORGE_REGISTER_KERNEL(RFFT3D, CPU, RFFT3DCpu, float, double)
OPFORGE_REGISTER_KERNEL(IRFFT3D, CPU, IRFFT3DCpu, float, double)
OPFORGE_REGISTER_KERNEL(RFFTND, CPU, RFFTNDCpu, float, double)
OPFORGE_REGISTER_KERNEL(IRFFTND, CPU, IRFFTNDCpu, float, double)

}  // namespace opforge
