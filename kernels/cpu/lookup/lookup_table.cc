// LookupTable: see lookup_table.h.
#include "cpu/lookup/lookup_table.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace opforge {
namespace lookup {
namespace {

bool is_int(DType d) { return d == DType::kInt32 || d == DType::kInt64 || d == DType::kBool; }
bool is_float(DType d) { return d == DType::kFloat || d == DType::kDouble; }

int64_t int_at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kInt32:
      return t.data<int32_t>()[i];
    case DType::kBool:
      return t.data<bool>()[i] ? 1 : 0;
    default:
      return t.data<int64_t>()[i];
  }
}

double float_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat ? static_cast<double>(t.data<float>()[i]) : t.data<double>()[i];
}

const std::string& string_at(const Tensor& t, int64_t i) { return (*t.strings())[static_cast<size_t>(i)]; }

Shape concat(const Shape& a, const Shape& b) {
  std::vector<int64_t> dims = a.dims();
  dims.insert(dims.end(), b.dims().begin(), b.dims().end());
  return Shape(dims);
}

// An output tensor of `dtype` filled element by element: strings gathered, then made a tensor.
class Output {
 public:
  Output(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {}
  Status Start() {
    if (dtype_ == DType::kString) {
      strings_.resize(static_cast<size_t>(shape_.num_elements()));
      return Status::OK();
    }
    return Tensor::Allocate(dtype_, shape_, &t_);
  }
  void set_int(int64_t i, int64_t v) {
    switch (dtype_) {
      case DType::kInt32:
        t_.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DType::kBool:
        t_.data<bool>()[i] = v != 0;
        break;
      default:
        t_.data<int64_t>()[i] = v;
    }
  }
  void set_float(int64_t i, double v) {
    if (dtype_ == DType::kFloat) {
      t_.data<float>()[i] = static_cast<float>(v);
    } else {
      t_.data<double>()[i] = v;
    }
  }
  void set_string(int64_t i, const std::string& v) { strings_[static_cast<size_t>(i)] = v; }
  void copy(int64_t i, const Tensor& src, int64_t j) {
    if (dtype_ == DType::kString) {
      set_string(i, string_at(src, j));
    } else if (is_float(dtype_)) {
      set_float(i, float_at(src, j));
    } else {
      set_int(i, int_at(src, j));
    }
  }
  Status Finish(Tensor* out) {
    if (dtype_ == DType::kString) return Tensor::FromStrings(shape_, std::move(strings_), out);
    *out = std::move(t_);
    return Status::OK();
  }

 private:
  DType dtype_;
  Shape shape_;
  Tensor t_;
  std::vector<std::string> strings_;
};

}  // namespace

Status LookupTable::Make(const std::string& op, Kind kind, DType key_dtype, DType value_dtype, Shape value_shape,
                         std::shared_ptr<LookupTable>* out) {
  if (key_dtype != DType::kInt32 && key_dtype != DType::kInt64 && key_dtype != DType::kString) {
    return errors::InvalidArgument(op, ": tables have int32, int64 or string keys, not ", dtype_name(key_dtype));
  }
  if (!is_int(value_dtype) && !is_float(value_dtype) && value_dtype != DType::kString) {
    return errors::InvalidArgument(op, ": tables have int32, int64, bool, float, double or string values, not ",
                                   dtype_name(value_dtype));
  }
  if (!value_shape.fully_defined()) {
    return errors::InvalidArgument(op, ": value_shape must be fully defined, got ", value_shape.to_string());
  }
  *out = std::make_shared<LookupTable>(kind, key_dtype, value_dtype, std::move(value_shape));
  return Status::OK();
}

LookupTable::LookupTable(Kind kind, DType key_dtype, DType value_dtype, Shape value_shape)
    : kind_(kind),
      key_dtype_(key_dtype),
      value_dtype_(value_dtype),
      key_repr_(key_dtype == DType::kString ? Repr::kString : Repr::kInt),
      value_repr_(value_dtype == DType::kString ? Repr::kString
                  : is_float(value_dtype)       ? Repr::kFloat
                                                : Repr::kInt),
      value_shape_(std::move(value_shape)),
      stride_(value_shape_.num_elements()),
      initialized_(kind != Kind::kStatic) {}

