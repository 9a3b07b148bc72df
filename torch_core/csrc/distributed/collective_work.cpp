#include "torch_core/csrc/distributed/collective_work.h"

#include <sstream>
#include <thread>
#include <utility>

#include <ATen/core/jit_type.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

namespace torch_core::distributed {

CollectiveWork::CollectiveWork(int rank, const Call& call, c10::Stream stream, std::shared_ptr<Communicator> comm,
                               std::vector<at::Tensor> outputs)
    : c10d::Work(rank, call.op_type, call.name.c_str()),
      call_(call),
      device_(stream.device()),
      comm_(std::move(comm)),
      outputs_(std::move(outputs)),
      end_(stream.device_type()),
      started_(std::chrono::steady_clock::now()),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()),
                                                       std::vector<c10::Device>{stream.device()})) {
  end_.record(stream);
  // Completed on the communication stream: whoever uses the value waits there (stock's).
  const c10::StreamGuard guard(stream);
  future_->markCompleted(c10::IValue(outputs_));
}

bool CollectiveWork::isCompleted() {
  if (exception()) return true;
  const std::string error = communicator_error();
  if (!error.empty()) {
    fail(error);
    return true;
  }
  return end_.query();
}

bool CollectiveWork::isSuccess() const { return !exception() && end_.query(); }

std::exception_ptr CollectiveWork::exception() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::vector<at::Tensor> CollectiveWork::result() { return outputs_; }

std::string CollectiveWork::describe() const {
  std::ostringstream text;
  text << "Work(SeqNum=" << call_.sequence << ", OpType=" << c10d::opTypeToString(call_.op_type)
       << ", Timeout(ms)=" << call_.timeout.count() << ")";
  return text.str();
}

void CollectiveWork::fail(const std::string& what) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (error_) return;
  error_ = std::make_exception_ptr(c10::DistBackendError({__func__, __FILE__, static_cast<uint32_t>(__LINE__)},
                                                         describe() + ": " + what));
}

void CollectiveWork::throw_if_failed() const {
  if (const std::exception_ptr error = exception()) std::rethrow_exception(error);
}

bool CollectiveWork::wait(std::chrono::milliseconds timeout) {
  throw_if_failed();
  const c10::impl::VirtualGuardImpl impl(device_.type());
  end_.block(impl.getStream(device_));
  if (call_.host_waits) {
    const auto limit = timeout == ::kNoTimeout ? call_.timeout : timeout;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!isCompleted()) {
      if (std::chrono::steady_clock::now() > deadline) {
        fail("timed out after " + std::to_string(limit.count()) + " ms waiting for it to finish");
        comm_->abort();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  throw_if_failed();
  return true;
}

void CollectiveWork::abort() { comm_->abort(); }

c10::intrusive_ptr<c10::ivalue::Future> CollectiveWork::getFuture() { return future_; }

}  // namespace torch_core::distributed
