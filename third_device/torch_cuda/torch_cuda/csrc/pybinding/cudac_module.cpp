// _CUDAC (torch_python_cuda): the Python face of torch_cuda, written once for both
// variants. Loading the library registers the CUDA hooks and operators (static
// initialisers); this module init creates the backend on the CUDA key (guard, allocator)
// and binds torch_core's device functions plus what only CUDA has. torch_cuda's Python
// package turns these into the torch._C._cuda_* names torch/cuda expects
// (torch_cuda/torch_c/).
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/blas_bindings.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/legacy_tensor_types.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/nvtx_bindings.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/tunable_bindings.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h"
#include "toolchains/cuda/build_info/cuda_build_info.h"
#include "torch_core/csrc/device/python_bindings.h"
#include "torch_core/csrc/distributed/distributed_bindings.h"

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
  info["cudart_version"] = torch_cuda::variant::cudart_version();
  info["archs"] = built_archs();
  info["torch_version"] = TORCH_CUDA_BUILD_TORCH_VERSION;
  info["git_revision"] = TORCH_CUDA_BUILD_GIT_REVISION;
  info["variant"] = torch_cuda::variant::name();
  return info;
}

// The backend, made on first use. A bad setting (TORCH_CUDA_FALLBACK, the allocator
// configuration) fails the import with its message alone, not c10's C++ backtrace.
torch_core::Backend& backend_or_import_error() {
  try {
    return torch_cuda::backend();
  } catch (const c10::Error& error) {
    throw py::import_error(error.what_without_backtrace());
  }
}

}  // namespace

PYBIND11_MODULE(_CUDAC, m) {
  m.doc() = "torch_python_cuda: the standalone CUDA backend's Python module";
  torch_core::Backend* b = &backend_or_import_error();  // process-lifetime
  torch_core::bind_device_api(m, c10::DeviceType::CUDA);

  m.attr("cuda_version") = TORCH_CUDA_BUILD_CUDA_VERSION;
  m.attr("cudart_version") = torch_cuda::variant::cudart_version();
  m.attr("built_archs") = built_archs();
  m.attr("torch_version") = TORCH_CUDA_BUILD_TORCH_VERSION;
  m.attr("variant") = torch_cuda::variant::name();
  m.attr("fallback_policy_env") = torch_cuda::kFallbackPolicyEnv;
  m.attr("allocator_config_env") = torch_cuda::kAllocatorConfigEnv;
  // The dispatch key torch_cuda registers on, named by the stock CPU libc10 itself.
  m.attr("device_type") = c10::DeviceTypeName(c10::DeviceType::CUDA, /*lower_case=*/true);

  // cuDNN's versions as CUDNN_VERSION encodes them (torch._C._cudnn). The runtime's loads
  // cuDNN, so torch._C._cudnn asks for it only when asked itself.
  m.def("_cudnn_compile_version", &torch_cuda::cudnn::compile_version, "The cuDNN headers' version.");
  m.def("_cudnn_runtime_version", &torch_cuda::cudnn::runtime_version, "The loaded cuDNN's version.");
  m.def("_compute_capability", &torch_cuda::variant::compute_capability, py::arg("device"),
        "(major, minor) as torch.cuda and stock's checks see it (simulated: the newest built arch).");
  m.def("build_info", &build_info,
        "CUDA version, cudart version, archs, torch version built against, git revision, variant.");

  m.def("_current_raw_stream", [b](int device) {
    const c10::DeviceIndex index = b->checked_index(static_cast<c10::DeviceIndex>(device));
    return reinterpret_cast<std::intptr_t>(b->streams().current_handle(index));
  }, py::arg("device"), "The current stream's runtime handle (a cudaStream_t) as an integer.");
  // torch._C.Event.elapsed_time accepts only an exact torch._C.Event; torch.cuda.Event
  // subclasses it, so the CUDA event base measures through the guard instead.
  m.def("_event_elapsed_time", [b](std::intptr_t start, std::intptr_t end, int device) {
    py::gil_scoped_release no_gil;
    return b->guard().elapsedTime(reinterpret_cast<void*>(start), reinterpret_cast<void*>(end),
                                  static_cast<c10::DeviceIndex>(device));
  }, py::arg("start_event_id"), py::arg("end_event_id"), py::arg("device"));

  torch_core::bind_distributed(m, c10::DeviceType::CUDA);  // see torch_patches/gloo_device_staging.py
  torch_cuda::bind_nvtx(m, *b);
  torch_cuda::bind_variant(m);
  torch_cuda::bind_tunable(m);
  torch_cuda::bind_blas(m, *b);
  torch_cuda::bind_legacy_tensor_types(m);
}
