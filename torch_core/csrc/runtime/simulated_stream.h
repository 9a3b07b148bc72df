// One simulated stream: a worker thread that runs the stream's work items in order.
// Internal to the simulated runtime.
//
// Every stream, the default ones included, has its own worker, so work on different
// streams really runs concurrently: a missing event wait shows up as a wrong result
// rather than passing by luck. Positions count enqueued items (1, 2, ...); position p is
// complete once the worker has finished the p-th item.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace torch_core {

class SimulatedStream {
 public:
  SimulatedStream(int device, int priority);
  ~SimulatedStream();  // shutdown()
  SimulatedStream(const SimulatedStream&) = delete;
  SimulatedStream& operator=(const SimulatedStream&) = delete;

  int device() const { return device_; }
  int priority() const { return priority_; }

  // Queues `work` and returns its position. An exception thrown by `work` is kept and
  // handed out by take_error(); the items after it still run.
  std::uint64_t enqueue(std::function<void()> work);
  // The position of the last item enqueued so far (0 when none).
  std::uint64_t last_position() const;
  bool is_complete(std::uint64_t position) const;
  // Blocks the calling thread until `position` is complete. Throws RuntimeError when
  // called from this stream's own worker, where it would wait forever.
  void wait(std::uint64_t position) const;
  // The first failure since the last call ("" when none), cleared by the call.
  std::string take_error();
  // Runs what is queued, then stops the worker; enqueue() throws afterwards. Idempotent.
  void shutdown();

  // The stream whose worker is the calling thread, or nullptr.
  static const SimulatedStream* current();

 private:
  void run();

  const int device_;
  const int priority_;
  mutable std::mutex mutex_;
  mutable std::condition_variable work_ready_;
  mutable std::condition_variable work_done_;
  std::deque<std::function<void()>> queue_;
  std::uint64_t enqueued_ = 0;
  std::uint64_t completed_ = 0;
  bool stopping_ = false;
  std::string error_;
  std::once_flag joined_;
  std::thread worker_;  // last: it starts running once the members above exist
};

}  // namespace torch_core
