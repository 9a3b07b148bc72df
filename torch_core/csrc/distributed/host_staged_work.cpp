#include "torch_core/csrc/distributed/host_staged_work.h"

#include <algorithm>
#include <utility>

#include <ATen/core/jit_type.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>
#include <c10/util/irange.h>

namespace torch_core {

HostStagedWork::HostStagedWork(c10::intrusive_ptr<c10d::Work> host_work,
                               std::vector<at::Tensor> host_results,
                               std::vector<at::Tensor> device_results, int rank,
                               c10d::OpType op_type, const char* profiling_title)
    : c10d::Work(rank, op_type, profiling_title),
      host_work_(std::move(host_work)),
      results_(std::move(device_results)),
      future_(c10::make_intrusive<c10::ivalue::Future>(
          c10::ListType::create(c10::TensorType::get()))) {
  // The copy back runs on the streams current at the call, after the work queued there:
  // on another stream it could overwrite a result's block while a kernel of its previous
  // owner, queued on the caller's stream, has yet to read it.
  std::vector<c10::Stream> streams = current_streams(results_);
  // Runs on the host backend's thread when its collective finishes (or here, when it has).
  host_work_->getFuture()->addCallback(
      [future = future_, host = std::move(host_results), streams = std::move(streams),
       results = results_](c10::ivalue::Future& host_done) {
        if (host_done.hasError()) {
          future->setError(host_done.exception_ptr());
          return;
        }
        try {
          copy_to_device(results, host, streams);
        } catch (...) {
          future->setError(std::current_exception());
          return;
        }
        future->markCompleted(c10::IValue(results));
      });
}

bool HostStagedWork::isCompleted() { return future_->completed(); }

bool HostStagedWork::isSuccess() const { return future_->completed() && !future_->hasError(); }

std::exception_ptr HostStagedWork::exception() const {
  return future_->completed() ? future_->exception_ptr() : nullptr;
}

std::vector<at::Tensor> HostStagedWork::result() { return results_; }

bool HostStagedWork::wait(std::chrono::milliseconds timeout) {
  host_work_->wait(timeout);  // the host backend's own timeout and errors
  future_->wait();
  if (future_->hasError()) {
    std::rethrow_exception(future_->exception_ptr());
  }
  return true;
}

void HostStagedWork::abort() { host_work_->abort(); }

c10::intrusive_ptr<c10::ivalue::Future> HostStagedWork::getFuture() { return future_; }

HostStagedP2PWork::HostStagedP2PWork(c10::intrusive_ptr<c10d::Work> host_work,
                                     std::vector<at::Tensor> host,
                                     std::vector<at::Tensor> device_results, int rank,
                                     c10d::OpType op_type)
    : c10d::Work(rank, op_type),
      host_work_(std::move(host_work)),
      host_(std::move(host)),
      device_results_(std::move(device_results)),
      streams_(current_streams(device_results_)) {}

bool HostStagedP2PWork::isCompleted() {
  if (!host_work_->isCompleted()) return false;
  if (host_work_->isSuccess()) copy_back_once();  // a caller may poll instead of waiting
  return true;
}

bool HostStagedP2PWork::isSuccess() const { return host_work_->isSuccess(); }

std::exception_ptr HostStagedP2PWork::exception() const { return host_work_->exception(); }

int HostStagedP2PWork::sourceRank() const { return host_work_->sourceRank(); }

std::vector<at::Tensor> HostStagedP2PWork::result() { return device_results_; }

bool HostStagedP2PWork::wait(std::chrono::milliseconds timeout) {
  host_work_->wait(timeout);
  copy_back_once();
  return true;
}

void HostStagedP2PWork::copy_back_once() {
  std::lock_guard<std::mutex> lock(copy_mutex_);
  if (!copied_) {
    copy_to_device(device_results_, host_, streams_);
    copied_ = true;
  }
}

void HostStagedP2PWork::abort() { host_work_->abort(); }

void copy_to_device(const std::vector<at::Tensor>& device, const std::vector<at::Tensor>& host,
                    const std::vector<c10::Stream>& streams) {
  const c10::MultiStreamGuard on_callers_streams(streams);
  for (const auto i : c10::irange(device.size())) {
    device[i].copy_(host[i]);
  }
}

std::vector<c10::Stream> current_streams(const std::vector<at::Tensor>& tensors) {
  std::vector<c10::Stream> streams;
  for (const at::Tensor& tensor : tensors) {
    const c10::Device device = tensor.device();
    const bool seen = std::any_of(streams.begin(), streams.end(),
                                  [&](const c10::Stream& s) { return s.device() == device; });
    if (device.type() != c10::DeviceType::CPU && !seen) {
      streams.push_back(c10::impl::VirtualGuardImpl(device.type()).getStream(device));
    }
  }
  return streams;
}

std::vector<at::Tensor> pinned_host_like(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> host;
  host.reserve(tensors.size());
  for (const at::Tensor& tensor : tensors) {
    const auto options = tensor.options().device(at::kCPU).pinned_memory(true);
    host.push_back(tensor.is_non_overlapping_and_dense()
                       ? at::empty_strided(tensor.sizes(), tensor.strides(), options)
                       : at::empty(tensor.sizes(), options));
  }
  return host;
}

std::vector<at::Tensor> pinned_host_copies(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> copies = pinned_host_like(tensors);
  for (const auto i : c10::irange(tensors.size())) {
    copies[i].copy_(tensors[i]);
  }
  return copies;
}

}  // namespace torch_core
