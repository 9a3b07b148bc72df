// cuBLAS's face in _CUDAC (torch.backends.cuda.cublas_workspace_size,
// torch.cuda.current_blas_handle, torch._C._cuda_clearCublasWorkspaces) and cuSOLVER's
// (torch.cuda.current_solver_handle), for both variants.
#pragma once

#include <pybind11/pybind11.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_cuda {

void bind_blas(pybind11::module_& m, torch_core::Backend& backend);

}  // namespace torch_cuda
