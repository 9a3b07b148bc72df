#include "torch_core/csrc/distributed/collective_backend.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_core::distributed {
namespace {

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::atoi(value);
}

}  // namespace

CollectiveOptions::CollectiveOptions(const std::string& backend_name, bool high_priority_stream)
    : c10d::Backend::Options(backend_name, std::chrono::minutes(10)), is_high_priority_stream(high_priority_stream) {}

CollectiveBackend::CollectiveBackend(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                                     c10::intrusive_ptr<CollectiveOptions> options, c10::DeviceType device_type,
                                     CommunicatorFactory factory)
    : c10d::Backend(rank, size),
      store_(std::move(store)),
      options_(std::move(options)),
      device_type_(device_type),
      factory_(std::move(factory)),
      error_handling_(env_int("TORCH_NCCL_ASYNC_ERROR_HANDLING", 3)),
      blocking_wait_(env_int("TORCH_NCCL_BLOCKING_WAIT", 0) == 1) {
  TORCH_CHECK(store_, "a process group needs a store");
  TORCH_CHECK(options_, "a process group needs options");
  watchdog_ = std::thread([this] { watch(); });
}

CollectiveBackend::~CollectiveBackend() { shutdown(); }

CollectiveBackend::Channel& CollectiveBackend::channel(c10::Device device) {
  const std::lock_guard<std::mutex> lock(channel_mutex_);
  const auto found = channels_.find(device.index());
  if (found != channels_.end()) return found->second;
  TORCH_CHECK(!aborted_, "the process group was aborted; make a new one");
  // Every rank makes its communicators in the same order, so the n-th one's key agrees.
  const std::string key = "communicator/" + std::to_string(channels_.size());
  std::shared_ptr<Communicator> comm = factory_(store_, key, getRank(), getSize(), device, options_->timeout);
  torch_core::Backend* backend = torch_core::Backend::find(device_type_);
  TORCH_CHECK(backend != nullptr, "no backend is registered for ", device_type_);
  const int priority = options_->is_high_priority_stream ? std::numeric_limits<int>::min() : 0;
  const c10::Stream stream = backend->streams().pool_stream(device.index(), priority);
  return channels_.emplace(device.index(), Channel{std::move(comm), stream}).first->second;
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::run(c10::Device device, c10d::OpType op_type, const char* name,
                                                      const std::vector<at::Tensor>& tensors,
                                                      std::vector<at::Tensor> outputs, const Enqueue& enqueue,
                                                      bool host_waits) {
  const c10::DeviceGuard device_guard(device);
  Channel& ch = channel(device);
  if (coalescing_.active) {
    if (!coalescing_.device) {
      coalescing_.device = device;
      ch.comm->group_start();
    }
    TORCH_CHECK_VALUE(*coalescing_.device == device, "the calls of a coalesced group must be on one device, got ",
                      *coalescing_.device, " and ", device);
  }
  const c10::impl::VirtualGuardImpl impl(device_type_);
  c10::Event ready(device_type_);
  ready.record(impl.getStream(device));
  ready.block(ch.stream);
  // ATen work a call does around the communicator (copies) runs on its stream too.
  const c10::StreamGuard stream_guard(ch.stream);
  Pending pending;
  enqueue(*ch.comm, torch_core::Backend::find(device_type_)->streams().handle(ch.stream), pending);
  for (const at::Tensor& t : tensors) t.record_stream(ch.stream);
  if (coalescing_.active) {
    coalescing_.outputs.insert(coalescing_.outputs.end(), outputs.begin(), outputs.end());
    coalescing_.pending.append(std::move(pending));
    return {};
  }
  for (const auto& step : pending.then) step();
  return make_work(ch, op_type, name, std::move(outputs), host_waits);
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::make_work(const Channel& ch, c10d::OpType op_type,
                                                            const char* name, std::vector<at::Tensor> outputs,
                                                            bool host_waits) {
  CollectiveWork::Call call{op_type, options_->backend + ":" + name, 0, options_->timeout,
                            host_waits || blocking_wait_};
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    call.sequence = ++sequence_;
  }
  auto work = c10::make_intrusive<CollectiveWork>(getRank(), call, ch.stream, ch.comm, std::move(outputs));
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.push_back(work);
  }
  return work;
}

void CollectiveBackend::Pending::append(Pending&& other) {
  buffers.insert(buffers.end(), std::make_move_iterator(other.buffers.begin()),
                 std::make_move_iterator(other.buffers.end()));
  then.insert(then.end(), std::make_move_iterator(other.then.begin()), std::make_move_iterator(other.then.end()));
}

void CollectiveBackend::startCoalescing() {
  TORCH_CHECK(!coalescing_.active, "startCoalescing: a coalesced group is open already");
  coalescing_ = Coalescing{true, std::nullopt, {}};
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::endCoalescing() {
  TORCH_CHECK(coalescing_.active, "endCoalescing without startCoalescing");
  Coalescing group = std::move(coalescing_);
  coalescing_ = Coalescing{};
  if (!group.device) return {};  // nothing was called in it
  Channel& ch = channel(*group.device);
  const c10::DeviceGuard device_guard(*group.device);
  const c10::StreamGuard stream_guard(ch.stream);
  ch.comm->group_end();
  for (const auto& step : group.pending.then) step();
  return make_work(ch, c10d::OpType::COALESCED, "coalesced", std::move(group.outputs), false);
}

uint64_t CollectiveBackend::getSequenceNumberForGroup() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return sequence_;
}

void CollectiveBackend::eagerConnectSingleDevice(at::Device device) { channel(device); }

c10d::ErrorType CollectiveBackend::getError() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void CollectiveBackend::abort() {
  const std::lock_guard<std::mutex> lock(channel_mutex_);
  aborted_ = true;
  for (auto& [index, ch] : channels_) ch.comm->abort();
}

void CollectiveBackend::shutdown() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void CollectiveBackend::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    std::vector<std::pair<c10::intrusive_ptr<CollectiveWork>, std::string>> failed;
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      const std::string error = (*it)->communicator_error();
      if (!error.empty()) {
        failed.emplace_back(*it, "the communicator failed: " + error);
      } else if (!(*it)->ran() && (*it)->timed_out()) {
        failed.emplace_back(*it, "it ran longer than the process group's timeout");
      } else if (!(*it)->ran()) {
        ++it;
        continue;
      }
      it = in_flight_.erase(it);
    }
    if (failed.empty()) continue;
    error_ = c10d::ErrorType::COMM_ERROR;
    lock.unlock();
    for (const auto& [work, what] : failed) handle_failure(*work, what);
    lock.lock();
  }
}

void CollectiveBackend::handle_failure(CollectiveWork& work, const std::string& what) {
  work.fail(what);
  std::fprintf(stderr, "[%s rank %d] process group watchdog: %s: %s\n", options_->backend.c_str(), getRank(),
               work.describe().c_str(), what.c_str());
  if (error_handling_ == 2) abort();
  if (error_handling_ == 1 || error_handling_ == 3) {
    std::fprintf(stderr,
                 "[%s rank %d] To avoid data inconsistency, the process is taken down "
                 "(TORCH_NCCL_ASYNC_ERROR_HANDLING=%d; 0 only fails the work).\n",
                 options_->backend.c_str(), getRank(), error_handling_);
    std::fflush(stderr);
    std::abort();
  }
}

}  // namespace torch_core::distributed
