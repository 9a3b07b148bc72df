#include "torch_core/csrc/aten/device_kernels.h"

#include <array>
#include <atomic>

namespace torch_core {

namespace {
constexpr auto kDeviceTypes = static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES);
std::array<std::atomic<DeviceKernels*>, kDeviceTypes> registered{};
}  // namespace

void register_device_kernels(c10::DeviceType device_type, DeviceKernels* kernels) {
  registered[static_cast<std::size_t>(device_type)].store(kernels);
}

DeviceKernels* device_kernels(c10::DeviceType device_type) noexcept {
  return registered[static_cast<std::size_t>(device_type)].load();
}

}  // namespace torch_core