Status LookupTable::SetReservedKeys(const std::string& op, const Tensor& empty_key, const Tensor& deleted_key) {
  OPF_RETURN_IF_ERROR(CheckTypes(op, &empty_key, nullptr));
  OPF_RETURN_IF_ERROR(CheckTypes(op, &deleted_key, nullptr));
  if (empty_key.num_elements() != 1 || deleted_key.num_elements() != 1) {
    return errors::InvalidArgument(op, ": empty_key and deleted_key must be scalars, got ",
                                   empty_key.shape().to_string(), " and ", deleted_key.shape().to_string());
  }
  const bool equal = key_repr_ == Repr::kString ? string_at(empty_key, 0) == string_at(deleted_key, 0)
                                                : int_at(empty_key, 0) == int_at(deleted_key, 0);
  if (equal) return errors::InvalidArgument(op, ": empty_key and deleted_key cannot be equal");
  empty_key_ = empty_key;
  deleted_key_ = deleted_key;
  return Status::OK();
}

Status LookupTable::CheckTypes(const std::string& op, const Tensor* keys, const Tensor* values) const {
  if (keys && keys->dtype() != key_dtype_) {
    return errors::InvalidArgument(op, ": Key must be type ", dtype_name(key_dtype_), " but got ",
                                   dtype_name(keys->dtype()));
  }
  if (values && values->dtype() != value_dtype_) {
    return errors::InvalidArgument(op, ": Value must be type ", dtype_name(value_dtype_), " but got ",
                                   dtype_name(values->dtype()));
  }
  return Status::OK();
}

Status LookupTable::CheckInsertShapes(const std::string& op, const Tensor& keys, const Tensor& values) const {
  OPF_RETURN_IF_ERROR(CheckTypes(op, &keys, &values));
  const Shape expected = concat(keys.shape(), value_shape_);
  if (values.shape() != expected) {
    return errors::InvalidArgument(op, ": Expected shape ", expected.to_string(), " for value, got ",
                                   values.shape().to_string());
  }
  return Status::OK();
}

Status LookupTable::CheckReserved(const std::string& op, const Tensor& keys) const {
  if (kind_ != Kind::kDense) return Status::OK();
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    const bool empty = key_repr_ == Repr::kString ? string_at(keys, i) == string_at(empty_key_, 0)
                                                  : int_at(keys, i) == int_at(empty_key_, 0);
    const bool deleted = key_repr_ == Repr::kString ? string_at(keys, i) == string_at(deleted_key_, 0)
                                                    : int_at(keys, i) == int_at(deleted_key_, 0);
    if (empty) return errors::InvalidArgument(op, ": Using the empty_key as a table key is not allowed");
    if (deleted) return errors::InvalidArgument(op, ": Using the deleted_key as a table key is not allowed");
  }
  return Status::OK();
}

int64_t LookupTable::find_slot(const Tensor& keys, int64_t i) const {
  if (key_repr_ == Repr::kString) {
    auto it = string_slots_.find(string_at(keys, i));
    return it == string_slots_.end() ? -1 : it->second;
  }
  auto it = int_slots_.find(int_at(keys, i));
  return it == int_slots_.end() ? -1 : it->second;
}

int64_t LookupTable::insert_slot(const Tensor& keys, int64_t i, bool* added) {
  const int64_t next = free_slots_.empty() ? num_slots_ : free_slots_.back();
  int64_t slot = next;
  if (key_repr_ == Repr::kString) {
    auto r = string_slots_.emplace(string_at(keys, i), next);
    slot = r.first->second;
    *added = r.second;
  } else {
    auto r = int_slots_.emplace(int_at(keys, i), next);
    slot = r.first->second;
    *added = r.second;
  }
  if (!*added) return slot;
  if (!free_slots_.empty()) {
    free_slots_.pop_back();
    return slot;
  }
  ++num_slots_;
  const auto n = static_cast<size_t>(num_slots_ * stride_);
  if (value_repr_ == Repr::kString) string_values_.resize(n);
  if (value_repr_ == Repr::kFloat) float_values_.resize(n);
  if (value_repr_ == Repr::kInt) int_values_.resize(n);
  return slot;
}

