#include "torch_core/csrc/distributed/host_staging_backend.h"

#include <cstddef>
#include <cstdint>
#include <utility>

#include <ATen/ops/cat.h>
#include <c10/util/Exception.h>
#include <c10/util/irange.h>

#include "torch_core/csrc/distributed/host_staged_work.h"

namespace torch_core {
namespace {

// The host backend's `call` on pinned copies of `inputs`, writing pinned buffers like
// `outputs`; the work then copies those buffers into `outputs` (HostStagedWork).
template <typename Call>
c10::intrusive_ptr<c10d::Work> staged(const std::vector<at::Tensor>& inputs,
                                      const std::vector<at::Tensor>& outputs, int rank,
                                      c10d::OpType op_type, const char* profiling_title,
                                      Call call) {
  std::vector<at::Tensor> host_inputs = pinned_host_copies(inputs);
  std::vector<at::Tensor> host_outputs = pinned_host_like(outputs);
  auto host_work = call(host_inputs, host_outputs);
  return c10::make_intrusive<HostStagedWork>(std::move(host_work), std::move(host_outputs),
                                             outputs, rank, op_type, profiling_title);
}

// A collective that works in place (broadcast, reduce, allreduce): `tensors` are its
// inputs and its outputs.
template <typename Call>
c10::intrusive_ptr<c10d::Work> staged_in_place(const std::vector<at::Tensor>& tensors, int rank,
                                               c10d::OpType op_type, const char* profiling_title,
                                               Call call) {
  std::vector<at::Tensor> host = pinned_host_copies(tensors);
  auto host_work = call(host);
  return c10::make_intrusive<HostStagedWork>(std::move(host_work), std::move(host), tensors, rank,
                                             op_type, profiling_title);
}

std::vector<at::Tensor> flatten(const std::vector<std::vector<at::Tensor>>& nested) {
  std::vector<at::Tensor> flat;
  for (const auto& list : nested) flat.insert(flat.end(), list.begin(), list.end());
  return flat;
}

// `flat` (flatten(like)'s order) in the lists of `like`.
std::vector<std::vector<at::Tensor>> nest_like(const std::vector<at::Tensor>& flat,
                                               const std::vector<std::vector<at::Tensor>>& like) {
  std::vector<std::vector<at::Tensor>> nested;
  auto next = flat.begin();
  for (const auto& list : like) {
    nested.emplace_back(next, next + static_cast<std::ptrdiff_t>(list.size()));
    next += static_cast<std::ptrdiff_t>(list.size());
  }
  return nested;
}

c10d::AllreduceOptions allreduce_options(const c10d::ReduceScatterOptions& opts) {
  c10d::AllreduceOptions allreduce;
  allreduce.reduceOp = opts.reduceOp;
  allreduce.timeout = opts.timeout;
  allreduce.asyncOp = opts.asyncOp;
  return allreduce;
}

}  // namespace

HostStagingBackend::HostStagingBackend(c10::intrusive_ptr<c10d::Backend> host_backend)
    : c10d::Backend(host_backend->getRank(), host_backend->getSize()),
      host_(std::move(host_backend)) {}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::allreduce(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  TORCH_CHECK(!tensors.empty(), "allreduce: requires at least one tensor");
  if (tensors[0].layout() != at::kStrided) {  // the host backend names what it supports
    return host_->allreduce(tensors, opts);
  }
  return staged_in_place(tensors, getRank(), c10d::OpType::ALLREDUCE, "host_staging:all_reduce",
                         [&](std::vector<at::Tensor>& host) { return host_->allreduce(host, opts); });
}

// Every reduce_scatter: each pair's input (world size times its output's elements, rank
// r's share at r * numel) laid end to end in one buffer, reduced by one host allreduce;
// each output then takes its rank's share.
static c10::intrusive_ptr<c10d::Work> reduce_scatter_via_allreduce(
    c10d::Backend& host, const std::vector<at::Tensor>& outputs,
    const std::vector<at::Tensor>& flat_inputs, const c10d::ReduceScatterOptions& opts,
    c10d::OpType op_type) {
  const int64_t rank = host.getRank();
  const int64_t world = host.getSize();
  TORCH_CHECK(!outputs.empty() && outputs.size() == flat_inputs.size(),
              "reduce_scatter: requires as many inputs as outputs, and at least one");
  std::vector<int64_t> offsets;  // of each pair's input in the buffer
  int64_t offset = 0;
  for (const auto i : c10::irange(outputs.size())) {
    TORCH_CHECK(outputs[i].scalar_type() == flat_inputs[0].scalar_type() &&
                    flat_inputs[i].scalar_type() == flat_inputs[0].scalar_type(),
                "reduce_scatter: all inputs and outputs must have one dtype, got ",
                flat_inputs[0].scalar_type(), " and ", outputs[i].scalar_type());
    TORCH_CHECK(flat_inputs[i].numel() == outputs[i].numel() * world,
                "reduce_scatter: the input must have world size (", world,
                ") times the output's elements, got ", flat_inputs[i].numel(), " for ",
                outputs[i].numel());
    offsets.push_back(offset);
    offset += flat_inputs[i].numel();
  }
  std::vector<at::Tensor> host_buffer =
      pinned_host_copies({flat_inputs.size() == 1 ? flat_inputs[0] : at::cat(flat_inputs)});
  auto host_work = host.allreduce(host_buffer, allreduce_options(opts));
  std::vector<at::Tensor> shares;  // this rank's share of each reduced input
  for (const auto i : c10::irange(outputs.size())) {
    const int64_t numel = outputs[i].numel();
    shares.push_back(
        host_buffer[0].narrow(0, offsets[i] + rank * numel, numel).view(outputs[i].sizes()));
  }
  return c10::make_intrusive<HostStagedWork>(std::move(host_work), std::move(shares), outputs,
                                             static_cast<int>(rank), op_type,
                                             "host_staging:reduce_scatter");
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::reduce_scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  TORCH_CHECK(inputs.size() == outputs.size(),
              "reduce_scatter: requires one input list per output");
  std::vector<at::Tensor> flat_inputs;
  for (const auto i : c10::irange(inputs.size())) {
    TORCH_CHECK(static_cast<int64_t>(inputs[i].size()) == getSize(),
                "reduce_scatter: requires one input per rank (", getSize(), "), got ",
                inputs[i].size());
    std::vector<at::Tensor> flat;
    for (const at::Tensor& input : inputs[i]) {
      TORCH_CHECK(input.numel() == outputs[i].numel(),
                  "reduce_scatter: each input must have the output's elements");
      flat.push_back(input.reshape({-1}));
    }
    flat_inputs.push_back(at::cat(flat));
  }
  return reduce_scatter_via_allreduce(*host_, outputs, flat_inputs, opts,
                                      c10d::OpType::REDUCE_SCATTER);
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  return reduce_scatter_via_allreduce(*host_, {output}, {input.reshape({-1})}, opts,
                                      c10d::OpType::_REDUCE_SCATTER_BASE);
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  std::vector<at::Tensor> flat_inputs;
  for (const at::Tensor& input : inputs) {
    flat_inputs.push_back(input.reshape({-1}));
  }
  return reduce_scatter_via_allreduce(*host_, outputs, flat_inputs, opts,
                                      c10d::OpType::REDUCE_SCATTER_TENSOR_COALESCED);
}

const std::string HostStagingBackend::getBackendName() const { return host_->getBackendName(); }

c10::intrusive_ptr<c10d::Backend::Options> HostStagingBackend::getBackendOptions() {
  return host_->getBackendOptions();
}

void HostStagingBackend::setTimeout(std::chrono::milliseconds timeout) {
  host_->setTimeout(timeout);
}

void HostStagingBackend::startCoalescing() { host_->startCoalescing(); }

c10::intrusive_ptr<c10d::Work> HostStagingBackend::endCoalescing() {
  return host_->endCoalescing();
}

bool HostStagingBackend::supportsCoalescing() const { return host_->supportsCoalescing(); }

c10::intrusive_ptr<c10d::Work> HostStagingBackend::broadcast(
    std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  return staged_in_place(tensors, getRank(), c10d::OpType::BROADCAST, "host_staging:broadcast",
                         [&](std::vector<at::Tensor>& host) { return host_->broadcast(host, opts); });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::allreduce_sparse(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  return host_->allreduce_sparse(tensors, opts);
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::allreduce_coalesced(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  return staged_in_place(tensors, getRank(), c10d::OpType::ALLREDUCE_COALESCED,
                         "host_staging:all_reduce_coalesced", [&](std::vector<at::Tensor>& host) {
                           return host_->allreduce_coalesced(host, opts);
                         });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::reduce(std::vector<at::Tensor>& tensors,
                                                          const c10d::ReduceOptions& opts) {
  return staged_in_place(tensors, getRank(), c10d::OpType::REDUCE, "host_staging:reduce",
                         [&](std::vector<at::Tensor>& host) { return host_->reduce(host, opts); });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::allgather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& opts) {
  return staged(inputs, flatten(outputs), getRank(), c10d::OpType::ALLGATHER,
                "host_staging:all_gather",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  auto nested = nest_like(host_outputs, outputs);
                  return host_->allgather(nested, host_inputs, opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::_allgather_base(
    at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts) {
  return staged({input}, {output}, getRank(), c10d::OpType::_ALLGATHER_BASE,
                "host_staging:_all_gather_base",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  return host_->_allgather_base(host_outputs[0], host_inputs[0], opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& opts) {
  return staged(inputs, flatten(outputs), getRank(), c10d::OpType::ALLGATHER_COALESCED,
                "host_staging:all_gather_coalesced",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  auto nested = nest_like(host_outputs, outputs);
                  return host_->allgather_coalesced(nested, host_inputs, opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::allgather_into_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& opts) {
  return staged(inputs, outputs, getRank(), c10d::OpType::COALESCED,
                "host_staging:all_gather_into_tensor_coalesced",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  return host_->allgather_into_tensor_coalesced(host_outputs, host_inputs, opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::gather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::GatherOptions& opts) {
  return staged(inputs, flatten(outputs), getRank(), c10d::OpType::GATHER, "host_staging:gather",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  auto nested = nest_like(host_outputs, outputs);
                  return host_->gather(nested, host_inputs, opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  return staged(flatten(inputs), outputs, getRank(), c10d::OpType::SCATTER,
                "host_staging:scatter",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  auto nested = nest_like(host_inputs, inputs);
                  return host_->scatter(host_outputs, nested, opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::alltoall_base(
    at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_split_sizes,
    std::vector<int64_t>& input_split_sizes, const c10d::AllToAllOptions& opts) {
  return staged({input}, {output}, getRank(), c10d::OpType::ALLTOALL_BASE,
                "host_staging:all_to_all_base",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  return host_->alltoall_base(host_outputs[0], host_inputs[0], output_split_sizes,
                                              input_split_sizes, opts);
                });
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::alltoall(std::vector<at::Tensor>& outputs,
                                                            std::vector<at::Tensor>& inputs,
                                                            const c10d::AllToAllOptions& opts) {
  return staged(inputs, outputs, getRank(), c10d::OpType::ALLTOALL, "host_staging:all_to_all",
                [&](std::vector<at::Tensor>& host_inputs, std::vector<at::Tensor>& host_outputs) {
                  return host_->alltoall(host_outputs, host_inputs, opts);
                });
}

void HostStagingBackend::monitoredBarrier(const c10d::BarrierOptions& opts, bool wait_all_ranks) {
  host_->monitoredBarrier(opts, wait_all_ranks);
}

void HostStagingBackend::setSequenceNumberForGroup() { host_->setSequenceNumberForGroup(); }

uint64_t HostStagingBackend::getSequenceNumberForGroup() {
  return host_->getSequenceNumberForGroup();
}

// gloo's send and receive read and write the tensor's memory from its own thread, outside
// any stream order: staged, a send reads what the caller's stream wrote, and a receive's
// result lands on the caller's stream.
c10::intrusive_ptr<c10d::Work> HostStagingBackend::send(std::vector<at::Tensor>& tensors,
                                                        int dst_rank, int tag) {
  std::vector<at::Tensor> host = pinned_host_copies(tensors);
  auto host_work = host_->send(host, dst_rank, tag);
  return c10::make_intrusive<HostStagedP2PWork>(std::move(host_work), std::move(host),
                                                std::vector<at::Tensor>{}, getRank(),
                                                c10d::OpType::SEND);
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::recv(std::vector<at::Tensor>& tensors,
                                                        int src_rank, int tag) {
  std::vector<at::Tensor> host = pinned_host_like(tensors);
  auto host_work = host_->recv(host, src_rank, tag);
  return c10::make_intrusive<HostStagedP2PWork>(std::move(host_work), std::move(host), tensors,
                                                getRank(), c10d::OpType::RECV);
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::recvAnysource(std::vector<at::Tensor>& tensors,
                                                                 int tag) {
  std::vector<at::Tensor> host = pinned_host_like(tensors);
  auto host_work = host_->recvAnysource(host, tag);
  return c10::make_intrusive<HostStagedP2PWork>(std::move(host_work), std::move(host), tensors,
                                                getRank(), c10d::OpType::RECVANYSOURCE);
}

c10::intrusive_ptr<c10d::Work> HostStagingBackend::barrier(const c10d::BarrierOptions& opts) {
  return host_->barrier(opts);
}

void HostStagingBackend::waitForPendingWorks() { host_->waitForPendingWorks(); }

void HostStagingBackend::setGroupUid(const std::string& pg_uid) {
  c10d::Backend::setGroupUid(pg_uid);
  host_->setGroupUid(pg_uid);
}

void HostStagingBackend::eagerConnectSingleDevice(at::Device device) {
  host_->eagerConnectSingleDevice(device);
}

c10d::ErrorType HostStagingBackend::getError() { return host_->getError(); }

void HostStagingBackend::abort() { host_->abort(); }

void HostStagingBackend::shutdown() { host_->shutdown(); }

}  // namespace torch_core
