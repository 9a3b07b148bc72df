#include "torch_core/csrc/simulated/simulated_communicator.h"

#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <pybind11/chrono.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/utils/pybind.h>

#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_core::simulated_device {
namespace {

namespace py = pybind11;
using distributed::CommDataType;
using distributed::CommReduceOp;
using distributed::Communicator;

at::ScalarType scalar_type(CommDataType type) {
  switch (type) {
    case CommDataType::kInt8: return at::kChar;
    case CommDataType::kUint8: return at::kByte;
    case CommDataType::kInt32: return at::kInt;
    case CommDataType::kInt64: return at::kLong;
    case CommDataType::kFloat16: return at::kHalf;
    case CommDataType::kFloat32: return at::kFloat;
    case CommDataType::kFloat64: return at::kDouble;
    case CommDataType::kBFloat16: return at::kBFloat16;
  }
  return at::kByte;
}

// A device buffer (host memory on a simulated device) as a CPU tensor gloo can read.
at::Tensor host_view(const void* data, std::size_t count, CommDataType type) {
  return at::from_blob(const_cast<void*>(data), {static_cast<int64_t>(count)}, at::TensorOptions(scalar_type(type)));
}

// gloo has no average: the sum, divided by the group's size in the data type (NCCL's).
c10d::ReduceOp gloo_op(CommReduceOp op) {
  switch (op) {
    case CommReduceOp::kSum:
    case CommReduceOp::kAvg: return c10d::ReduceOp::SUM;
    case CommReduceOp::kProduct: return c10d::ReduceOp::PRODUCT;
    case CommReduceOp::kMin: return c10d::ReduceOp::MIN;
    case CommReduceOp::kMax: return c10d::ReduceOp::MAX;
  }
  return c10d::ReduceOp::SUM;
}

void finish_average(at::Tensor& t, CommReduceOp op, int size) {
  if (op != CommReduceOp::kAvg) return;
  if (at::isFloatingType(t.scalar_type())) {
    t.div_(size);
  } else {
    t.div_(size, "trunc");
  }
}

// What the work items of one communicator share: its transport, the sends still in
// flight, and its first error.
struct State {
  c10::intrusive_ptr<c10d::Backend> transport;
  std::chrono::milliseconds timeout;
  // Sends whose data left the caller's buffer (a copy) but not yet this process; only the
  // stream's worker touches them.
  std::vector<c10::intrusive_ptr<c10d::Work>> sends_in_flight;
  std::mutex mutex;
  std::string error;  // guarded by mutex
  bool aborted = false;

  bool stopped() {
    const std::lock_guard<std::mutex> lock(mutex);
    return aborted || !error.empty();
  }
  void fail(const std::string& what) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (error.empty()) error = what;
  }
  void wait(const c10::intrusive_ptr<c10d::Work>& work) const { work->wait(timeout); }
  // Forgets the sends that completed; one that failed fails the communicator.
  void reap_sends() {
    std::vector<c10::intrusive_ptr<c10d::Work>> pending;
    for (auto& work : sends_in_flight) {
      if (!work->isCompleted()) {
        pending.push_back(std::move(work));
      } else if (!work->isSuccess()) {
        work->wait(timeout);  // rethrows its error
      }
    }
    sends_in_flight = std::move(pending);
  }
};

struct PointToPoint {
  bool is_send;
  void* data;
  std::size_t count;
  CommDataType type;
  int peer;
};

class SimulatedCommunicator final : public Communicator {
 public:
  SimulatedCommunicator(c10::DeviceType device_type, int rank, int size, std::shared_ptr<State> state)
      : device_type_(device_type), rank_(rank), size_(size), state_(std::move(state)) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void all_reduce(const void* input, void* output, std::size_t count, CommDataType type, CommReduceOp op,
                  StreamHandle stream) override {
    submit(stream, [=, size = size_](State& state) {
      copy_if_apart(input, output, count, type);
      at::Tensor t = host_view(output, count, type);
      std::vector<at::Tensor> tensors{t};
      c10d::AllreduceOptions opts;
      opts.reduceOp = gloo_op(op);
      state.wait(state.transport->allreduce(tensors, opts));
      finish_average(t, op, size);
    });
  }

