// Datasets made from other datasets without functions: repeat, take, skip, batch,
// padded_batch, shuffle, zip, concatenate, shard, and ModelDataset (a pass-through).
#include <atomic>
#include <deque>
#include <random>

#include "cpu/data/dataset_util.h"
#include "opforge/ops/data_ops.h"

namespace opforge {
namespace {

using DatasetPtr = std::shared_ptr<const DatasetBase>;

// A dataset over one input; Next(input iterator, ...) is the iterator's step.
class UnaryDataset : public DatasetBase {
 public:
  UnaryDataset(const std::string& op, DatasetPtr input, std::vector<DType> dtypes, std::vector<Shape> shapes)
      : DatasetBase(op, std::move(dtypes), std::move(shapes)), input_(std::move(input)) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }

 protected:
  DatasetPtr input_;
};

class RepeatDataset final : public UnaryDataset {
 public:
  RepeatDataset(DatasetPtr input, int64_t count, std::vector<DType> d, std::vector<Shape> s)
      : UnaryDataset("RepeatDataset", std::move(input), std::move(d), std::move(s)), count_(count) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const RepeatDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        while (true) {
          if (ds_->count_ >= 0 && pass_ >= ds_->count_) {
            *end = true;
            return Status::OK();
          }
          if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
          OPF_RETURN_IF_ERROR(input_->GetNext(out, end));
          if (!*end) {
            got_any_ = true;
            return Status::OK();
          }
          input_.reset();
          ++pass_;
          if (!got_any_ && ds_->count_ < 0) return Status::OK();  // an empty input repeated forever is empty
          got_any_ = false;
        }
      }

     private:
      const RepeatDataset* ds_;
      std::unique_ptr<IteratorBase> input_;
      int64_t pass_ = 0;
      bool got_any_ = false;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ == 0 || n == 0) return 0;
    if (count_ < 0 || n == kInfiniteCardinality) return kInfiniteCardinality;
    return n < 0 ? n : n * count_;
  }

 private:
  int64_t count_;
};

// TakeDataset (skip = false) and SkipDataset (skip = true).
class TakeSkipDataset final : public UnaryDataset {
 public:
  TakeSkipDataset(bool skip, DatasetPtr input, int64_t count, std::vector<DType> d, std::vector<Shape> s)
      : UnaryDataset(skip ? "SkipDataset" : "TakeDataset", std::move(input), std::move(d), std::move(s)),
        skip_(skip),
        count_(count) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const TakeSkipDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        if (!ds_->skip_) {
          if (ds_->count_ >= 0 && seen_ >= ds_->count_) {
            *end = true;
            return Status::OK();
          }
          ++seen_;
          return input_->GetNext(out, end);
        }
        while (ds_->count_ < 0 || seen_ < ds_->count_) {
          OPF_RETURN_IF_ERROR(input_->GetNext(out, end));
          if (*end) return Status::OK();
          ++seen_;
        }
        return input_->GetNext(out, end);
      }

     private:
      const TakeSkipDataset* ds_;
      std::unique_ptr<IteratorBase> input_;
      int64_t seen_ = 0;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (skip_) {
      if (count_ < 0) return 0;
      if (n < 0) return n;
      return std::max<int64_t>(0, n - count_);
    }
    if (count_ < 0) return n;
    if (n == kInfiniteCardinality) return count_;
    return n < 0 ? n : std::min(n, count_);
  }

 private:
  bool skip_;
  int64_t count_;
};

