// The part of _CUDAC that differs per variant (see csrc/framework/variant.h): the real
// variant adds its cudart-direct queries and the kernel round trip, the simulated one its
// settings and a sleep kernel for stream-ordering tests.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_cuda {

void bind_variant(pybind11::module_& m);

}  // namespace torch_cuda
