// Eager execution of one op: infer type attrs from the inputs, check every attr against the
// op's spec, run the shape function, allocate outputs and call the kernel for the dtype.
#include "src/eager.h"

#include <sstream>

#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/op_check.h"

namespace opforge {
namespace {

std::string allowed_list(const AttrSpec& a) {
  std::ostringstream os;
  for (size_t i = 0; i < a.allowed.size(); ++i) {
    if (i) os << ", ";
    // A list(type) attr's allowed values are single types.
    os << a.allowed[i].to_string(a.type == AttrType::kListType ? AttrType::kType : a.type);
  }
  return os.str();
}

}  // namespace

Status check_attr(const OpSpec& op, const AttrSpec& spec, const AttrValue& v) {
  if (!spec.allowed.empty()) {
    bool ok = false;
    if (spec.type == AttrType::kListType) {
      ok = true;
      for (DType t : v.list_type) {
        bool found = false;
        for (const auto& a : spec.allowed) found = found || a.type == t;
        if (!found) {
          return errors::InvalidArgument(op.name, ": attr '", spec.name, "' contains ", dtype_name(t),
                                         ", which is not allowed (allowed: ", allowed_list(spec), ")");
        }
      }
    } else {
      for (const auto& a : spec.allowed) ok = ok || a.equals(spec.type, v);
    }
    if (!ok) {
      if (spec.type == AttrType::kType) {
        return errors::InvalidArgument(op.name, ": dtype ", dtype_name(v.type), " is not supported for attr '",
                                       spec.name, "' (allowed: ", allowed_list(spec), ")");
      }
      return errors::InvalidArgument(op.name, ": attr '", spec.name, "' = ", v.to_string(spec.type),
                                     " is not one of the allowed values (", allowed_list(spec), ")");
    }
  }
  if (spec.has_minimum) {
    int64_t n = 0;
    switch (spec.type) {
      case AttrType::kInt:
        n = v.i;
        break;
      case AttrType::kListInt:
        n = static_cast<int64_t>(v.list_i.size());
        break;
      case AttrType::kListFloat:
        n = static_cast<int64_t>(v.list_f.size());
        break;
      case AttrType::kListType:
        n = static_cast<int64_t>(v.list_type.size());
        break;
      case AttrType::kListShape:
        n = static_cast<int64_t>(v.list_shape.size());
        break;
      case AttrType::kListString:
        n = static_cast<int64_t>(v.list_s.size());
        break;
      case AttrType::kListBool:
        n = static_cast<int64_t>(v.list_b.size());
        break;
      default:
        n = spec.minimum;
        break;
    }
    if (n < spec.minimum) {
      return errors::InvalidArgument(op.name, ": attr '", spec.name, "' must be at least ", spec.minimum, ", got ", n);
    }
  }
  return Status::OK();
}

Status output_dtypes(const OpSpec& op, const ArgSpec& arg, const std::vector<AttrValue>& attrs,
                     std::vector<DType>* out) {
  if (arg.type_list_attr >= 0) {
    for (DType t : attrs[arg.type_list_attr].list_type) out->push_back(t);
    return Status::OK();
  }
  DType t = arg.type_attr >= 0 ? attrs[arg.type_attr].type : arg.type;
  int64_t n = arg.number_attr >= 0 ? attrs[arg.number_attr].i : 1;
  // An attr counting outputs (Split's num_split, Unpack's num) is checked against its op's
  // inputs by the shape function, which runs after the outputs are laid out: a count no input
  // could match must not lay out billions first.
  constexpr int64_t kMaxOutputs = int64_t{1} << 20;
  if (n > kMaxOutputs) {
    return errors::InvalidArgument(op.name, ": ", op.attrs[arg.number_attr].name, "=", n, " would make ", n,
                                   " outputs '", arg.name, "' (at most ", kMaxOutputs, ")");
  }
  for (int64_t i = 0; i < n; ++i) out->push_back(t);
  return Status::OK();
}

Status infer_attrs(const OpSpec& op, const std::vector<DType>& dtypes, const std::vector<std::pair<int, int>>& ranges,
                   std::vector<AttrValue>& attrs, std::vector<bool>& has_attr) {
  const size_t n_attrs = op.attrs.size();
  attrs.resize(n_attrs);
  has_attr.resize(n_attrs, false);
  if (ranges.size() != op.inputs.size()) {
    return errors::InvalidArgument(op.name, ": expected ", op.inputs.size(), " inputs, got ", ranges.size());
  }
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
      if (dtypes[k] == DType::kInvalid) {
        return errors::InvalidArgument(op.name, ": input '", arg.name, "' is missing");
      }
    }
    if (arg.number_attr >= 0) {
      int idx = arg.number_attr;
      if (has_attr[idx] && attrs[idx].i != count) {
        return errors::InvalidArgument(op.name, ": input '", arg.name, "' has ", count, " tensors but attr '",
                                       op.attrs[idx].name, "' is ", attrs[idx].i);
      }
      attrs[idx].i = count;
      has_attr[idx] = true;
    }
    if (arg.type_list_attr >= 0) {
      std::vector<DType> types(dtypes.begin() + begin, dtypes.begin() + end);
      int idx = arg.type_list_attr;
      if (has_attr[idx] && attrs[idx].list_type != types) {
        return errors::InvalidArgument(op.name, ": dtypes of input '", arg.name, "' do not match attr '",
                                       op.attrs[idx].name, "'");
      }
      attrs[idx].list_type = std::move(types);
      has_attr[idx] = true;
    }
    for (int k = begin; k < end; ++k) {
      const DType dt = dtypes[k];
      if (arg.type_attr >= 0) {
        int idx = arg.type_attr;
        if (!has_attr[idx]) {
          attrs[idx].type = dt;
          has_attr[idx] = true;
          if (idx < 64) attr_source[idx] = static_cast<int>(a);
        } else if (attrs[idx].type != dt) {
          int src = idx < 64 ? attr_source[idx] : -1;
          std::string other = src >= 0 ? "input '" + op.inputs[src].name + "' is " + dtype_name(attrs[idx].type)
                                       : "attr '" + op.attrs[idx].name + "' is " + dtype_name(attrs[idx].type);
          return errors::InvalidArgument(op.name, ": input '", arg.name, "' has dtype ", dtype_name(dt), " but ", other,
                                         " (they must match, attr '", op.attrs[idx].name, "')");
        }
      } else if (arg.type != DType::kInvalid && dt != arg.type) {
        return errors::InvalidArgument(op.name, ": input '", arg.name, "' must be ", dtype_name(arg.type), ", got ",
                                       dtype_name(dt));
      }
    }
  }
  // Defaults, then every attr against its spec.
  for (size_t i = 0; i < n_attrs; ++i) {
    const AttrSpec& spec = op.attrs[i];
    if (!has_attr[i]) {
      if (!spec.has_default) {
        return errors::InvalidArgument(op.name, ": missing value for attr '", spec.name, "'");
      }
      attrs[i] = spec.default_value;
      has_attr[i] = true;
    }
    OPF_RETURN_IF_ERROR(check_attr(op, spec, attrs[i]));
  }
  return Status::OK();
}

