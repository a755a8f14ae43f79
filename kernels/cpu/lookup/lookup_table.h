// Lookup tables (TensorFlow's tf.lookup): a hash table from scalar keys (int32, int64 or string)
// to values of a fixed shape (int32, int64, bool, float, double or string), kept as a Session
// resource (resource.h) that HashTableV2 and its siblings make and the LookupTable* ops use.
//
// Keys are held as int64 or std::string and values as int64, double or std::string whatever the
// tensor dtype (int32 widens to int64, float to double, both exactly), so one implementation
// serves every dtype pair TensorFlow registers. Each entry's value lives in a slot of a flat
// array (value_shape elements each); removed slots are reused.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "opforge/resource.h"
#include "opforge/tensor.h"

namespace opforge {
namespace lookup {

class LookupTable final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "lookup table";
  enum class Kind {
    kStatic,   // HashTableV2: filled once by an initializer op
    kMutable,  // MutableHashTableV2, MutableHashTableOfTensorsV2
    kDense,    // MutableDenseHashTableV2: keys may not be empty_key or deleted_key
  };

  // InvalidArgument (naming op) for dtypes no table supports.
  static Status Make(const std::string& op, Kind kind, DType key_dtype, DType value_dtype, Shape value_shape,
                     std::shared_ptr<LookupTable>* out);
  LookupTable(Kind kind, DType key_dtype, DType value_dtype, Shape value_shape);

  std::string type_name() const override { return kTypeName; }
  DType key_dtype() const { return key_dtype_; }
  DType value_dtype() const { return value_dtype_; }
  const Shape& value_shape() const { return value_shape_; }
  bool initialized() {
    std::lock_guard<std::mutex> lock(mu_);
    return initialized_;
  }

  // A dense table's reserved keys (scalars of key_dtype); they must differ.
  Status SetReservedKeys(const std::string& op, const Tensor& empty_key, const Tensor& deleted_key);

  // values[keys.shape + value_shape]: each key's value, or default_value's (default_value has
  // value_shape, or the output's shape for one default per key).
  Status Find(const std::string& op, const Tensor& keys, const Tensor& default_value, Tensor* values);
  Status Insert(const std::string& op, const Tensor& keys, const Tensor& values);
  Status Remove(const std::string& op, const Tensor& keys);
  int64_t Size();
  Status Export(const std::string& op, Tensor* keys, Tensor* values);
  // A mutable table: replaces its entries. A static one: initializes it (as Initialize).
  Status Import(const std::string& op, const Tensor& keys, const Tensor& values);
  // Static tables only: fills the table once. A key given twice with different values, or a
  // second initialization with other entries, is a FailedPrecondition.
  Status Initialize(const std::string& op, const Tensor& keys, const Tensor& values);

 private:
  enum class Repr { kInt, kFloat, kString };

  Status CheckTypes(const std::string& op, const Tensor* keys, const Tensor* values) const;
  Status CheckInsertShapes(const std::string& op, const Tensor& keys, const Tensor& values) const;
  Status CheckReserved(const std::string& op, const Tensor& keys) const;
  // The slot of keys[i] (-1 if absent); the slot for it, made if absent (*added then).
  int64_t find_slot(const Tensor& keys, int64_t i) const;
  int64_t insert_slot(const Tensor& keys, int64_t i, bool* added);
  int64_t size_locked() const;
  void clear();
  // Copies value element j of src into slot element e, and back.
  void store(int64_t e, const Tensor& src, int64_t j);
  bool same_value(int64_t e, const Tensor& src, int64_t j) const;
  std::string value_string(int64_t e) const;
  std::string tensor_value_string(const Tensor& t, int64_t j) const;
  std::string key_string(const Tensor& keys, int64_t i) const;

  const Kind kind_;
  const DType key_dtype_, value_dtype_;
  const Repr key_repr_, value_repr_;
  const Shape value_shape_;
  const int64_t stride_;  // elements per value

  std::mutex mu_;
  bool initialized_ = false;
  std::unordered_map<int64_t, int64_t> int_slots_;
  std::unordered_map<std::string, int64_t> string_slots_;
  std::vector<int64_t> free_slots_;
  int64_t num_slots_ = 0;
  std::vector<int64_t> int_values_;
  std::vector<double> float_values_;
  std::vector<std::string> string_values_;
  // A dense table's reserved keys (as keys tensors, scalar).
  Tensor empty_key_, deleted_key_;
};

}  // namespace lookup
}  // namespace opforge