  void broadcast(const void* input, void* output, std::size_t count, CommDataType type, int root,
                 StreamHandle stream) override {
    submit(stream, [=, rank = rank_](State& state) {
      if (rank == root) copy_if_apart(input, output, count, type);
      std::vector<at::Tensor> tensors{host_view(output, count, type)};
      c10d::BroadcastOptions opts;
      opts.rootRank = root;
      state.wait(state.transport->broadcast(tensors, opts));
    });
  }

  void reduce(const void* input, void* output, std::size_t count, CommDataType type, CommReduceOp op, int root,
              StreamHandle stream) override {
    submit(stream, [=, rank = rank_, size = size_](State& state) {
      // On a scratch copy: only the root's output is written (gloo may use the others').
      at::Tensor scratch = host_view(input, count, type).clone();
      std::vector<at::Tensor> tensors{scratch};
      c10d::ReduceOptions opts;
      opts.reduceOp = gloo_op(op);
      opts.rootRank = root;
      state.wait(state.transport->reduce(tensors, opts));
      if (rank != root) return;
      finish_average(scratch, op, size);
      host_view(output, count, type).copy_(scratch);
    });
  }

  void all_gather(const void* input, void* output, std::size_t count, CommDataType type,
                  StreamHandle stream) override {
    submit(stream, [=, size = size_](State& state) {
      at::Tensor out = host_view(output, count * size, type);
      std::vector<std::vector<at::Tensor>> outputs(1);
      for (int r = 0; r < size; ++r) {
        outputs[0].push_back(out.narrow(0, static_cast<int64_t>(r * count), static_cast<int64_t>(count)));
      }
      std::vector<at::Tensor> inputs{host_view(input, count, type).clone()};
      state.wait(state.transport->allgather(outputs, inputs, c10d::AllgatherOptions()));
    });
  }

  void reduce_scatter(const void* input, void* output, std::size_t count, CommDataType type, CommReduceOp op,
                      StreamHandle stream) override {
    submit(stream, [=, rank = rank_, size = size_](State& state) {
      // An allreduce of the whole input on a scratch copy; this rank keeps its slice.
      at::Tensor scratch = host_view(input, count * size, type).clone();
      std::vector<at::Tensor> tensors{scratch};
      c10d::AllreduceOptions opts;
      opts.reduceOp = gloo_op(op);
      state.wait(state.transport->allreduce(tensors, opts));
      at::Tensor mine = scratch.narrow(0, static_cast<int64_t>(rank * count), static_cast<int64_t>(count));
      finish_average(mine, op, size);
      host_view(output, count, type).copy_(mine);
    });
  }

  void group_start() override { ++group_depth_; }

  void group_end() override {
    TORCH_CHECK(group_depth_ > 0, "group_end without group_start");
    if (--group_depth_ > 0 || pending_.empty()) return;
    std::vector<PointToPoint> calls = std::move(pending_);
    pending_.clear();
    submit(group_stream_, [calls = std::move(calls), rank = rank_](State& state) { exchange(state, calls, rank); });
  }

  void send(const void* input, std::size_t count, CommDataType type, int peer, StreamHandle stream) override {
    point_to_point({true, const_cast<void*>(input), count, type, peer}, stream);
  }

  void recv(void* output, std::size_t count, CommDataType type, int peer, StreamHandle stream) override {
    point_to_point({false, output, count, type, peer}, stream);
  }

  std::string async_error() override {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->error;
  }

  void abort() override {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    state_->aborted = true;
    if (state_->error.empty()) state_->error = "the communicator was aborted";
  }

