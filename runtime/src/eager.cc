// Eager execution of one op: infer type attrs from the inputs, check every attr against the
// op's spec, run the shape function, allocate outputs and call the kernel for the dtype.
#include "opforge/eager.h"

#include <sstream>

#include "opforge/kernel.h"

namespace opforge {
namespace {

std::string allowed_list(const AttrSpec& a) {
  std::ostringstream os;
  for (size_t i = 0; i < a.allowed.size(); ++i) {
    if (i) os << ", ";
    os << a.allowed[i].to_string(a.type);
  }
  return os.str();
}

Status check_attr(const OpSpec& op, const AttrSpec& spec, const AttrValue& v) {
  if (!spec.allowed.empty()) {
    bool ok = false;
    if (spec.type == AttrType::kListType) {
      ok = true;
      for (DType t : v.list_type) {
        bool found = false;
        for (const auto& a : spec.allowed) found = found || a.type == t;
        if (!found) {
          return errors::InvalidArgument(op.name, ": attr '", spec.name, "' contains ",
                                         dtype_name(t), ", which is not allowed (allowed: ",
                                         allowed_list(spec), ")");
        }
      }
    } else {
      for (const auto& a : spec.allowed) ok = ok || a.equals(spec.type, v);
    }
    if (!ok) {
      if (spec.type == AttrType::kType) {
        return errors::InvalidArgument(op.name, ": dtype ", dtype_name(v.type),
                                       " is not supported for attr '", spec.name,
                                       "' (allowed: ", allowed_list(spec), ")");
      }
      return errors::InvalidArgument(op.name, ": attr '", spec.name, "' = ",
                                     v.to_string(spec.type), " is not one of the allowed values (",
                                     allowed_list(spec), ")");
    }
  }
  if (spec.has_minimum) {
    int64_t n = 0;
    switch (spec.type) {
      case AttrType::kInt: n = v.i; break;
      case AttrType::kListInt: n = static_cast<int64_t>(v.list_i.size()); break;
      case AttrType::kListFloat: n = static_cast<int64_t>(v.list_f.size()); break;
      case AttrType::kListType: n = static_cast<int64_t>(v.list_type.size()); break;
      case AttrType::kListShape: n = static_cast<int64_t>(v.list_shape.size()); break;
      case AttrType::kListString: n = static_cast<int64_t>(v.list_s.size()); break;
      case AttrType::kListBool: n = static_cast<int64_t>(v.list_b.size()); break;
      default: n = spec.minimum; break;
    }
    if (n < spec.minimum) {
      return errors::InvalidArgument(op.name, ": attr '", spec.name, "' must be at least ",
                                     spec.minimum, ", got ", n);
    }
  }
  return Status::OK();
}

// Output dtypes of one output argument.
Status output_dtypes(const OpSpec& op, const ArgSpec& arg, const std::vector<AttrValue>& attrs,
                     std::vector<DType>* out) {
  if (arg.type_list_attr >= 0) {
    for (DType t : attrs[arg.type_list_attr].list_type) out->push_back(t);
    return Status::OK();
  }
  DType t = arg.type_attr >= 0 ? attrs[arg.type_attr].type : arg.type;
  int64_t n = arg.number_attr >= 0 ? attrs[arg.number_attr].i : 1;
  for (int64_t i = 0; i < n; ++i) out->push_back(t);
  (void)op;
  return Status::OK();
}

}  // namespace

Status execute(EagerCall& call, std::vector<Tensor>* outputs) {
  const OpSpec& op = *call.op;
  const size_t n_attrs = op.attrs.size();
  call.attrs.resize(n_attrs);
  call.has_attr.resize(n_attrs, false);

  if (call.ranges.size() != op.inputs.size()) {
    return errors::InvalidArgument(op.name, ": expected ", op.inputs.size(), " inputs, got ",
                                   call.ranges.size());
  }

  // Infer type and number attrs from the inputs.
  const std::vector<Tensor>& flat = call.inputs;
  const std::vector<std::pair<int, int>>& ranges = call.ranges;
  int attr_source[64];  // which input fixed an inferred type attr
  for (size_t i = 0; i < n_attrs && i < 64; ++i) attr_source[i] = -1;
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    const ArgSpec& arg = op.inputs[a];
    const int begin = ranges[a].first, end = ranges[a].second;
    const int64_t count = end - begin;
    if (!arg.is_list() && count != 1) {
      return errors::InvalidArgument(op.name, ": input '", arg.name, "' takes one tensor, got ", count);
    }
    for (int k = begin; k < end; ++k) {
      if (!flat[k].initialized()) {
        return errors::InvalidArgument(op.name, ": input '", arg.name, "' is missing");
      }
    }
    if (arg.number_attr >= 0) {
      int idx = arg.number_attr;
      if (call.has_attr[idx] && call.attrs[idx].i != count) {
        return errors::InvalidArgument(op.name, ": input '", arg.name, "' has ", count,
                                       " tensors but attr '", op.attrs[idx].name, "' is ",
                                       call.attrs[idx].i);
      }
      call.attrs[idx].i = count;
      call.has_attr[idx] = true;
    }
    if (arg.type_list_attr >= 0) {
      std::vector<DType> types;
      for (int k = begin; k < end; ++k) types.push_back(flat[k].dtype());
      int idx = arg.type_list_attr;
      if (call.has_attr[idx] && call.attrs[idx].list_type != types) {
        return errors::InvalidArgument(op.name, ": dtypes of input '", arg.name,
                                       "' do not match attr '", op.attrs[idx].name, "'");
      }
      call.attrs[idx].list_type = std::move(types);
      call.has_attr[idx] = true;
    }
    for (int k = begin; k < end; ++k) {
      const Tensor& t = flat[k];
      if (arg.type_attr >= 0) {
        int idx = arg.type_attr;
        if (!call.has_attr[idx]) {
          call.attrs[idx].type = t.dtype();
          call.has_attr[idx] = true;
          if (idx < 64) attr_source[idx] = static_cast<int>(a);
        } else if (call.attrs[idx].type != t.dtype()) {
          int src = idx < 64 ? attr_source[idx] : -1;
          std::string other = src >= 0
                                  ? "input '" + op.inputs[src].name + "' is " +
                                        dtype_name(call.attrs[idx].type)
                                  : "attr '" + op.attrs[idx].name + "' is " +
                                        dtype_name(call.attrs[idx].type);
          return errors::InvalidArgument(op.name, ": input '", arg.name, "' has dtype ",
                                         dtype_name(t.dtype()), " but ", other,
                                         " (they must match, attr '", op.attrs[idx].name, "')");
        }
      } else if (arg.type != DType::kInvalid && t.dtype() != arg.type) {
        return errors::InvalidArgument(op.name, ": input '", arg.name, "' must be ",
                                       dtype_name(arg.type), ", got ", dtype_name(t.dtype()));
      }
    }
  }

