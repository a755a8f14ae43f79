// DTypes, shapes, buffers, tensors and attr values.
#include <cstdlib>
#include <mutex>
#include <vector>
#include <sys/mman.h>
#include <new>
#include <sstream>

#include "opforge/attr.h"
#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/resource.h"
#include "opforge/dtype.h"
#include "src/host_allocator.h"
#include "opforge/shape.h"
#include "opforge/tensor.h"

namespace opforge {

size_t dtype_size(DType dt) {
  switch (dt) {
    case DType::kFloat:
    case DType::kInt32:
      return 4;
    case DType::kDouble:
    case DType::kInt64:
      return 8;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
    case DType::kInt16:
    case DType::kBFloat16:
    case DType::kHalf:
      return 2;
    default:
      return 0;
  }
}

bool dtype_supported(DType dt) { return dtype_size(dt) != 0; }

bool dtype_is_floating(DType dt) {
  return dt == DType::kFloat || dt == DType::kDouble || dt == DType::kHalf || dt == DType::kBFloat16;
}

bool dtype_is_integer(DType dt) {
  return dt == DType::kInt32 || dt == DType::kInt64 || dt == DType::kInt16 || dt == DType::kInt8 || dt == DType::kUInt8;
}

std::string dtype_name(DType dt) {
  switch (dt) {
    case DType::kFloat:
      return "float32";
    case DType::kDouble:
      return "float64";
    case DType::kInt32:
      return "int32";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt16:
      return "int16";
    case DType::kInt8:
      return "int8";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kHalf:
      return "float16";
    case DType::kVariant:
      return "variant";
    case DType::kResource:
      return "resource";
    case DType::kString:
      return "string";
    default: {
      std::ostringstream os;
      os << "dtype(" << static_cast<int>(dt) << ")";
      return os.str();
    }
  }
}

bool Shape::fully_defined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t Shape::num_elements() const {
  if (!fully_defined()) return -1;
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : dims_) {
    if (d == 0) return 0;  // however large the other dims
    overflow = __builtin_mul_overflow(n, d, &n) || overflow;
  }
  return overflow ? INT64_MAX : n;  // saturates; Allocate refuses it
}

Shape Shape::relaxed(const Shape& o) const {
  if (unknown_rank_ || o.unknown_rank_ || dims_.size() != o.dims_.size()) return UnknownRank();
  Shape out = *this;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] != o.dims_[i]) out.dims_[i] = -1;
  return out;
}

bool Shape::is_compatible_with(const Shape& value) const {
  if (unknown_rank_ || value.unknown_rank_) return true;
  if (dims_.size() != value.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] >= 0 && value.dims_[i] >= 0 && dims_[i] != value.dims_[i]) return false;
  return true;
}

std::string Shape::to_string() const {
  if (unknown_rank_) return "<unknown>";
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) os << ",";
    if (dims_[i] < 0)
      os << "?";
    else
      os << dims_[i];
  }
  os << "]";
  return os.str();
}

void free_device_buffer(Device device, int index, void* p, size_t nbytes);  // device.cc

Buffer::~Buffer() {
  if (release_) {  // memory owned by someone else (NumPy, DLPack): tell them we are done
    release_();
    return;
  }
  if (device_ != Device::kCPU) {
    free_device_buffer(device_, device_index_, data_, nbytes_);
    return;
  }
  host_free(data_, nbytes_);
}

Status allocate_cpu(size_t nbytes, std::shared_ptr<Buffer>* out) {
  void* p = host_alloc(nbytes);
  if (p == nullptr) return errors::ResourceExhausted("out of memory allocating ", nbytes, " bytes");
  *out = std::make_shared<Buffer>(p, nbytes, Device::kCPU);
  return Status::OK();
}

Status Tensor::Allocate(DType dtype, Shape shape, Tensor* out) {
  return Allocate(dtype, std::move(shape), Device::kCPU, 0, out);
}

Tensor Tensor::FromVariant(std::shared_ptr<const Variant> value, DType dtype) {
  Tensor t;
  t.dtype_ = dtype;
  t.num_elements_ = 1;
  t.variant_ = std::move(value);
  return t;
}

