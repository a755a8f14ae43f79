// Datasets that reshape the stream of elements: unbatch, an in-memory cache, ignore_errors.
#include <mutex>

#include "cpu/data/dataset_util.h"
#include "opforge/ops/data_ops.h"

namespace opforge {
namespace {

using data::DatasetPtr;
using data::input_of;
using data::UnaryDataset;

class UnbatchDataset final : public UnaryDataset {
 public:
  UnbatchDataset(DatasetPtr input, std::vector<DType> d, std::vector<Shape> s)
      : UnaryDataset("UnbatchDataset", std::move(input), std::move(d), std::move(s)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const UnbatchDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        while (row_ >= rows_) {  // the next batch (an empty one gives nothing)
          OPF_RETURN_IF_ERROR(input_->GetNext(&batch_, end));
          if (*end) return Status::OK();
          row_ = 0;
          rows_ = -1;
          for (const Tensor& t : batch_) {
            if (t.rank() < 1) return errors::InvalidArgument("UnbatchDataset: a component is a scalar");
            if (rows_ >= 0 && t.dim(0) != rows_) {
              return errors::InvalidArgument("UnbatchDataset: the components' first dimensions differ: ", rows_,
                                             " and ", t.dim(0));
            }
            rows_ = t.dim(0);
          }
        }
        out->resize(batch_.size());
        for (size_t c = 0; c < batch_.size(); ++c) OPF_RETURN_IF_ERROR(data::slice_row(batch_[c], row_, &(*out)[c]));
        ++row_;
        *end = false;
        return Status::OK();
      }

     private:
      const UnbatchDataset* ds_;
      std::unique_ptr<IteratorBase> input_;
      std::vector<Tensor> batch_;
      int64_t row_ = 0, rows_ = 0;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
};

// The elements of the first complete pass, kept and replayed by every later iterator.
class CacheDataset final : public UnaryDataset {
 public:
  CacheDataset(DatasetPtr input, std::vector<DType> d, std::vector<Shape> s)
      : UnaryDataset("CacheDataset", std::move(input), std::move(d), std::move(s)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    std::shared_ptr<const std::vector<std::vector<Tensor>>> cached;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cached = cache_;
    }
    class It final : public IteratorBase {
     public:
      It(const CacheDataset* ds, std::shared_ptr<const std::vector<std::vector<Tensor>>> cached)
          : ds_(ds), cached_(std::move(cached)) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (cached_) {  // replay
          *end = pos_ >= cached_->size();
          if (!*end) *out = (*cached_)[pos_++];
          return Status::OK();
        }
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        OPF_RETURN_IF_ERROR(input_->GetNext(out, end));
        if (!*end) {
          filling_.push_back(*out);
          return Status::OK();
        }
        std::lock_guard<std::mutex> lock(ds_->mu_);  // a complete pass: the cache
        if (!ds_->cache_) ds_->cache_ = std::make_shared<const std::vector<std::vector<Tensor>>>(std::move(filling_));
        return Status::OK();
      }

     private:
      const CacheDataset* ds_;
      std::shared_ptr<const std::vector<std::vector<Tensor>>> cached_;
      std::unique_ptr<IteratorBase> input_;
      std::vector<std::vector<Tensor>> filling_;
      size_t pos_ = 0;
    };
    *out = std::make_unique<It>(this, std::move(cached));
    return Status::OK();
  }
  int64_t Cardinality() const override { return input_->Cardinality(); }

 private:
  mutable std::mutex mu_;
  mutable std::shared_ptr<const std::vector<std::vector<Tensor>>> cache_;
};

class IgnoreErrorsDataset final : public UnaryDataset {
 public:
  IgnoreErrorsDataset(DatasetPtr input, std::vector<DType> d, std::vector<Shape> s)
      : UnaryDataset("IgnoreErrorsDataset", std::move(input), std::move(d), std::move(s)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const IgnoreErrorsDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!input_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&input_));
        // An input that fails at the same place again and again (a damaged file) would loop
        // forever: after this many errors in a row, the error goes out.
        constexpr int kMaxErrorsInARow = 10000;
        for (int errors_in_a_row = 0;; ++errors_in_a_row) {
          Status s = input_->GetNext(out, end);
          if (s.ok() || errors_in_a_row >= kMaxErrorsInARow) return s;
        }
      }

     private:
      const IgnoreErrorsDataset* ds_;
      std::unique_ptr<IteratorBase> input_;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
};

Status UnbatchDatasetCpu(ops::UnbatchDatasetArgs& a) {
  DatasetPtr in;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  set_dataset_output(a.ctx, 0, std::make_shared<UnbatchDataset>(in, a.output_types, a.output_shapes));
  return Status::OK();
}

Status CacheDatasetCpu(ops::CacheDatasetArgs& a) {
  DatasetPtr in;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  if (a.filename.dtype() != DType::kString || a.filename.num_elements() != 1) {
    return a.ctx.error("filename must be a scalar string");
  }
  if (!a.filename.strings()->front().empty()) {
    return errors::Unimplemented(a.kOpName, ": caching to a file ('", a.filename.strings()->front(),
                                 "') is not supported by this op; opforge caches in memory (filename '')");
  }
  set_dataset_output(a.ctx, 0, std::make_shared<CacheDataset>(in, a.output_types, a.output_shapes));
  return Status::OK();
}

Status IgnoreErrorsDatasetCpu(ops::IgnoreErrorsDatasetArgs& a) {
  DatasetPtr in;
  OPF_RETURN_IF_ERROR(input_of(a.kOpName, a.input_dataset, a.output_types, a.output_shapes, &in));
  set_dataset_output(a.ctx, 0, std::make_shared<IgnoreErrorsDataset>(in, a.output_types, a.output_shapes));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(UnbatchDataset, CPU, UnbatchDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(CacheDataset, CPU, CacheDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(IgnoreErrorsDataset, CPU, IgnoreErrorsDatasetCpu)

}  // namespace opforge
