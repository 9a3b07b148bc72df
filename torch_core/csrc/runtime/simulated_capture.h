// One stream capture of the simulated runtime, and the graphs it ends in. Internal to
// the simulated runtime.
//
// While a capture is underway, work queued on its streams is appended to one list
// instead of running: the stream that began it (the origin), and every stream that
// waited on an event recorded in it (a fork), until end_capture(). Appends happen in
// host call order, which respects every dependency, so running the list in order is a
// valid schedule of the graph. A fork must be joined back before the capture ends: the
// origin (or a stream already in the capture) waits on an event recorded on the forked
// stream after its last work, as CUDA requires (cudaErrorStreamCaptureUnjoined).
//
// A call that CUDA refuses during capture invalidates it; every later call on its
// streams fails, and so does its end.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class SimulatedStream;

using CapturedWork = std::vector<std::function<void()>>;

class SimulatedCapture {
 public:
  SimulatedCapture(std::uint64_t id, const SimulatedStream* origin, int device, CaptureMode mode);

  std::uint64_t id() const { return id_; }
  int device() const { return device_; }
  CaptureMode mode() const { return mode_; }
  const SimulatedStream* origin() const { return origin_; }
  // True when a potentially unsafe call from the calling thread breaks this capture.
  bool forbids_unsafe_calls_from_this_thread() const;

  // Appends `work` queued on member stream `from`; throws once the capture is invalid.
  void append(const SimulatedStream* from, std::function<void()> work, const char* call);
  // An event recorded on member `from`: how much of `from`'s work it covers.
  std::uint64_t mark(const SimulatedStream* from, const char* call);
  // `waiter` waited on an event recorded on member `recorded_on` at `mark`: the waiter
  // takes part from now on, and `recorded_on` is joined up to `mark`.
  void join(const SimulatedStream* waiter, const SimulatedStream* recorded_on, std::uint64_t mark);
  // Makes the capture invalid for `reason` (the refused call); the first reason is kept.
  void invalidate(const std::string& reason);
  // The streams taking part (the origin first).
  std::vector<const SimulatedStream*> members() const;
  // The captured work, in order; throws RuntimeError when the capture was invalidated
  // or a fork was not joined.
  CapturedWork finish();

 private:
  struct Member {
    std::uint64_t appended = 0;  // work items queued by this stream
    std::uint64_t joined = 0;    // how many of them a join covers
  };
  void check_valid(const char* call) const;  // mutex_ held

  const std::uint64_t id_;
  const SimulatedStream* const origin_;
  const int device_;
  const CaptureMode mode_;
  const std::thread::id thread_;  // the thread that began it

  mutable std::mutex mutex_;
  CapturedWork work_;
  std::unordered_map<const SimulatedStream*, Member> members_;
  std::vector<const SimulatedStream*> member_order_;
  std::string invalid_reason_;
};

// end_capture()'s result and instantiate_graph()'s: the work of one capture, for one device.
struct SimulatedGraph {
  int device;
  std::shared_ptr<const CapturedWork> work;
};

}  // namespace torch_core
