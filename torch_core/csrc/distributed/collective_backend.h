// torch.distributed's process group for a device type over a Communicator
// (communicator.h), as stock's ProcessGroupNCCL is over NCCL: what a backend registers as
// its collective library ("nccl" for torch_cuda). One communicator and one communication
// stream per device the group uses, made on the first collective there (or by
// eagerConnectSingleDevice). Each call:
//   - checks its tensors (on the device type, dense and contiguous, one device);
//   - makes the communication stream wait for the caller's current stream, queues the
//     communicator's call there, and records the tensors' use on that stream
//     (record_stream), so the caching allocator keeps their memory until it ran;
//   - returns a CollectiveWork: wait() makes the caller's current stream wait for the
//     call (and, with TORCH_NCCL_BLOCKING_WAIT=1, blocks the host until it finished or
//     timed out), and its future is completed on the communication stream, as stock's.
// A watchdog thread follows the calls in flight: a communicator error or a call older
// than the group's timeout is reported with the call's sequence number, and then handled
// as TORCH_NCCL_ASYNC_ERROR_HANDLING says (stock's default, 3: the process is torn down;
// 0: the work only fails; 2: the communicators are aborted too).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/Stream.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "torch_core/csrc/distributed/collective_work.h"
#include "torch_core/csrc/distributed/communicator.h"

namespace torch_core::distributed {

// ProcessGroupNCCL.Options: the base options and a high-priority communication stream.
struct CollectiveOptions : c10d::Backend::Options {
  explicit CollectiveOptions(const std::string& backend_name, bool high_priority_stream = false);
  bool is_high_priority_stream;
};

// Makes the communicator of rank `rank` of `size` on `device`: every rank of the group
// calls it with the same `key`, under which the ranks meet in `store`.
using CommunicatorFactory = std::function<std::unique_ptr<Communicator>(
    const c10::intrusive_ptr<c10d::Store>& store, const std::string& key, int rank, int size, c10::Device device,
    std::chrono::milliseconds timeout)>;

class CollectiveBackend final : public c10d::Backend {
 public:
  CollectiveBackend(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                    c10::intrusive_ptr<CollectiveOptions> options, c10::DeviceType device_type,
                    CommunicatorFactory factory);
  ~CollectiveBackend() override;

  const std::string getBackendName() const override { return options_->backend; }
  c10::intrusive_ptr<Options> getBackendOptions() override { return options_; }
  const c10::intrusive_ptr<CollectiveOptions>& options() const { return options_; }
  void setTimeout(std::chrono::milliseconds timeout) override { options_->timeout = timeout; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_split_sizes,
                                               std::vector<int64_t>& input_split_sizes,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override;
  // An allreduce of one element on the device, then the host waits for it (stock's).
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

  // NCCL's grouped calls (batch_isend_irecv, _coalescing_manager): the calls between
  // start and end are issued as one group on one device, and end's work covers them all.
  bool supportsCoalescing() const override { return true; }
  void startCoalescing() override;
  c10::intrusive_ptr<c10d::Work> endCoalescing() override;

  void setSequenceNumberForGroup() override {}
  uint64_t getSequenceNumberForGroup() override;
  void eagerConnectSingleDevice(at::Device device) override;
  c10d::ErrorType getError() override;
  void abort() override;
  void shutdown() override;

 private:
  struct Channel {
    std::shared_ptr<Communicator> comm;
    c10::Stream stream;
  };
  // What a call leaves for after its communicator calls are issued: the scratch buffers
  // they read or write, kept until then, and the steps that read their results (copies on
  // the channel's stream). Inside a coalesced group NCCL issues the calls at the group's
  // end, so a buffer freed before it could be handed to another of the group's calls.
  struct Pending {
    std::vector<at::Tensor> buffers;
    std::vector<std::function<void()>> then;
    at::Tensor keep(at::Tensor buffer) {
      buffers.push_back(buffer);
      return buffer;
    }
    void append(Pending&& other);
  };
  // How a call queues itself on a channel: the communicator and its stream's handle.
  using Enqueue = std::function<void(Communicator& comm, StreamHandle stream, Pending& pending)>;

  Channel& channel(c10::Device device);
  // Orders the channel after the caller's stream, queues `enqueue`, records `tensors`'
  // use on the channel's stream, and returns the work whose result is `outputs` (none
  // inside a coalescing group: endCoalescing's work covers the call).
  c10::intrusive_ptr<c10d::Work> run(c10::Device device, c10d::OpType op_type, const char* name,
                                     const std::vector<at::Tensor>& tensors, std::vector<at::Tensor> outputs,
                                     const Enqueue& enqueue, bool host_waits = false);
  // gather's outputs or scatter's inputs: the root's list of one tensor per rank, each like
  // `like` (checked); empty on the other ranks, which must pass none.
  std::vector<at::Tensor> root_list(const char* call, const std::vector<std::vector<at::Tensor>>& lists,
                                    const at::Tensor& like, bool is_root) const;
  // The work of the calls just queued on `ch`, followed by the watchdog.
  c10::intrusive_ptr<c10d::Work> make_work(const Channel& ch, c10d::OpType op_type, const char* name,
                                           std::vector<at::Tensor> outputs, bool host_waits);
  // The watchdog thread's loop, and what it does with a failed call.
  void watch();
  void handle_failure(CollectiveWork& work, const std::string& what);

  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<CollectiveOptions> options_;
  c10::DeviceType device_type_;
  CommunicatorFactory factory_;
  int error_handling_;  // TORCH_NCCL_ASYNC_ERROR_HANDLING
  bool blocking_wait_;  // TORCH_NCCL_BLOCKING_WAIT

  std::mutex channel_mutex_;  // guards channels_ and aborted_ (held while a communicator is made)
  std::unordered_map<c10::DeviceIndex, Channel> channels_;
  bool aborted_ = false;

  // The group open between startCoalescing and endCoalescing (the caller's thread).
  struct Coalescing {
    bool active = false;
    std::optional<c10::Device> device;  // of the first call in it
    std::vector<at::Tensor> outputs;
    Pending pending;
  };
  Coalescing coalescing_;

  std::mutex mutex_;  // guards what follows
  std::uint64_t sequence_ = 0;
  c10d::ErrorType error_ = c10d::ErrorType::SUCCESS;
  std::list<c10::intrusive_ptr<CollectiveWork>> in_flight_;
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread watchdog_;
};

}  // namespace torch_core::distributed
