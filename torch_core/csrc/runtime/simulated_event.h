// One simulated event. Internal to the simulated runtime.
//
// Each record_event() starts a numbered record and queues a marker item on the stream;
// the stream's worker completes the record when it reaches the marker, and takes the
// time there, so elapsed times measure when the stream really got to each event. As in
// CUDA, queries and waits refer to the latest record at the time they are made, and an
// event never recorded counts as complete. Records on different streams complete in any
// order, so each record's completion is kept: a wait for record 1 is not released by
// record 2 finishing first.
//
// An interprocess event also publishes its latest record and how far its records have
// completed to a shared slot; an event opened from another process's handle is a view of
// such a slot, which it only reads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>

#include "torch_core/csrc/runtime/simulated_ipc.h"

namespace torch_core {

class SimulatedEvent {
 public:
  using Clock = std::chrono::steady_clock;

  SimulatedEvent(int device, bool enable_timing) : device_(device), timing_(enable_timing) {}
  // An interprocess event (no timing) publishing to `slot`.
  SimulatedEvent(int device, std::shared_ptr<SimulatedIpcEventSlot> slot)
      : device_(device), timing_(false), published_(std::move(slot)) {}
  // Another process's event, opened from its handle.
  SimulatedEvent(int device, SimulatedRemoteEvent remote)
      : device_(device), timing_(false), remote_(std::make_unique<SimulatedRemoteEvent>(std::move(remote))) {}

  int device() const { return device_; }
  bool timing_enabled() const { return timing_; }
  const SimulatedIpcEventSlot* published_slot() const { return published_.get(); }
  bool is_remote() const { return remote_ != nullptr; }

  // Starts a new record, whose marker goes on `stream`, and returns its id (1, 2, ...).
  std::uint64_t begin_record(const void* stream);
  // Marks record `id` complete (by the worker that reached its marker), timed now.
  void complete(std::uint64_t id);
  // The latest record's id, 0 when never recorded.
  std::uint64_t latest_record() const;
  bool is_complete(std::uint64_t id) const;
  void wait(std::uint64_t id) const;
  // True when record `id` is pending on `stream`: waiting for it from that stream's own
  // worker would never finish.
  bool pending_on(std::uint64_t id, const void* stream) const;
  // When the latest record completed; throws RuntimeError (naming `role`, "start" or
  // "end") when timing is disabled or the latest record is missing or not complete.
  Clock::time_point completion_time(const char* role) const;

 private:
  const int device_;
  const bool timing_;
  const std::shared_ptr<SimulatedIpcEventSlot> published_;  // null: not interprocess
  const std::unique_ptr<const SimulatedRemoteEvent> remote_;  // null: this process's own
  mutable std::mutex mutex_;
  mutable std::condition_variable completed_cv_;
  bool done(std::uint64_t id) const;  // callers hold mutex_

  std::uint64_t recorded_ = 0;             // id of the latest record
  std::uint64_t completed_through_ = 0;    // every record up to this id is complete
  std::set<std::uint64_t> completed_after_;  // complete records above completed_through_
  const void* recorded_on_ = nullptr;      // the stream of the latest record
  std::uint64_t timed_ = 0;                // the newest completed record, and its time
  Clock::time_point completed_at_{};
};

}  // namespace torch_core
