// Datasets and iterators (TensorFlow's tf.data in its runtime): a dataset is an immutable
// description of a sequence of elements (each a list of tensors with the dataset's dtypes),
// held by a scalar variant tensor; dataset ops make datasets from tensors, files and other
// datasets. An iterator walks one dataset; iterator ops (IteratorV2, MakeIterator,
// IteratorGetNext, ...) keep iterators in the Session's resources, so a graph's input
// pipeline runs in C++, off the Python thread.
//
// An op library defines its own dataset op as it defines any op (an opdef whose output is
// `handle: variant`) with a kernel that makes a DatasetBase subclass; `opforge new --dataset`
// scaffolds one (README, "Building an op library out of tree").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "opforge/attr.h"
#include "opforge/kernel.h"
#include "opforge/resource.h"
#include "opforge/tensor.h"

namespace opforge {

constexpr int64_t kInfiniteCardinality = -1;
constexpr int64_t kUnknownCardinality = -2;

// Walks a dataset. GetNext is called by one thread at a time (the caller serializes calls);
// an iterator that runs threads of its own starts them with start_iterator_thread and joins
// them in its destructor.
class IteratorBase {
 public:
  virtual ~IteratorBase() = default;
  // The next element into *out (one tensor per component), or *end = true when there is none
  // (out left empty); after the end, every call reports the end again.
  virtual Status GetNext(std::vector<Tensor>* out, bool* end) = 0;
};

// Starts a thread of an iterator (a prefetch or a parallel map's worker). Such a thread may
// call Python (a py_func in a map) whose garbage collector may drop the last reference to an
// iterator, even to the one the thread belongs to: an IteratorResource that goes on one of
// these threads is destroyed on a thread of its own instead (a thread cannot join itself).
std::thread start_iterator_thread(std::function<void()> body);

class DatasetBase : public Variant {
 public:
  DatasetBase(std::string op, std::vector<DType> dtypes, std::vector<Shape> shapes)
      : op_(std::move(op)), dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}
  std::string type_name() const override { return "dataset"; }
  // The op that made the dataset, for messages ("TFRecordDataset").
  const std::string& op() const { return op_; }
  const std::vector<DType>& output_dtypes() const { return dtypes_; }
  const std::vector<Shape>& output_shapes() const { return shapes_; }
  // A new iterator at the dataset's start. The caller keeps the dataset alive while the
  // iterator exists (an iterator may point into it).
  virtual Status MakeIterator(std::unique_ptr<IteratorBase>* out) const = 0;
  // The number of elements; kInfiniteCardinality, or kUnknownCardinality when not known
  // without iterating.
  virtual int64_t Cardinality() const { return kUnknownCardinality; }
  // The datasets this one reads (for the cardinality of compositions and for messages).
  virtual std::vector<std::shared_ptr<const DatasetBase>> inputs() const { return {}; }

 protected:
  // Checks an element against the dataset's dtypes and (partially known) shapes.
  Status CheckElement(const std::vector<Tensor>& element) const;

 private:
  std::string op_;
  std::vector<DType> dtypes_;
  std::vector<Shape> shapes_;
};

// The dataset a variant tensor holds; InvalidArgument naming `op` otherwise.
Status dataset_from_tensor(const std::string& op, const Tensor& t, std::shared_ptr<const DatasetBase>* out);
// A scalar variant tensor holding ds.
inline Tensor dataset_tensor(std::shared_ptr<const DatasetBase> ds) { return Tensor::FromVariant(std::move(ds)); }

// Checks a dataset op's `output_types` / `output_shapes` attrs (TF's element spec): one entry
// per component.
Status check_element_spec(const std::string& op, const std::vector<DType>& types, const std::vector<Shape>& shapes);

// Sets a dataset kernel's output: a variant tensor holding `ds`.
inline void set_dataset_output(KernelContext& ctx, int index, std::shared_ptr<const DatasetBase> ds) {
  ctx.output(index) = dataset_tensor(std::move(ds));
}

// The Session store of the running op (empty when eager): what a dataset's functions and
// iterators use for variables and other resources.
std::weak_ptr<ResourceMgr> session_resources(const KernelContext& ctx);

// An iterator as a Session resource (IteratorV2, OneShotIterator, AnonymousIteratorV3): the
// element spec it was declared with and the iterator of the dataset MakeIterator gave it.
// GetNext may be called from several threads; calls are serialized.
class IteratorResource final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Iterator";
  IteratorResource(std::vector<DType> dtypes, std::vector<Shape> shapes)
      : dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}
  ~IteratorResource() override;
  std::string type_name() const override { return kTypeName; }
  // Starts iterating `ds` (its element spec must match the declared one); `op` names the
  // calling op in errors.
  Status SetDataset(const std::string& op, std::shared_ptr<const DatasetBase> ds);
  // The next element; OutOfRange("End of sequence") after the last, FailedPrecondition before
  // SetDataset.
  Status GetNext(const std::string& op, std::vector<Tensor>* out);
  const std::vector<DType>& output_dtypes() const { return dtypes_; }
  const std::vector<Shape>& output_shapes() const { return shapes_; }
  bool initialized() const;

 private:
  const std::vector<DType> dtypes_;
  const std::vector<Shape> shapes_;
  mutable std::mutex mu_;  // held by GetNext and SetDataset
  std::shared_ptr<const DatasetBase> dataset_;
  std::unique_ptr<IteratorBase> iterator_;
};

}  // namespace opforge
