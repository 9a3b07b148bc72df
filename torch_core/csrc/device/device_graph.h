// Graphs of one backend's device work: torch.cuda.CUDAGraph and torch.accelerator.Graph
// over the runtime's stream capture, as at::cuda::CUDAGraph is over cudart.
//
// capture_begin() starts capturing the current stream (never a device's default stream)
// and sends the allocations of the capture's streams to a private pool of the caching
// allocator, so the addresses the graph's work uses stay its own across replays; graphs
// given the same pool id share that memory. capture_end() ends both and, unless the
// graph is kept (keep_graph), instantiates it and drops the captured form. replay()
// launches it on the current stream of the capture's device. reset() (and destruction)
// releases the pool: its memory goes back at the next empty_cache().
//
// Random numbers in a capture come from the capturing device's default generator and the
// generators registered before capture_begin() (register_generator_state), graph-safe
// (philox_generator.h): each replay writes each generator's seed and offset to device
// memory its kernels read, then advances the offset, so replays draw fresh numbers.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>

#include <ATen/core/GraphImplInterface.h>
#include <c10/core/Stream.h>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class Backend;
class PhiloxGenerator;

class DeviceGraph final : public at::GraphImplInterface {
 public:
  DeviceGraph(Backend& backend, bool keep_graph);
  ~DeviceGraph() override;
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;

  void capture_begin(c10::MempoolId_t pool = {0, 0},
                     at::GraphCaptureMode mode = at::GraphCaptureMode::Default) override;
  void capture_end() override;
  void instantiate() override;
  void replay() override;
  void reset() override;
  c10::MempoolId_t pool() const override;
  void enable_debug_mode() override;
  void debug_dump(const std::string& path) override;

  // A generator of this backend's device type (other than the capture device's default,
  // which is always taken) that the next capture may draw from: stock's
  // register_generator_state. Refused during a capture; reset() forgets it.
  void register_generator(const at::Generator& generator);

  // The runtime's handles (a cudaGraph_t / cudaGraphExec_t for CUDA), for
  // raw_cuda_graph() and raw_cuda_graph_exec(); each must exist.
  GraphHandle raw_graph() const;
  GraphExecHandle raw_graph_exec() const;

  // True while any graph of any backend is capturing (a cheap check for hot paths).
  static bool any_capture_underway() noexcept { return captures_underway_.load() > 0; }

 private:
  void release_pool_once();
  // A backend generator (a PhiloxGenerator) for the next capture, once.
  void add_generator(const at::Generator& generator);
  // Starts the capture's part of every generator; on failure, undoes what it started.
  void begin_generator_captures();
  // Ends the capture's part of every generator, noting what one replay draws from each.
  void end_generator_captures();
  // Ends what is still open, and this graph no longer reads the generators' device words.
  void release_generators();

  Backend& backend_;
  const bool keep_graph_;
  bool debug_ = false;
  bool capturing_ = false;
  bool has_graph_ = false;  // a capture ended successfully and was not reset
  bool holds_pool_ = false;  // a use of pool_ to give back
  c10::DeviceIndex device_ = -1;
  StreamHandle capture_stream_ = nullptr;
  c10::MempoolId_t pool_{0, 0};
  struct CapturedGenerator {
    at::Generator generator;  // held: a user's generator must outlive the graph's replays
    PhiloxGenerator* philox;
    bool in_graph = false;   // its capture began: this graph is a user of its device words
    bool capturing = false;  // between its capture's prologue and epilogue
    uint64_t increment = 0;  // what one replay draws from it
  };
  std::vector<CapturedGenerator> generators_;
  GraphHandle graph_ = nullptr;
  GraphExecHandle exec_ = nullptr;

  static std::atomic<int> captures_underway_;
};

// A new private pool id, as torch.cuda.graph_pool_handle() and a user's MemPool take:
// {0, n}; new_internal_pool_id() gives {n, 0}, as a capture given no pool takes (the
// counter is shared, as stock's).
c10::MempoolId_t new_graph_pool_id();
c10::MempoolId_t new_internal_pool_id();

// True when `device_type`'s current stream on `device` (-1: the current device) is capturing.
bool current_stream_capturing(c10::DeviceType device_type, c10::DeviceIndex device = -1);

// Makes DeviceGraph the implementation of at::GraphImplRegistry for the backend's device
// type, so that torch.accelerator.Graph captures on it.
void register_graph_impl(Backend& backend);

}  // namespace torch_core
