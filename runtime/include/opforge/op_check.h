// The checks shared by eager execution, graph construction and the graph executor: infer
// attrs from input dtypes, check attrs against the spec, derive output dtypes, run a kernel.
#pragma once

#include <utility>
#include <vector>

#include "opforge/attr.h"
#include "opforge/kernel.h"
#include "opforge/op.h"

namespace opforge {

// Fills inferred attrs (type, number and type-list attrs) from the flattened input dtypes,
// then defaults, then checks every attr (allowed values, minimums). Errors name the op.
Status infer_attrs(const OpSpec& op, const std::vector<DType>& dtypes, const std::vector<std::pair<int, int>>& ranges,
                   std::vector<AttrValue>& attrs, std::vector<bool>& has_attr);
Status check_attr(const OpSpec& op, const AttrSpec& spec, const AttrValue& v);
Status output_dtypes(const OpSpec& op, const ArgSpec& arg, const std::vector<AttrValue>& attrs,
                     std::vector<DType>* out);
Status all_output_dtypes(const OpSpec& op, const std::vector<AttrValue>& attrs, std::vector<DType>* out);

// Allocates outputs from the shapes in sc (ref outputs excepted) and runs the op's CPU kernel
// for its dispatch dtype; env is nullptr in eager mode.
Status run_kernel(const OpSpec& op, const std::vector<const Tensor*>& inputs,
                  const std::vector<std::pair<int, int>>& ranges, const std::vector<AttrValue>& attrs,
                  const std::vector<DType>& out_types, ShapeContext& sc, std::vector<Tensor>* outputs, ExecEnv* env,
                  const DeviceSpec& device = DeviceSpec());
// NotFound for an op without a kernel for (device, dtype), listing the kernels that exist.
Status no_kernel_error(const OpSpec& op, const std::vector<AttrValue>& attrs, Device device);

}  // namespace opforge
