#include "torch_core/csrc/runtime/simulated_event.h"

#include <string>

#include "torch_core/runtime/device_runtime.h"

namespace torch_core {

std::uint64_t SimulatedEvent::begin_record(const void* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  recorded_on_ = stream;
  return ++recorded_;
}

void SimulatedEvent::complete(std::uint64_t id) {
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  // Records on different streams can complete out of order; an older one finishing
  // late must not overwrite a newer one's state or time.
  if (id > completed_) {
    completed_ = id;
    completed_at_ = now;
  }
  completed_cv_.notify_all();
}

std::uint64_t SimulatedEvent::latest_record() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return recorded_;
}

bool SimulatedEvent::is_complete(std::uint64_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ >= id;
}

void SimulatedEvent::wait(std::uint64_t id) const {
  std::unique_lock<std::mutex> lock(mutex_);
  completed_cv_.wait(lock, [&] { return completed_ >= id; });
}

bool SimulatedEvent::pending_on(std::uint64_t id, const void* stream) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ < id && id == recorded_ && recorded_on_ == stream;
}

SimulatedEvent::Clock::time_point SimulatedEvent::completion_time(const char* role) const {
  if (!timing_) {
    throw RuntimeError(std::string("elapsed_ms: the ") + role +
                       " event was created with enable_timing=false; create both events "
                       "with timing enabled");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (recorded_ == 0) {
    throw RuntimeError(std::string("elapsed_ms: the ") + role +
                       " event was never recorded; record it on a stream first");
  }
  if (completed_ < recorded_) {
    throw RuntimeError(std::string("elapsed_ms: the ") + role +
                       " event has not completed yet; synchronize it (or its stream) first");
  }
  return completed_at_;
}

}  // namespace torch_core
