// DeviceKernels of the simulated device: strided same-dtype copy and fill.
#include "third_device/torch_sim/csrc/aten/sim_kernels.h"

#include <array>
#include <cstring>

#include <ATen/Dispatch.h>

#include "third_device/torch_sim/csrc/sim_backend.h"
#include "torch_core/aten/kernel_loop.h"
#include "torch_core/aten/tensor_loop.h"

namespace torch_sim {

namespace {

using Pattern = std::array<unsigned char, 16>;

// The bytes of `value` as an element of `type`; false for a type without a conversion.
bool element_bytes(c10::ScalarType type, const c10::Scalar& value, Pattern& pattern) {
  bool converted = false;
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "sim_fill", [&] {
    const scalar_t element = value.to<scalar_t>();
    static_assert(sizeof(scalar_t) <= sizeof(Pattern), "element wider than the fill pattern");
    std::memcpy(pattern.data(), &element, sizeof(scalar_t));
    converted = true;
  });
  return converted;
}

bool fill_supported(c10::ScalarType type) {
  return c10::isIntegralType(type, /*includeBool=*/true) || c10::isFloatingType(type) ||
         c10::isComplexType(type);
}

class SimKernels final : public torch_core::DeviceKernels {
 public:
  bool copy(const at::Tensor& dst, const at::Tensor& src, torch_core::StreamHandle stream) override {
    if (dst.scalar_type() != src.scalar_type() || dst.dim() > torch_core::loop::kMaxDims) return false;
    const auto loop = torch_core::make_loop<2>(dst.sizes(), {&dst, &src});
    const std::size_t itemsize = dst.element_size();
    launch(stream, [loop, itemsize] { torch_core::loop::copy_elements(loop, itemsize); });
    return true;
  }

  bool fill(const at::Tensor& self, const c10::Scalar& value, torch_core::StreamHandle stream) override {
    if (!fill_supported(self.scalar_type()) || self.dim() > torch_core::loop::kMaxDims) return false;
    Pattern pattern{};
    if (!element_bytes(self.scalar_type(), value, pattern)) return false;
    const auto loop = torch_core::make_loop<1>(self.sizes(), {&self});
    const std::size_t itemsize = self.element_size();
    launch(stream, [loop, pattern, itemsize] { torch_core::loop::fill_elements(loop, pattern.data(), itemsize); });
    return true;
  }
};

}  // namespace

torch_core::DeviceKernels& sim_kernels() {
  static SimKernels kernels;
  return kernels;
}

}  // namespace torch_sim