  // Defaults and attr checks.
  for (size_t i = 0; i < n_attrs; ++i) {
    const AttrSpec& spec = op.attrs[i];
    if (!call.has_attr[i]) {
      if (!spec.has_default) {
        return errors::InvalidArgument(op.name, ": missing value for attr '", spec.name, "'");
      }
      call.attrs[i] = spec.default_value;
      call.has_attr[i] = true;
    }
    OPF_RETURN_IF_ERROR(check_attr(op, spec, call.attrs[i]));
  }

  // Shapes.
  // Scratch reused across calls on this thread: the eager hot path allocates only outputs.
  thread_local std::vector<const Shape*> shapes;
  thread_local std::vector<const Tensor*> values;
  thread_local std::vector<DType> out_types;
  shapes.clear();
  values.clear();
  out_types.clear();
  for (const Tensor& t : flat) {
    shapes.push_back(&t.shape());
    values.push_back(&t);
  }
  for (const ArgSpec& arg : op.outputs) OPF_RETURN_IF_ERROR(output_dtypes(op, arg, call.attrs, &out_types));
  ShapeContext sc(op, shapes, values, call.attrs, ranges);
  sc.resize_outputs(static_cast<int>(out_types.size()));
  if (!op.shape_fn) {
    return errors::Unimplemented(op.name, ": op has no shape function");
  }
  OPF_RETURN_IF_ERROR(op.shape_fn(sc));

  // Kernel.
  DType dispatch = op.dispatch_attr >= 0 ? call.attrs[op.dispatch_attr].type : DType::kInvalid;
  const KernelDef* kernel = KernelRegistry::Global().find_cached(op, dispatch);
  if (kernel == nullptr) {
    std::string which = op.dispatch_attr >= 0
                            ? " for " + op.attrs[op.dispatch_attr].name + "=" + dtype_name(dispatch)
                            : std::string();
    return errors::NotFound(op.name, ": no CPU kernel", which, " (registered kernels: ",
                            KernelRegistry::Global().describe(op.name), ")");
  }
  outputs->clear();
  outputs->resize(out_types.size());
  if (!kernel->forwards_input) {
    for (size_t i = 0; i < out_types.size(); ++i) {
      Shape& s = sc.mutable_outputs()[i];
      if (!s.fully_defined()) {
        return errors::Internal(op.name, ": shape function left output ", i, " as ",
                                s.to_string());
      }
      OPF_RETURN_IF_ERROR(Tensor::Allocate(out_types[i], std::move(s), &(*outputs)[i]));
    }
  }
  KernelContext kc(op, call.inputs, ranges, call.attrs, *outputs, sc.outputs());
  OPF_RETURN_IF_ERROR(kernel->fn(kc));
  for (size_t i = 0; i < outputs->size(); ++i) {
    if (!(*outputs)[i].initialized()) {
      return errors::Internal(op.name, ": kernel did not produce output ", i);
    }
  }
  return Status::OK();
}

}  // namespace opforge
