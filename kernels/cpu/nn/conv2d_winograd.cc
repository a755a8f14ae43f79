// Conv2D by Winograd's minimal filtering (float32 3x3, stride 1, no dilation, enough channels
// and tiles to pay for the transforms); the per-tile transforms are in conv2d_winograd_tiles.cc.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cpu/nn/conv2d_internal.h"
#include "src/constant_cache.h"

namespace opforge {
namespace conv2d {
namespace {

// ---------------------------------------------------------------------------- Winograd F(m x m, 3x3)
//
// For 3x3 filters with stride 1 and no dilation (float32, enough channels to pay for the
// transforms): each m x m block of outputs comes from a (m+2) x (m+2) input tile through
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A,
// the element-wise product over channels being (m+2)^2 GEMMs [tiles x Cin] x [Cin x Cout], run
// on cache-sized chunks of tiles, chunks split over the threads. Two tile sizes (Lavin & Gray,
// "Fast Algorithms for Convolutional Neural Networks"):
//   F(2x2, 3x3): 16 products per 4 outputs, 2.25x fewer multiplies than the direct 9 per output;
//   F(4x4, 3x3): 36 products per 16 outputs, 4x fewer, with larger transforms and about ten
//                times the rounding error (~1e-5 of the output's scale, F(2x2) ~1e-6).
// F(4x4) is the default where it needs at most 3/4 of F(2x2)'s products (see winograd_tile).

constexpr int64_t kMinWinogradTiles = 64;

// The transformed tiles of one chunk (V and M) take about this much: half a core's L2.
// Medians at batch 8, against 256 KiB / 1 MiB / 2 MiB: 56x56x64 -> 64 2.09 ms (2.30 / 2.41 /
// 2.44), 128x128x32 -> 16 3.67 (3.76 / 3.91 / 3.97), 72x72x32 -> 64 2.26 (2.31 / 2.44 / 2.42).
constexpr int64_t kWinogradChunkBytes = 512 * 1024;

// The tile size in use (2 or 4; 0: choose per shape); set_winograd_tile switches it for tests.
std::atomic<int> g_winograd_tile{0};

template <int kM>
struct Winograd {
  static constexpr int kT = kM + 2;   // input tile side
  static constexpr int kP = kT * kT;  // positions of the transformed tile: one GEMM each
};

// U[k][cin][cout] = (G g G^T)[k] for the kP positions k of the transformed filter, computed in
// double and rounded once.
template <int kM>
std::vector<float> winograd_filter(const float* filt, const ConvGeom& g) {
  constexpr int kT = Winograd<kM>::kT, kP = Winograd<kM>::kP;
  static constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},
                                       {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                       {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                       {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                       {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                       {0, 0, 1}};
  const auto G = [](int i, int k) { return kM == 2 ? kG2[i][k] : kG4[i][k]; };
  const int64_t ci = g.cin, co = g.cout, plane = ci * co;
  std::vector<float> u(static_cast<size_t>(kP * plane));
  parallel_for(ci, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, co)), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      for (int64_t o = 0; o < co; ++o) {
        double w[3][3], t[kT][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) w[i][j] = filt[((i * 3 + j) * ci + c) * co + o];
        for (int i = 0; i < kT; ++i)  // t = G w
          for (int j = 0; j < 3; ++j) t[i][j] = G(i, 0) * w[0][j] + G(i, 1) * w[1][j] + G(i, 2) * w[2][j];
        for (int i = 0; i < kT; ++i)  // U = t G^T
          for (int j = 0; j < kT; ++j)
            u[static_cast<size_t>((i * kT + j) * plane + c * co + o)] =
                static_cast<float>(t[i][0] * G(j, 0) + t[i][1] * G(j, 1) + t[i][2] * G(j, 2));
      }
    }
  });
  return u;
}

// The transformed filter, packed for the kP GEMMs (kept across runs for a constant filter).
struct WinogradFilter {
  template <int kM>
  static std::shared_ptr<const WinogradFilter> make(const float* filt, const ConvGeom& g) {
    auto f = std::make_shared<WinogradFilter>();
    f->u = winograd_filter<kM>(filt, g);
    const int64_t plane = g.cin * g.cout;
    f->uk.reserve(Winograd<kM>::kP);
    for (int p = 0; p < Winograd<kM>::kP; ++p)
      f->uk.emplace_back(&f->u[static_cast<size_t>(p * plane)], g.cout, g.cin, g.cout);
    return f;
  }
  std::vector<float> u;
  std::vector<nn::RightOperand<float>> uk;  // points into u
};

// The Winograd transform of the filter, derived once per constant filter (Const's buffer, see
// constant_cache.h), else per call. `filter` is null when the filter pointer is not the
// tensor's own float32 data.
template <int kM>
std::shared_ptr<const WinogradFilter> winograd_operand(const Tensor* filter, const float* filt, const ConvGeom& g) {
  const auto make = [&] { return WinogradFilter::make<kM>(filt, g); };
  if (filter == nullptr) return make();
  return derived_from_constant<WinogradFilter>(
      *filter, "conv-winograd" + std::to_string(kM) + " " + std::to_string(g.cin) + "x" + std::to_string(g.cout),
      static_cast<size_t>(2 * Winograd<kM>::kP * g.cin * g.cout) * sizeof(float), make);
}

// The transforms of conv2d_winograd_tiles.cc by tile size.
template <int kM>
inline void winograd_input_tile(const float* const d[Winograd<kM>::kP], int64_t ci, float* v, int64_t vstride) {
  if constexpr (kM == 2) {
    winograd2_input_tile(d, ci, v, vstride);
  } else {
    winograd4_input_tile(d, ci, v, vstride);
  }
}

template <int kM>
inline void winograd_output_tile(const float* const m[Winograd<kM>::kP], int64_t co, float* const y[kM * kM],
                                 const blas::ColumnEpilogue* ep) {
  if constexpr (kM == 2) {
    winograd2_output_tile(m, co, y, ep);
  } else {
    winograd4_output_tile(m, co, y, ep);
  }
}

// Beyond this many bytes of transformed filter (kP * cin * cout floats: more than a core's L2
// holds), the tiles of a chunk are shared by the threads phase by phase instead of chunk by
// chunk, so each transformed filter matrix is read once per chunk rather than once per chunk
// per thread, and chunks are larger. Measured at batch 8 (chunk by chunk -> phase by phase):
// 7x7x512 -> 512 F(4x4) 3.7 -> 2.3 ms, F(2x2) 3.5 -> 2.8; 8x8x384 -> 384 F(2x2) 1.9 -> 1.5.
constexpr int64_t kWinogradSharedFilterBytes = 1 << 20;
constexpr int64_t kWinogradSharedChunkBytes = 8 << 20;

template <int kM, typename Post>
void run_winograd(const float* in, const WinogradFilter& wf, float* out, const ConvGeom& g, const Post& post,
                  const blas::ColumnEpilogue* ep) {
  constexpr int kT = Winograd<kM>::kT, kP = Winograd<kM>::kP;
  const int64_t ci = g.cin, co = g.cout;
  const int64_t th = (g.oh + kM - 1) / kM, tw = (g.ow + kM - 1) / kM, tiles = g.n * th * tw;
  const std::vector<nn::RightOperand<float>>& uk = wf.uk;
  const std::vector<float> zeros(static_cast<size_t>(ci), 0.0f);
  // V = B^T d B for tiles [t0, t1), tile t at row t - t0 of each position's [chunk x ci] block.
  const auto input_tiles = [&](int64_t t0, int64_t t1, int64_t base, float* v, int64_t chunk) {
    const float* d[kP];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / (th * tw), r = t % (th * tw), ty = r / tw, tx = r % tw;
      for (int i = 0; i < kT; ++i) {
        const int64_t ih = kM * ty - g.pt + i;
        for (int j = 0; j < kT; ++j) {
          const int64_t iw = kM * tx - g.pl + j;
          d[i * kT + j] =
              (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) ? zeros.data() : in + ((n * g.h + ih) * g.w + iw) * ci;
        }
      }
      winograd_input_tile<kM>(d, ci, v + (t - base) * ci, chunk * ci);
    }
  };
  // The element-wise products of positions [p0, p1) for nt tiles, as GEMMs over channels.
  const auto products = [&](int64_t p0, int64_t p1, int64_t nt, const float* v, float* m, int64_t chunk) {
    for (int64_t p = p0; p < p1; ++p) {
      uk[static_cast<size_t>(p)].gemm_into(nt, v + p * chunk * ci, ci, m + p * chunk * co, co);
    }
  };
  // Y = A^T M A for tiles [t0, t1), stored (through an edge buffer where the border cuts them).
  const auto output_tiles = [&](int64_t t0, int64_t t1, int64_t base, const float* m, int64_t chunk) {
    std::vector<float> edge(static_cast<size_t>(kM * kM * co));
    const float* mp[kP];
    float* y[kM * kM];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / (th * tw), r = t % (th * tw), ty = r / tw, tx = r % tw;
      for (int p = 0; p < kP; ++p) mp[p] = m + p * chunk * co + (t - base) * co;
      const int64_t rows = std::min<int64_t>(kM, g.oh - kM * ty), cols = std::min<int64_t>(kM, g.ow - kM * tx);
      float* y0 = out + ((n * g.oh + kM * ty) * g.ow + kM * tx) * co;
      if (rows == kM && cols == kM) {
        for (int i = 0; i < kM; ++i)
          for (int j = 0; j < kM; ++j) y[i * kM + j] = y0 + (i * g.ow + j) * co;
        winograd_output_tile<kM>(mp, co, y, ep);
        if (ep == nullptr) {
          for (int i = 0; i < kM; ++i) post(y[i * kM], kM);
        }
        continue;
      }
      float* e = edge.data();
      for (int i = 0; i < kM * kM; ++i) y[i] = e + i * co;
      winograd_output_tile<kM>(mp, co, y, ep);
      if (ep == nullptr) post(e, kM * kM);
      for (int64_t i = 0; i < rows; ++i) std::copy(e + i * kM * co, e + (i * kM + cols) * co, y0 + i * g.ow * co);
    }
  };
  const int64_t tile_bytes = static_cast<int64_t>(sizeof(float)) * kP * (ci + co);
  if (static_cast<int64_t>(sizeof(float)) * kP * ci * co > kWinogradSharedFilterBytes) {
    // Large filter: each chunk's three phases split over the threads (tiles, then positions,
    // then tiles), so a transformed filter matrix is read once per chunk.
    const int64_t chunk = std::clamp<int64_t>(kWinogradSharedChunkBytes / tile_bytes, 8, tiles);
    std::vector<float> v(static_cast<size_t>(kP * chunk * ci)), m(static_cast<size_t>(kP * chunk * co));
    for (int64_t t0 = 0; t0 < tiles; t0 += chunk) {
      const int64_t t1 = std::min(tiles, t0 + chunk), nt = t1 - t0;
      parallel_for(nt, 1, [&](int64_t a, int64_t b) { input_tiles(t0 + a, t0 + b, t0, v.data(), chunk); });
      parallel_for(kP, 1, [&](int64_t a, int64_t b) { products(a, b, nt, v.data(), m.data(), chunk); });
      parallel_for(nt, 1, [&](int64_t a, int64_t b) { output_tiles(t0 + a, t0 + b, t0, m.data(), chunk); });
    }
    return;
  }
  // Small filter: chunks of tiles sized for a core's cache, chunk after chunk on each thread.
  const int64_t chunk = std::clamp<int64_t>(kWinogradChunkBytes / tile_bytes, 8, 256);
  const int64_t chunks = (tiles + chunk - 1) / chunk;
  parallel_for(chunks, 1, [&](int64_t k0, int64_t k1) {
    std::vector<float> v(static_cast<size_t>(kP * chunk * ci)), m(static_cast<size_t>(kP * chunk * co));
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t t0 = k * chunk, t1 = std::min(tiles, t0 + chunk);
      input_tiles(t0, t1, t0, v.data(), chunk);
      products(0, kP, t1 - t0, v.data(), m.data(), chunk);
      output_tiles(t0, t1, t0, m.data(), chunk);
    }
  });
}

}  // namespace