Status all_output_dtypes(const OpSpec& op, const std::vector<AttrValue>& attrs, std::vector<DType>* out) {
  out->clear();
  for (const ArgSpec& arg : op.outputs) OPF_RETURN_IF_ERROR(output_dtypes(op, arg, attrs, out));
  return Status::OK();
}

Status no_kernel_error(const OpSpec& op, const std::vector<AttrValue>& attrs, Device device) {
  const DType dispatch = op.dispatch_attr >= 0 ? attrs[op.dispatch_attr].type : DType::kInvalid;
  std::string which =
      op.dispatch_attr >= 0 ? " for " + op.attrs[op.dispatch_attr].name + "=" + dtype_name(dispatch) : std::string();
  std::string note;
  if (device != Device::kCPU) {
    const std::string why = missing_kernel_note(op.name);
    if (!why.empty()) note = "; " + why;
    const auto devices = KernelRegistry::Global().devices_for(op.name);
    std::string where;
    for (Device d : devices) where += std::string(where.empty() ? "" : ", ") + device_name(d);
    note += "; devices with a kernel for it: " + (where.empty() ? std::string("none") : where) +
            " (place the op there, e.g. with of.device(\"/cpu:0\"), or copy its inputs with .cpu())";
  }
  return errors::NotFound(op.name, ": no ", device_name(device), " kernel", which,
                          " (registered kernels: ", KernelRegistry::Global().describe(op.name), ")", note);
}

