// The work of a collective that a host backend runs on pinned host copies of device
// tensors: it completes once the host collective has and each host result has been copied
// into its device tensor, so wait(), is_completed() and get_future() (what DDP's reducer
// chains on) see the device results.
#pragma once

#include <chrono>
#include <exception>
#include <mutex>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Stream.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace torch_core {

class HostStagedWork final : public c10d::Work {
 public:
  // host_results[i] (pinned, written by host_work) is copied into device_results[i].
  HostStagedWork(c10::intrusive_ptr<c10d::Work> host_work, std::vector<at::Tensor> host_results,
                 std::vector<at::Tensor> device_results, int rank, c10d::OpType op_type,
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

// Send and receive staged through host memory: gloo's point-to-point work has no future,
// so a receive's copy back runs in the first wait() or is_completed() that finds the host
// work done, on the streams current at the call. Holds the host tensors until then.
class HostStagedP2PWork final : public c10d::Work {
 public:
  HostStagedP2PWork(c10::intrusive_ptr<c10d::Work> host_work, std::vector<at::Tensor> host,
                    std::vector<at::Tensor> device_results, int rank, c10d::OpType op_type);

  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  int sourceRank() const override;
  std::vector<at::Tensor> result() override;
  bool wait(std::chrono::milliseconds timeout) override;
  void abort() override;

 private:
  void copy_back_once();

  c10::intrusive_ptr<c10d::Work> host_work_;
  std::vector<at::Tensor> host_;
  std::vector<at::Tensor> device_results_;  // empty for a send
  std::vector<c10::Stream> streams_;
  std::mutex copy_mutex_;
  bool copied_ = false;
};

// device[i].copy_(host[i]) for every i, on `streams` (the streams current at the call).
void copy_to_device(const std::vector<at::Tensor>& device, const std::vector<at::Tensor>& host,
                    const std::vector<c10::Stream>& streams);

// The current streams of the devices `tensors` are on, one per device.
std::vector<c10::Stream> current_streams(const std::vector<at::Tensor>& tensors);

// Pinned host tensors with the sizes and (when dense) strides of `tensors`, uninitialised.
std::vector<at::Tensor> pinned_host_like(const std::vector<at::Tensor>& tensors);

// pinned_host_like(tensors) holding their values. Each copy waits for the work queued on
// its tensor's current stream.
std::vector<at::Tensor> pinned_host_copies(const std::vector<at::Tensor>& tensors);

}  // namespace torch_core