int64_t LookupTable::size_locked() const {
  return static_cast<int64_t>(key_repr_ == Repr::kString ? string_slots_.size() : int_slots_.size());
}

void LookupTable::clear() {
  int_slots_.clear();
  string_slots_.clear();
  free_slots_.clear();
  num_slots_ = 0;
  int_values_.clear();
  float_values_.clear();
  string_values_.clear();
}

void LookupTable::store(int64_t e, const Tensor& src, int64_t j) {
  const auto k = static_cast<size_t>(e);
  if (value_repr_ == Repr::kString) string_values_[k] = string_at(src, j);
  if (value_repr_ == Repr::kFloat) float_values_[k] = float_at(src, j);
  if (value_repr_ == Repr::kInt) int_values_[k] = int_at(src, j);
}

bool LookupTable::same_value(int64_t e, const Tensor& src, int64_t j) const {
  const auto k = static_cast<size_t>(e);
  if (value_repr_ == Repr::kString) return string_values_[k] == string_at(src, j);
  if (value_repr_ == Repr::kFloat) return float_values_[k] == float_at(src, j);
  return int_values_[k] == int_at(src, j);
}

std::string LookupTable::value_string(int64_t e) const {
  std::ostringstream os;
  const auto k = static_cast<size_t>(e);
  if (value_repr_ == Repr::kString) os << string_values_[k];
  if (value_repr_ == Repr::kFloat) os << float_values_[k];
  if (value_repr_ == Repr::kInt) os << int_values_[k];
  return os.str();
}

std::string LookupTable::tensor_value_string(const Tensor& t, int64_t j) const {
  std::ostringstream os;
  if (value_repr_ == Repr::kString) os << string_at(t, j);
  if (value_repr_ == Repr::kFloat) os << float_at(t, j);
  if (value_repr_ == Repr::kInt) os << int_at(t, j);
  return os.str();
}

std::string LookupTable::key_string(const Tensor& keys, int64_t i) const {
  return key_repr_ == Repr::kString ? string_at(keys, i) : std::to_string(int_at(keys, i));
}

Status LookupTable::Find(const std::string& op, const Tensor& keys, const Tensor& default_value, Tensor* values) {
  OPF_RETURN_IF_ERROR(CheckTypes(op, &keys, &default_value));
  const Shape out_shape = concat(keys.shape(), value_shape_);
  const bool per_key_default = default_value.shape() != value_shape_;
  if (per_key_default && default_value.shape() != out_shape) {
    return errors::InvalidArgument(op, ": Expected shape ", value_shape_.to_string(), " or ", out_shape.to_string(),
                                   " for default value, got ", default_value.shape().to_string());
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!initialized_) return errors::FailedPrecondition(op, ": Table not initialized.");
  Output out(value_dtype_, out_shape);
  OPF_RETURN_IF_ERROR(out.Start());
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    const int64_t slot = find_slot(keys, i);
    for (int64_t j = 0; j < stride_; ++j) {
      const int64_t o = i * stride_ + j;
      if (slot < 0) {
        out.copy(o, default_value, per_key_default ? o : j);
        continue;
      }
      const auto k = static_cast<size_t>(slot * stride_ + j);
      if (value_repr_ == Repr::kString) out.set_string(o, string_values_[k]);
      if (value_repr_ == Repr::kFloat) out.set_float(o, float_values_[k]);
      if (value_repr_ == Repr::kInt) out.set_int(o, int_values_[k]);
    }
  }
  return out.Finish(values);
}

Status LookupTable::Insert(const std::string& op, const Tensor& keys, const Tensor& values) {
  if (kind_ == Kind::kStatic) {
    return errors::Unimplemented(op, ": Insert not supported by InitializableLookupTable implementations");
  }
  OPF_RETURN_IF_ERROR(CheckInsertShapes(op, keys, values));
  OPF_RETURN_IF_ERROR(CheckReserved(op, keys));
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    bool added = false;
    const int64_t slot = insert_slot(keys, i, &added);
    for (int64_t j = 0; j < stride_; ++j) store(slot * stride_ + j, values, i * stride_ + j);
  }
  return Status::OK();
}