// The tile size for a convolution that may take Winograd (0: it should not): F(4x4) or F(2x2)
// by the products each needs, 36 per 4x4 block against 16 per 2x2, each over the blocks that
// cover oh x ow (a 10x10 image takes 3x3 blocks of F(4x4) but 5x5 of F(2x2)). Every call transforms the whole
// filter when it is not a constant, so few blocks do not pay for it (measured with F(2x2): a
// 7x7x512 image, 16 blocks, 5.9 ms against 3.0 ms through im2col; 98 blocks of 14x14x256, 2.1
// against 3.1 ms).
int winograd_tile(const ConvGeom& g) {
  if (!(g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.cin >= 16 && g.cout >= 16 &&
        g.oh >= 2 && g.ow >= 2)) {
    return 0;
  }
  const auto blocks = [&](int64_t m) { return g.n * ((g.oh + m - 1) / m) * ((g.ow + m - 1) / m); };
  if (blocks(2) < kMinWinogradTiles) return 0;
  const int forced = g_winograd_tile.load(std::memory_order_relaxed);
  if (forced != 0) return forced;
  // F(4x4)'s transforms cost more per product: it wins where it needs at most 3/4 of F(2x2)'s
  // products (measured at batch 8: 10x10x128 -> 32, 0.21 ms against 0.18 with F(2x2); 14x14x256
  // -> 256, 2.1 against 2.2; 56x56x64 -> 64, 2.4 against 3.9).
  return 4 * 36 * blocks(4) <= 3 * 16 * blocks(2) ? 4 : 2;
}

template <typename Post>
void winograd_forward(int m, const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post,
                      const Tensor* filter, const blas::ColumnEpilogue* ep) {
  if (m == 4) {
    run_winograd<4>(in, *winograd_operand<4>(filter, filt, g), out, g, post, ep);
  } else {
    run_winograd<2>(in, *winograd_operand<2>(filter, filt, g), out, g, post, ep);
  }
}

template void winograd_forward<NoPost>(int, const float*, const float*, float*, const ConvGeom&, const NoPost&,
                                       const Tensor*, const blas::ColumnEpilogue*);
template void winograd_forward<nn::Epilogue<float>>(int, const float*, const float*, float*, const ConvGeom&,
                                                    const nn::Epilogue<float>&, const Tensor*,
                                                    const blas::ColumnEpilogue*);

}  // namespace conv2d

namespace nn {

int winograd_tile_setting() { return conv2d::g_winograd_tile.load(); }

int set_winograd_tile(int m) {
  if (m == 0 || m == 2 || m == 4) conv2d::g_winograd_tile.store(m);
  return conv2d::g_winograd_tile.load();
}

}  // namespace nn
}  // namespace opforge
