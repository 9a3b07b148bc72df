#include "torch_core/csrc/device/backend.h"

#include <array>
#include <atomic>
#include <mutex>
#include <utility>

#include <c10/util/Exception.h>

namespace torch_core {

namespace {

constexpr auto kDeviceTypes = static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES);
std::array<std::atomic<Backend*>, kDeviceTypes> backends{};
std::mutex create_mutex;

}  // namespace

Backend::Backend(BackendOptions options)
    : device_type_(options.device_type),
      runtime_(std::move(options.make_runtime)),
      streams_(device_type_, runtime_),
      allocator_(device_type_, runtime_, streams_, options.allocator_config_env),
      host_allocator_(device_type_, runtime_),
      generators_(device_type_),
      guard_(device_type_, runtime_, streams_, allocator_) {}

Backend& Backend::create(BackendOptions options) {
  std::lock_guard<std::mutex> lock(create_mutex);
  auto& slot = backends[static_cast<std::size_t>(options.device_type)];
  TORCH_CHECK(slot.load() == nullptr, "torch_core: a backend for ",
              c10::DeviceTypeName(options.device_type), " exists already");
  auto* backend = new Backend(std::move(options));  // leaked on purpose (see the header)
  slot.store(backend);
  return *backend;
}

Backend* Backend::find(c10::DeviceType device_type) noexcept {
  return backends[static_cast<std::size_t>(device_type)].load();
}

Backend& Backend::get(c10::DeviceType device_type) {
  Backend* backend = find(device_type);
  TORCH_CHECK(backend != nullptr, "no torch_core backend is registered for device type ",
              c10::DeviceTypeName(device_type, /*lower_case=*/true));
  return *backend;
}

std::string Backend::name() const { return c10::DeviceTypeName(device_type_, /*lower_case=*/true); }

DeviceRuntime& Backend::initialize() {
  DeviceRuntime* made = nullptr;
  try {
    made = &runtime_.get();
  } catch (const RuntimeError& e) {
    TORCH_CHECK(false, "could not initialise the ", name(), " runtime: ", e.what());
  }
  // As stock's lazy init (device_count_ensure_non_zero): no device is an error that says
  // why (no driver, no device, a configuration).
  TORCH_CHECK(runtime_.device_count() > 0, "No ", c10::DeviceTypeName(device_type_), " devices are available: ",
              runtime_.unavailable_reason());
  return *made;
}

int Backend::device_count() noexcept {
  try {
    return runtime_.device_count();
  } catch (const c10::Error& error) {
    std::call_once(unavailable_warning_, [&] {
      TORCH_WARN(c10::DeviceTypeName(device_type_), " initialization: ", error.what_without_backtrace());
    });
  } catch (const std::exception& error) {
    std::call_once(unavailable_warning_, [&] {
      TORCH_WARN(c10::DeviceTypeName(device_type_), " initialization: ", error.what());
    });
  } catch (...) {
  }
  return 0;
}

c10::DeviceIndex Backend::checked_index(c10::DeviceIndex device) { return guard_.checked_index(device); }

c10::DeviceIndex Backend::current_device() { return guard_.getDevice().index(); }

const at::Generator& Backend::default_generator(c10::DeviceIndex device) {
  const c10::DeviceIndex index = checked_index(device);
  return generators_.get(index, device_count());
}

at::Generator Backend::new_generator(c10::DeviceIndex device) {
  return generators_.make_new(checked_index(device));
}

}  // namespace torch_core
