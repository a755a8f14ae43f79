// Zero-copy interop: NumPy views of tensors, borrowed NumPy buffers for Session feeds, and
// DLPack in both directions (the DLPack 1.x ABI: DLManagedTensor and DLManagedTensorVersioned).
//
// Tensors are immutable, so a view handed to NumPy is read-only unless nothing else can see the
// buffer (a freshly computed Session fetch). A DLPack export of the legacy, unversioned kind has
// no read-only flag: as with every DLPack producer, the consumer must not write through it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <memory>
#include <vector>

#include "bindings.h"
#include "opforge/device.h"
#include "opforge/tensor.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {
namespace {

// ---- the DLPack ABI (dlpack.h, version 1.0), declared here to keep the module header-free.
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLROCM = 10 };
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLPackFlagReadOnly = 1;

}  // namespace

// ---- bool canonicalization

bool bool_bytes_canonical(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint8_t high = 0;  // OR of every byte's bits above bit 0: branch-free, so it vectorizes
  for (size_t i = 0; i < n; ++i) high |= static_cast<uint8_t>(p[i] & 0xFE);
  return high == 0;
}

void canonicalize_bool_bytes(void* data, size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(p[i] != 0);
}

namespace {

// ---- NumPy views

// A Python object that keeps a buffer alive: the `base` of a view.
py::capsule keep_alive(std::shared_ptr<Buffer> buffer) {
  return py::capsule(new std::shared_ptr<Buffer>(std::move(buffer)),
                     [](void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); });
}

std::vector<py::ssize_t> dims_of(const Tensor& t) {
  return std::vector<py::ssize_t>(t.shape().dims().begin(), t.shape().dims().end());
}

// A string tensor's values: an object array of bytes, as TensorFlow fetches them.
py::array strings_to_numpy(const Tensor& t) {
  py::array out(py::dtype("O"), dims_of(t));
  auto** items = static_cast<PyObject**>(out.mutable_data());
  const std::vector<std::string>& values = *t.strings();
  for (size_t i = 0; i < values.size(); ++i) {
    py::bytes b(values[i]);
    Py_XDECREF(items[i]);
    items[i] = b.release().ptr();
  }
  return out;
}

py::array copy_to_numpy(const Tensor& t) {
  if (t.dtype() == DType::kString) return strings_to_numpy(t);
  py::array out(numpy_dtype(t.dtype()), dims_of(t));
  if (t.nbytes() == 0) return out;
  if (!t.on_host()) {  // device memory: copied back (waits for the device)
    Status s;
    {
      py::gil_scoped_release nogil;
      s = copy_device_to_host(t.device_index(), out.mutable_data(), t.raw_data(), t.nbytes());
    }
    check(s, "numpy");
    return out;
  }
  std::memcpy(out.mutable_data(), t.raw_data(), t.nbytes());
  return out;
}

// A view of a host tensor's buffer; read-only unless `writable`.
py::array view_of(const Tensor& t, bool writable) {
  if (!t.buffer())
    return copy_to_numpy(
        t);  // strings too: they are never viewed in place  // no storage (empty): a fresh array is as cheap
  py::array out(numpy_dtype(t.dtype()), dims_of(t), {}, t.raw_data(), keep_alive(t.buffer()));
  if (!writable) out.attr("setflags")(py::arg("write") = false);
  return out;
}

// np.asarray(t) / t.__array__(): a read-only view of host memory (a copy from a device).
py::array as_numpy_view(const Tensor& t) { return t.on_host() ? view_of(t, false) : copy_to_numpy(t); }

// A Session fetch: when this tensor is the only owner of its buffer nothing else can observe a
// write, so NumPy gets the buffer itself, writable; otherwise (a variable's value, a constant,
// an aliased feed) a copy.
py::array take_numpy(const Tensor& t) {
  if (t.on_host() && t.buffer() && t.buffer().use_count() == 1) return view_of(t, true);
  return copy_to_numpy(t);
}

