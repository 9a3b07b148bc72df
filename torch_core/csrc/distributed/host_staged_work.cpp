#include "torch_core/csrc/distributed/host_staged_work.h"

#include <utility>

#include <ATen/core/jit_type.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/util/Exception.h>

namespace torch_core {

HostStagedWork::HostStagedWork(c10::intrusive_ptr<c10d::Work> host_work,
                               std::function<void()> copy_back, std::vector<at::Tensor> results,
                               int rank, c10d::OpType op_type, const char* profiling_title)
    : c10d::Work(rank, op_type, profiling_title),
      host_work_(std::move(host_work)),
      results_(std::move(results)),
      future_(c10::make_intrusive<c10::ivalue::Future>(
          c10::ListType::create(c10::TensorType::get()))) {
  // Runs on the host backend's thread when its collective finishes (or here, when it has).
  host_work_->getFuture()->addCallback(
      [future = future_, copy_back = std::move(copy_back),
       results = results_](c10::ivalue::Future& host_done) {
        if (host_done.hasError()) {
          future->setError(host_done.exception_ptr());
          return;
        }
        try {
          copy_back();
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

std::vector<at::Tensor> pinned_host_copies(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> copies;
  copies.reserve(tensors.size());
  for (const at::Tensor& tensor : tensors) {
    const auto options = tensor.options().device(at::kCPU).pinned_memory(true);
    at::Tensor copy = tensor.is_non_overlapping_and_dense()
                          ? at::empty_strided(tensor.sizes(), tensor.strides(), options)
                          : at::empty(tensor.sizes(), options);
    copy.copy_(tensor);
    copies.push_back(std::move(copy));
  }
  return copies;
}

}  // namespace torch_core
