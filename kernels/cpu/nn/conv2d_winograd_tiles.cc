// Winograd's per-tile transforms for Conv2D (conv2d_winograd.cc drives them): V = B^T d B of an
// input tile and Y = A^T M A of a tile of products, for F(2x2, 3x3) and F(4x4, 3x3).
#include <algorithm>

#include "cpu/nn/conv2d_internal.h"

namespace opforge {
namespace conv2d {

// The per-tile transforms work across channels, so each loop below is plain arithmetic over
// contiguous rows: written with restrict-qualified outputs they vectorize (OPF_SIMD_CLONES adds
// an AVX2 build picked at load time).

// ---- F(2x2, 3x3)

// V = B^T d B for one tile: d[i*4+j] is input pixel (i, j) of the 4x4 tile (ci channels), and
// v + k*vstride receives position k of the transform.
OPF_SIMD_CLONES void winograd2_input_tile(const float* const d[16], int64_t ci, float* __restrict v, int64_t vstride) {
  // Row i of B^T d is row ra[i] + sg[i] * row rb[i]; the column pass (times B) follows in the same loop.
  static constexpr int ra[4] = {0, 1, 2, 1}, rb[4] = {2, 2, 1, 3};
  static constexpr float sg[4] = {-1.0f, 1.0f, -1.0f, -1.0f};
  for (int i = 0; i < 4; ++i) {
    const float *p0 = d[ra[i] * 4 + 0], *p1 = d[ra[i] * 4 + 1], *p2 = d[ra[i] * 4 + 2], *p3 = d[ra[i] * 4 + 3];
    const float *q0 = d[rb[i] * 4 + 0], *q1 = d[rb[i] * 4 + 1], *q2 = d[rb[i] * 4 + 2], *q3 = d[rb[i] * 4 + 3];
    const float s = sg[i];
    float* __restrict o0 = v + (i * 4 + 0) * vstride;
    float* __restrict o1 = v + (i * 4 + 1) * vstride;
    float* __restrict o2 = v + (i * 4 + 2) * vstride;
    float* __restrict o3 = v + (i * 4 + 3) * vstride;
    for (int64_t c = 0; c < ci; ++c) {
      const float t0 = p0[c] + s * q0[c], t1 = p1[c] + s * q1[c];
      const float t2 = p2[c] + s * q2[c], t3 = p3[c] + s * q3[c];
      o0[c] = t0 - t2;
      o1[c] = t1 + t2;
      o2[c] = t2 - t1;
      o3[c] = t1 - t3;
    }
  }
}

// The epilogue of a transformed output value: kAct < 0 none; else act(v * scale + shift) per
// channel (kAct a blas::ColumnAct; kScale false: scale 1).
template <int kAct, bool kScale>
__attribute__((always_inline)) inline float finish(float v, const float* __restrict scale,
                                                   const float* __restrict shift, int64_t o) {
  if (kAct < 0) return v;
  return blas::column_activate(kScale ? v * scale[o] + shift[o] : v + shift[o], kAct);
}

// Y = A^T M A for one tile: m[k] is position k of the 16 products (co channels); y[r*2+s] is
// output pixel (r, s) of the 2x2 block, finished before the store.
template <int kAct, bool kScale>
__attribute__((always_inline)) inline void output_tile2(const float* const m[16], int64_t co, float* const y[4],
                                                        const float* __restrict scale, const float* __restrict shift) {
  float* __restrict y00 = y[0];
  float* __restrict y01 = y[1];
  float* __restrict y10 = y[2];
  float* __restrict y11 = y[3];
  for (int64_t o = 0; o < co; ++o) {
    // rows of A^T M: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (per column j)
    const float s00 = m[0][o] + m[4][o] + m[8][o], s10 = m[4][o] - m[8][o] - m[12][o];
    const float s01 = m[1][o] + m[5][o] + m[9][o], s11 = m[5][o] - m[9][o] - m[13][o];
    const float s02 = m[2][o] + m[6][o] + m[10][o], s12 = m[6][o] - m[10][o] - m[14][o];
    const float s03 = m[3][o] + m[7][o] + m[11][o], s13 = m[7][o] - m[11][o] - m[15][o];
    y00[o] = finish<kAct, kScale>(s00 + s01 + s02, scale, shift, o);
    y01[o] = finish<kAct, kScale>(s01 - s02 - s03, scale, shift, o);
    y10[o] = finish<kAct, kScale>(s10 + s11 + s12, scale, shift, o);
    y11[o] = finish<kAct, kScale>(s11 - s12 - s13, scale, shift, o);
  }
}

// ---- F(4x4, 3x3)
//
// Both transforms are separable: a 1-D transform down the columns of the tile into a buffer,
// then along its rows. Channels go in blocks of kBlock so the buffer stays in L1.

constexpr int64_t kBlock = 64;

// r_k = (B^T x)_k, k < 6, for 6-point columns x (n channels):
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
__attribute__((always_inline)) inline void input_1d4(const float* const x[6], float* const r[6], int64_t n) {
  const float* __restrict x0 = x[0], * __restrict x1 = x[1], * __restrict x2 = x[2];
  const float* __restrict x3 = x[3], * __restrict x4 = x[4], * __restrict x5 = x[5];
  float* __restrict r0 = r[0], * __restrict r1 = r[1], * __restrict r2 = r[2];
  float* __restrict r3 = r[3], * __restrict r4 = r[4], * __restrict r5 = r[5];
  for (int64_t c = 0; c < n; ++c) {
    const float a = x4[c] - 4.0f * x2[c], b = x3[c] - 4.0f * x1[c];  // rows 1, 2
    const float e = x4[c] - x2[c], f = 2.0f * (x3[c] - x1[c]);       // rows 3, 4
    r0[c] = 4.0f * x0[c] - 5.0f * x2[c] + x4[c];
    r1[c] = a + b;
    r2[c] = a - b;
    r3[c] = e + f;
    r4[c] = e - f;
    r5[c] = 4.0f * x1[c] - 5.0f * x3[c] + x5[c];
  }
}

// V = B^T d B for one tile: d[i*6+j] is input pixel (i, j) of the 6x6 tile (ci channels), and
// v + k*vstride receives position k of the transform.
OPF_SIMD_CLONES void winograd4_input_tile(const float* const d[36], int64_t ci, float* __restrict v, int64_t vstride) {
  alignas(64) float t[36 * kBlock];  // B^T d for one block of channels: t[(i*6+j)*kBlock + c]
  for (int64_t c0 = 0; c0 < ci; c0 += kBlock) {
    const int64_t n = std::min(kBlock, ci - c0);
    for (int j = 0; j < 6; ++j) {  // down column j
      const float* x[6];
      float* r[6];
      for (int i = 0; i < 6; ++i) {
        x[i] = d[i * 6 + j] + c0;
        r[i] = t + (i * 6 + j) * kBlock;
      }
      input_1d4(x, r, n);
    }
    for (int i = 0; i < 6; ++i) {  // along row i
      const float* x[6];
      float* r[6];
      for (int j = 0; j < 6; ++j) {
        x[j] = t + (i * 6 + j) * kBlock;
        r[j] = v + (i * 6 + j) * vstride + c0;
      }
      input_1d4(x, r, n);
    }
  }
}

// Y = A^T M A for one tile: m[k] is position k of the 36 products (co channels); y[r*4+s] is
// output pixel (r, s) of the 4x4 block, finished before the store.
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
template <int kAct, bool kScale>
__attribute__((always_inline)) inline void output_tile4(const float* const m[36], int64_t co, float* const y[16],
                                                        const float* __restrict scale, const float* __restrict shift) {
  alignas(64) float t[24 * kBlock];  // A^T M for one block of channels: t[(r*6+j)*kBlock + c]
  for (int64_t o0 = 0; o0 < co; o0 += kBlock) {
    const int64_t n = std::min(kBlock, co - o0);
    for (int j = 0; j < 6; ++j) {  // down column j
      const float* __restrict x0 = m[j] + o0, * __restrict x1 = m[6 + j] + o0, * __restrict x2 = m[12 + j] + o0;
      const float* __restrict x3 = m[18 + j] + o0, * __restrict x4 = m[24 + j] + o0, * __restrict x5 = m[30 + j] + o0;
      float* __restrict r0 = t + j * kBlock, * __restrict r1 = t + (6 + j) * kBlock;
      float* __restrict r2 = t + (12 + j) * kBlock, * __restrict r3 = t + (18 + j) * kBlock;
      for (int64_t c = 0; c < n; ++c) {
        const float a = x1[c] + x2[c], b = x1[c] - x2[c], p = x3[c] + x4[c], q = x3[c] - x4[c];
        r0[c] = x0[c] + a + p;
        r1[c] = b + 2.0f * q;
        r2[c] = a + 4.0f * p;
        r3[c] = b + 8.0f * q + x5[c];
      }
    }
    for (int r = 0; r < 4; ++r) {  // along row r, finished and stored
      const float* __restrict x0 = t + (r * 6) * kBlock, * __restrict x1 = x0 + kBlock, * __restrict x2 = x1 + kBlock;
      const float* __restrict x3 = x2 + kBlock, * __restrict x4 = x3 + kBlock, * __restrict x5 = x4 + kBlock;
      float* __restrict y0 = y[r * 4] + o0, * __restrict y1 = y[r * 4 + 1] + o0;
      float* __restrict y2 = y[r * 4 + 2] + o0, * __restrict y3 = y[r * 4 + 3] + o0;
      const float* sc = kScale ? scale + o0 : nullptr;
      const float* sh = kAct >= 0 ? shift + o0 : nullptr;
      for (int64_t c = 0; c < n; ++c) {
        const float a = x1[c] + x2[c], b = x1[c] - x2[c], p = x3[c] + x4[c], q = x3[c] - x4[c];
        y0[c] = finish<kAct, kScale>(x0[c] + a + p, sc, sh, c);
        y1[c] = finish<kAct, kScale>(b + 2.0f * q, sc, sh, c);
        y2[c] = finish<kAct, kScale>(a + 4.0f * p, sc, sh, c);
        y3[c] = finish<kAct, kScale>(b + 8.0f * q + x5[c], sc, sh, c);
      }
    }
  }
}

// ---- the output transforms with their epilogue: ep (the fused convolution's bias / batch norm
// and Relu / Relu6 / hard-swish) is applied while the values are in registers; none when ep is
// null.

OPF_SIMD_CLONES void winograd2_output_tile(const float* const m[16], int64_t co, float* const y[4],
                                           const blas::ColumnEpilogue* ep) {
  if (ep == nullptr) return output_tile2<-1, false>(m, co, y, nullptr, nullptr);
  const float *sc = ep->scale, *sh = ep->shift;
  switch (ep->act * 2 + (sc != nullptr ? 1 : 0)) {
    case 0:
      return output_tile2<0, false>(m, co, y, sc, sh);
    case 1:
      return output_tile2<0, true>(m, co, y, sc, sh);
    case 2:
      return output_tile2<1, false>(m, co, y, sc, sh);
    case 3:
      return output_tile2<1, true>(m, co, y, sc, sh);
    case 4:
      return output_tile2<2, false>(m, co, y, sc, sh);
    case 5:
      return output_tile2<2, true>(m, co, y, sc, sh);
    case 6:
      return output_tile2<3, false>(m, co, y, sc, sh);
    default:
      return output_tile2<3, true>(m, co, y, sc, sh);
  }
}

OPF_SIMD_CLONES void winograd4_output_tile(const float* const m[36], int64_t co, float* const y[16],
                                           const blas::ColumnEpilogue* ep) {
  if (ep == nullptr) return output_tile4<-1, false>(m, co, y, nullptr, nullptr);
  const float *sc = ep->scale, *sh = ep->shift;
  switch (ep->act * 2 + (sc != nullptr ? 1 : 0)) {
    case 0:
      return output_tile4<0, false>(m, co, y, sc, sh);
    case 1:
      return output_tile4<0, true>(m, co, y, sc, sh);
    case 2:
      return output_tile4<1, false>(m, co, y, sc, sh);
    case 3:
      return output_tile4<1, true>(m, co, y, sc, sh);
    case 4:
      return output_tile4<2, false>(m, co, y, sc, sh);
    case 5:
      return output_tile4<2, true>(m, co, y, sc, sh);
    case 6:
      return output_tile4<3, false>(m, co, y, sc, sh);
    default:
      return output_tile4<3, true>(m, co, y, sc, sh);
  }
}

}  // namespace conv2d
}  // namespace opforge
