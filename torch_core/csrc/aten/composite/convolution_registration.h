// What convolution.cpp adds to a backend's generated registrations: the convolution
// backward DispatchStubs that stock's `convolution_backward` calls for the slow, dilated,
// transposed and depthwise kernels, filled for the backend's device type; and on keys
// other than CUDA, where stock's `convolution` ends in convolution_overrideable, that
// operator and its backward.
#pragma once

#include <c10/core/DeviceType.h>
#include <torch/library.h>

namespace torch_core::composite {

void register_convolution(torch::Library& m, c10::DeviceType device_type);

}  // namespace torch_core::composite
