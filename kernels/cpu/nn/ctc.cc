// CTCLoss and CTCGreedyDecoder (connectionist temporal classification, Graves et al. 2006), as
// TensorFlow's ctc_loss_calculator and CTCGreedyDecoderOp compute them: the loss by the
// forward-backward recursions in log space over the blank-interleaved label sequence, the
// gradient with respect to the logits as softmax - (paths through each class) / p. Batch entries
// run in parallel. (Input ranks and the batch size of sequence_length are checked by the shape
// functions, runtime/ops/ctc.cc, which the runtime runs on the actual shapes too.)
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/nn/ctc_greedy_decoder.h"
#include "opforge/ops/nn/ctc_loss.h"

namespace opforge {
namespace {

constexpr double kLogZero = -std::numeric_limits<double>::infinity();

double log_sum_exp(double a, double b) {
  if (a == kLogZero) return b;
  if (b == kLogZero) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// The labels of each batch entry from the SparseTensor (indices [n, 2], row-major order).
Status split_labels(KernelContext& ctx, const Tensor& indices, const Tensor& values, int64_t batch,
                    std::vector<std::vector<int>>* out) {
  const int64_t n = indices.dim(0);
  if (indices.dim(1) != 2) return ctx.error("labels_indices must be [n, 2], got ", indices.shape().to_string());
  if (values.dim(0) != n) {
    return ctx.error("labels_indices has ", n, " rows but labels_values has ", values.dim(0), " values");
  }
  const int64_t* idx = indices.data<int64_t>();
  const int32_t* val = values.data<int32_t>();
  out->assign(static_cast<size_t>(batch), {});
  int64_t prev_b = -1, prev_t = -1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = idx[2 * i], t = idx[2 * i + 1];
    if (b < 0 || b >= batch) return ctx.error("labels batch index ", b, " is not in [0, ", batch, ")");
    if (b < prev_b || (b == prev_b && t <= prev_t)) return ctx.error("labels indices must be ordered (row-major)");
    prev_b = b;
    prev_t = t;
    (*out)[static_cast<size_t>(b)].push_back(val[i]);
  }
  return Status::OK();
}

template <typename T>
Status CTCLossCpu(ops::CTCLossArgs& a) {
  const Tensor& in = a.inputs;
  const int64_t max_time = in.dim(0), batch = in.dim(1), classes = in.dim(2);
  if (classes < 1) return a.ctx.error("num_classes must be at least 1 (the blank)");
  const int32_t* seq_len = a.sequence_length.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (seq_len[b] < 0 || seq_len[b] > max_time) {
      return a.ctx.error("sequence_length(", b, ") = ", seq_len[b], " is not in [0, max_time = ", max_time, "]");
    }
  }
  std::vector<std::vector<int>> labels;
  OPF_RETURN_IF_ERROR(split_labels(a.ctx, a.labels_indices, a.labels_values, batch, &labels));
  const int blank = static_cast<int>(classes - 1);
  for (int64_t b = 0; b < batch; ++b) {
    auto& l = labels[static_cast<size_t>(b)];
    for (int v : l) {
      if (v < 0 || v >= blank)
        return a.ctx.error("label values must be in [0, num_classes - 1 = ", blank, "), got ", v);
    }
    if (a.preprocess_collapse_repeated) l.erase(std::unique(l.begin(), l.end()), l.end());
    int64_t required = static_cast<int64_t>(l.size());
    if (a.ctc_merge_repeated) {
      for (size_t i = 1; i < l.size(); ++i) required += l[i] == l[i - 1] ? 1 : 0;
    }
    if (required > seq_len[b] && !a.ignore_longer_outputs_than_inputs) {
      return a.ctx.error("Not enough time for target transition sequence (required: ", required,
                         ", available: ", seq_len[b], ") in batch entry ", b,
                         "; set ignore_longer_outputs_than_inputs to skip it");
    }
  }
  const T* x = in.data<T>();
  T* loss = a.loss.data<T>();
  T* grad = a.gradient.data<T>();
  std::fill(grad, grad + a.gradient.num_elements(), T(0));
  const bool merge = a.ctc_merge_repeated;
  parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
    std::vector<double> logy, alpha, beta, prob_sum;
    for (int64_t b = b0; b < b1; ++b) {
      const auto& l = labels[static_cast<size_t>(b)];
      const int64_t len = seq_len[b];
      int64_t required = static_cast<int64_t>(l.size());
      if (merge)
        for (size_t i = 1; i < l.size(); ++i) required += l[i] == l[i - 1] ? 1 : 0;
      if (required > len) {  // ignore_longer_outputs_than_inputs: no loss, no gradient
        loss[b] = T(0);
        continue;
      }
      // log softmax of the logits, [len, classes]
      logy.assign(static_cast<size_t>(len * classes), 0.0);
      for (int64_t t = 0; t < len; ++t) {
        const T* row = x + (t * batch + b) * classes;
        double m = static_cast<double>(row[0]);
        for (int64_t k = 1; k < classes; ++k) m = std::max(m, static_cast<double>(row[k]));
        double s = 0;
        for (int64_t k = 0; k < classes; ++k) s += std::exp(static_cast<double>(row[k]) - m);
        const double lse = m + std::log(s);
        for (int64_t k = 0; k < classes; ++k) logy[t * classes + k] = static_cast<double>(row[k]) - lse;
      }
      const int64_t U = 2 * static_cast<int64_t>(l.size()) + 1;
      auto lp = [&](int64_t u) { return u % 2 == 0 ? blank : l[static_cast<size_t>(u / 2)]; };
      alpha.assign(static_cast<size_t>(U * std::max<int64_t>(len, 1)), kLogZero);
      beta.assign(alpha.size(), kLogZero);
      if (len == 0) {
        loss[b] = l.empty() ? T(0) : T(std::numeric_limits<double>::infinity());
        continue;
      }
      alpha[0] = logy[blank];
      if (U > 1) alpha[1] = logy[lp(1)];
      for (int64_t t = 1; t < len; ++t) {
        for (int64_t u = 0; u < U; ++u) {
          double s = kLogZero;
          if (merge || lp(u) == blank) s = alpha[(t - 1) * U + u];
          if (u > 0) s = log_sum_exp(s, alpha[(t - 1) * U + u - 1]);
          if (u > 1 && lp(u) != blank && !(merge && lp(u) == lp(u - 2))) s = log_sum_exp(s, alpha[(t - 1) * U + u - 2]);
          alpha[t * U + u] = s == kLogZero ? kLogZero : s + logy[t * classes + lp(u)];
        }
      }
      for (int64_t u = std::max<int64_t>(0, U - 2); u < U; ++u) beta[(len - 1) * U + u] = 0;
      for (int64_t t = len - 2; t >= 0; --t) {
        for (int64_t u = 0; u < U; ++u) {
          double s = kLogZero;
          const double* next = &beta[(t + 1) * U];
          const double* y1 = &logy[(t + 1) * classes];
          if (merge || lp(u) == blank) s = log_sum_exp(s, next[u] + y1[lp(u)]);
          if (u + 1 < U) s = log_sum_exp(s, next[u + 1] + y1[lp(u + 1)]);
          if (u + 2 < U && lp(u + 2) != blank && !(merge && lp(u) == lp(u + 2))) {
            s = log_sum_exp(s, next[u + 2] + y1[lp(u + 2)]);
          }
          beta[t * U + u] = s;
        }
      }
      double log_p = kLogZero;
      for (int64_t u = 0; u < U; ++u) log_p = log_sum_exp(log_p, alpha[u] + beta[u]);
      loss[b] = static_cast<T>(-log_p);
      prob_sum.assign(static_cast<size_t>(classes), kLogZero);
      for (int64_t t = 0; t < len; ++t) {
        std::fill(prob_sum.begin(), prob_sum.end(), kLogZero);
        for (int64_t u = 0; u < U; ++u) {
          prob_sum[lp(u)] = log_sum_exp(prob_sum[lp(u)], alpha[t * U + u] + beta[t * U + u]);
        }
        T* g = grad + (t * batch + b) * classes;
        for (int64_t k = 0; k < classes; ++k) {
          g[k] = static_cast<T>(std::exp(logy[t * classes + k]) - std::exp(prob_sum[k] - log_p));
        }
      }
    }
  });
  return Status::OK();
}

