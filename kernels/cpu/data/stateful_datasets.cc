// Datasets whose functions carry state or decide the end: GeneratorDataset (from_generator
// and opforge's Python pipelines), ScanDataset, TakeWhileDataset.
#include "cpu/data/dataset_util.h"
#include "opforge/ops/data_ops.h"

namespace opforge {
namespace {

using data::CapturedFunction;
using data::check_results;
using data::DatasetPtr;
using data::function_input;

// GeneratorDataset: state = init_func(...); elements next_func(state..., ...) until it fails
// with OutOfRange; finalize_func(state..., ...) once the iteration ends or its iterator goes.
class GeneratorDataset final : public DatasetBase {
 public:
  GeneratorDataset(std::shared_ptr<const CapturedFunction> init, std::shared_ptr<const CapturedFunction> next,
                   std::shared_ptr<const CapturedFunction> finalize, std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase("GeneratorDataset", std::move(d), std::move(s)),
        init_(std::move(init)),
        next_(std::move(next)),
        finalize_(std::move(finalize)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const GeneratorDataset* ds) : ds_(ds) {}
      ~It() override { static_cast<void>(Finalize()); }  // an error at destruction has no one to go to
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        *end = false;
        if (done_) {
          *end = true;
          return Status::OK();
        }
        if (!started_) {
          OPF_RETURN_IF_ERROR(ds_->init_->Call({}, &state_));
          started_ = true;
        }
        Status s = ds_->next_->Call(state_, out);
        if (s.code() == Code::kOutOfRange) {
          out->clear();
          *end = true;
          return Finalize();
        }
        OPF_RETURN_IF_ERROR(s);
        return check_results(*ds_, *out);
      }

     private:
      Status Finalize() {
        if (!started_ || done_) {
          done_ = true;
          return Status::OK();
        }
        done_ = true;
        std::vector<Tensor> ignored;
        return ds_->finalize_->Call(state_, &ignored);
      }
      const GeneratorDataset* ds_;
      std::vector<Tensor> state_;
      bool started_ = false, done_ = false;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }

 private:
  std::shared_ptr<const CapturedFunction> init_, next_, finalize_;
};

Status GeneratorDatasetCpu(ops::GeneratorDatasetArgs& a) {
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  std::shared_ptr<const CapturedFunction> init, next, finalize;
  OPF_RETURN_IF_ERROR(data::make_captured_function(a.ctx, a.init_func, a.init_func_other_args, &init));
  OPF_RETURN_IF_ERROR(data::make_captured_function(a.ctx, a.next_func, a.next_func_other_args, &next));
  OPF_RETURN_IF_ERROR(data::make_captured_function(a.ctx, a.finalize_func, a.finalize_func_other_args, &finalize));
  set_dataset_output(a.ctx, 0,
                     std::make_shared<GeneratorDataset>(std::move(init), std::move(next), std::move(finalize),
                                                        a.output_types, a.output_shapes));
  return Status::OK();
}

// ScanDataset: f(state..., element..., captured...) -> (new state..., output...).
class ScanDataset final : public DatasetBase {
 public:
  ScanDataset(DatasetPtr input, std::vector<Tensor> initial, std::shared_ptr<const CapturedFunction> f,
              std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase("ScanDataset", std::move(d), std::move(s)),
        input_(std::move(input)),
        initial_(std::move(initial)),
        f_(std::move(f)) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const ScanDataset* ds) : ds_(ds), state_(ds->initial_) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!in_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&in_));
        std::vector<Tensor> e;
        OPF_RETURN_IF_ERROR(in_->GetNext(&e, end));
        if (*end) return Status::OK();
        std::vector<Tensor> args = state_;
        args.insert(args.end(), e.begin(), e.end());
        std::vector<Tensor> rets;
        OPF_RETURN_IF_ERROR(ds_->f_->Call(std::move(args), &rets));
        const size_t ns = state_.size();
        if (rets.size() != ns + ds_->output_dtypes().size()) {
          return errors::InvalidArgument("ScanDataset: the function returned ", rets.size(), " values, expected ", ns,
                                         " (state) + ", ds_->output_dtypes().size(), " (element)");
        }
        for (size_t i = 0; i < ns; ++i) {
          if (rets[i].dtype() != state_[i].dtype()) {
            return errors::InvalidArgument("ScanDataset: the new state ", i, " is ", dtype_name(rets[i].dtype()),
                                           ", the state is ", dtype_name(state_[i].dtype()));
          }
          state_[i] = std::move(rets[i]);
        }
        out->assign(std::make_move_iterator(rets.begin() + static_cast<std::ptrdiff_t>(ns)),
                    std::make_move_iterator(rets.end()));
        return check_results(*ds_, *out);
      }

     private:
      const ScanDataset* ds_;
      std::unique_ptr<IteratorBase> in_;
      std::vector<Tensor> state_;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }

 private:
  DatasetPtr input_;
  std::vector<Tensor> initial_;
  std::shared_ptr<const CapturedFunction> f_;
};

