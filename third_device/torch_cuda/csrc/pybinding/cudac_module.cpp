// _CUDAC (torch_python_cuda): the Python face of torch_cuda, initialised on its own,
// beside the stock CPU torch's torch._C.
#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cuda_runtime_api.h>

#include <sstream>
#include <string>
#include <vector>

#include "cuda_build_info.h"
#include "third_device/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/csrc/framework/device_smoke.h"

namespace py = pybind11;

namespace {

std::vector<std::string> built_archs() {
  std::vector<std::string> archs;
  std::stringstream list(TORCH_CUDA_BUILD_ARCHS);
  for (std::string arch; std::getline(list, arch, ',');) {
    archs.push_back(arch);
  }
  return archs;
}

// What this module was built from and for (toolchains/cuda/cuda_build_info.bzl). The git
// revision is "unstamped" unless built with --config=stamp, which keeps unstamped builds
// bit-identical wherever they are built.
py::dict build_info() {
  py::dict info;
  info["cuda_version"] = TORCH_CUDA_BUILD_CUDA_VERSION;
  info["cudart_version"] = CUDART_VERSION;
  info["archs"] = built_archs();
  info["torch_version"] = TORCH_CUDA_BUILD_TORCH_VERSION;
  info["git_revision"] = TORCH_CUDA_BUILD_GIT_REVISION;
  return info;
}

py::dict device_properties(int device) {
  const torch_core::DeviceProperties props = torch_cuda::CudaRuntime().properties(device);
  py::dict result;
  result["name"] = props.name;
  result["total_memory"] = props.total_memory_bytes;
  result["major"] = props.major;
  result["minor"] = props.minor;
  result["multi_processor_count"] = props.multiprocessor_count;
  return result;
}

}  // namespace

PYBIND11_MODULE(_CUDAC, m) {
  m.doc() = "torch_python_cuda: the standalone CUDA backend's Python module";
  py::register_exception<torch_cuda::CudaError>(m, "CudaError", PyExc_RuntimeError);

  m.attr("cuda_version") = TORCH_CUDA_BUILD_CUDA_VERSION;
  m.attr("cudart_version") = CUDART_VERSION;
  m.attr("built_archs") = built_archs();
  // The dispatch key torch_cuda registers on, named by the stock CPU libc10 itself.
  m.attr("device_type") = c10::DeviceTypeName(c10::DeviceType::CUDA, /*lower_case=*/true);

  m.def("build_info", &build_info,
        "CUDA version, cudart version, archs, torch version built against, git revision.");

  m.def("device_count", [] { return torch_cuda::CudaRuntime().device_count(); },
        "Number of CUDA devices; 0 when there is no GPU or no driver.");
  m.def("unavailable_reason", [] { return torch_cuda::CudaRuntime().unavailable_reason(); },
        "Why device_count() is 0; empty when devices exist.");
  m.def("get_device_properties", &device_properties, py::arg("device"));
  m.def("device_add_round_trip", &torch_cuda::device_add_round_trip, py::arg("device"),
        py::arg("n"),
        "Runs the elementwise add kernel on `device`; returns the max abs error vs. the host.");
}