template <typename T>
Status CTCGreedyDecoderCpu(ops::CTCGreedyDecoderArgs& a) {
  const Tensor& in = a.inputs;
  const int64_t max_time = in.dim(0), batch = in.dim(1), classes = in.dim(2);
  int64_t blank = a.blank_index < 0 ? a.blank_index + classes : a.blank_index;
  if (blank < 0 || blank >= classes) {
    return a.ctx.error("blank_index ", a.blank_index, " is not in [-num_classes, num_classes) for ", classes,
                       " classes");
  }
  const int32_t* seq_len = a.sequence_length.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (seq_len[b] < 0 || seq_len[b] > max_time) {
      return a.ctx.error("sequence_length(", b, ") = ", seq_len[b], " is not in [0, max_time = ", max_time, "]");
    }
  }
  const T* x = in.data<T>();
  std::vector<std::vector<int64_t>> decoded(static_cast<size_t>(batch));
  Tensor log_prob;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(in.dtype(), Shape({batch, 1}), &log_prob));
  T* lp = log_prob.data<T>();
  parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double sum = 0;
      int64_t prev = -1;
      for (int64_t t = 0; t < seq_len[b]; ++t) {
        const T* row = x + (t * batch + b) * classes;
        const int64_t best = std::max_element(row, row + classes) - row;
        sum += -static_cast<double>(row[best]);
        if (best != blank && !(a.merge_repeated && best == prev)) decoded[static_cast<size_t>(b)].push_back(best);
        prev = best;
      }
      lp[b] = static_cast<T>(sum);
    }
  });
  int64_t total = 0, longest = 0;
  for (const auto& d : decoded) {
    total += static_cast<int64_t>(d.size());
    longest = std::max(longest, static_cast<int64_t>(d.size()));
  }
  Tensor indices, values, shape;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({total, 2}), &indices));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({total}), &values));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({2}), &shape));
  int64_t* ip = indices.data<int64_t>();
  int64_t* vp = values.data<int64_t>();
  int64_t k = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const auto& d = decoded[static_cast<size_t>(b)];
    for (size_t t = 0; t < d.size(); ++t, ++k) {
      ip[2 * k] = b;
      ip[2 * k + 1] = static_cast<int64_t>(t);
      vp[k] = d[t];
    }
  }
  shape.data<int64_t>()[0] = batch;
  shape.data<int64_t>()[1] = longest;
  a.ctx.output(0) = std::move(indices);
  a.ctx.output(1) = std::move(values);
  a.ctx.output(2) = std::move(shape);
  a.ctx.output(3) = std::move(log_prob);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(CTCLoss, CPU, CTCLossCpu, float, double)
OPFORGE_REGISTER_FORWARDING_KERNEL(CTCGreedyDecoder, CPU, CTCGreedyDecoderCpu, float, double)

}  // namespace opforge
