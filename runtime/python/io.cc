// The checksums of TensorFlow's file formats (record files, tensor bundles).
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "src/crc32c.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {

void bind_io(py::module_& m) {
  m.def(
      "crc32c",
      [](py::bytes data, uint32_t crc) {
        char* p;
        Py_ssize_t n;
        PyBytes_AsStringAndSize(data.ptr(), &p, &n);
        return crc32c_extend(crc, p, static_cast<size_t>(n));
      },
      py::arg("data"), py::arg("crc") = 0, "CRC-32C of data (continuing from crc), as TensorFlow's files use.");
  m.def("crc32c_mask", &crc32c_mask, "TensorFlow's masked form of a CRC-32C (record files).");
}

}  // namespace bindings
}  // namespace opforge