class TakeWhileDataset final : public DatasetBase {
 public:
  TakeWhileDataset(DatasetPtr input, std::shared_ptr<const CapturedFunction> f, std::vector<DType> d,
                   std::vector<Shape> s)
      : DatasetBase("TakeWhileDataset", std::move(d), std::move(s)), input_(std::move(input)), f_(std::move(f)) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const TakeWhileDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        *end = done_;
        if (done_) return Status::OK();
        if (!in_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&in_));
        OPF_RETURN_IF_ERROR(in_->GetNext(out, end));
        if (*end) return Status::OK();
        std::vector<Tensor> r;
        OPF_RETURN_IF_ERROR(ds_->f_->Call(*out, &r));
        if (r.size() != 1 || r[0].dtype() != DType::kBool || r[0].num_elements() != 1) {
          return errors::InvalidArgument("TakeWhileDataset: the predicate must return a scalar bool");
        }
        if (!r[0].scalar<bool>()) {
          done_ = *end = true;
          out->clear();
        }
        return Status::OK();
      }

     private:
      const TakeWhileDataset* ds_;
      std::unique_ptr<IteratorBase> in_;
      bool done_ = false;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }

 private:
  DatasetPtr input_;
  std::shared_ptr<const CapturedFunction> f_;
};

Status ScanDatasetCpu(ops::ScanDatasetArgs& a) {
  DatasetPtr in;
  OPF_RETURN_IF_ERROR(dataset_from_tensor(a.kOpName, a.input_dataset, &in));
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  std::shared_ptr<const CapturedFunction> f;
  OPF_RETURN_IF_ERROR(data::make_captured_function(a.ctx, a.f, a.other_arguments, &f));
  std::vector<Tensor> initial;
  for (int i = 0; i < a.initial_state.size; ++i) initial.push_back(a.initial_state[i]);
  const size_t want = initial.size() + in->output_dtypes().size() + static_cast<size_t>(a.other_arguments.size);
  if (f->runner->body().args.size() != want) {
    return a.ctx.error("function ", a.f, " takes ", f->runner->body().args.size(), " arguments, expected ", want,
                       " (state, element, captured)");
  }
  set_dataset_output(
      a.ctx, 0, std::make_shared<ScanDataset>(in, std::move(initial), std::move(f), a.output_types, a.output_shapes));
  return Status::OK();
}

Status TakeWhileDatasetCpu(ops::TakeWhileDatasetArgs& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  OPF_RETURN_IF_ERROR(function_input(a, a.predicate, &in, &f));
  set_dataset_output(a.ctx, 0, std::make_shared<TakeWhileDataset>(in, f, a.output_types, a.output_shapes));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(GeneratorDataset, CPU, GeneratorDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ScanDataset, CPU, ScanDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(TakeWhileDataset, CPU, TakeWhileDatasetCpu)

}  // namespace opforge
