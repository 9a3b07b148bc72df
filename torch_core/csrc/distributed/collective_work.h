// The work of one CollectiveBackend call (collective_backend.h): done when the device has
// run the call, which an event recorded after it on the communication stream tells; failed
// when the watchdog or a waiting caller finds a communicator error or a timeout
// (DistBackendError, naming the call as stock's WorkNCCL does).
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/core/Event.h>
#include <c10/core/Stream.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include "torch_core/csrc/distributed/communicator.h"

namespace torch_core::distributed {

class CollectiveWork final : public c10d::Work {
 public:
  struct Call {
    c10d::OpType op_type;
    std::string name;         // the profiling title, e.g. "nccl:all_reduce"
    std::uint64_t sequence;   // of the call in its group
    std::chrono::milliseconds timeout;
    bool host_waits;          // wait() blocks the host (TORCH_NCCL_BLOCKING_WAIT, barrier)
  };

  // Constructed right after the call was queued on `stream`: records the end event there
  // and completes the future on it.
  CollectiveWork(int rank, const Call& call, c10::Stream stream, std::shared_ptr<Communicator> comm,
                 std::vector<at::Tensor> outputs);

  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  std::vector<at::Tensor> result() override;
  bool wait(std::chrono::milliseconds timeout) override;
  void abort() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  // For the watchdog.
  bool ran() const { return end_.query(); }
  std::string communicator_error() const { return comm_->async_error(); }
  bool timed_out() const { return std::chrono::steady_clock::now() - started_ > call_.timeout; }
  // "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, Timeout(ms)=600000)"-like.
  std::string describe() const;
  // Fails the work with DistBackendError(`what`) unless it failed already.
  void fail(const std::string& what);

 private:
  void throw_if_failed() const;

  Call call_;
  c10::Device device_;
  std::shared_ptr<Communicator> comm_;
  std::vector<at::Tensor> outputs_;
  c10::Event end_;
  std::chrono::steady_clock::time_point started_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  mutable std::mutex mutex_;
  std::exception_ptr error_;  // guarded by mutex_
};

}  // namespace torch_core::distributed