namespace {

// Output 0 takes the buffer of an input the kernel may overwrite (graph runs only): the
// executor marked it as read for the last time and held by nothing else.
bool forward_input(const KernelDef& kernel, const std::vector<const Tensor*>& inputs,
                   const std::vector<std::pair<int, int>>& ranges, DType dtype, const Shape& shape, const ExecEnv& env,
                   Tensor* out) {
  for (size_t a = 0; a < ranges.size() && a < 64; ++a) {
    if (!((kernel.inplace_inputs >> a) & 1) || ranges[a].second - ranges[a].first != 1) continue;
    const size_t k = static_cast<size_t>(ranges[a].first);
    if (k >= env.forwardable_inputs.size() || !env.forwardable_inputs[k]) continue;
    const Tensor& t = *inputs[k];
    if (!t.initialized() || !t.on_host() || t.dtype() != dtype || !(t.shape() == shape)) continue;
    if (!t.buffer() || t.buffer().use_count() != 1) continue;
    *out = Tensor::FromBuffer(dtype, shape, t.buffer());
    return true;
  }
  return false;
}

}  // namespace

Status run_kernel(const OpSpec& op, const std::vector<const Tensor*>& inputs,
                  const std::vector<std::pair<int, int>>& ranges, const std::vector<AttrValue>& attrs,
                  const std::vector<DType>& out_types, ShapeContext& sc, std::vector<Tensor>* outputs, ExecEnv* env,
                  const DeviceSpec& device) {
  DType dispatch = op.dispatch_attr >= 0 ? attrs[op.dispatch_attr].type : DType::kInvalid;
  const KernelDef* kernel = KernelRegistry::Global().find_cached(op, device.type, dispatch);
  if (kernel == nullptr) return no_kernel_error(op, attrs, device.type);
  outputs->clear();
  outputs->resize(out_types.size());
  if (!kernel->forwards_input) {
    size_t i = 0;
    for (size_t a = 0; a < op.outputs.size(); ++a) {
      const ArgSpec& arg = op.outputs[a];
      int n = 1;
      if (arg.number_attr >= 0) n = static_cast<int>(attrs[arg.number_attr].i);
      if (arg.type_list_attr >= 0) n = static_cast<int>(attrs[arg.type_list_attr].list_type.size());
      const bool host = device.type == Device::kCPU || (a < 64 && (kernel->host_outputs >> a) & 1);
      for (int k = 0; k < n; ++k, ++i) {
        if (arg.is_ref) continue;  // refs carry a variable, set by the kernel
        Shape& s = sc.mutable_outputs()[i];
        if (!s.fully_defined()) {
          return errors::Internal(op.name, ": shape function left output ", i, " as ", s.to_string());
        }
        if (i == 0 && host && kernel->inplace_inputs != 0 && env != nullptr &&
            forward_input(*kernel, inputs, ranges, out_types[0], s, *env, &(*outputs)[0])) {
          continue;
        }
        if (host) {
          OPF_RETURN_IF_ERROR(Tensor::Allocate(out_types[i], std::move(s), &(*outputs)[i]));
        } else {
          OPF_RETURN_IF_ERROR(Tensor::Allocate(out_types[i], std::move(s), device.type, device.index, &(*outputs)[i]));
        }
      }
    }
  }
  KernelContext kc(op, inputs, ranges, attrs, *outputs, sc.outputs());
  kc.set_env(env);
  kc.set_device(device);
  OPF_RETURN_IF_ERROR(kernel->fn(kc));
  size_t i = 0;
  for (const ArgSpec& arg : op.outputs) {
    int n = 1;
    if (arg.number_attr >= 0) n = static_cast<int>(attrs[arg.number_attr].i);
    if (arg.type_list_attr >= 0) n = static_cast<int>(attrs[arg.type_list_attr].list_type.size());
    for (int k = 0; k < n; ++k, ++i) {
      if (!arg.is_ref && !(*outputs)[i].initialized()) {
        return errors::Internal(op.name, ": kernel did not produce output ", i);
      }
    }
  }
  return Status::OK();
}