Status LookupTable::Remove(const std::string& op, const Tensor& keys) {
  if (kind_ == Kind::kStatic) {
    return errors::Unimplemented(op, ": Remove not supported by InitializableLookupTable implementations");
  }
  OPF_RETURN_IF_ERROR(CheckTypes(op, &keys, nullptr));
  OPF_RETURN_IF_ERROR(CheckReserved(op, keys));
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    const int64_t slot = find_slot(keys, i);
    if (slot < 0) continue;
    if (key_repr_ == Repr::kString) {
      string_slots_.erase(string_at(keys, i));
    } else {
      int_slots_.erase(int_at(keys, i));
    }
    free_slots_.push_back(slot);
  }
  return Status::OK();
}

int64_t LookupTable::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  return size_locked();
}

Status LookupTable::Export(const std::string& op, Tensor* keys, Tensor* values) {
  (void)op;
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t n = size_locked();
  Output k(key_dtype_, Shape({n}));
  Output v(value_dtype_, concat(Shape({n}), value_shape_));
  OPF_RETURN_IF_ERROR(k.Start());
  OPF_RETURN_IF_ERROR(v.Start());
  int64_t i = 0;
  auto emit = [&](int64_t slot) {
    for (int64_t j = 0; j < stride_; ++j) {
      const auto e = static_cast<size_t>(slot * stride_ + j);
      const int64_t o = i * stride_ + j;
      if (value_repr_ == Repr::kString) v.set_string(o, string_values_[e]);
      if (value_repr_ == Repr::kFloat) v.set_float(o, float_values_[e]);
      if (value_repr_ == Repr::kInt) v.set_int(o, int_values_[e]);
    }
    ++i;
  };
  for (const auto& [key, slot] : string_slots_) {
    k.set_string(i, key);
    emit(slot);
  }
  for (const auto& [key, slot] : int_slots_) {
    k.set_int(i, key);
    emit(slot);
  }
  OPF_RETURN_IF_ERROR(k.Finish(keys));
  return v.Finish(values);
}

Status LookupTable::Import(const std::string& op, const Tensor& keys, const Tensor& values) {
  if (kind_ == Kind::kStatic) return Initialize(op, keys, values);
  OPF_RETURN_IF_ERROR(CheckInsertShapes(op, keys, values));
  OPF_RETURN_IF_ERROR(CheckReserved(op, keys));
  {
    std::lock_guard<std::mutex> lock(mu_);
    clear();
  }
  return Insert(op, keys, values);
}

Status LookupTable::Initialize(const std::string& op, const Tensor& keys, const Tensor& values) {
  if (kind_ != Kind::kStatic) {
    return errors::InvalidArgument(op, ": the table is mutable; only a static table (HashTableV2) is initialized");
  }
  OPF_RETURN_IF_ERROR(CheckInsertShapes(op, keys, values));
  std::lock_guard<std::mutex> lock(mu_);
  if (initialized_) {
    bool same = size_locked() == keys.num_elements();
    for (int64_t i = 0; same && i < keys.num_elements(); ++i) {
      const int64_t slot = find_slot(keys, i);
      same = slot >= 0 && same_value(slot, values, i);
    }
    if (!same) return errors::FailedPrecondition(op, ": Table was already initialized with different data.");
    return Status::OK();
  }
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    bool added = false;
    const int64_t slot = insert_slot(keys, i, &added);
    if (!added && !same_value(slot, values, i)) {
      const std::string msg = "HashTable has different value for same key. Key " + key_string(keys, i) + " has " +
                              value_string(slot) + " and trying to add value " + tensor_value_string(values, i);
      clear();
      return errors::FailedPrecondition(op, ": ", msg);
    }
    store(slot, values, i);
  }
  initialized_ = true;
  return Status::OK();
}

}  // namespace lookup
}  // namespace opforge