// BatchDatasetV2 and PaddedBatchDatasetV2 (padded_shapes and padding values given).
class BatchDataset final : public UnaryDataset {
 public:
  BatchDataset(const std::string& op, DatasetPtr input, int64_t batch, bool drop, std::vector<DType> d,
               std::vector<Shape> s, std::vector<Shape> padded, std::vector<Tensor> pads)
      : UnaryDataset(op, std::move(input), std::move(d), std::move(s)),
        batch_(batch),
        drop_(drop),
        padded_(std::move(padded)),
        pads_(std::move(pads)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const BatchDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        std::vector<std::vector<Tensor>> rows;
        bool in_end = false;
        while (static_cast<int64_t>(rows.size()) < ds_->batch_ && !done_) {
          std::vector<Tensor> e;
          OPF_RETURN_IF_ERROR(input_->GetNext(&e, &in_end));
          if (in_end) {
            done_ = true;
            break;
          }
          rows.push_back(std::move(e));
        }
        if (rows.empty() || (ds_->drop_ && static_cast<int64_t>(rows.size()) < ds_->batch_)) {
          *end = true;
          return Status::OK();
        }
        *end = false;
        const size_t nc = rows.front().size();
        out->resize(nc);
        std::vector<const Tensor*> parts(rows.size());
        for (size_t c = 0; c < nc; ++c) {
          for (size_t r = 0; r < rows.size(); ++r) parts[r] = &rows[r][c];
          if (ds_->padded_.empty()) {
            OPF_RETURN_IF_ERROR(data::stack(ds_->op(), parts, &(*out)[c]));
          } else {
            // -1 dims of padded_shapes: the batch's largest
            std::vector<int64_t> dims = ds_->padded_[c].dims();
            for (size_t d = 0; d < dims.size(); ++d) {
              if (dims[d] >= 0) continue;
              for (const Tensor* p : parts)
                if (p->rank() == static_cast<int>(dims.size())) dims[d] = std::max(dims[d], p->dim(static_cast<int>(d)));
              dims[d] = std::max<int64_t>(dims[d], 0);
            }
            OPF_RETURN_IF_ERROR(data::pad_and_stack(ds_->op(), parts, Shape(dims), ds_->pads_[c], &(*out)[c]));
          }
        }
        return Status::OK();
      }

     private:
      const BatchDataset* ds_;
      std::unique_ptr<IteratorBase> input_;
      bool done_ = false;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n < 0) return n;
    return drop_ ? n / batch_ : (n + batch_ - 1) / batch_;
  }

 private:
  int64_t batch_;
  bool drop_;
  std::vector<Shape> padded_;
  std::vector<Tensor> pads_;
};

class ShuffleDataset final : public UnaryDataset {
 public:
  ShuffleDataset(DatasetPtr input, int64_t buffer, uint64_t seed, bool reshuffle, std::vector<DType> d,
                 std::vector<Shape> s)
      : UnaryDataset("ShuffleDataset", std::move(input), std::move(d), std::move(s)),
        buffer_(buffer),
        seed_(seed),
        reshuffle_(reshuffle) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    // Each iterator of a reshuffling dataset draws another order.
    const uint64_t epoch = reshuffle_ ? epochs_.fetch_add(1) : 0;
    class It final : public IteratorBase {
     public:
      It(const ShuffleDataset* ds, uint64_t seed) : ds_(ds), rng_(seed) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        while (!in_end_ && static_cast<int64_t>(buf_.size()) < ds_->buffer_) {
          std::vector<Tensor> e;
          OPF_RETURN_IF_ERROR(input_->GetNext(&e, &in_end_));
          if (!in_end_) buf_.push_back(std::move(e));
        }
        if (buf_.empty()) {
          *end = true;
          return Status::OK();
        }
        std::uniform_int_distribution<size_t> pick(0, buf_.size() - 1);
        const size_t k = pick(rng_);
        std::swap(buf_[k], buf_.back());
        *out = std::move(buf_.back());
        buf_.pop_back();
        *end = false;
        return Status::OK();
      }

     private:
      const ShuffleDataset* ds_;
      std::mt19937_64 rng_;
      std::unique_ptr<IteratorBase> input_;
      std::vector<std::vector<Tensor>> buf_;
      bool in_end_ = false;
    };
    *out = std::make_unique<It>(this, seed_ + 0x9e3779b97f4a7c15ULL * epoch);
    return Status::OK();
  }
  int64_t Cardinality() const override { return input_->Cardinality(); }

 private:
  int64_t buffer_;
  uint64_t seed_;
  bool reshuffle_;
  mutable std::atomic<uint64_t> epochs_{0};
};

