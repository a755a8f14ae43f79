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

}  // namespace data
}  // namespace opforge