// A tensor over a C-contiguous NumPy array's memory, which it keeps alive (Session feeds:
// read by one run, never written). Copies when the array is not contiguous or of another
// dtype.
Tensor borrow_numpy(py::array a, int dtype_enum) {
  const DType dt = static_cast<DType>(dtype_enum);
  if (dt == DType::kString) return strings_from_numpy(a);
  if (!dtype_supported(dt)) throw py::type_error("unsupported dtype " + dtype_name(dt));
  if (static_cast<size_t>(a.itemsize()) != dtype_size(dt)) throw py::type_error("array itemsize does not match dtype");
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  const bool contiguous = (a.flags() & py::array::c_style) != 0;
  // Bool bytes other than 0/1 are copied and canonicalized: the caller's array is never written.
  const bool needs_canonical_copy =
      dt == DType::kBool && contiguous && !bool_bytes_canonical(a.data(), static_cast<size_t>(a.nbytes()));
  if (!contiguous || a.nbytes() == 0 || needs_canonical_copy) {
    Tensor t;
    py::array c = py::array::ensure(a, py::array::c_style);
    check(Tensor::Allocate(dt, Shape(std::move(dims)), &t), "constant");
    if (t.nbytes()) std::memcpy(t.raw_data(), c.data(), t.nbytes());
    if (dt == DType::kBool) canonicalize_bool_bytes(t.raw_data(), t.nbytes());
    return t;
  }
  PyObject* owner = a.ptr();
  Py_INCREF(owner);
  auto release = [owner] {
    if (!Py_IsInitialized()) return;  // interpreter gone: nothing left to release
    py::gil_scoped_acquire gil;
    Py_DECREF(owner);
  };
  auto buffer = std::make_shared<Buffer>(const_cast<void*>(a.data()), static_cast<size_t>(a.nbytes()), Device::kCPU, 0,
                                         std::move(release));
  return Tensor::FromBuffer(dt, Shape(std::move(dims)), std::move(buffer));
}

// ---- DLPack export

DLDataType dl_dtype(DType dt) {
  const uint8_t bits = static_cast<uint8_t>(8 * dtype_size(dt));
  switch (dt) {
    case DType::kFloat:
    case DType::kDouble:
    case DType::kHalf:
      return {kDLFloat, bits, 1};
    case DType::kBFloat16:
      return {kDLBfloat, bits, 1};
    case DType::kBool:
      return {kDLBool, 8, 1};
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kQUInt8:  // DLPack has no quantized types: their storage integer
    case DType::kQUInt16:
      return {kDLUInt, bits, 1};
    default:
      return {kDLInt, bits, 1};
  }
}

DType from_dl_dtype(const DLDataType& d) {
  if (d.lanes != 1) return DType::kInvalid;
  switch (d.code) {
    case kDLFloat:
      return d.bits == 32   ? DType::kFloat
             : d.bits == 64 ? DType::kDouble
             : d.bits == 16 ? DType::kHalf
                            : DType::kInvalid;
    case kDLBfloat:
      return d.bits == 16 ? DType::kBFloat16 : DType::kInvalid;
    case kDLBool:
      return d.bits == 8 ? DType::kBool : DType::kInvalid;
    case kDLUInt:
      return d.bits == 8    ? DType::kUInt8
             : d.bits == 16 ? DType::kUInt16
             : d.bits == 32 ? DType::kUInt32
             : d.bits == 64 ? DType::kUInt64
                            : DType::kInvalid;
    case kDLInt:
      return d.bits == 8    ? DType::kInt8
             : d.bits == 16 ? DType::kInt16
             : d.bits == 32 ? DType::kInt32
             : d.bits == 64 ? DType::kInt64
                            : DType::kInvalid;
    default:
      return DType::kInvalid;
  }
}

DLDevice dl_device(const Tensor& t) {
  if (t.on_host()) return {kDLCPU, 0};
  const bool hip = gpu_backend() != nullptr && std::string(gpu_backend()->name()) == "hip";
  return {hip ? kDLROCM : kDLCUDA, t.device_index()};
}

