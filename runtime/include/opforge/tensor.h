// Tensor: dtype, shape and a reference-counted, 64-byte aligned buffer. Dense, row-major,
// immutable once an op has produced it; reshaping shares the buffer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opforge/dtype.h"
#include "opforge/shape.h"
#include "opforge/status.h"

namespace opforge {

enum class Device : int { kCPU = 0, kGPU = 1 };

// A block of device memory. Freed when the last Tensor using it goes away.
class Buffer {
 public:
  Buffer(void* data, size_t nbytes, Device device, int device_index = 0)
      : data_(data), nbytes_(nbytes), device_(device), device_index_(device_index) {}
  // Memory owned elsewhere (a NumPy array, a DLPack producer): `release` runs when the last
  // tensor using it goes away, instead of freeing.
  Buffer(void* data, size_t nbytes, Device device, int device_index, std::function<void()> release)
      : data_(data), nbytes_(nbytes), device_(device), device_index_(device_index), release_(std::move(release)) {}
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  int device_index() const { return device_index_; }
  // A graph constant's values (a Const node's value, which nothing writes while it lives):
  // kernels may keep what they derive from them, such as a packed filter, keyed by this
  // buffer (see constant_cache.h). Memory owned elsewhere (NumPy, DLPack) is never marked.
  void mark_constant() {
    if (!release_) constant_.store(true, std::memory_order_release);
  }
  bool is_constant() const { return constant_.load(std::memory_order_acquire); }
  // Whether the runtime's allocator owns the memory (not a NumPy array's or a DLPack
  // producer's, which must never be written through a tensor that did not create them).
  bool owns_memory() const { return !release_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  int device_index_;
  std::function<void()> release_;
  std::atomic<bool> constant_{false};
};

constexpr size_t kTensorAlignment = 64;

// What a variant tensor holds (TensorFlow's DT_VARIANT): an immutable C++ object shared by
// the tensors that pass it along, e.g. a TensorList.
class Variant {
 public:
  virtual ~Variant() = default;
  virtual std::string type_name() const = 0;
};

// The elements of a string tensor (TensorFlow's DT_STRING): byte strings, row-major, shared
// and immutable like every tensor's values.
class StringArray final : public Variant {
 public:
  explicit StringArray(std::vector<std::string> values) : values_(std::move(values)) {}
  std::string type_name() const override { return "string"; }
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> values_;
};

// Allocates nbytes on the CPU, aligned to kTensorAlignment. Fails with ResourceExhausted.
Status allocate_cpu(size_t nbytes, std::shared_ptr<Buffer>* out);

class Tensor {
 public:
  Tensor() = default;
  // Allocates an uninitialized CPU tensor. Shape must be fully defined.
  static Status Allocate(DType dtype, Shape shape, Tensor* out);
  // Allocates an uninitialized tensor on a device (GPU memory from its caching allocator).
  static Status Allocate(DType dtype, Shape shape, Device device, int device_index, Tensor* out);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return num_elements_; }
  size_t nbytes() const { return static_cast<size_t>(num_elements_) * dtype_size(dtype_); }
  Device device() const { return buffer_ ? buffer_->device() : Device::kCPU; }
  int device_index() const { return buffer_ ? buffer_->device_index() : 0; }
  bool on_host() const { return device() == Device::kCPU; }
  bool initialized() const { return dtype_ != DType::kInvalid; }

  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }
  // The single value of a scalar (or one-element) tensor, converted to T.
  template <typename T>
  T scalar() const {
    return data<T>()[0];
  }

  // Same buffer, new shape with the same number of elements.
  Tensor reshaped(const Shape& shape) const;
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  // A tensor over an existing buffer (which must hold the shape's bytes).
  static Tensor FromBuffer(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer);
  // A scalar variant tensor holding value (dtype kResource: a ResourceHandle, resource.h).
  static Tensor FromVariant(std::shared_ptr<const Variant> value, DType dtype = DType::kVariant);
  // A string tensor of the given (fully known) shape; values.size() must match it.
  static Status FromStrings(Shape shape, std::vector<std::string> values, Tensor* out);
  // The elements of a string tensor (nullptr for other tensors).
  const std::vector<std::string>* strings() const;
  // The object of a variant tensor (nullptr for other tensors).
  const std::shared_ptr<const Variant>& variant() const { return variant_; }

 private:
  DType dtype_ = DType::kInvalid;
  Shape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<Buffer> buffer_;
  std::shared_ptr<const Variant> variant_;
};

// Reads an int32 or int64 tensor of rank 0 or 1 as int64 values.
Status read_int_vector(const Tensor& t, std::vector<int64_t>* out);

}  // namespace opforge
