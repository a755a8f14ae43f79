// OpRegistry, KernelRegistry and ShapeContext.
#include <algorithm>
#include <sstream>

#include "opforge/kernel.h"
#include "opforge/library.h"
#include "opforge/op.h"

namespace opforge {

// ---- ShapeContext

ShapeContext::ShapeContext(const OpSpec& op, const std::vector<const Shape*>& input_shapes,
                           const std::vector<const Tensor*>& input_values, const std::vector<AttrValue>& attrs,
                           const std::vector<std::pair<int, int>>& arg_ranges)
    : op_(op), input_shapes_(input_shapes), input_values_(input_values), attrs_(attrs), arg_ranges_(arg_ranges) {}

const Shape& ShapeContext::input_shape(int arg, int i) const {
  return *input_shapes_[static_cast<size_t>(arg_ranges_[arg].first + i)];
}

const Tensor* ShapeContext::input_value(int arg, int i) const {
  return input_values_[static_cast<size_t>(arg_ranges_[arg].first + i)];
}

const Shape* ShapeContext::input_partial_value(int arg) const {
  if (partial_values_ == nullptr || num_inputs(arg) != 1) return nullptr;
  const Shape& s = (*partial_values_)[static_cast<size_t>(arg_ranges_[arg].first)];
  return s.unknown_rank() ? nullptr : &s;
}

// ---- OpRegistry

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();  // never destroyed: used by static dtors
  return *registry;
}

void OpRegistry::add_pending(OpSpec spec) {
  if (RegistrationStage* stage = current_stage()) {  // an op library is loading
    stage->ops.push_back(std::move(spec));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back(std::move(spec));
}

void OpRegistry::discard_pending() {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.clear();
}

Status OpRegistry::check_locked(const std::vector<OpSpec>& batch) const {
  for (size_t i = 0; i < batch.size(); ++i) {
    auto it = by_name_.find(batch[i].name);
    if (it != by_name_.end() && specs_[it->second]) {
      const std::string& owner = specs_[it->second]->library;
      return errors::AlreadyExists("op '", batch[i].name, "' is already registered",
                                   owner.empty() ? std::string(" (built in)") : " by " + owner);
    }
    for (size_t j = 0; j < i; ++j) {
      if (batch[j].name == batch[i].name) {
        return errors::AlreadyExists("op '", batch[i].name, "' is registered twice");
      }
    }
  }
  return Status::OK();
}

void OpRegistry::insert_locked(std::vector<OpSpec>& batch, const std::string& library,
                               std::vector<std::string>* added) {
  for (OpSpec& spec : batch) {
    spec.library = library;
    if (added) added->push_back(spec.name);
    auto it = by_name_.find(spec.name);
    if (it != by_name_.end()) {  // a placeholder handle handed out earlier becomes real
      specs_[it->second] = std::make_unique<OpSpec>(std::move(spec));
    } else {
      by_name_[spec.name] = static_cast<int>(specs_.size());
      names_.push_back(spec.name);
      specs_.push_back(std::make_unique<OpSpec>(std::move(spec)));
    }
  }
}

Status OpRegistry::commit_pending(const std::string& library, std::vector<std::string>* added) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<OpSpec> batch;
  batch.swap(pending_);
  OPF_RETURN_IF_ERROR(check_locked(batch));
  insert_locked(batch, library, added);
  return Status::OK();
}

Status OpRegistry::check_batch(const std::vector<OpSpec>& batch) const {
  std::lock_guard<std::mutex> lock(mu_);
  return check_locked(batch);
}

Status OpRegistry::commit_batch(std::vector<OpSpec> batch, const std::string& library,
                                std::vector<std::string>* added) {
  std::lock_guard<std::mutex> lock(mu_);
  OPF_RETURN_IF_ERROR(check_locked(batch));
  insert_locked(batch, library, added);
  return Status::OK();
}

