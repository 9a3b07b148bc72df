// The Python face of CollectiveBackend (collective_backend.h): a backend's module binds it
// as its collective process group class (torch_cuda: _CUDAC.ProcessGroupNCCL) with
// stock's constructor, `Options` (is_high_priority_stream, and the base options'
// _timeout, group_name, global_ranks_in_group) and attributes.
#pragma once

#include <string>

#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>

#include "torch_core/csrc/distributed/collective_backend.h"

namespace torch_core::distributed {

void bind_collective_backend(pybind11::module_& m, const char* class_name, const std::string& backend_name,
                             c10::DeviceType device_type, CommunicatorFactory factory);

}  // namespace torch_core::distributed
