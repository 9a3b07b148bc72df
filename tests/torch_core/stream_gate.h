// A test helper for the simulated runtime: holds a stream at a point of its queue until
// open() is called, so a test can observe what happens while work is still pending.
#pragma once

#include <future>

#include "torch_core/csrc/runtime/current_device_scope.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace torch_core::testing {

class Gate {
 public:
  Gate() : opened_(promise_.get_future().share()) {}
  void hold(SimulatedRuntime& runtime, StreamHandle stream) {
    std::shared_future<void> opened = opened_;
    const CurrentDeviceScope on_stream_device(runtime, runtime.stream_device(stream));
    runtime.enqueue(stream, [opened] { opened.wait(); });
  }
  void open() { promise_.set_value(); }

 private:
  std::promise<void> promise_;
  std::shared_future<void> opened_;
};

}  // namespace torch_core::testing
