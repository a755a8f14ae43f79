// Slicing and stacking elements, scalar inputs, captured functions (dataset_util.h).
#include "cpu/data/dataset_util.h"

#include <thread>

namespace opforge {
namespace data {

namespace {

Shape row_shape(const Shape& s) { return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end())); }

Shape stacked_shape(int64_t n, const Shape& s) {
  std::vector<int64_t> dims{n};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  return Shape(dims);
}

}  // namespace

Status slice_row(const Tensor& t, int64_t index, Tensor* out) {
  const Shape shape = row_shape(t.shape());
  if (t.dtype() == DType::kString) {
    const int64_t n = shape.num_elements();
    const auto& all = *t.strings();
    std::vector<std::string> rows(all.begin() + index * n, all.begin() + (index + 1) * n);
    return Tensor::FromStrings(shape, std::move(rows), out);
  }
  if (!dtype_supported(t.dtype())) {
    return errors::InvalidArgument("cannot slice a tensor of dtype ", dtype_name(t.dtype()));
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(t.dtype(), shape, out));
  const size_t row = out->nbytes();
  if (row) std::memcpy(out->raw_data(), static_cast<const char*>(t.raw_data()) + row * index, row);
  return Status::OK();
}

Status stack(const std::string& op, const std::vector<const Tensor*>& parts, Tensor* out) {
  const Tensor& first = *parts.front();
  for (const Tensor* p : parts) {
    if (p->dtype() != first.dtype() || p->shape().dims() != first.shape().dims()) {
      return errors::InvalidArgument(op, ": cannot batch tensors with different shapes in a component: ",
                                     first.shape().to_string(), " and ", p->shape().to_string(), " (use padded_batch)");
    }
  }
  const Shape shape = stacked_shape(static_cast<int64_t>(parts.size()), first.shape());
  if (first.dtype() == DType::kString) {
    std::vector<std::string> all;
    for (const Tensor* p : parts) all.insert(all.end(), p->strings()->begin(), p->strings()->end());
    return Tensor::FromStrings(shape, std::move(all), out);
  }
  if (!dtype_supported(first.dtype())) {
    return errors::InvalidArgument(op, ": cannot batch tensors of dtype ", dtype_name(first.dtype()));
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(first.dtype(), shape, out));
  const size_t row = first.nbytes();
  char* dst = static_cast<char*>(out->raw_data());
  for (size_t i = 0; i < parts.size(); ++i)
    if (row) std::memcpy(dst + i * row, parts[i]->raw_data(), row);
  return Status::OK();
}

Status pad_and_stack(const std::string& op, const std::vector<const Tensor*>& parts, const Shape& shape,
                     const Tensor& pad, Tensor* out) {
  const Tensor& first = *parts.front();
  const int rank = shape.rank();
  for (const Tensor* p : parts) {
    if (p->rank() != rank) {
      return errors::InvalidArgument(op, ": cannot pad a component of rank ", p->rank(), " to padded shape ",
                                     shape.to_string());
    }
    for (int d = 0; d < rank; ++d) {
      if (p->dim(d) > shape.dim(d)) {
        return errors::InvalidArgument(op,
                                       ": attempted to pad to a smaller size than the input element: component of "
                                       "shape ",
                                       p->shape().to_string(), " padded to ", shape.to_string());
      }
    }
  }
  const int64_t n = static_cast<int64_t>(parts.size());
  const Shape out_shape = stacked_shape(n, shape);
  const int64_t per = shape.num_elements();
  int64_t total = 0;
  if (per < 0 || __builtin_mul_overflow(n, per, &total) || total > (int64_t{1} << 40)) {
    return errors::ResourceExhausted(op, ": padding to ", shape.to_string(), " for ", n, " elements is too large");
  }
  // row-major strides of the padded element
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d)
    stride[static_cast<size_t>(d)] = stride[static_cast<size_t>(d) + 1] * shape.dim(d + 1);
  // For each source element, visits its positions (multi-index) and the matching padded offset.
  auto for_each = [&](const Tensor& p, auto&& fn) {
    const int64_t count = p.num_elements();
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t k = 0; k < count; ++k) {
      int64_t off = 0;
      for (int d = 0; d < rank; ++d) off += idx[static_cast<size_t>(d)] * stride[static_cast<size_t>(d)];
      fn(k, off);
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[static_cast<size_t>(d)] < p.dim(d)) break;
        idx[static_cast<size_t>(d)] = 0;
      }
    }
  };
  if (first.dtype() == DType::kString) {
    const std::string& fill = pad.strings()->front();
    std::vector<std::string> all(static_cast<size_t>(n * per), fill);
    for (int64_t i = 0; i < n; ++i) {
      const auto& src = *parts[static_cast<size_t>(i)]->strings();
      for_each(*parts[static_cast<size_t>(i)],
               [&](int64_t k, int64_t off) { all[static_cast<size_t>(i * per + off)] = src[static_cast<size_t>(k)]; });
    }
    return Tensor::FromStrings(out_shape, std::move(all), out);
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(first.dtype(), out_shape, out));
  const size_t es = dtype_size(first.dtype());
  char* dst = static_cast<char*>(out->raw_data());
  for (int64_t j = 0; j < n * per; ++j) std::memcpy(dst + j * es, pad.raw_data(), es);
  for (int64_t i = 0; i < n; ++i) {
    const char* src = static_cast<const char*>(parts[static_cast<size_t>(i)]->raw_data());
    for_each(*parts[static_cast<size_t>(i)], [&](int64_t k, int64_t off) {
      std::memcpy(dst + (i * per + off) * static_cast<int64_t>(es), src + k * static_cast<int64_t>(es), es);
    });
  }
  return Status::OK();
}