Status execute(EagerCall& call, std::vector<Tensor>* outputs) {
  const OpSpec& op = *call.op;
  // Scratch reused across calls on this thread: the eager hot path allocates only outputs.
  thread_local std::vector<DType> dtypes;
  thread_local std::vector<const Shape*> shapes;
  thread_local std::vector<const Tensor*> values;
  thread_local std::vector<DType> out_types;
  dtypes.clear();
  shapes.clear();
  values.clear();
  // The device: the placement scope's, else the first GPU input's, else the CPU.
  DeviceSpec device;
  bool all_host = true;
  if (const DeviceSpec* placed = eager_placement()) {
    device = *placed;
  }
  for (const Tensor* t : call.inputs) {
    dtypes.push_back(t->dtype());
    shapes.push_back(&t->shape());
    values.push_back(t);
    if (!t->on_host()) {
      if (all_host && eager_placement() == nullptr) device = DeviceSpec{t->device(), t->device_index()};
      all_host = false;
    }
  }
  OPF_RETURN_IF_ERROR(infer_attrs(op, dtypes, call.ranges, call.attrs, call.has_attr));
  OPF_RETURN_IF_ERROR(all_output_dtypes(op, call.attrs, &out_types));
  for (const ArgSpec& arg : op.inputs) {
    if (arg.is_ref) return errors::InvalidArgument(op.name, ": takes a variable reference and only runs in a graph");
  }
  if (device.type == Device::kCPU && all_host) {  // the common case: nothing to place
    ShapeContext sc(op, shapes, values, call.attrs, call.ranges);
    sc.resize_outputs(static_cast<int>(out_types.size()));
    if (!op.shape_fn) return errors::Unimplemented(op.name, ": op has no shape function");
    OPF_RETURN_IF_ERROR(op.shape_fn(sc));
    return run_kernel(op, call.inputs, call.ranges, call.attrs, out_types, sc, outputs, nullptr);
  }
  // Inputs go where the kernel wants them (host-memory arguments to the CPU, the others to
  // the op's device), copied if they live elsewhere.
  const DType dispatch = op.dispatch_attr >= 0 ? call.attrs[op.dispatch_attr].type : DType::kInvalid;
  const KernelDef* kernel = KernelRegistry::Global().find_cached(op, device.type, dispatch);
  if (kernel == nullptr) return no_kernel_error(op, call.attrs, device.type);
  OPF_RETURN_IF_ERROR(check_device(device));
  std::vector<Tensor> moved;
  moved.reserve(call.inputs.size());
  std::vector<const Tensor*> placed_inputs = call.inputs;
  for (size_t a = 0; a < call.ranges.size(); ++a) {
    const bool host = device.type == Device::kCPU || (a < 64 && (kernel->host_inputs >> a) & 1);
    const DeviceSpec want = host ? DeviceSpec() : device;
    for (int k = call.ranges[a].first; k < call.ranges[a].second; ++k) {
      const Tensor* t = placed_inputs[k];
      if (DeviceSpec{t->device(), t->device_index()} != want) {
        moved.emplace_back();
        OPF_RETURN_IF_ERROR(copy_tensor(*t, want, &moved.back()));
        placed_inputs[k] = &moved.back();
      }
      shapes[k] = &placed_inputs[k]->shape();
      values[k] = placed_inputs[k]->on_host() ? placed_inputs[k] : nullptr;  // no device reads
    }
  }
  ShapeContext sc(op, shapes, values, call.attrs, call.ranges);
  sc.resize_outputs(static_cast<int>(out_types.size()));
  if (!op.shape_fn) return errors::Unimplemented(op.name, ": op has no shape function");
  OPF_RETURN_IF_ERROR(op.shape_fn(sc));
  return run_kernel(op, placed_inputs, call.ranges, call.attrs, out_types, sc, outputs, nullptr, device);
}

}  // namespace opforge