class ZipDataset final : public DatasetBase {
 public:
  ZipDataset(std::vector<DatasetPtr> inputs, std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase("ZipDataset", std::move(d), std::move(s)), inputs_(std::move(inputs)) {}
  std::vector<DatasetPtr> inputs() const override { return inputs_; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const ZipDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (its_.empty()) {
          for (const auto& in : ds_->inputs_) {
            its_.emplace_back();
            OPF_RETURN_IF_ERROR(in->MakeIterator(&its_.back()));
          }
        }
        out->clear();
        for (auto& it : its_) {
          std::vector<Tensor> e;
          OPF_RETURN_IF_ERROR(it->GetNext(&e, end));
          if (*end) {
            out->clear();
            return Status::OK();
          }
          for (Tensor& t : e) out->push_back(std::move(t));
        }
        return Status::OK();
      }

     private:
      const ZipDataset* ds_;
      std::vector<std::unique_ptr<IteratorBase>> its_;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    int64_t n = kInfiniteCardinality;
    for (const auto& in : inputs_) {
      const int64_t c = in->Cardinality();
      if (c == kUnknownCardinality) return c;
      if (c != kInfiniteCardinality) n = n == kInfiniteCardinality ? c : std::min(n, c);
    }
    return n;
  }

 private:
  std::vector<DatasetPtr> inputs_;
};

class ConcatenateDataset final : public DatasetBase {
 public:
  ConcatenateDataset(DatasetPtr a, DatasetPtr b, std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase("ConcatenateDataset", std::move(d), std::move(s)), a_(std::move(a)), b_(std::move(b)) {}
  std::vector<DatasetPtr> inputs() const override { return {a_, b_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const ConcatenateDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        while (which_ < 2) {
          if (!it_) OPF_RETURN_IF_ERROR((which_ == 0 ? ds_->a_ : ds_->b_)->MakeIterator(&it_));
          OPF_RETURN_IF_ERROR(it_->GetNext(out, end));
          if (!*end) return Status::OK();
          it_.reset();
          ++which_;
        }
        *end = true;
        return Status::OK();
      }

     private:
      const ConcatenateDataset* ds_;
      std::unique_ptr<IteratorBase> it_;
      int which_ = 0;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t x = a_->Cardinality(), y = b_->Cardinality();
    if (x == kInfiniteCardinality || y == kInfiniteCardinality) return kInfiniteCardinality;
    return x < 0 || y < 0 ? kUnknownCardinality : x + y;
  }

 private:
  DatasetPtr a_, b_;
};

class ShardDataset final : public UnaryDataset {
 public:
  ShardDataset(DatasetPtr input, int64_t num, int64_t index, std::vector<DType> d, std::vector<Shape> s)
      : UnaryDataset("ShardDataset", std::move(input), std::move(d), std::move(s)), num_(num), index_(index) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const ShardDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        while (true) {
          OPF_RETURN_IF_ERROR(input_->GetNext(out, end));
          if (*end) return Status::OK();
          if (pos_++ % ds_->num_ == ds_->index_) return Status::OK();
        }
      }

     private:
      const ShardDataset* ds_;
      std::unique_ptr<IteratorBase> input_;
      int64_t pos_ = 0;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n < 0) return n;
    return n / num_ + (index_ < n % num_ ? 1 : 0);
  }

 private:
  int64_t num_, index_;
};

// The input dataset under another op's name (TensorFlow's ModelDataset: autotuning).
class PassThroughDataset final : public UnaryDataset {
 public:
  PassThroughDataset(const std::string& op, DatasetPtr input)
      : UnaryDataset(op, input, input->output_dtypes(), input->output_shapes()) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override { return input_->MakeIterator(out); }
  int64_t Cardinality() const override { return input_->Cardinality(); }
};

Status input_of(const std::string& op, const Tensor& t, const std::vector<DType>& types, const std::vector<Shape>& shapes,
                DatasetPtr* out) {
  OPF_RETURN_IF_ERROR(dataset_from_tensor(op, t, out));
  OPF_RETURN_IF_ERROR(check_element_spec(op, types, shapes));
  return Status::OK();
}