Status Tensor::FromStrings(Shape shape, std::vector<std::string> values, Tensor* out) {
  if (!shape.fully_defined()) {
    return errors::InvalidArgument("cannot make a string tensor of partially known shape ", shape.to_string());
  }
  if (shape.num_elements() != static_cast<int64_t>(values.size())) {
    return errors::InvalidArgument("a string tensor of shape ", shape.to_string(), " needs ", shape.num_elements(),
                                   " values, got ", values.size());
  }
  Tensor t;
  t.dtype_ = DType::kString;
  t.num_elements_ = shape.num_elements();
  t.shape_ = std::move(shape);
  t.variant_ = std::make_shared<const StringArray>(std::move(values));
  *out = std::move(t);
  return Status::OK();
}

const std::vector<std::string>* Tensor::strings() const {
  if (dtype_ != DType::kString || !variant_) return nullptr;
  return &static_cast<const StringArray&>(*variant_).values();
}

Tensor Tensor::FromBuffer(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer) {
  Tensor t;
  t.dtype_ = dtype;
  t.num_elements_ = shape.num_elements();
  t.shape_ = std::move(shape);
  t.buffer_ = std::move(buffer);
  return t;
}

Status Tensor::Allocate(DType dtype, Shape shape, Device device, int device_index, Tensor* out) {
  if (!dtype_supported(dtype)) {
    return errors::InvalidArgument("cannot allocate a tensor of ", dtype_name(dtype));
  }
  if (!shape.fully_defined()) {
    return errors::InvalidArgument("cannot allocate a tensor of partially known shape ", shape.to_string());
  }
  // TensorFlow's rule (TensorShape::AddDim): the running product of the dims, left to right,
  // must not overflow; once a 0 dim makes it 0 the later dims can be anything, so a
  // [2, 0, 2**62] tensor is fine and [2**32, 2**32, 0] is not. A tensor with elements must
  // also fit in memory.
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    if (__builtin_mul_overflow(n, d, &n)) {  // TensorFlow's wording and error class
      return errors::InvalidArgument("shape ", shape.to_string(), " would have more than 2**63 - 1 elements");
    }
  }
  if (n > (int64_t{1} << 48)) {
    return errors::ResourceExhausted("tensor of shape ", shape.to_string(), " is too large");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = n;
  const size_t nbytes = static_cast<size_t>(n) * dtype_size(dtype);
  if (device == Device::kCPU) {
    OPF_RETURN_IF_ERROR(allocate_cpu(nbytes, &t.buffer_));
  } else {
    OPF_RETURN_IF_ERROR(allocate_device(DeviceSpec{device, device_index}, nbytes, &t.buffer_));
  }
  *out = std::move(t);
  return Status::OK();
}

Tensor Tensor::reshaped(const Shape& shape) const {
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Status read_int_vector(const Tensor& t, std::vector<int64_t>* out) {
  if (!t.on_host()) {
    return errors::Internal("cannot read the values of a tensor in ", device_name(t.device()),
                            " memory on the host (the kernel must mark that input host memory)");
  }
  if (t.rank() > 1) {
    return errors::InvalidArgument("expected a scalar or vector, got shape ", t.shape().to_string());
  }
  out->resize(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DType::kInt32) {
    for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[i] = t.data<int32_t>()[i];
  } else if (t.dtype() == DType::kInt64) {
    for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[i] = t.data<int64_t>()[i];
  } else {
    return errors::InvalidArgument("expected int32 or int64, got ", dtype_name(t.dtype()));
  }
  return Status::OK();
}

Status ResourceMgr::lookup_or_create(const std::string& name, DType dtype, const Shape& shape, Variable** out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = vars_[name];
  if (!slot) {
    slot = std::make_unique<Variable>();
    slot->name = name;
    slot->dtype = dtype;
    slot->shape = shape;
  } else if (slot->dtype != dtype) {
    return errors::InvalidArgument("variable '", name, "' exists with dtype ", dtype_name(slot->dtype), ", requested ",
                                   dtype_name(dtype));
  }
  *out = slot.get();
  return Status::OK();
}

Variable* ResourceMgr::find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second.get();
}

std::vector<std::string> ResourceMgr::names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& kv : vars_) out.push_back(kv.first);
  return out;
}

void ResourceMgr::clear() {
  std::map<std::string, std::unique_ptr<Variable>> vars;
  std::map<std::string, std::shared_ptr<ResourceBase>> resources;
  {
    std::lock_guard<std::mutex> lock(mu_);
    vars.swap(vars_);
    resources.swap(resources_);
  }
  // destroyed unlocked: an iterator's destructor joins its threads, which may use this store
}

