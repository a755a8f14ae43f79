// Devices: placement of eager ops, copies between devices, the GPU backends and their memory.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "opforge/device.h"
#include "src/eager.h"
#include "opforge/kernel.h"
#include "opforge/tensor.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {

void bind_devices(py::module_& m) {
  py::class_<Tensor> tensor = tensor_class(m);
  tensor.def("_to", [](const Tensor& t, const std::string& device) {
    DeviceSpec d;
    check(parse_device(device, &d), "");
    Tensor out;
    Status s;
    {
      py::gil_scoped_release nogil;
      s = copy_tensor(t, d, &out);
    }
    check(s, "");
    return out;
  });
  m.def("parse_device", [](const std::string& device) {
    DeviceSpec d;
    check(parse_device(device, &d), "");
    return device_string(d);
  });
  // Sets this thread's eager placement ("" clears it); returns the previous one ("" if none).
  m.def("set_eager_device", [](const std::string& device) {
    const DeviceSpec* prev = eager_placement();
    std::string before = prev ? device_string(*prev) : std::string();
    if (device.empty()) {
      set_eager_placement(nullptr);
    } else {
      DeviceSpec d;
      check(parse_device(device, &d), "");
      set_eager_placement(&d);
    }
    return before;
  });
  m.def("load_gpu_backends", [](const std::vector<std::string>& paths) {
    std::vector<std::string> report;
    check(load_gpu_backends(paths, &report), "");
    return report;
  });
  m.def("gpu_count", &gpu_count);
  m.def("gpu_backend", []() -> py::object {
    GpuBackend* b = gpu_backend();
    return b ? py::object(py::str(b->name())) : py::object(py::none());
  });
  m.def("gpu_unavailable_reason", &gpu_unavailable_reason);
  m.def("gpu_device_name", [](int i) {
    check(check_device(DeviceSpec{Device::kGPU, i}), "");
    return gpu_backend()->describe_device(i);
  });
  m.def("gpu_synchronize", [](int i) {
    check(check_device(DeviceSpec{Device::kGPU, i}), "");
    Status s;
    {
      py::gil_scoped_release nogil;
      s = gpu_backend()->synchronize(i);
    }
    check(s, "");
  });
  m.def("gpu_memory_stats", [](int i) {
    DeviceMemoryStats st = device_memory_stats(i);
    py::dict d;
    d["in_use"] = st.in_use;
    d["cached"] = st.cached;
    d["raw_allocs"] = st.raw_allocs;
    d["copies_to_device"] = st.copies_to_device;
    d["bytes_to_device"] = st.bytes_to_device;
    d["copies_to_host"] = st.copies_to_host;
    d["bytes_to_host"] = st.bytes_to_host;
    return d;
  });
  m.def("gpu_empty_cache", &empty_device_cache);
  m.def("kernel_devices", [](const std::string& op) {
    std::vector<std::string> out;
    for (Device d : KernelRegistry::Global().devices_for(op)) out.push_back(device_name(d));
    return out;
  });
}

}  // namespace bindings
}  // namespace opforge
