// CTCBeamSearchDecoder, as TensorFlow's CTCBeamSearchDecoderOp and its decoder
// (core/util/ctc/ctc_beam_search.h, with the default beam scorer) compute it: a tree of label
// prefixes, each with the log probabilities of ending in a blank and in its last label, of
// which the beam_width most likely are kept at each time step. The blank is the last class.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/nn/ctc_beam_search_decoder.h"

namespace opforge {
namespace {

template <typename T>
constexpr T kLogZero = -std::numeric_limits<T>::infinity();

template <typename T>
T log_sum_exp(T a, T b) {
  if (a == kLogZero<T>) return b;
  if (b == kLogZero<T>) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

template <typename T>
struct Probability {
  T total = kLogZero<T>, blank = kLogZero<T>, label = kLogZero<T>;
  void reset() { total = blank = label = kLogZero<T>; }
};

// A prefix: its last label, its parent prefix and (made when it is first extended) its
// children, one per non-blank label.
template <typename T>
struct Entry {
  Entry* parent = nullptr;
  int label = -1;
  Probability<T> newp, oldp;
  std::vector<std::unique_ptr<Entry>> children;

  bool active() const { return newp.total != kLogZero<T>; }

  std::vector<int64_t> labels(bool merge_repeated) const {
    std::vector<int64_t> out;
    int prev = -1;
    for (const Entry* e = this; e->parent != nullptr; e = e->parent) {
      if (!merge_repeated || e->label != prev) out.push_back(e->label);
      prev = e->label;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }
};

// One batch entry's search: Step per time step, then the best paths.
template <typename T>
class BeamSearch {
 public:
  BeamSearch(int classes, int width) : classes_(classes), blank_(classes - 1), width_(width) {
    root_.newp.total = 0;  // ln(1)
    root_.newp.blank = 0;
    leaves_.push(&root_);
  }

  void step(const T* raw) {
    std::vector<T> in(raw, raw + classes_);
    const T top = *std::max_element(in.begin(), in.end());
    T norm = 0;  // the log-softmax of the logits: log probabilities of the classes
    for (const T v : in) norm += std::exp(v - top);
    norm = top + std::log(norm);
    for (T& v : in) v -= norm;
    std::vector<Entry<T>*> branches = extract();
    for (Entry<T>* b : branches) b->oldp = b->newp;
    for (Entry<T>* b : branches) {
      if (b->parent != nullptr) {
        if (b->parent->active()) {
          // A repeated label extends only the paths of the parent that end in a blank.
          const T previous = b->label == b->parent->label ? b->parent->oldp.blank : b->parent->oldp.total;
          b->newp.label = log_sum_exp(b->newp.label, previous);
        }
        b->newp.label += in[static_cast<size_t>(b->label)];
      }
      b->newp.blank = b->oldp.total + in[static_cast<size_t>(blank_)];
      b->newp.total = log_sum_exp(b->newp.blank, b->newp.label);
      leaves_.push(b);
    }
    for (Entry<T>* b : branches) {
      if (!candidate(b->oldp)) continue;
      if (b->children.empty()) {
        b->children.reserve(static_cast<size_t>(blank_));
        for (int label = 0; label < blank_; ++label) {
          b->children.push_back(std::make_unique<Entry<T>>());
          b->children.back()->parent = b;
          b->children.back()->label = label;
        }
      }
      for (auto& child : b->children) {
        Entry<T>& c = *child;
        if (c.active()) continue;
        c.newp.blank = kLogZero<T>;
        const T previous = c.label == b->label ? b->oldp.blank : b->oldp.total;
        c.newp.label = in[static_cast<size_t>(c.label)] + previous;
        c.newp.total = c.newp.label;
        if (candidate(c.newp)) {
          if (static_cast<int>(leaves_.size()) == width_) {  // the bottom leaves the beam
            leaves_.top()->newp.reset();
            leaves_.pop();
          }
          leaves_.push(&c);
        } else {
          c.oldp.reset();
          c.newp.reset();
        }
      }
    }
  }

  // The leaves, most likely first (the beam is emptied).
  std::vector<Entry<T>*> extract() {
    std::vector<Entry<T>*> out;
    while (!leaves_.empty()) {
      out.push_back(leaves_.top());
      leaves_.pop();
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  bool candidate(const Probability<T>& p) const {
    return p.total > kLogZero<T> && (static_cast<int>(leaves_.size()) < width_ || p.total > leaves_.top()->newp.total);
  }

  struct Worse {  // a min-heap on total: its top is the beam's bottom
    bool operator()(const Entry<T>* a, const Entry<T>* b) const { return a->newp.total > b->newp.total; }
  };

  const int classes_, blank_, width_;
  Entry<T> root_;
  std::priority_queue<Entry<T>*, std::vector<Entry<T>*>, Worse> leaves_;
};

template <typename T>
Status CTCBeamSearchDecoderCpu(ops::CTCBeamSearchDecoderArgs& a) {
  const Tensor& in = a.inputs;
  if (in.rank() != 3) return a.ctx.error("inputs is not a 3-Tensor: ", in.shape().to_string());
  if (a.sequence_length.rank() != 1) {
    return a.ctx.error("sequence_length is not a vector: ", a.sequence_length.shape().to_string());
  }
  const int64_t max_time = in.dim(0), batch = in.dim(1), classes = in.dim(2);
  if (a.sequence_length.dim(0) != batch) {
    return a.ctx.error("len(sequence_length) != batch_size.  len(sequence_length):  ", a.sequence_length.dim(0),
                       " batch_size: ", batch);
  }
  if (classes < 1) return a.ctx.error("num_classes must be positive, got ", classes);
  if (a.top_paths > a.beam_width) {
    return a.ctx.error("requested more paths than the beam width (top_paths ", a.top_paths, ", beam_width ",
                       a.beam_width, ")");
  }
  const int32_t* seq_len = a.sequence_length.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (seq_len[b] < 0 || seq_len[b] > max_time) {
      return a.ctx.error("sequence_length(", b, ") = ", seq_len[b], " is not in [0, max_time = ", max_time, "]");
    }
  }
  const int paths = static_cast<int>(a.top_paths);
  Tensor log_prob;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(in.dtype(), Shape({batch, paths}), &log_prob));
  T* lp = log_prob.data<T>();
  const T* x = in.data<T>();
  // best[b][p]: path p of batch entry b; fewer leaves than top_paths is TensorFlow's error.
  std::vector<std::vector<std::vector<int64_t>>> best(static_cast<size_t>(batch));
  std::vector<char> too_few(static_cast<size_t>(batch), 0);
  parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      BeamSearch<T> search(static_cast<int>(classes), static_cast<int>(a.beam_width));
      for (int64_t t = 0; t < seq_len[b]; ++t) search.step(x + (t * batch + b) * classes);
      std::vector<Entry<T>*> leaves = search.extract();
      if (static_cast<int>(leaves.size()) < paths) {
        too_few[static_cast<size_t>(b)] = 1;
        continue;
      }
      for (int p = 0; p < paths; ++p) {
        best[static_cast<size_t>(b)].push_back(leaves[static_cast<size_t>(p)]->labels(a.merge_repeated));
        lp[b * paths + p] = leaves[static_cast<size_t>(p)]->newp.total;
      }
    }
  });
  for (int64_t b = 0; b < batch; ++b) {
    if (too_few[static_cast<size_t>(b)]) {
      return a.ctx.error("Less leaves in the beam search than requested (batch entry ", b, ", top_paths ", paths, ")");
    }
  }
  for (int p = 0; p < paths; ++p) {
    int64_t total = 0, longest = 0;
    for (const auto& entry : best) {
      const int64_t n = static_cast<int64_t>(entry[static_cast<size_t>(p)].size());
      total += n;
      longest = std::max(longest, n);
    }
    Tensor indices, values, shape;
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({total, 2}), &indices));
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({total}), &values));
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({2}), &shape));
    int64_t* ip = indices.data<int64_t>();
    int64_t* vp = values.data<int64_t>();
    int64_t k = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const auto& path = best[static_cast<size_t>(b)][static_cast<size_t>(p)];
      for (size_t t = 0; t < path.size(); ++t, ++k) {
        ip[2 * k] = b;
        ip[2 * k + 1] = static_cast<int64_t>(t);
        vp[k] = path[t];
      }
    }
    shape.data<int64_t>()[0] = batch;
    shape.data<int64_t>()[1] = longest;
    a.ctx.output(p) = std::move(indices);
    a.ctx.output(paths + p) = std::move(values);
    a.ctx.output(2 * paths + p) = std::move(shape);
  }
  a.ctx.output(3 * paths) = std::move(log_prob);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(CTCBeamSearchDecoder, CPU, CTCBeamSearchDecoderCpu, float, double)

}  // namespace opforge