std::shared_ptr<ResourceBase> ResourceMgr::find_resource(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(name);
  return it == resources_.end() ? nullptr : it->second;
}

std::shared_ptr<ResourceBase> ResourceMgr::insert_resource(const std::string& name, std::shared_ptr<ResourceBase> r) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = resources_[name];
  if (!slot) slot = std::move(r);
  return slot;
}

void ResourceMgr::clear_resources() {
  std::map<std::string, std::shared_ptr<ResourceBase>> resources;
  {
    std::lock_guard<std::mutex> lock(mu_);
    resources.swap(resources_);
  }
}

Status ResourceMgr::delete_resource(const std::string& name) {
  std::shared_ptr<ResourceBase> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(name);
    if (it == resources_.end()) return errors::NotFound("resource '", name, "' does not exist");
    r = std::move(it->second);
    resources_.erase(it);
  }
  return Status::OK();
}

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kBool:
      return "bool";
    case AttrType::kString:
      return "string";
    case AttrType::kType:
      return "type";
    case AttrType::kShape:
      return "shape";
    case AttrType::kTensor:
      return "tensor";
    case AttrType::kFunc:
      return "func";
    case AttrType::kListInt:
      return "list(int)";
    case AttrType::kListFloat:
      return "list(float)";
    case AttrType::kListBool:
      return "list(bool)";
    case AttrType::kListString:
      return "list(string)";
    case AttrType::kListType:
      return "list(type)";
    case AttrType::kListShape:
      return "list(shape)";
    case AttrType::kListTensor:
      return "list(tensor)";
    case AttrType::kListFunc:
      return "list(func)";
  }
  return "?";
}

bool AttrValue::equals(AttrType t, const AttrValue& o) const {
  switch (t) {
    case AttrType::kInt:
      return i == o.i;
    case AttrType::kFloat:
      return f == o.f;
    case AttrType::kBool:
      return b == o.b;
    case AttrType::kString:
      return s == o.s;
    case AttrType::kType:
      return type == o.type;
    case AttrType::kShape:
      return shape == o.shape;
    case AttrType::kListInt:
      return list_i == o.list_i;
    case AttrType::kListFloat:
      return list_f == o.list_f;
    case AttrType::kListBool:
      return list_b == o.list_b;
    case AttrType::kListString:
      return list_s == o.list_s;
    case AttrType::kListType:
      return list_type == o.list_type;
    case AttrType::kListShape:
      return list_shape == o.list_shape;
    case AttrType::kTensor:
      return tensor.buffer() == o.tensor.buffer() && tensor.shape() == o.tensor.shape();
    default:
      return false;
  }
}

std::string AttrValue::to_string(AttrType t) const {
  std::ostringstream os;
  auto list = [&os](const auto& v, auto fmt) {
    os << "[";
    for (size_t k = 0; k < v.size(); ++k) {
      if (k) os << ", ";
      fmt(v[k]);
    }
    os << "]";
  };
  switch (t) {
    case AttrType::kInt:
      os << i;
      break;
    case AttrType::kFloat:
      os << f;
      break;
    case AttrType::kBool:
      os << (b ? "true" : "false");
      break;
    case AttrType::kString:
      os << '"' << s << '"';
      break;
    case AttrType::kType:
      os << dtype_name(type);
      break;
    case AttrType::kShape:
      os << shape.to_string();
      break;
    case AttrType::kListInt:
      list(list_i, [&os](int64_t v) { os << v; });
      break;
    case AttrType::kListFloat:
      list(list_f, [&os](float v) { os << v; });
      break;
    case AttrType::kListBool:
      list(list_b, [&os](bool v) { os << (v ? "true" : "false"); });
      break;
    case AttrType::kListString:
      list(list_s, [&os](const std::string& v) { os << '"' << v << '"'; });
      break;
    case AttrType::kListType:
      list(list_type, [&os](DType v) { os << dtype_name(v); });
      break;
    case AttrType::kListShape:
      list(list_shape, [&os](const Shape& v) { os << v.to_string(); });
      break;
    case AttrType::kTensor:
      os << "<tensor " << dtype_name(tensor.dtype()) << " " << tensor.shape().to_string() << ">";
      break;
    default:
      os << "<" << attr_type_name(t) << ">";
  }
  return os.str();
}

}  // namespace opforge
