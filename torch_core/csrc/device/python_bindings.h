// The Python face of a torch_core backend: the functions a device module
// (torch_core/python/torch_core/device_module/) is built from, bound once for any
// device type. A backend's extension module calls bind_device_api(m, type) and adds
// only what is its own.
//
// Names follow torch._C's CUDA bindings where there is one (_cuda_getDeviceCount ->
// _device_count, ...). Errors reach Python as torch's own bindings raise them
// (IndexError, ValueError, NotImplementedError, torch.OutOfMemoryError, RuntimeError).
#pragma once

#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

void bind_device_api(pybind11::module_& m, c10::DeviceType device_type);

// A device's properties as _get_device_properties returns them (name, total_memory,
// major, minor, multi_processor_count).
pybind11::dict properties_dict(const DeviceProperties& props);

}  // namespace torch_core