int OpRegistry::handle(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  int h = static_cast<int>(specs_.size());
  by_name_[name] = h;
  names_.push_back(name);
  specs_.push_back(nullptr);
  return h;
}

const OpSpec* OpRegistry::spec(int handle) const {
  if (handle < 0 || static_cast<size_t>(handle) >= specs_.size()) return nullptr;
  return specs_[static_cast<size_t>(handle)].get();
}

const std::string& OpRegistry::name(int handle) const { return names_.at(static_cast<size_t>(handle)); }

const OpSpec* OpRegistry::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : specs_[it->second].get();
}

std::vector<std::string> OpRegistry::names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i]) out.push_back(names_[i]);
  std::sort(out.begin(), out.end());
  return out;
}

// ---- KernelRegistry

const char* device_name(Device d) { return d == Device::kCPU ? "CPU" : "GPU"; }

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry();
  return *registry;
}

void KernelRegistry::add(const std::string& op, Device device, DType dtype, KernelDef def) {
  if (RegistrationStage* stage = current_stage()) {  // an op library is loading
    stage->kernels.emplace_back(op, device, dtype, def);
    return;
  }
  ++generation_;
  auto& list = kernels_[op];
  for (auto& entry : list) {
    if (entry.first == std::make_pair(device, dtype)) {
      entry.second = def;
      return;
    }
  }
  list.push_back({{device, dtype}, def});
}

const KernelDef* KernelRegistry::find(const std::string& op, Device device, DType dtype) const {
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return nullptr;
  for (const auto& entry : it->second)
    if (entry.first.first == device && entry.first.second == dtype) return &entry.second;
  return nullptr;
}

const KernelDef* KernelRegistry::find_cached(const OpSpec& op, DType dtype) const {
  return find_cached(op, Device::kCPU, dtype);
}

std::vector<Device> KernelRegistry::devices_for(const std::string& op) const {
  std::vector<Device> out;
  for (const auto& k : kernels_for(op))
    if (out.empty() || out.back() != k.first) out.push_back(k.first);
  return out;
}

const KernelDef* KernelRegistry::find_cached(const OpSpec& op, Device device, DType dtype) const {
  const int slot = static_cast<int>(dtype);
  if (slot < 0 || slot >= 64) return find(op.name, device, dtype);
  OpSpec::KernelCache& cache = device == Device::kCPU ? op.cpu_kernels : op.gpu_kernels;
  if (cache.generation != generation_) {
    cache = OpSpec::KernelCache();
    cache.generation = generation_;
  }
  if (cache.by_dtype[slot] == nullptr) {
    const KernelDef* k = find(op.name, device, dtype);
    cache.by_dtype[slot] = k ? static_cast<const void*>(k) : static_cast<const void*>(&kMissing);
  }
  const void* hit = cache.by_dtype[slot];
  return hit == &kMissing ? nullptr : static_cast<const KernelDef*>(hit);
}

std::vector<std::pair<Device, DType>> KernelRegistry::kernels_for(const std::string& op) const {
  std::vector<std::pair<Device, DType>> out;
  auto it = kernels_.find(op);
  if (it != kernels_.end())
    for (const auto& entry : it->second) out.push_back(entry.first);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::make_pair(static_cast<int>(a.first), dtype_name(a.second)) <
           std::make_pair(static_cast<int>(b.first), dtype_name(b.second));
  });
  return out;
}

std::string KernelRegistry::describe(const std::string& op) const {
  auto ks = kernels_for(op);
  if (ks.empty()) return "none";
  std::ostringstream os;
  Device last = ks[0].first;
  os << device_name(last) << ":";
  bool first = true;
  for (const auto& k : ks) {
    if (k.first != last) {
      last = k.first;
      os << "; " << device_name(last) << ":";
      first = true;
    }
    os << (first ? " " : ", ") << (k.second == DType::kInvalid ? "any" : dtype_name(k.second));
    first = false;
  }
  return os.str();
}

}  // namespace opforge