// What an exported DLTensor points into: the tensor (keeps the buffer alive) and its shape.
struct ExportCtx {
  Tensor tensor;
  std::vector<int64_t> shape;
};

void fill_dl_tensor(ExportCtx* ctx, DLTensor* dl) {
  dl->data = ctx->tensor.raw_data();
  dl->device = dl_device(ctx->tensor);
  dl->ndim = ctx->tensor.rank();
  dl->dtype = dl_dtype(ctx->tensor.dtype());
  dl->shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  dl->strides = nullptr;  // compact row-major
  dl->byte_offset = 0;
}

// Capsule destructor: a capsule never consumed still owns its tensor.
template <typename Managed>
void capsule_destructor(PyObject* capsule, const char* name) {
  if (PyCapsule_IsValid(capsule, name)) {
    auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
    if (m && m->deleter) m->deleter(m);
  }
}

py::object to_dlpack(const Tensor& t, py::object max_version) {
  auto* ctx = new ExportCtx{t, std::vector<int64_t>(t.shape().dims().begin(), t.shape().dims().end())};
  bool versioned = false;
  if (!max_version.is_none()) {
    py::tuple v = max_version.cast<py::tuple>();
    versioned = v.size() >= 1 && v[0].cast<int>() >= 1;
  }
  if (versioned) {
    auto* m = new DLManagedTensorVersioned{};
    m->version = {1, 0};
    m->manager_ctx = ctx;
    m->deleter = [](DLManagedTensorVersioned* self) {
      delete static_cast<ExportCtx*>(self->manager_ctx);
      delete self;
    };
    m->flags = kDLPackFlagReadOnly;  // tensors are immutable
    fill_dl_tensor(ctx, &m->dl_tensor);
    PyObject* cap = PyCapsule_New(m, "dltensor_versioned", [](PyObject* c) {
      capsule_destructor<DLManagedTensorVersioned>(c, "dltensor_versioned");
    });
    if (!cap) {
      m->deleter(m);
      throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(cap);
  }
  auto* m = new DLManagedTensor{};
  m->manager_ctx = ctx;
  m->deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportCtx*>(self->manager_ctx);
    delete self;
  };
  fill_dl_tensor(ctx, &m->dl_tensor);
  PyObject* cap = PyCapsule_New(m, "dltensor", [](PyObject* c) { capsule_destructor<DLManagedTensor>(c, "dltensor"); });
  if (!cap) {
    m->deleter(m);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

// ---- DLPack import

// Copies a strided host DLTensor into a fresh compact tensor.
Tensor copy_strided(const DLTensor& dl, DType dt, const std::vector<int64_t>& dims) {
  Tensor t;
  check(Tensor::Allocate(dt, Shape(dims), &t), "from_dlpack");
  const size_t item = dtype_size(dt);
  const char* base = static_cast<const char*>(dl.data) + dl.byte_offset;
  char* out = static_cast<char*>(t.raw_data());
  const int nd = static_cast<int>(dims.size());
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t n = 0; n < t.num_elements(); ++n) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += idx[static_cast<size_t>(d)] * dl.strides[d];
    std::memcpy(out + n * static_cast<int64_t>(item), base + off * static_cast<int64_t>(item), item);
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  if (dt == DType::kBool) canonicalize_bool_bytes(t.raw_data(), t.nbytes());
  return t;
}

// Wraps a consumed DLTensor: shares its memory when compact, copies when strided; `release`
// tells the producer we are done.
Tensor wrap_dl(const DLTensor& dl, std::function<void()> release) {
  if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost) {
    release();
    check(errors::Unimplemented("from_dlpack: only host (CPU) memory can be imported, got DLPack device type ",
                                dl.device.device_type),
          "from_dlpack");
  }
  const DType dt = from_dl_dtype(dl.dtype);
  if (dt == DType::kInvalid) {
    release();
    check(errors::InvalidArgument("from_dlpack: unsupported DLPack dtype (code ", int(dl.dtype.code), ", bits ",
                                  int(dl.dtype.bits), ", lanes ", dl.dtype.lanes, ")"),
          "from_dlpack");
  }
  std::vector<int64_t> dims(dl.shape, dl.shape + dl.ndim);
  bool compact = true;
  if (dl.strides != nullptr) {
    int64_t expect = 1;
    for (int d = dl.ndim - 1; d >= 0; --d) {
      if (dims[static_cast<size_t>(d)] != 1 && dl.strides[d] != expect) compact = false;
      expect *= dims[static_cast<size_t>(d)];
    }
  }
  if (!compact) {
    Tensor t = copy_strided(dl, dt, dims);
    release();
    return t;
  }
  Shape shape(dims);
  const size_t nbytes = static_cast<size_t>(shape.num_elements()) * dtype_size(dt);
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  if (dt == DType::kBool && nbytes && !bool_bytes_canonical(data, nbytes)) {
    // Shared memory is the producer's: a canonical copy instead of a write into it.
    Tensor t;
    check(Tensor::Allocate(dt, shape, &t), "from_dlpack");
    std::memcpy(t.raw_data(), data, nbytes);
    canonicalize_bool_bytes(t.raw_data(), nbytes);
    release();
    return t;
  }
  auto buffer = std::make_shared<Buffer>(data, nbytes, Device::kCPU, 0, std::move(release));
  return Tensor::FromBuffer(dt, std::move(shape), std::move(buffer));
}

