// The work of a collective that a host backend runs on pinned host copies of device
// tensors: it completes once the host collective has and `copy_back` has moved the
// results into the device tensors, so wait(), is_completed() and get_future() (what DDP's
// reducer chains on) see the device results.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace torch_core {

class HostStagedWork final : public c10d::Work {
 public:
  HostStagedWork(c10::intrusive_ptr<c10d::Work> host_work, std::function<void()> copy_back,
                 std::vector<at::Tensor> results, int rank, c10d::OpType op_type,
                 const char* profiling_title);

  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  std::vector<at::Tensor> result() override;
  bool wait(std::chrono::milliseconds timeout) override;
  void abort() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

 private:
  c10::intrusive_ptr<c10d::Work> host_work_;
  std::vector<at::Tensor> results_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

// Pinned host tensors with the sizes, strides (when dense) and values of `tensors`. Each
// copy waits for the work queued on its tensor's current stream.
std::vector<at::Tensor> pinned_host_copies(const std::vector<at::Tensor>& tensors);

}  // namespace torch_core
