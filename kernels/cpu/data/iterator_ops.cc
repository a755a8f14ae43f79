// Iterator ops: an iterator is a resource of the Session (IteratorV2, OneShotIterator) or of
// its handle alone (AnonymousIteratorV3, eagerly); MakeIterator points it at a dataset and
// IteratorGetNext reads it.
#include "cpu/data/dataset_util.h"
#include "opforge/ops/data_ops.h"

namespace opforge {
namespace {

// The store's name of a Session iterator: shared_name, else the node's name.
std::string iterator_name(const KernelContext& ctx, const std::string& shared_name) {
  if (!shared_name.empty()) return shared_name;
  ExecEnv* env = ctx.env();
  return env && env->node_name ? *env->node_name : std::string();
}

// The iterator called name in the running Session's store (made on first use); eagerly a new
// one, owned by its handle alone.
Status session_iterator(KernelContext& ctx, const std::string& name, const std::vector<DType>& dtypes,
                        const std::vector<Shape>& shapes, std::shared_ptr<IteratorResource>* out) {
  ExecEnv* env = ctx.env();
  if (!env || !env->resources || name.empty()) {
    *out = std::make_shared<IteratorResource>(dtypes, shapes);
    return Status::OK();
  }
  std::function<Status(std::shared_ptr<IteratorResource>*)> make = [&](std::shared_ptr<IteratorResource>* r) {
    *r = std::make_shared<IteratorResource>(dtypes, shapes);
    return Status::OK();
  };
  return env->resources->lookup_or_create_resource<IteratorResource>(name, make, out);
}

Status IteratorV2Cpu(ops::IteratorV2Args& a) {
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  const std::vector<DType>& dtypes = a.output_types;
  const std::vector<Shape>& shapes = a.output_shapes;
  const std::string name = iterator_name(a.ctx, a.shared_name);
  std::shared_ptr<IteratorResource> it;
  OPF_RETURN_IF_ERROR(session_iterator(a.ctx, name, dtypes, shapes, &it));
  a.handle = resource_tensor(name, std::move(it));
  return Status::OK();
}

Status AnonymousIteratorV3Cpu(ops::AnonymousIteratorV3Args& a) {
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  const std::vector<DType>& dtypes = a.output_types;
  const std::vector<Shape>& shapes = a.output_shapes;
  a.handle = resource_tensor("", std::make_shared<IteratorResource>(dtypes, shapes));
  return Status::OK();
}

Status MakeIteratorCpu(ops::MakeIteratorArgs& a) {
  std::shared_ptr<const DatasetBase> ds;
  OPF_RETURN_IF_ERROR(dataset_from_tensor(a.kOpName, a.dataset, &ds));
  std::shared_ptr<IteratorResource> it;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.iterator, &it));
  return it->SetDataset(a.kOpName, std::move(ds));
}

Status IteratorGetNextCpu(ops::IteratorGetNextArgs& a) {
  std::shared_ptr<IteratorResource> it;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.iterator, &it));
  std::vector<Tensor> element;
  OPF_RETURN_IF_ERROR(it->GetNext(a.kOpName, &element));
  if (static_cast<int>(element.size()) != a.ctx.num_outputs()) {
    return a.ctx.error("the iterator's elements have ", element.size(), " components, the op ", a.ctx.num_outputs());
  }
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != a.output_types[i]) {
      return a.ctx.error("component ", i, " is ", dtype_name(element[i].dtype()), ", expected ",
                         dtype_name(a.output_types[i]));
    }
    a.ctx.output(static_cast<int>(i)) = std::move(element[i]);
  }
  return Status::OK();
}

Status OneShotIteratorCpu(ops::OneShotIteratorArgs& a) {
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  const std::vector<DType>& dtypes = a.output_types;
  const std::vector<Shape>& shapes = a.output_shapes;
  const std::string name = iterator_name(a.ctx, a.shared_name);
  std::shared_ptr<IteratorResource> it;
  OPF_RETURN_IF_ERROR(session_iterator(a.ctx, name, dtypes, shapes, &it));
  if (!it->initialized()) {  // the first run in this Session makes the dataset
    std::shared_ptr<const FunctionRunner> factory;
    OPF_RETURN_IF_ERROR(FunctionRunner::Create(a.kOpName, a.dataset_factory, session_resources(a.ctx), &factory));
    std::vector<Tensor> rets;
    OPF_RETURN_IF_ERROR(factory->run({}, &rets));
    std::shared_ptr<const DatasetBase> ds;
    OPF_RETURN_IF_ERROR(data::dataset_result(a.kOpName, rets, &ds));
    OPF_RETURN_IF_ERROR(it->SetDataset(a.kOpName, std::move(ds)));
  }
  a.handle = resource_tensor(name, std::move(it));
  return Status::OK();
}

Status IteratorToStringHandleCpu(ops::IteratorToStringHandleArgs& a) {
  std::shared_ptr<IteratorResource> it;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.resource_handle, &it));
  const auto* handle = static_cast<const ResourceHandle*>(a.resource_handle.variant().get());
  if (handle->name().empty()) return a.ctx.error("an anonymous iterator has no string handle");
  return Tensor::FromStrings(Shape({}), {handle->name()}, &a.string_handle);
}

Status IteratorFromStringHandleV2Cpu(ops::IteratorFromStringHandleV2Args& a) {
  if (a.string_handle.dtype() != DType::kString || a.string_handle.num_elements() != 1) {
    return a.ctx.error("string_handle must be a scalar string");
  }
  const std::string& name = a.string_handle.strings()->front();
  ExecEnv* env = a.ctx.env();
  std::shared_ptr<ResourceBase> r = env && env->resources ? env->resources->find_resource(name) : nullptr;
  auto it = std::dynamic_pointer_cast<IteratorResource>(r);
  if (!it) return a.ctx.error("'", name, "' is not the string handle of an iterator of this Session");
  if (!a.output_types.empty() && a.output_types != it->output_dtypes()) {
    return a.ctx.error("the iterator of handle '", name, "' gives other dtypes than this one expects");
  }
  for (size_t i = 0; i < a.output_shapes.size() && i < it->output_shapes().size(); ++i) {
    if (!a.output_shapes[i].is_compatible_with(it->output_shapes()[i])) {
      return a.ctx.error("component ", i, " of the iterator has shape ", it->output_shapes()[i].to_string(),
                         ", incompatible with the expected ", a.output_shapes[i].to_string());
    }
  }
  a.resource_handle = resource_tensor(name, std::move(it));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(IteratorV2, CPU, IteratorV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(AnonymousIteratorV3, CPU, AnonymousIteratorV3Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MakeIterator, CPU, MakeIteratorCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(IteratorGetNext, CPU, IteratorGetNextCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(OneShotIterator, CPU, OneShotIteratorCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(IteratorToStringHandle, CPU, IteratorToStringHandleCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(IteratorFromStringHandleV2, CPU, IteratorFromStringHandleV2Cpu)

}  // namespace opforge