Tensor from_dlpack_capsule(py::capsule cap) {
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
    if (m->version.major != 1) {
      check(errors::InvalidArgument("from_dlpack: unsupported DLPack major version ", m->version.major), "from_dlpack");
    }
    PyCapsule_SetName(c, "used_dltensor_versioned");
    return wrap_dl(m->dl_tensor, [m] {
      if (m->deleter) m->deleter(m);
    });
  }
  if (PyCapsule_IsValid(c, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
    PyCapsule_SetName(c, "used_dltensor");
    return wrap_dl(m->dl_tensor, [m] {
      if (m->deleter) m->deleter(m);
    });
  }
  throw py::value_error("from_dlpack: expected an unused DLPack capsule ('dltensor' or 'dltensor_versioned')");
}

}  // namespace

void register_interop(py::module_& m, py::class_<Tensor>& tensor) {
  tensor.def("_numpy", &copy_to_numpy, "A new NumPy array with the tensor's values.")
      .def("_numpy_view", &as_numpy_view, "A read-only NumPy view of host memory (a copy from a device).")
      .def("_take_numpy", &take_numpy,
           "The buffer itself as a writable array when this tensor is its only owner, else a copy.")
      .def_static("_borrow_numpy", &borrow_numpy,
                  "A tensor over a C-contiguous array's memory (kept alive); a copy otherwise.")
      .def("__dlpack_device__",
           [](const Tensor& t) {
             const DLDevice d = dl_device(t);
             return py::make_tuple(d.device_type, d.device_id);
           })
      .def(
          "__dlpack__",
          [](const Tensor& t, py::object stream, py::object max_version, py::object dl_device, py::object copy) {
            (void)stream;  // host memory and one stream per device: nothing to order
            (void)dl_device;
            if (!copy.is_none() && copy.cast<bool>()) {
              Tensor fresh;
              check(Tensor::Allocate(t.dtype(), t.shape(), t.device(), t.device_index(), &fresh), "__dlpack__");
              if (t.nbytes() && t.on_host())
                std::memcpy(fresh.raw_data(), t.raw_data(), t.nbytes());
              else if (t.nbytes())
                check(gpu_backend()->copy_on_device(t.device_index(), fresh.raw_data(), t.raw_data(), t.nbytes()),
                      "__dlpack__");
              return to_dlpack(fresh, max_version);
            }
            return to_dlpack(t, max_version);
          },
          py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
          py::arg("dl_device") = py::none(), py::arg("copy") = py::none());
  m.def("from_dlpack_capsule", &from_dlpack_capsule, "A tensor sharing the memory of a DLPack capsule.");
}

}  // namespace bindings
}  // namespace opforge
