// Datasets made from tensors: TensorDataset (one element), TensorSliceDataset (the rows of
// its components), RangeDataset.
#include "cpu/data/dataset_util.h"
#include "opforge/ops/data_ops.h"

namespace opforge {
namespace {

std::vector<Tensor> copy_list(const TensorList& l) {
  std::vector<Tensor> out;
  for (int i = 0; i < l.size; ++i) out.push_back(l[i]);
  return out;
}

class TensorDataset final : public DatasetBase {
 public:
  TensorDataset(std::vector<Tensor> components, std::vector<DType> dtypes, std::vector<Shape> shapes)
      : DatasetBase("TensorDataset", std::move(dtypes), std::move(shapes)), components_(std::move(components)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const TensorDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        *end = done_;
        if (!done_) *out = ds_->components_;
        done_ = true;
        return Status::OK();
      }

     private:
      const TensorDataset* ds_;
      bool done_ = false;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override { return 1; }

 private:
  std::vector<Tensor> components_;
};

class TensorSliceDataset final : public DatasetBase {
 public:
  TensorSliceDataset(std::vector<Tensor> components, std::vector<DType> dtypes, std::vector<Shape> shapes)
      : DatasetBase("TensorSliceDataset", std::move(dtypes), std::move(shapes)),
        components_(std::move(components)),
        n_(components_.front().dim(0)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const TensorSliceDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        *end = i_ >= ds_->n_;
        if (*end) return Status::OK();
        out->resize(ds_->components_.size());
        for (size_t c = 0; c < ds_->components_.size(); ++c)
          OPF_RETURN_IF_ERROR(data::slice_row(ds_->components_[c], i_, &(*out)[c]));
        ++i_;
        return Status::OK();
      }

     private:
      const TensorSliceDataset* ds_;
      int64_t i_ = 0;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override { return n_; }

 private:
  std::vector<Tensor> components_;
  int64_t n_;
};

class RangeDataset final : public DatasetBase {
 public:
  RangeDataset(int64_t start, int64_t stop, int64_t step, std::vector<DType> dtypes, std::vector<Shape> shapes)
      : DatasetBase("RangeDataset", std::move(dtypes), std::move(shapes)), start_(start), stop_(stop), step_(step) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const RangeDataset* ds) : ds_(ds), next_(ds->start_) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        *end = ds_->step_ > 0 ? next_ >= ds_->stop_ : next_ <= ds_->stop_;
        if (*end) return Status::OK();
        Tensor t;
        OPF_RETURN_IF_ERROR(Tensor::Allocate(ds_->output_dtypes()[0], Shape({}), &t));
        if (t.dtype() == DType::kInt32) {
          t.data<int32_t>()[0] = static_cast<int32_t>(next_);
        } else {
          t.data<int64_t>()[0] = next_;
        }
        out->assign(1, std::move(t));
        if (__builtin_add_overflow(next_, ds_->step_, &next_)) next_ = ds_->stop_;  // the last value was near the limit
        return Status::OK();
      }

     private:
      const RangeDataset* ds_;
      int64_t next_;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    if (step_ > 0) return stop_ > start_ ? (stop_ - start_ - 1) / step_ + 1 : 0;
    return start_ > stop_ ? (start_ - stop_ - 1) / -step_ + 1 : 0;
  }

 private:
  int64_t start_, stop_, step_;
};

Status check_components(const std::string& op, const TensorList& c, const std::vector<DType>& types,
                        const std::vector<Shape>& shapes, bool sliced) {
  OPF_RETURN_IF_ERROR(check_element_spec(op, types, shapes));
  if (c.size != static_cast<int>(types.size())) {
    return errors::InvalidArgument(op, ": ", c.size, " components for ", types.size(), " output types");
  }
  for (int i = 0; i < c.size; ++i) {
    if (c[i].dtype() != types[static_cast<size_t>(i)]) {
      return errors::InvalidArgument(op, ": component ", i, " is ", dtype_name(c[i].dtype()), ", output_types says ",
                                     dtype_name(types[static_cast<size_t>(i)]));
    }
    if (c[i].dtype() == DType::kVariant || c[i].dtype() == DType::kResource) {
      return errors::Unimplemented(op, ": components of dtype ", dtype_name(c[i].dtype()), " are not supported");
    }
    if (sliced) {
      if (c[i].rank() < 1) return errors::InvalidArgument(op, ": component ", i, " is a scalar: it has no rows to slice");
      if (c[i].dim(0) != c[0].dim(0)) {
        return errors::InvalidArgument(op, ": components have different first dimensions: ", c[0].shape().to_string(),
                                       " and ", c[i].shape().to_string(),
                                       " (all must have the same size in their first dimension)");
      }
    }
  }
  return Status::OK();
}

Status TensorDatasetCpu(ops::TensorDatasetArgs& a) {
  OPF_RETURN_IF_ERROR(check_components(a.kOpName, a.components, a.Toutput_types, a.output_shapes, false));
  set_dataset_output(a.ctx, 0,
                     std::make_shared<TensorDataset>(copy_list(a.components), a.Toutput_types, a.output_shapes));
  return Status::OK();
}

Status TensorSliceDatasetCpu(ops::TensorSliceDatasetArgs& a) {
  OPF_RETURN_IF_ERROR(check_components(a.kOpName, a.components, a.Toutput_types, a.output_shapes, true));
  set_dataset_output(a.ctx, 0,
                     std::make_shared<TensorSliceDataset>(copy_list(a.components), a.Toutput_types, a.output_shapes));
  return Status::OK();
}

Status RangeDatasetCpu(ops::RangeDatasetArgs& a) {
  int64_t start = 0, stop = 0, step = 0;
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "start", a.start, &start));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "stop", a.stop, &stop));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "step", a.step, &step));
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  if (step == 0) return a.ctx.error("step must be a non-zero integer");
  if (a.output_types.size() != 1 || (a.output_types[0] != DType::kInt64 && a.output_types[0] != DType::kInt32)) {
    return a.ctx.error("output_types must be one integer dtype (int64 or int32)");
  }
  set_dataset_output(a.ctx, 0, std::make_shared<RangeDataset>(start, stop, step, a.output_types, a.output_shapes));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(TensorDataset, CPU, TensorDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(TensorSliceDataset, CPU, TensorSliceDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(RangeDataset, CPU, RangeDatasetCpu)

}  // namespace opforge
