// Datasets and iterator resources (opforge/dataset.h).
#include "opforge/dataset.h"

namespace opforge {

namespace {

thread_local bool t_iterator_thread = false;

// Destroys an iterator, then the dataset it may point into. On an iterator's own thread that
// happens on a new thread: the iterator's destructor joins its threads, maybe this one.
void release_iterator(std::unique_ptr<IteratorBase> it, std::shared_ptr<const DatasetBase> ds) {
  if (!it) return;
  if (!t_iterator_thread) {
    it.reset();
    return;
  }
  std::thread([it = std::move(it), ds = std::move(ds)]() mutable {
    it.reset();
    ds.reset();
  }).detach();
}

}  // namespace

std::thread start_iterator_thread(std::function<void()> body) {
  return std::thread([body = std::move(body)] {
    t_iterator_thread = true;
    body();
  });
}

Status DatasetBase::CheckElement(const std::vector<Tensor>& element) const {
  if (element.size() != dtypes_.size()) {
    return errors::InvalidArgument(op_, ": an element has ", element.size(), " components, expected ", dtypes_.size());
  }
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != dtypes_[i]) {
      return errors::InvalidArgument(op_, ": component ", i, " of an element is ", dtype_name(element[i].dtype()),
                                     ", expected ", dtype_name(dtypes_[i]));
    }
    if (!shapes_[i].is_compatible_with(element[i].shape())) {
      return errors::InvalidArgument(op_, ": component ", i, " of an element has shape ",
                                     element[i].shape().to_string(), ", expected ", shapes_[i].to_string());
    }
  }
  return Status::OK();
}

Status dataset_from_tensor(const std::string& op, const Tensor& t, std::shared_ptr<const DatasetBase>* out) {
  auto ds = t.dtype() == DType::kVariant ? std::dynamic_pointer_cast<const DatasetBase>(t.variant()) : nullptr;
  if (!ds) {
    return errors::InvalidArgument(
        op, ": expected a dataset (a variant tensor made by a dataset op), got ",
        t.dtype() == DType::kVariant && t.variant() ? t.variant()->type_name() : dtype_name(t.dtype()));
  }
  *out = std::move(ds);
  return Status::OK();
}

Status check_element_spec(const std::string& op, const std::vector<DType>& types, const std::vector<Shape>& shapes) {
  if (types.empty()) return errors::InvalidArgument(op, ": output_types must not be empty");
  if (types.size() != shapes.size()) {
    return errors::InvalidArgument(op, ": output_types has ", types.size(), " entries but output_shapes has ",
                                   shapes.size());
  }
  return Status::OK();
}

std::weak_ptr<ResourceMgr> session_resources(const KernelContext& ctx) {
  ExecEnv* env = ctx.env();
  return env && env->resources ? env->resources->weak_from_this() : std::weak_ptr<ResourceMgr>();
}

Status IteratorResource::SetDataset(const std::string& op, std::shared_ptr<const DatasetBase> ds) {
  const auto& dt = ds->output_dtypes();
  if (dt != dtypes_) {
    return errors::InvalidArgument(op, ": the dataset's elements (", dt.size(),
                                   " components) do not match the iterator's output_types (", dtypes_.size(),
                                   " components) or their dtypes");
  }
  for (size_t i = 0; i < shapes_.size(); ++i) {
    if (!shapes_[i].is_compatible_with(ds->output_shapes()[i])) {
      return errors::InvalidArgument(op, ": component ", i, " of the dataset has shape ",
                                     ds->output_shapes()[i].to_string(), ", incompatible with the iterator's ",
                                     shapes_[i].to_string());
    }
  }
  std::unique_ptr<IteratorBase> it;
  OPF_RETURN_IF_ERROR(ds->MakeIterator(&it));
  // The old iterator may point into the old dataset and its threads may still run: it goes
  // first (its threads joined), then the dataset, both outside the lock.
  std::shared_ptr<const DatasetBase> old_dataset;
  std::unique_ptr<IteratorBase> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::move(iterator_);
    old_dataset = std::move(dataset_);
    iterator_ = std::move(it);
    dataset_ = std::move(ds);
  }
  release_iterator(std::move(old), std::move(old_dataset));
  return Status::OK();
}

IteratorResource::~IteratorResource() { release_iterator(std::move(iterator_), std::move(dataset_)); }

Status IteratorResource::GetNext(const std::string& op, std::vector<Tensor>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!iterator_) {
    return errors::FailedPrecondition(op,
                                      ": GetNext() failed because the iterator has not been initialized. Ensure "
                                      "that you have run the initializer operation for this iterator before "
                                      "getting the next element.");
  }
  bool end = false;
  out->clear();
  OPF_RETURN_IF_ERROR(iterator_->GetNext(out, &end));
  if (end) return errors::OutOfRange("End of sequence");
  return Status::OK();
}

bool IteratorResource::initialized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return iterator_ != nullptr;
}

}  // namespace opforge
