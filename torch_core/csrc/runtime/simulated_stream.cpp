#include "torch_core/csrc/runtime/simulated_stream.h"

#include <exception>
#include <utility>

#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/simulated_fault_guard.h"

namespace torch_core {
namespace {

thread_local const SimulatedStream* current_stream = nullptr;

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    return what.empty() ? "exception with an empty message" : what;
  } catch (...) {
    return "unknown exception (not derived from std::exception)";
  }
}

}  // namespace

SimulatedStream::SimulatedStream(int device, int priority)
    : device_(device), priority_(priority), worker_([this] { run(); }) {}

SimulatedStream::~SimulatedStream() { shutdown(); }

const SimulatedStream* SimulatedStream::current() { return current_stream; }

std::uint64_t SimulatedStream::enqueue(std::function<void()> work) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) {
    throw RuntimeError("simulated stream on device " + std::to_string(device_) +
                       " was destroyed: no more work can be queued on it");
  }
  queue_.push_back(std::move(work));
  work_ready_.notify_one();
  return ++enqueued_;
}

std::uint64_t SimulatedStream::last_position() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return enqueued_;
}

bool SimulatedStream::is_complete(std::uint64_t position) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ >= position;
}

void SimulatedStream::wait(std::uint64_t position) const {
  if (current_stream == this) {
    throw RuntimeError("a work item on a simulated stream of device " + std::to_string(device_) +
                       " waited for its own stream (a synchronize, free or blocking copy "
                       "inside stream work): that would never finish");
  }
  std::unique_lock<std::mutex> lock(mutex_);
  work_done_.wait(lock, [&] { return completed_ >= position; });
}

std::string SimulatedStream::take_error() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(error_, std::string());
}

void SimulatedStream::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    work_ready_.notify_one();
  }
  // The runtime never destroys a stream from inside its own work (that join would wait
  // for itself); call_once makes concurrent or repeated shutdowns join exactly once.
  std::call_once(joined_, [this] { worker_.join(); });
}

void SimulatedStream::run() {
  current_stream = this;
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    bool failed = false;
    std::string failure;
    {
      simulated_faults::WorkScope faults;
      try {
        work();
      } catch (...) {
        failed = true;
        failure = describe(std::current_exception());
      }
      std::string illegal = faults.finish();
      if (!failed && !illegal.empty()) {
        failed = true;
        failure = std::move(illegal);
      }
    }
    work = nullptr;  // release what the item captured before it counts as complete
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed && error_.empty()) error_ = std::move(failure);
    ++completed_;
    work_done_.notify_all();
  }
}

}  // namespace torch_core