Status scalar_int64(const std::string& op, const char* what, const Tensor& t, int64_t* out) {
  if (t.dtype() != DType::kInt64 || t.num_elements() != 1) {
    return errors::InvalidArgument(op, ": ", what, " must be a scalar int64, got ", dtype_name(t.dtype()), " ",
                                   t.shape().to_string());
  }
  *out = t.scalar<int64_t>();
  return Status::OK();
}

Status make_captured_function(KernelContext& ctx, const std::string& func, const TensorList& captured,
                              std::shared_ptr<const CapturedFunction>* out) {
  auto f = std::make_shared<CapturedFunction>();
  OPF_RETURN_IF_ERROR(FunctionRunner::Create(ctx.op().name, func, session_resources(ctx), &f->runner));
  for (int i = 0; i < captured.size; ++i) f->captured.push_back(captured[i]);
  *out = std::move(f);
  return Status::OK();
}

Status dataset_result(const std::string& op, const std::vector<Tensor>& rets, std::shared_ptr<const DatasetBase>* out) {
  if (rets.size() != 1)
    return errors::InvalidArgument(op, ": the function must return one dataset, got ", rets.size(), " values");
  return dataset_from_tensor(op, rets[0], out);
}

Status input_of(const std::string& op, const Tensor& t, const std::vector<DType>& types,
                const std::vector<Shape>& shapes, DatasetPtr* out) {
  OPF_RETURN_IF_ERROR(dataset_from_tensor(op, t, out));
  OPF_RETURN_IF_ERROR(check_element_spec(op, types, shapes));
  return Status::OK();
}

int64_t autotuned_threads(int64_t n) {
  // More workers than this only adds threads (the order is the input's either way): a huge
  // num_parallel_calls must not start a thread per call.
  const int64_t most = std::max<int64_t>(64, 4 * static_cast<int64_t>(std::thread::hardware_concurrency()));
  if (n > 0) return std::min(n, most);
  return std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()));
}

// Checks a function's results against the dataset's element spec.
Status check_results(const DatasetBase& ds, const std::vector<Tensor>& rets) {
  if (rets.size() != ds.output_dtypes().size()) {
    return errors::InvalidArgument(ds.op(), ": the function returned ", rets.size(), " values, expected ",
                                   ds.output_dtypes().size());
  }
  for (size_t i = 0; i < rets.size(); ++i) {
    if (rets[i].dtype() != ds.output_dtypes()[i]) {
      return errors::InvalidArgument(ds.op(), ": the function's result ", i, " is ", dtype_name(rets[i].dtype()),
                                     ", expected ", dtype_name(ds.output_dtypes()[i]));
    }
  }
  return Status::OK();
}

}  // namespace data
}  // namespace opforge
