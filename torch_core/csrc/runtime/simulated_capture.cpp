#include "torch_core/csrc/runtime/simulated_capture.h"

#include <utility>

namespace torch_core {

SimulatedCapture::SimulatedCapture(std::uint64_t id, const SimulatedStream* origin, int device,
                                   CaptureMode mode)
    : id_(id), origin_(origin), device_(device), mode_(mode), thread_(std::this_thread::get_id()) {
  members_.emplace(origin, Member{});
  member_order_.push_back(origin);
}

bool SimulatedCapture::forbids_unsafe_calls_from_this_thread() const {
  switch (mode_) {
    case CaptureMode::kGlobal:
      return true;
    case CaptureMode::kThreadLocal:
      return std::this_thread::get_id() == thread_;
    case CaptureMode::kRelaxed:
      return false;
  }
  return true;
}

void SimulatedCapture::check_valid(const char* call) const {
  if (invalid_reason_.empty()) return;
  throw RuntimeError(std::string(call) +
                     ": operation failed due to a previous error during capture (the stream "
                     "capture was invalidated by " + invalid_reason_ + ")");
}

void SimulatedCapture::append(const SimulatedStream* from, std::function<void()> work,
                              const char* call) {
  std::lock_guard<std::mutex> lock(mutex_);
  check_valid(call);
  ++members_[from].appended;
  work_.push_back(std::move(work));
}

std::uint64_t SimulatedCapture::mark(const SimulatedStream* from, const char* call) {
  std::lock_guard<std::mutex> lock(mutex_);
  check_valid(call);
  return members_[from].appended;
}

void SimulatedCapture::join(const SimulatedStream* waiter, const SimulatedStream* recorded_on,
                            std::uint64_t mark) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (members_.emplace(waiter, Member{}).second) member_order_.push_back(waiter);
  Member& joined = members_[recorded_on];
  if (waiter != recorded_on && mark > joined.joined) joined.joined = mark;
}

void SimulatedCapture::invalidate(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (invalid_reason_.empty()) invalid_reason_ = reason;
}

std::vector<const SimulatedStream*> SimulatedCapture::members() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return member_order_;
}

CapturedWork SimulatedCapture::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  check_valid("end_capture");
  for (const SimulatedStream* stream : member_order_) {
    const Member& member = members_.at(stream);
    if (stream != origin_ && member.joined < member.appended) {
      throw RuntimeError("end_capture: capture sequence contains a fork that was not joined to "
                         "the primary stream: a stream that joined the capture queued work after "
                         "the last event the capturing stream waited on (record an event on it "
                         "after that work and wait on it from the capturing stream)");
    }
  }
  return std::move(work_);
}

}  // namespace torch_core
