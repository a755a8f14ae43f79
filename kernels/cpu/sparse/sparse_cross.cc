// SparseCross and SparseCrossV2: feature crosses of sparse and dense 2-D inputs, as TensorFlow's
// sparse_cross_op.cc computes them (the same order, strings and FingerprintCat64 hashes).
#include <cstring>
#include <string>
#include <vector>

#include "cpu/sparse/sparse_util.h"
#include "opforge/ops/sparse/sparse_cross.h"
#include "opforge/ops/sparse/sparse_cross_v2.h"

#ifdef OPFORGE_HAVE_FARMHASH
#include <farmhash.h>
#endif

namespace opforge {
namespace {

// One input column: per batch row, its features (a string or an int64 each).
struct Column {
  const Tensor* values = nullptr;
  std::vector<int64_t> start, count;  // per row: first value and number of values
  bool dense = false;
  int64_t width = 0;  // dense inputs: features per row

  bool is_string() const { return values->dtype() == DType::kString; }
  int64_t features(int64_t row) const { return dense ? width : count[static_cast<size_t>(row)]; }
  int64_t at(int64_t row, int64_t k) const { return dense ? row * width + k : start[static_cast<size_t>(row)] + k; }
  std::string text(int64_t row, int64_t k) const {
    const int64_t i = at(row, k);
    return is_string() ? (*values->strings())[static_cast<size_t>(i)] : std::to_string(values->data<int64_t>()[i]);
  }
};

// Reads the inputs into columns (sparse first, then dense) and the batch size.
Status columns(const KernelContext& ctx, const TensorList& indices, const TensorList& values, const TensorList& shapes,
               const TensorList& dense, std::vector<Column>* out, int64_t* batch) {
  *batch = -1;
  auto same_batch = [&](int64_t b, const char* what, int k) -> Status {
    if (*batch >= 0 && b != *batch) return ctx.error("Expected batch size ", *batch, " got ", b, " for ", what, " ", k);
    *batch = b;
    return Status::OK();
  };
  for (int k = 0; k < indices.size; ++k) {
    const Tensor &ix = indices[k], &v = values[k], &s = shapes[k];
    if (ix.rank() != 2 || ix.dim(1) != 2) {
      return ctx.error("Expected sparse input ", k, "'s indices to be a matrix of 2 columns, got shape ",
                       ix.shape().to_string());
    }
    if (v.rank() != 1 || v.dim(0) != ix.dim(0)) {
      return ctx.error("Expected sparse input ", k, " to have ", ix.dim(0), " values, got shape ",
                       v.shape().to_string());
    }
    if (s.rank() != 1 || s.dim(0) != 2) {
      return ctx.error("Expected sparse input ", k, "'s shape to have 2 elements, got shape ", s.shape().to_string());
    }
    const int64_t rows = s.data<int64_t>()[0];
    if (rows < 0) return ctx.error("Expected a non-negative batch size, got ", rows);
    OPF_RETURN_IF_ERROR(same_batch(rows, "sparse input", k));
  }
  for (int k = 0; k < dense.size; ++k) {
    if (dense[k].rank() != 2) {
      return ctx.error("Dense inputs should be a matrix but received shape ", dense[k].shape().to_string());
    }
    OPF_RETURN_IF_ERROR(same_batch(dense[k].dim(0), "dense input", k));
  }
  if (*batch < 0) *batch = 0;
  for (int k = 0; k < indices.size; ++k) {
    Column c;
    c.values = &values[k];
    c.start.assign(static_cast<size_t>(*batch), 0);
    c.count.assign(static_cast<size_t>(*batch), 0);
    const int64_t* ix = indices[k].data<int64_t>();
    for (int64_t i = 0; i < indices[k].dim(0); ++i) {
      const int64_t row = ix[2 * i];
      if (row < 0 || row >= *batch)
        return ctx.error("Sparse input ", k, " has row index ", row, " outside [0, ", *batch, ")");
      if (i > 0 && row < ix[2 * (i - 1)]) {
        return ctx.error("Sparse input ", k, "'s values must be grouped by row in order: row ", row, " follows row ",
                         ix[2 * (i - 1)]);
      }
      if (c.count[static_cast<size_t>(row)]++ == 0) c.start[static_cast<size_t>(row)] = i;
    }
    out->push_back(std::move(c));
  }
  for (int k = 0; k < dense.size; ++k) {
    Column c;
    c.values = &dense[k];
    c.dense = true;
    c.width = dense[k].dim(1);  // 0: every row is empty, so no row has crosses
    out->push_back(std::move(c));
  }
  return Status::OK();
}

// TensorFlow's FingerprintCat64 (core/platform/fingerprint.h).
uint64_t fingerprint_cat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  auto shift_mix = [](uint64_t v) { return v ^ (v >> 47); };
  uint64_t result = fp1 ^ kMul;
  result ^= shift_mix(fp2 * kMul) * kMul;
  result *= kMul;
  result = shift_mix(result) * kMul;
  return shift_mix(result);
}

// Every cross of every row: f(row, picks) for each combination (the last column fastest).
template <typename F>
int64_t for_each_cross(const std::vector<Column>& cols, int64_t batch, F f) {
  int64_t widest = 0;
  for (int64_t row = 0; row < batch; ++row) {
    bool any = !cols.empty();
    for (const Column& c : cols) any = any && c.features(row) > 0;
    if (!any) continue;
    std::vector<int64_t> pick(cols.size(), 0);
    int64_t n = 0;
    while (true) {
      f(row, n++, pick);
      int i = static_cast<int>(cols.size()) - 1;
      for (; i >= 0; --i) {
        if (++pick[static_cast<size_t>(i)] < cols[static_cast<size_t>(i)].features(row)) break;
        pick[static_cast<size_t>(i)] = 0;
      }
      if (i < 0) break;
    }
    widest = std::max(widest, n);
  }
  return widest;
}

Status cross(KernelContext& ctx, const std::vector<Column>& cols, int64_t batch, bool hashed, int64_t num_buckets,
             uint64_t hash_key, const std::string& sep) {
  std::vector<int64_t> rows;
  std::vector<std::string> texts;
  std::vector<int64_t> hashes;
  const int64_t widest = for_each_cross(cols, batch, [&](int64_t row, int64_t n, const std::vector<int64_t>& pick) {
    rows.push_back(row);
    rows.push_back(n);
    if (!hashed) {
      std::string s;
      for (size_t i = 0; i < cols.size(); ++i) s += (i ? sep : "") + cols[i].text(row, pick[i]);
      texts.push_back(std::move(s));
      return;
    }
#ifdef OPFORGE_HAVE_FARMHASH
    uint64_t h = hash_key;
    for (size_t i = 0; i < cols.size(); ++i) {
      const Column& c = cols[i];
      const int64_t at = c.at(row, pick[i]);
      uint64_t f;
      if (c.is_string()) {
        const std::string& s = (*c.values->strings())[static_cast<size_t>(at)];
        f = util::Fingerprint64(s.data(), s.size());
      } else {
        f = static_cast<uint64_t>(c.values->data<int64_t>()[at]);
      }
      h = fingerprint_cat64(h, f);
    }
    const uint64_t mod = num_buckets > 0 ? static_cast<uint64_t>(num_buckets) : static_cast<uint64_t>(INT64_MAX);
    hashes.push_back(static_cast<int64_t>(h % mod));
#endif
  });
#ifndef OPFORGE_HAVE_FARMHASH
  if (hashed) {
    return errors::Unimplemented("SparseCross: hashed crosses need the farmhash library ",
                                 "(Debian/Ubuntu: apt-get install libfarmhash-dev, then rebuild)");
  }
#endif
  const int64_t n = static_cast<int64_t>(rows.size() / 2);
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows, n, 2, &ctx.output(0)));
  if (hashed) {
    OPF_RETURN_IF_ERROR(sparse::int64_vector(hashes, &ctx.output(1)));
  } else {
    OPF_RETURN_IF_ERROR(Tensor::FromStrings(Shape{n}, std::move(texts), &ctx.output(1)));
  }
  return sparse::int64_vector({batch, widest}, &ctx.output(2));
}

