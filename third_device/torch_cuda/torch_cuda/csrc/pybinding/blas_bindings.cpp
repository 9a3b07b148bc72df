#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/blas_bindings.h"

#include <cstdint>
#include <optional>

#include <c10/util/Exception.h>
#include <torch/csrc/Exceptions.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"

namespace py = pybind11;

namespace torch_cuda {

void bind_blas(py::module_& m, torch_core::Backend& backend) {
  torch_core::Backend* b = &backend;  // process-lifetime: captured by pointer

  m.def("_cublas_workspace_size", [](int major) { return blas::workspace_bytes(major); },
        py::arg("major"),
        "The cuBLAS workspace size for a device of compute capability `major`.x: set, "
        "CUBLAS_WORKSPACE_CONFIG's or the default.");
  m.def("_set_cublas_workspace_size", [](int64_t bytes) {
    TORCH_CHECK(bytes >= 0, "cuBLAS workspace size must be non-negative, got ", bytes);
    blas::set_workspace_size(static_cast<std::size_t>(bytes));
  }, py::arg("size"));
  m.def("_reset_cublas_workspace_size", [] { blas::set_workspace_size(std::nullopt); });
  m.def("_cublaslt_workspace_size", [](int major) {
    torch::PyWarningHandler warnings;  // ATen's warnings below, as Python UserWarnings
    const blas::LtWorkspaceSize size = blas::lt_workspace_bytes(major);
    if (size.bad_config) {
      TORCH_WARN_ONCE("invalid CUBLASLT_WORKSPACE_SIZE, using default workspace size of 1024 KiB.");
    }
    if (size.capped) {  // ATen's warning
      TORCH_WARN_ONCE("Requested unified CUBLASLT workspace size of ", size.requested,
                      " bytes exceeds CUBLAS workspace size of ", size.bytes,
                      " bytes. Please increase CUBLAS workspace size via CUBLAS_WORKSPACE_CONFIG or "
                      "decrease requested CUBLASLT_WORKSPACE_SIZE. Otherwise CUBLASLT workspace size "
                      "will be limited to the CUBLAS workspace size.");
    }
    return size.bytes;
  }, py::arg("major"),
        "The cuBLASLt workspace size for a device of compute capability `major`.x (ATen's rules).");
  m.def("_set_cublaslt_workspace_size", [](int64_t bytes) {
    TORCH_CHECK(bytes >= 0, "cuBLASLt workspace size must be non-negative, got ", bytes);
    blas::set_lt_workspace_size(static_cast<std::size_t>(bytes));
  }, py::arg("size"));
  m.def("_reset_cublaslt_workspace_size", [] { blas::set_lt_workspace_size(std::nullopt); });
  m.def("_current_blas_handle", [b] {
    const c10::DeviceIndex device = b->current_device();
    return variant::current_blas_handle(b->streams().current_handle(device));
  }, "The calling thread's cuBLAS handle (a cublasHandle_t) bound to the current stream.");
  m.def("_current_solver_handle", [b] {
    const c10::DeviceIndex device = b->current_device();
    return variant::current_solver_handle(b->streams().current_handle(device));
  }, "The calling thread's cuSOLVER handle (a cusolverDnHandle_t) bound to the current stream.");
  m.def("_clear_blas_workspaces", [] {
    py::gil_scoped_release no_gil;
    variant::clear_blas_workspaces();
  });
}

}  // namespace torch_cuda
