// _CUDAC's TunableOp functions (torch.cuda.tunable over aten/blas/tuning_context.h).
#pragma once

#include <pybind11/pybind11.h>

namespace torch_cuda {

void bind_tunable(pybind11::module_& m);

}  // namespace torch_cuda
