// DeviceKernels as host loops: strided same-dtype copy and fill.
#include <array>
#include <cstring>

#include <ATen/Dispatch.h>

#include "torch_core/csrc/aten/host_loop_kernels.h"
#include "torch_core/csrc/aten/kernel_loop.h"
#include "torch_core/csrc/aten/tensor_loop.h"

namespace torch_core {

namespace {

using Pattern = std::array<unsigned char, 16>;

// The bytes of `value` as an element of `type`; false for a type without a conversion.
bool element_bytes(c10::ScalarType type, const c10::Scalar& value, Pattern& pattern) {
  bool converted = false;
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "host_loop_fill", [&] {
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

class HostLoopDeviceKernels final : public DeviceKernels {
 public:
  explicit HostLoopDeviceKernels(HostLaunch launch) : launch_(launch) {}

  bool copy(const at::Tensor& dst, const at::Tensor& src, StreamHandle stream) override {
    if (dst.scalar_type() != src.scalar_type() || dst.dim() > loop::kMaxDims) return false;
    const auto elements = make_loop<2>(dst.sizes(), {&dst, &src});
    const std::size_t itemsize = dst.element_size();
    launch_(stream, [elements, itemsize] { loop::copy_elements(elements, itemsize); });
    return true;
  }

  bool fill(const at::Tensor& self, const c10::Scalar& value, StreamHandle stream) override {
    if (!fill_supported(self.scalar_type()) || self.dim() > loop::kMaxDims) return false;
    Pattern pattern{};
    if (!element_bytes(self.scalar_type(), value, pattern)) return false;
    const auto elements = make_loop<1>(self.sizes(), {&self});
    const std::size_t itemsize = self.element_size();
    launch_(stream, [elements, pattern, itemsize] { loop::fill_elements(elements, pattern.data(), itemsize); });
    return true;
  }

 private:
  const HostLaunch launch_;
};

}  // namespace

std::unique_ptr<DeviceKernels> make_host_loop_device_kernels(HostLaunch launch) {
  return std::make_unique<HostLoopDeviceKernels>(launch);
}

}  // namespace torch_core