 private:
  // Queues `call` on the stream; it is skipped once the communicator has failed.
  void submit(StreamHandle stream, std::function<void(State&)> call) {
    enqueue(device_type_, stream, [state = state_, call = std::move(call)] {
      if (state->stopped()) return;
      try {
        state->reap_sends();
        call(*state);
      } catch (const std::exception& e) {
        state->fail(e.what());
      }
    });
  }

  void point_to_point(const PointToPoint& call, StreamHandle stream) {
    if (group_depth_ > 0) {
      group_stream_ = stream;
      pending_.push_back(call);
      return;
    }
    submit(stream, [call, rank = rank_](State& state) { exchange(state, {call}, rank); });
  }

  static void copy_if_apart(const void* input, void* output, std::size_t count, CommDataType type) {
    if (input != output) std::memmove(output, input, count * distributed::element_size(type));
  }

  // Every send and receive posted before any is waited for (gloo's are asynchronous), as
  // NCCL's grouped calls; this rank's sends to itself are matched to its receives in order.
  // A send completes on the stream once its data is copied out of the caller's buffer, as
  // a NCCL send does once the data is in the peer's buffers: a ring of single sends and
  // receives does not wait on itself.
  static void exchange(State& state, const std::vector<PointToPoint>& calls, int rank) {
    std::vector<const PointToPoint*> to_self, from_self;
    std::vector<c10::intrusive_ptr<c10d::Work>> receives;
    for (const PointToPoint& call : calls) {
      if (call.peer == rank) {
        (call.is_send ? to_self : from_self).push_back(&call);
        continue;
      }
      at::Tensor buffer = host_view(call.data, call.count, call.type);
      if (call.is_send) {
        std::vector<at::Tensor> copy{buffer.clone()};  // the work keeps it alive
        state.sends_in_flight.push_back(state.transport->send(copy, call.peer, 0));
      } else {
        std::vector<at::Tensor> tensors{buffer};
        receives.push_back(state.transport->recv(tensors, call.peer, 0));
      }
    }
    TORCH_CHECK(to_self.size() == from_self.size(), "a rank's sends to itself and receives from itself must pair up");
    for (std::size_t i = 0; i < to_self.size(); ++i) {
      const PointToPoint& into = *from_self[i];
      std::memmove(into.data, to_self[i]->data, into.count * distributed::element_size(into.type));
    }
    for (const auto& work : receives) state.wait(work);
  }

  c10::DeviceType device_type_;
  int rank_;
  int size_;
  std::shared_ptr<State> state_;
  int group_depth_ = 0;
  std::vector<PointToPoint> pending_;
  StreamHandle group_stream_ = nullptr;
};

}  // namespace

distributed::CommunicatorFactory communicator_factory(c10::DeviceType device_type) {
  return [device_type](const c10::intrusive_ptr<c10d::Store>& store, const std::string& key, int rank, int size,
                       c10::Device /*device*/, std::chrono::milliseconds timeout) -> std::unique_ptr<Communicator> {
    auto state = std::make_shared<State>();
    state->timeout = timeout;
    {
      const py::gil_scoped_acquire gil;
      const py::module_ dist = py::module_::import("torch.distributed");
      const py::object prefixed = dist.attr("PrefixStore")(key + "/", py::cast(store));
      // On loopback whatever the host's name resolves to: the ranks share this machine.
      const py::object gloo_class = dist.attr("ProcessGroupGloo");
      py::object options = gloo_class.attr("_Options")();
      py::list devices;
      devices.append(gloo_class.attr("create_device")(py::arg("hostname") = "127.0.0.1"));
      options.attr("_devices") = devices;
      options.attr("_timeout") = timeout;
      const py::object gloo = gloo_class(prefixed, rank, size, options);
      state->transport = gloo.cast<c10::intrusive_ptr<c10d::Backend>>();
    }
    return std::make_unique<SimulatedCommunicator>(device_type, rank, size, std::move(state));
  };
}

}  // namespace torch_core::simulated_device