template <typename T>
Status SparseCrossCpu(ops::SparseCrossArgs& a) {
  if (a.hashed_output != (a.out_type == DType::kInt64)) {
    return a.ctx.error("out_type must be int64 with hashed_output and string without it");
  }
  std::vector<Column> cols;
  int64_t batch = 0;
  OPF_RETURN_IF_ERROR(columns(a.ctx, a.indices, a.values, a.shapes, a.dense_inputs, &cols, &batch));
  return sparse::guarded("SparseCross", [&] {
    return cross(a.ctx, cols, batch, a.hashed_output, a.num_buckets, static_cast<uint64_t>(a.hash_key), "_X_");
  });
}

Status SparseCrossV2Cpu(ops::SparseCrossV2Args& a) {
  if (a.sep.rank() != 0)
    return a.ctx.error("Input separator should be a scalar but received shape ", a.sep.shape().to_string());
  std::vector<Column> cols;
  int64_t batch = 0;
  OPF_RETURN_IF_ERROR(columns(a.ctx, a.indices, a.values, a.shapes, a.dense_inputs, &cols, &batch));
  const std::string sep = (*a.sep.strings())[0];
  return sparse::guarded("SparseCrossV2", [&] { return cross(a.ctx, cols, batch, false, 0, 0, sep); });
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(SparseCross, CPU, SparseCrossCpu, int64_t, StringTag)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(SparseCrossV2, CPU, SparseCrossV2Cpu)

}  // namespace opforge
