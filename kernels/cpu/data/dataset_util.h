// Pieces the dataset kernels share: slicing and stacking elements, reading the scalar inputs.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "opforge/dataset.h"
#include "opforge/function.h"

namespace opforge {
namespace data {

using DatasetPtr = std::shared_ptr<const DatasetBase>;

// A dataset over one input dataset (which it keeps alive for its iterators).
class UnaryDataset : public DatasetBase {
 public:
  UnaryDataset(const std::string& op, DatasetPtr input, std::vector<DType> dtypes, std::vector<Shape> shapes)
      : DatasetBase(op, std::move(dtypes), std::move(shapes)), input_(std::move(input)) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }

 protected:
  DatasetPtr input_;
};

// The input dataset of a transformation, its element spec checked.
Status input_of(const std::string& op, const Tensor& t, const std::vector<DType>& types,
                const std::vector<Shape>& shapes, DatasetPtr* out);

// n threads, or one per core for -1 (AUTOTUNE).
int64_t autotuned_threads(int64_t n);

// Checks a function's results against the dataset's element spec.
Status check_results(const DatasetBase& ds, const std::vector<Tensor>& rets);

// Row `index` of t along its first dimension (t has rank >= 1).
Status slice_row(const Tensor& t, int64_t index, Tensor* out);

// The tensors stacked along a new first dimension (all of one dtype and shape); `op` names
// the dataset in errors.
Status stack(const std::string& op, const std::vector<const Tensor*>& parts, Tensor* out);

// The tensors padded (with `pad`, a scalar of their dtype) to `shape` (fully known) and
// stacked along a new first dimension.
Status pad_and_stack(const std::string& op, const std::vector<const Tensor*>& parts, const Shape& shape,
                     const Tensor& pad, Tensor* out);

// The single int64 value of a scalar input.
Status scalar_int64(const std::string& op, const char* what, const Tensor& t, int64_t* out);

// A dataset's function: the runner and the captured tensors passed after each element's
// components. Calls may run on several threads at once.
struct CapturedFunction {
  std::shared_ptr<const FunctionRunner> runner;
  std::vector<Tensor> captured;
  Status Call(std::vector<Tensor> args, std::vector<Tensor>* out) const {
    args.insert(args.end(), captured.begin(), captured.end());
    return runner->run(std::move(args), out);
  }
};

Status make_captured_function(KernelContext& ctx, const std::string& func, const TensorList& captured,
                              std::shared_ptr<const CapturedFunction>* out);

// The dataset a function returned (flat_map, interleave); InvalidArgument otherwise.
Status dataset_result(const std::string& op, const std::vector<Tensor>& rets, std::shared_ptr<const DatasetBase>* out);

// A function dataset's input, element spec and function (its argument count checked).
template <typename Args>
Status function_input(Args& a, const std::string& func, DatasetPtr* in, std::shared_ptr<const CapturedFunction>* f) {
  OPF_RETURN_IF_ERROR(dataset_from_tensor(a.kOpName, a.input_dataset, in));
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  OPF_RETURN_IF_ERROR(data::make_captured_function(a.ctx, func, a.other_arguments, f));
  const FunctionBody& body = (*f)->runner->body();
  const size_t want = (*in)->output_dtypes().size() + static_cast<size_t>(a.other_arguments.size);
  if (body.args.size() != want) {
    return a.ctx.error("function ", func, " takes ", body.args.size(), " arguments, but the elements have ",
                       (*in)->output_dtypes().size(), " components and ", a.other_arguments.size, " are captured");
  }
  return Status::OK();
}

}  // namespace data
}  // namespace opforge
