#include "torch_core/csrc/aten/engine/engine_device_kernels.h"

#include <array>
#include <cstddef>
#include <mutex>

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/engine/elementwise_dispatch.h"
#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/aten/engine/kernel_engine.h"

namespace torch_core::engine {
namespace {

bool engine_computes_in(c10::ScalarType dtype) {
  return detail::visit_dtype(dtype, [](auto) {});
}

at::TensorIteratorConfig iterator_over(const at::Tensor& out) {
  at::TensorIteratorConfig config;
  // copy_impl and fill_ checked overlaps and shapes already, with stock's messages.
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false).add_output(out);
  return config;
}

class EngineDeviceKernels final : public DeviceKernels {
 public:
  explicit EngineDeviceKernels(c10::DeviceType device_type) : device_type_(device_type) {}

  bool copy(const at::Tensor& dst, const at::Tensor& src, StreamHandle stream) override {
    // Complex to real stays on the host path, whose CPU copy warns as stock's copy_ does.
    if (!engine_computes_in(dst.scalar_type()) || !engine_computes_in(src.scalar_type()) ||
        (src.is_complex() && !dst.is_complex())) {
      return false;
    }
    at::TensorIterator iter = iterator_over(dst).add_const_input(src).build();
    kernel_engine(device_type_).elementwise(ElementwiseCall{ElementwiseOp::kIdentity, dst.scalar_type()},
                                            describe(iter), stream);
    return true;
  }

  bool fill(const at::Tensor& self, const c10::Scalar& value, StreamHandle stream) override {
    if (!engine_computes_in(self.scalar_type())) return false;
    // Stock's fill converts the value to the dtype first and raises on overflow; the engine
    // would hold it in the dtype's compute type (float for half, int64 for int8).
    detail::visit_dtype(self.scalar_type(), [&](auto type) { (void)value.to<decltype(type)>(); });
    at::TensorIterator iter = iterator_over(self).build();
    kernel_engine(device_type_).elementwise(ElementwiseCall{ElementwiseOp::kFill, self.scalar_type(), value},
                                            describe(iter), stream);
    return true;
  }

 private:
  const c10::DeviceType device_type_;
};

}  // namespace

DeviceKernels* engine_device_kernels(c10::DeviceType device_type) {
  constexpr auto kTypes = static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES);
  static std::mutex mutex;
  static std::array<EngineDeviceKernels*, kTypes> kernels{};
  const std::lock_guard<std::mutex> lock(mutex);
  EngineDeviceKernels*& slot = kernels[static_cast<std::size_t>(device_type)];
  // Leaked: the generic ops call them for the rest of the process.
  if (slot == nullptr) slot = new EngineDeviceKernels(device_type);
  return slot;
}

}  // namespace torch_core::engine
