#include "torch_core/csrc/runtime/simulated_event.h"

#include <string>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

std::uint64_t SimulatedEvent::begin_record(const void* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  recorded_on_ = stream;
  ++recorded_;
  if (published_ != nullptr) published_->recorded.store(recorded_, std::memory_order_release);
  return recorded_;
}

void SimulatedEvent::complete(std::uint64_t id) {
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  completed_after_.insert(id);
  while (!completed_after_.empty() && *completed_after_.begin() == completed_through_ + 1) {
    completed_after_.erase(completed_after_.begin());
    ++completed_through_;
  }
  if (published_ != nullptr) published_->completed.store(completed_through_, std::memory_order_release);
  // An older record finishing late must not overwrite a newer one's time.
  if (id > timed_) {
    timed_ = id;
    completed_at_ = now;
  }
  completed_cv_.notify_all();
}

bool SimulatedEvent::done(std::uint64_t id) const {
  return id <= completed_through_ || completed_after_.count(id) > 0;
}

std::uint64_t SimulatedEvent::latest_record() const {
  if (remote_ != nullptr) return remote_->slot->recorded.load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(mutex_);
  return recorded_;
}

bool SimulatedEvent::is_complete(std::uint64_t id) const {
  if (remote_ != nullptr) return remote_->completed(id);
  std::lock_guard<std::mutex> lock(mutex_);
  return done(id);
}

void SimulatedEvent::wait(std::uint64_t id) const {
  if (remote_ != nullptr) {
    remote_->wait(id);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  completed_cv_.wait(lock, [&] { return done(id); });
}

bool SimulatedEvent::pending_on(std::uint64_t id, const void* stream) const {
  if (remote_ != nullptr) return false;  // recorded in another process
  std::lock_guard<std::mutex> lock(mutex_);
  return !done(id) && id == recorded_ && recorded_on_ == stream;
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
  if (!done(recorded_)) {
    throw RuntimeError(std::string("elapsed_ms: the ") + role +
                       " event has not completed yet; synchronize it (or its stream) first");
  }
  return completed_at_;
}

}  // namespace torch_core
