// Helpers shared by the translation units of the _C module (module.cc, interop.cc).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
namespace bindings {

// The NumPy dtype of an opforge dtype (ml_dtypes for bfloat16/float16 where needed).
pybind11::dtype numpy_dtype(DType dt);
// A string tensor from a NumPy array of bytes or str (str is encoded as UTF-8), any shape.
Tensor strings_from_numpy(pybind11::array a);
// Raises the typed Python error of a failed status (naming `op`).
void check(const Status& s, const std::string& op);

// A bool tensor's bytes are 0 or 1 everywhere inside the runtime (kernels read them as C++
// bool), so every byte that enters from outside is canonicalized here, once: any nonzero byte
// is true, as in TensorFlow and NumPy (np.uint8 data viewed as np.bool_ may hold 2 or 255).
// `bool_bytes_canonical` scans (cheap, vectorized); `canonicalize_bool_bytes` rewrites in place.
bool bool_bytes_canonical(const void* data, size_t n);
void canonicalize_bool_bytes(void* data, size_t n);

// np.asarray(tensor), DLPack (__dlpack__, __dlpack_device__, from_dlpack) and the zero-copy
// conversions of Session feeds and fetches.
void register_interop(pybind11::module_& m, pybind11::class_<Tensor>& tensor);
// The graph optimizer (optimizer_bindings.cc); after Session is bound.
void register_optimizer(pybind11::module_& m);

}  // namespace bindings
}  // namespace opforge