Status RepeatDatasetCpu(ops::RepeatDatasetArgs& a) {
  DatasetPtr in;
  int64_t count = 0;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "count", a.count, &count));
  set_dataset_output(a.ctx, 0, std::make_shared<RepeatDataset>(in, count, a.output_types, a.output_shapes));
  return Status::OK();
}

template <bool kSkip, typename Args>
Status TakeSkipCpu(Args& a) {
  DatasetPtr in;
  int64_t count = 0;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "count", a.count, &count));
  set_dataset_output(a.ctx, 0, std::make_shared<TakeSkipDataset>(kSkip, in, count, a.output_types, a.output_shapes));
  return Status::OK();
}
Status TakeDatasetCpu(ops::TakeDatasetArgs& a) { return TakeSkipCpu<false>(a); }
Status SkipDatasetCpu(ops::SkipDatasetArgs& a) { return TakeSkipCpu<true>(a); }

Status batch_size_of(const std::string& op, const Tensor& t, const Tensor& drop, int64_t* batch, bool* drop_out) {
  OPF_RETURN_IF_ERROR(data::scalar_int64(op, "batch_size", t, batch));
  if (*batch <= 0) return errors::InvalidArgument(op, ": batch_size must be positive (greater than zero), got ", *batch);
  if (drop.dtype() != DType::kBool || drop.num_elements() != 1) {
    return errors::InvalidArgument(op, ": drop_remainder must be a scalar bool");
  }
  *drop_out = drop.scalar<bool>();
  return Status::OK();
}

Status BatchDatasetV2Cpu(ops::BatchDatasetV2Args& a) {
  DatasetPtr in;
  int64_t batch = 0;
  bool drop = false;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  OPF_RETURN_IF_ERROR(batch_size_of(a.kOpName, a.batch_size, a.drop_remainder, &batch, &drop));
  set_dataset_output(a.ctx, 0,
                     std::make_shared<BatchDataset>(a.kOpName, in, batch, drop, a.output_types, a.output_shapes,
                                                    std::vector<Shape>{}, std::vector<Tensor>{}));
  return Status::OK();
}

Status PaddedBatchDatasetV2Cpu(ops::PaddedBatchDatasetV2Args& a) {
  DatasetPtr in;
  int64_t batch = 0;
  bool drop = false;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.Toutput_types, a.output_shapes, &in));
  OPF_RETURN_IF_ERROR(batch_size_of(a.kOpName, a.batch_size, a.drop_remainder, &batch, &drop));
  const size_t nc = in->output_dtypes().size();
  if (static_cast<size_t>(a.padded_shapes.size) != nc || static_cast<size_t>(a.padding_values.size) != nc) {
    return a.ctx.error("padded_shapes and padding_values need one entry per component (", nc, "), got ",
                       a.padded_shapes.size, " and ", a.padding_values.size);
  }
  std::vector<Shape> padded;
  std::vector<Tensor> pads;
  for (size_t c = 0; c < nc; ++c) {
    std::vector<int64_t> dims;
    OPF_RETURN_IF_ERROR(read_int_vector(a.padded_shapes[static_cast<int>(c)], &dims));
    if (a.padded_shapes[static_cast<int>(c)].rank() != 1) return a.ctx.error("each padded shape must be a vector");
    for (int64_t d : dims)
      if (d < -1) return a.ctx.error("padded shape dims must be -1 or non-negative, got ", d);
    const Shape& in_shape = in->output_shapes()[c];
    if (!in_shape.unknown_rank() && in_shape.rank() != static_cast<int>(dims.size())) {
      return a.ctx.error("padded shape ", Shape(dims).to_string(), " of component ", c,
                         " has another rank than the component's shape ", in_shape.to_string());
    }
    const Tensor& pv = a.padding_values[static_cast<int>(c)];
    if (pv.num_elements() != 1 || pv.rank() != 0) return a.ctx.error("each padding value must be a scalar");
    if (pv.dtype() != in->output_dtypes()[c]) {
      return a.ctx.error("padding value of component ", c, " is ", dtype_name(pv.dtype()), ", the component ",
                         dtype_name(in->output_dtypes()[c]));
    }
    padded.emplace_back(dims);
    pads.push_back(pv);
  }
  set_dataset_output(a.ctx, 0,
                     std::make_shared<BatchDataset>(a.kOpName, in, batch, drop, a.Toutput_types, a.output_shapes,
                                                    std::move(padded), std::move(pads)));
  return Status::OK();
}

