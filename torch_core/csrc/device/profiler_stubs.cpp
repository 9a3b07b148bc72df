#include "torch_core/csrc/device/profiler_stubs.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include <c10/core/DeviceGuard.h>
#include <c10/util/ApproximateClock.h>
#include <c10/util/Exception.h>
#include <torch/csrc/profiler/stubs/base.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_core {
namespace {

using torch::profiler::impl::ProfilerVoidEventStub;

// What a profiler event stub holds: a timing event of the guard, destroyed with the stub.
struct RecordedEvent {
  RecordedEvent(const DeviceGuardImpl& guard, c10::DeviceIndex device) : guard(guard), device(device) {}
  ~RecordedEvent() { guard.destroyEvent(handle, device); }
  RecordedEvent(const RecordedEvent&) = delete;
  RecordedEvent& operator=(const RecordedEvent&) = delete;

  const DeviceGuardImpl& guard;
  const c10::DeviceIndex device;
  void* handle = nullptr;
};

class DeviceProfilerStubs final : public torch::profiler::impl::ProfilerStubs {
 public:
  explicit DeviceProfilerStubs(Backend& backend) : backend_(backend) {}

  void set_annotations(ProfilerAnnotations annotations) {
    mark_.store(annotations.mark);
    range_push_.store(annotations.range_push);
    range_pop_.store(annotations.range_pop);
  }

  // An event on the current stream of the current device, timing enabled.
  void record(c10::DeviceIndex* device, ProfilerVoidEventStub* event, int64_t* cpu_ns) const override {
    const c10::DeviceIndex current = backend_.current_device();
    if (device != nullptr) *device = current;
    const DeviceGuardImpl& guard = backend_.guard();
    const c10::Stream stream = guard.getStream(c10::Device(backend_.device_type(), current));
    auto recorded = std::make_shared<RecordedEvent>(guard, current);
    if (cpu_ns != nullptr) *cpu_ns = c10::getTime();
    guard.record(&recorded->handle, stream, current, c10::EventFlag::BACKEND_DEFAULT);
    *event = std::move(recorded);
  }

  // Microseconds of device time between two recorded events, once both have completed.
  float elapsed(const ProfilerVoidEventStub* start, const ProfilerVoidEventStub* end) const override {
    const auto* first = static_cast<const RecordedEvent*>(start->get());
    const auto* second = static_cast<const RecordedEvent*>(end->get());
    TORCH_CHECK(first != nullptr && second != nullptr, "profiler: an event to time was never recorded");
    const DeviceGuardImpl& guard = backend_.guard();
    guard.synchronizeEvent(first->handle);
    guard.synchronizeEvent(second->handle);
    return static_cast<float>(guard.elapsedTime(first->handle, second->handle, first->device) * 1000.0);
  }

  void mark(const char* name) const override {
    if (auto* mark = mark_.load()) mark(name);
  }
  void rangePush(const char* name) const override {
    if (auto* push = range_push_.load()) push(name);
  }
  void rangePop() const override {
    if (auto* pop = range_pop_.load()) pop();
  }
  bool enabled() const override { return true; }

  void onEachDevice(std::function<void(int)> op) const override {
    c10::OptionalDeviceGuard on_device;
    for (int device = 0; device < backend_.device_count(); ++device) {
      on_device.reset_device(c10::Device(backend_.device_type(), static_cast<c10::DeviceIndex>(device)));
      op(device);
    }
  }

  void synchronize() const override { backend_.guard().synchronizeDevice(backend_.current_device()); }

 private:
  Backend& backend_;
  std::atomic<void (*)(const char*)> mark_{nullptr};
  std::atomic<void (*)(const char*)> range_push_{nullptr};
  std::atomic<void (*)()> range_pop_{nullptr};
};

DeviceProfilerStubs*& stubs_of(c10::DeviceType device_type) {
  static DeviceProfilerStubs* cuda = nullptr;
  static DeviceProfilerStubs* privateuse1 = nullptr;
  TORCH_CHECK(device_type == c10::DeviceType::CUDA || device_type == c10::DeviceType::PrivateUse1,
              "torch's profiler has device stubs for CUDA and PrivateUse1 only, not ", device_type);
  return device_type == c10::DeviceType::CUDA ? cuda : privateuse1;
}

}  // namespace

void register_profiler_stubs(Backend& backend) {
  DeviceProfilerStubs*& stubs = stubs_of(backend.device_type());
  TORCH_CHECK(stubs == nullptr, "profiler stubs for ", backend.device_type(), " are registered already");
  // Leaked: torch's profiler keeps the pointer for the life of the process.
  stubs = new DeviceProfilerStubs(backend);
  if (backend.device_type() == c10::DeviceType::CUDA) {
    torch::profiler::impl::registerCUDAMethods(stubs);
  } else {
    torch::profiler::impl::registerPrivateUse1Methods(stubs);
  }
}

void set_profiler_annotations(c10::DeviceType device_type, ProfilerAnnotations annotations) {
  DeviceProfilerStubs* stubs = stubs_of(device_type);
  TORCH_CHECK(stubs != nullptr, "no profiler stubs are registered for ", device_type);
  stubs->set_annotations(annotations);
}

}  // namespace torch_core