Status ShuffleDatasetCpu(ops::ShuffleDatasetArgs& a) {
  DatasetPtr in;
  int64_t buffer = 0, seed = 0, seed2 = 0;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "buffer_size", a.buffer_size, &buffer));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "seed", a.seed, &seed));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "seed2", a.seed2, &seed2));
  if (buffer <= 0) return a.ctx.error("buffer_size must be greater than zero, got ", buffer);
  uint64_t s = static_cast<uint64_t>(seed) * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(seed2);
  if (seed == 0 && seed2 == 0) s = std::random_device{}() * 0x100000001ULL ^ std::random_device{}();
  set_dataset_output(a.ctx, 0,
                     std::make_shared<ShuffleDataset>(in, buffer, s, a.reshuffle_each_iteration, a.output_types,
                                                      a.output_shapes));
  return Status::OK();
}

Status ZipDatasetCpu(ops::ZipDatasetArgs& a) {
  std::vector<DatasetPtr> ins;
  std::vector<DType> dtypes;
  for (int i = 0; i < a.input_datasets.size; ++i) {
    DatasetPtr d;
    OPF_RETURN_IF_ERROR(dataset_from_tensor(a.kOpName, a.input_datasets[i], &d));
    dtypes.insert(dtypes.end(), d->output_dtypes().begin(), d->output_dtypes().end());
    ins.push_back(std::move(d));
  }
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  if (dtypes != a.output_types) return a.ctx.error("the zipped datasets' components do not match output_types");
  set_dataset_output(a.ctx, 0, std::make_shared<ZipDataset>(std::move(ins), a.output_types, a.output_shapes));
  return Status::OK();
}

Status ConcatenateDatasetCpu(ops::ConcatenateDatasetArgs& a) {
  DatasetPtr x, y;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &x));
  OPF_RETURN_IF_ERROR(dataset_from_tensor(a.kOpName, a.another_dataset, &y));
  if (x->output_dtypes() != y->output_dtypes()) {
    return a.ctx.error("input_dataset and another_dataset have different types");
  }
  set_dataset_output(a.ctx, 0, std::make_shared<ConcatenateDataset>(x, y, a.output_types, a.output_shapes));
  return Status::OK();
}

Status ShardDatasetCpu(ops::ShardDatasetArgs& a) {
  DatasetPtr in;
  int64_t num = 0, index = 0;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "num_shards", a.num_shards, &num));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "index", a.index, &index));
  if (num <= 0) return a.ctx.error("Number of shards must be greater than zero (currently num_shards = ", num, ")");
  if (index < 0 || index >= num) {
    return a.ctx.error("Index must be between 0 and ", num - 1, " (currently index = ", index, ")");
  }
  set_dataset_output(a.ctx, 0, std::make_shared<ShardDataset>(in, num, index, a.output_types, a.output_shapes));
  return Status::OK();
}

Status ModelDatasetCpu(ops::ModelDatasetArgs& a) {
  DatasetPtr in;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  set_dataset_output(a.ctx, 0, std::make_shared<PassThroughDataset>(a.kOpName, in));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(RepeatDataset, CPU, RepeatDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(TakeDataset, CPU, TakeDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(SkipDataset, CPU, SkipDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(BatchDatasetV2, CPU, BatchDatasetV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(PaddedBatchDatasetV2, CPU, PaddedBatchDatasetV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ShuffleDataset, CPU, ShuffleDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ZipDataset, CPU, ZipDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ConcatenateDataset, CPU, ConcatenateDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ShardDataset, CPU, ShardDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ModelDataset, CPU, ModelDatasetCpu)

}  // namespace opforge
