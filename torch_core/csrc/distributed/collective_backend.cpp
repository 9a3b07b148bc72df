#include "torch_core/csrc/distributed/collective_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <utility>

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>
#include <c10/util/irange.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include "torch_core/csrc/device/backend.h"

namespace torch_core::distributed {
namespace {

CommDataType comm_type(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kChar: return CommDataType::kInt8;
    case at::kByte:
    case at::kBool: return CommDataType::kUint8;
    case at::kInt: return CommDataType::kInt32;
    case at::kLong: return CommDataType::kInt64;
    case at::kHalf: return CommDataType::kFloat16;
    case at::kFloat: return CommDataType::kFloat32;
    case at::kDouble: return CommDataType::kFloat64;
    case at::kBFloat16: return CommDataType::kBFloat16;
    default: break;
  }
  C10_THROW_ERROR(TypeError, std::string("Input tensor data type is not supported for this process group: ") +
                                 c10::toString(t.scalar_type()));
}

// Stock's mapping (getNcclReduceOp): booleans reduce as bytes, SUM as MAX and PRODUCT as MIN.
CommReduceOp comm_op(const c10d::ReduceOp& op, const at::Tensor& t) {
  const bool is_bool = t.scalar_type() == at::kBool;
  switch (op.op_) {
    case c10d::ReduceOp::SUM: return is_bool ? CommReduceOp::kMax : CommReduceOp::kSum;
    case c10d::ReduceOp::PRODUCT: return is_bool ? CommReduceOp::kMin : CommReduceOp::kProduct;
    case c10d::ReduceOp::MIN: return CommReduceOp::kMin;
    case c10d::ReduceOp::MAX: return CommReduceOp::kMax;
    case c10d::ReduceOp::AVG:
      if (is_bool) C10_THROW_ERROR(TypeError, "Cannot use ReduceOp.AVG with boolean inputs");
      return CommReduceOp::kAvg;
    case c10d::ReduceOp::PREMUL_SUM:
      TORCH_CHECK_TYPE(at::isFloatingType(t.scalar_type()), "ReduceOp.PREMUL_SUM needs floating-point tensors, got ",
                       t.scalar_type());
      return CommReduceOp::kSum;  // of the inputs times the factor (premultiplied)
    case c10d::ReduceOp::BAND:
      C10_THROW_ERROR(ValueError, "Cannot use ReduceOp.BAND with this process group");
    case c10d::ReduceOp::BOR:
      C10_THROW_ERROR(ValueError, "Cannot use ReduceOp.BOR with this process group");
    case c10d::ReduceOp::BXOR:
      C10_THROW_ERROR(ValueError, "Cannot use ReduceOp.BXOR with this process group");
    default:
      break;
  }
  C10_THROW_ERROR(ValueError, "Unknown ReduceOp");
}

// What a rank contributes to a reduction: its input, or under PREMUL_SUM (stock:
// ncclRedOpCreatePreMulSum) a copy times the factor, made on the communication stream
// (the caller's input stays as it was).
at::Tensor premultiplied(const c10d::ReduceOp& op, const at::Tensor& input) {
  if (op.op_ != c10d::ReduceOp::PREMUL_SUM) return input;
  const auto factor = c10::static_intrusive_pointer_cast<c10d::PreMulSumSupplement>(op.supplement_);
  TORCH_CHECK_VALUE(factor, "ReduceOp.PREMUL_SUM without a factor: make one with ",
                    "torch.distributed._make_nccl_premul_sum(factor)");
  return factor->tensor_factor.defined() ? input * factor->tensor_factor : input * factor->double_factor;
}

std::size_t count(const at::Tensor& t) { return static_cast<std::size_t>(t.numel()); }

// What stock's ProcessGroupNCCL asks of every tensor (check_gpu_single_tensor).
void check_tensor(const at::Tensor& t, c10::DeviceType device_type) {
  if (t.device().type() != device_type || t.layout() != at::kStrided) {
    C10_THROW_ERROR(ValueError, "Tensors must be " + c10::DeviceTypeName(device_type, /*lower_case=*/false) +
                                    " and dense");
  }
  if (!t.is_contiguous(t.suggest_memory_format())) C10_THROW_ERROR(ValueError, "Tensors must be contiguous");
}

const at::Tensor& single(const std::vector<at::Tensor>& tensors, c10::DeviceType device_type) {
  if (tensors.size() != 1) {
    C10_THROW_ERROR(ValueError, "Expecting one tensor per process (one device per process), got " +
                                    std::to_string(tensors.size()));
  }
  check_tensor(tensors[0], device_type);
  return tensors[0];
}

void check_same(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK_VALUE(a.device() == b.device(), "Tensors must be on the same device, got ", a.device(), " and ",
                    b.device());
  TORCH_CHECK_TYPE(a.scalar_type() == b.scalar_type(), "Tensors must have the same dtype, got ", a.scalar_type(),
                   " and ", b.scalar_type());
}

char* bytes(const at::Tensor& t) { return static_cast<char*>(t.data_ptr()); }

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

c10::intrusive_ptr<c10d::Work> CollectiveBackend::broadcast(std::vector<at::Tensor>& tensors,
                                                            const c10d::BroadcastOptions& opts) {
  const at::Tensor& t = single(tensors, device_type_);
  return run(t.device(), c10d::OpType::BROADCAST, "broadcast", {t}, {t},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.broadcast(t.data_ptr(), t.data_ptr(), count(t), comm_type(t), static_cast<int>(opts.rootRank), s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::allreduce(std::vector<at::Tensor>& tensors,
                                                            const c10d::AllreduceOptions& opts) {
  const at::Tensor& t = single(tensors, device_type_);
  const CommReduceOp op = comm_op(opts.reduceOp, t);
  return run(t.device(), c10d::OpType::ALLREDUCE, "all_reduce", {t}, {t},
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               const at::Tensor in = pending.keep(premultiplied(opts.reduceOp, t));
               comm.all_reduce(in.data_ptr(), t.data_ptr(), count(t), comm_type(t), op, s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                      const c10d::AllreduceCoalescedOptions& opts) {
  TORCH_CHECK_VALUE(!tensors.empty(), "allreduce_coalesced: requires at least one tensor");
  for (const at::Tensor& t : tensors) {
    check_tensor(t, device_type_);
    check_same(t, tensors[0]);
  }
  const CommReduceOp op = comm_op(opts.reduceOp, tensors[0]);
  return run(tensors[0].device(), c10d::OpType::COALESCED, "allreduce_coalesced", tensors, tensors,
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               for (const at::Tensor& t : tensors) {
                 const at::Tensor in = pending.keep(premultiplied(opts.reduceOp, t));
                 comm.all_reduce(in.data_ptr(), t.data_ptr(), count(t), comm_type(t), op, s);
               }
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::reduce(std::vector<at::Tensor>& tensors,
                                                         const c10d::ReduceOptions& opts) {
  const at::Tensor& t = single(tensors, device_type_);
  const CommReduceOp op = comm_op(opts.reduceOp, t);
  return run(t.device(), c10d::OpType::REDUCE, "reduce", {t}, {t},
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               const at::Tensor in = pending.keep(premultiplied(opts.reduceOp, t));
               comm.reduce(in.data_ptr(), t.data_ptr(), count(t), comm_type(t), op, static_cast<int>(opts.rootRank), s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                            std::vector<at::Tensor>& inputs,
                                                            const c10d::AllgatherOptions& /*opts*/) {
  const at::Tensor& input = single(inputs, device_type_);
  TORCH_CHECK_VALUE(outputs.size() == 1 && outputs[0].size() == static_cast<std::size_t>(getSize()),
                    "allgather: expects one list of ", getSize(), " output tensors (the group's size)");
  std::vector<at::Tensor>& list = outputs[0];
  for (const at::Tensor& out : list) {
    TORCH_CHECK_VALUE(out.device() == input.device() && out.scalar_type() == input.scalar_type() &&
                          out.numel() == input.numel(),
                      "allgather: every output must be like the input (device, dtype, number of elements)");
  }
  std::vector<at::Tensor> touched = list;
  touched.push_back(input);
  return run(input.device(), c10d::OpType::ALLGATHER, "all_gather", touched, list,
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               // Gathered into one buffer, then copied out on this stream (stock's).
               const at::Tensor flat = pending.keep(at::empty({getSize() * input.numel()}, input.options()));
               comm.all_gather(input.data_ptr(), flat.data_ptr(), count(input), comm_type(input), s);
               pending.then.emplace_back([flat, list, n = input.numel(), size = getSize()] {
                 for (const auto r : c10::irange(size)) list[r].copy_(flat.narrow(0, r * n, n).view(list[r].sizes()));
               });
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                  const c10d::AllgatherOptions& /*opts*/) {
  check_tensor(input, device_type_);
  check_tensor(output, device_type_);
  check_same(input, output);
  TORCH_CHECK_VALUE(output.numel() == input.numel() * getSize(),
                    "output tensor size must be equal to world_size times input tensor size");
  return run(input.device(), c10d::OpType::_ALLGATHER_BASE, "_allgather_base", {input, output}, {output},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.all_gather(input.data_ptr(), output.data_ptr(), count(input), comm_type(input), s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::allgather_into_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions& /*opts*/) {
  TORCH_CHECK_VALUE(!inputs.empty() && inputs.size() == outputs.size(),
                    "allgather_into_tensor_coalesced: as many outputs as inputs, at least one");
  for (const auto i : c10::irange(inputs.size())) {
    check_tensor(inputs[i], device_type_);
    check_tensor(outputs[i], device_type_);
    check_same(inputs[i], outputs[i]);
    check_same(inputs[i], inputs[0]);
    TORCH_CHECK_VALUE(outputs[i].numel() == inputs[i].numel() * getSize(),
                      "output tensor size must be equal to world_size times input tensor size");
  }
  std::vector<at::Tensor> touched = inputs;
  touched.insert(touched.end(), outputs.begin(), outputs.end());
  return run(inputs[0].device(), c10d::OpType::COALESCED, "allgather_into_tensor_coalesced", touched, outputs,
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               for (const auto i : c10::irange(inputs.size())) {
                 comm.all_gather(inputs[i].data_ptr(), outputs[i].data_ptr(), count(inputs[i]),
                                 comm_type(inputs[i]), s);
               }
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                 std::vector<std::vector<at::Tensor>>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& output = single(outputs, device_type_);
  TORCH_CHECK_VALUE(inputs.size() == 1 && inputs[0].size() == static_cast<std::size_t>(getSize()),
                    "reduce_scatter: expects one list of ", getSize(), " input tensors (the group's size)");
  std::vector<at::Tensor>& list = inputs[0];
  for (const at::Tensor& in : list) {
    TORCH_CHECK_VALUE(in.device() == output.device() && in.scalar_type() == output.scalar_type() &&
                          in.numel() == output.numel(),
                      "reduce_scatter: every input must be like the output (device, dtype, number of elements)");
  }
  const CommReduceOp op = comm_op(opts.reduceOp, output);
  std::vector<at::Tensor> touched = list;
  touched.push_back(output);
  return run(output.device(), c10d::OpType::REDUCE_SCATTER, "reduce_scatter", touched, {output},
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               const at::Tensor flat = pending.keep(at::empty({getSize() * output.numel()}, output.options()));
               for (const auto r : c10::irange(getSize())) {
                 flat.narrow(0, r * output.numel(), output.numel()).copy_(list[r].reshape({-1}));
               }
               const at::Tensor in = pending.keep(premultiplied(opts.reduceOp, flat));
               comm.reduce_scatter(in.data_ptr(), output.data_ptr(), count(output), comm_type(output), op, s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                       const c10d::ReduceScatterOptions& opts) {
  check_tensor(input, device_type_);
  check_tensor(output, device_type_);
  check_same(input, output);
  TORCH_CHECK_VALUE(input.numel() == output.numel() * getSize(),
                    "input tensor must be the same size as output size times world size");
  const CommReduceOp op = comm_op(opts.reduceOp, output);
  return run(input.device(), c10d::OpType::_REDUCE_SCATTER_BASE, "_reduce_scatter_base", {input, output}, {output},
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               const at::Tensor in = pending.keep(premultiplied(opts.reduceOp, input));
               comm.reduce_scatter(in.data_ptr(), output.data_ptr(), count(output), comm_type(output), op, s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  TORCH_CHECK_VALUE(!inputs.empty() && inputs.size() == outputs.size(),
                    "reduce_scatter_tensor_coalesced: as many outputs as inputs, at least one");
  for (const auto i : c10::irange(inputs.size())) {
    check_tensor(inputs[i], device_type_);
    check_tensor(outputs[i], device_type_);
    check_same(inputs[i], outputs[i]);
    check_same(inputs[i], inputs[0]);
    TORCH_CHECK_VALUE(inputs[i].numel() == outputs[i].numel() * getSize(),
                      "input tensor must be the same size as output size times world size");
  }
  const CommReduceOp op = comm_op(opts.reduceOp, outputs[0]);
  std::vector<at::Tensor> touched = inputs;
  touched.insert(touched.end(), outputs.begin(), outputs.end());
  return run(inputs[0].device(), c10d::OpType::COALESCED, "reduce_scatter_tensor_coalesced", touched, outputs,
             [&](Communicator& comm, StreamHandle s, Pending& pending) {
               for (const auto i : c10::irange(inputs.size())) {
                 const at::Tensor in = pending.keep(premultiplied(opts.reduceOp, inputs[i]));
                 comm.reduce_scatter(in.data_ptr(), outputs[i].data_ptr(), count(outputs[i]), comm_type(outputs[i]),
                                     op, s);
               }
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                                std::vector<int64_t>& output_split_sizes,
                                                                std::vector<int64_t>& input_split_sizes,
                                                                const c10d::AllToAllOptions& /*opts*/) {
  check_tensor(input, device_type_);
  check_tensor(output, device_type_);
  check_same(input, output);
  const auto offsets = [&](const at::Tensor& t, const std::vector<int64_t>& splits, const char* which) {
    // Element counts and offsets per rank, along dim 0 (equal parts when no sizes are given).
    std::vector<std::size_t> counts(getSize()), starts(getSize());
    const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
    const std::size_t row = rows == 0 ? 0 : count(t) / static_cast<std::size_t>(rows);
    if (splits.empty()) {
      TORCH_CHECK_VALUE(rows % getSize() == 0, which, " tensor's dim 0 (", rows, ") must divide by the group's size");
      std::fill(counts.begin(), counts.end(), static_cast<std::size_t>(rows / getSize()) * row);
    } else {
      TORCH_CHECK_VALUE(splits.size() == static_cast<std::size_t>(getSize()) &&
                            std::accumulate(splits.begin(), splits.end(), int64_t{0}) == rows,
                        which, " split sizes must have one entry per rank and add up to dim 0 (", rows, ")");
      for (const auto r : c10::irange(getSize())) counts[r] = static_cast<std::size_t>(splits[r]) * row;
    }
    std::exclusive_scan(counts.begin(), counts.end(), starts.begin(), std::size_t{0});
    return std::make_pair(counts, starts);
  };
  const auto [in_counts, in_starts] = offsets(input, input_split_sizes, "input");
  const auto [out_counts, out_starts] = offsets(output, output_split_sizes, "output");
  const std::size_t esize = input.element_size();
  return run(input.device(), c10d::OpType::ALLTOALL_BASE, "all_to_all", {input, output}, {output},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               const CommDataType type = comm_type(input);
               comm.group_start();
               for (const auto r : c10::irange(getSize())) {
                 comm.send(bytes(input) + in_starts[r] * esize, in_counts[r], type, r, s);
                 comm.recv(bytes(output) + out_starts[r] * esize, out_counts[r], type, r, s);
               }
               comm.group_end();
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::alltoall(std::vector<at::Tensor>& outputs,
                                                           std::vector<at::Tensor>& inputs,
                                                           const c10d::AllToAllOptions& /*opts*/) {
  TORCH_CHECK_VALUE(inputs.size() == static_cast<std::size_t>(getSize()) && outputs.size() == inputs.size(),
                    "alltoall: expects ", getSize(), " input and output tensors (the group's size)");
  for (const auto r : c10::irange(getSize())) {
    check_tensor(inputs[r], device_type_);
    check_tensor(outputs[r], device_type_);
    check_same(inputs[r], inputs[0]);
    check_same(outputs[r], inputs[0]);
  }
  std::vector<at::Tensor> touched = inputs;
  touched.insert(touched.end(), outputs.begin(), outputs.end());
  return run(inputs[0].device(), c10d::OpType::ALLTOALL, "all_to_all", touched, outputs,
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.group_start();
               for (const auto r : c10::irange(getSize())) {
                 comm.send(inputs[r].data_ptr(), count(inputs[r]), comm_type(inputs[r]), r, s);
                 comm.recv(outputs[r].data_ptr(), count(outputs[r]), comm_type(outputs[r]), r, s);
               }
               comm.group_end();
             });
}

std::vector<at::Tensor> CollectiveBackend::root_list(const char* call,
                                                     const std::vector<std::vector<at::Tensor>>& lists,
                                                     const at::Tensor& like, bool is_root) const {
  if (!is_root) {
    TORCH_CHECK_VALUE(lists.empty() || (lists.size() == 1 && lists[0].empty()), call,
                      ": only the root passes a list of tensors");
    return {};
  }
  TORCH_CHECK_VALUE(lists.size() == 1 && lists[0].size() == static_cast<std::size_t>(getSize()), call,
                    ": the root passes one list of ", getSize(), " tensors (the group's size)");
  for (const at::Tensor& t : lists[0]) {
    check_tensor(t, device_type_);
    check_same(t, like);
    TORCH_CHECK_VALUE(t.numel() == like.numel(), call, ": the root's tensors must have ", like.numel(),
                      " elements, as this rank's");
  }
  return lists[0];
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                         std::vector<at::Tensor>& inputs,
                                                         const c10d::GatherOptions& opts) {
  const at::Tensor& input = single(inputs, device_type_);
  const int root = static_cast<int>(opts.rootRank);
  const bool is_root = getRank() == root;
  std::vector<at::Tensor> list = root_list("gather", outputs, input, is_root);
  std::vector<at::Tensor> touched = list;
  touched.push_back(input);
  return run(input.device(), c10d::OpType::GATHER, "gather", touched, list,
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.group_start();
               if (is_root) {
                 for (const auto r : c10::irange(getSize())) {
                   if (r == root) continue;
                   comm.recv(list[r].data_ptr(), count(list[r]), comm_type(list[r]), r, s);
                 }
               } else {
                 comm.send(input.data_ptr(), count(input), comm_type(input), root, s);
               }
               comm.group_end();
               if (is_root) list[root].copy_(input);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::scatter(std::vector<at::Tensor>& outputs,
                                                          std::vector<std::vector<at::Tensor>>& inputs,
                                                          const c10d::ScatterOptions& opts) {
  const at::Tensor& output = single(outputs, device_type_);
  const int root = static_cast<int>(opts.rootRank);
  const bool is_root = getRank() == root;
  std::vector<at::Tensor> list = root_list("scatter", inputs, output, is_root);
  std::vector<at::Tensor> touched = list;
  touched.push_back(output);
  return run(output.device(), c10d::OpType::SCATTER, "scatter", touched, {output},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.group_start();
               if (is_root) {
                 for (const auto r : c10::irange(getSize())) {
                   if (r == root) continue;
                   comm.send(list[r].data_ptr(), count(list[r]), comm_type(list[r]), r, s);
                 }
               } else {
                 comm.recv(output.data_ptr(), count(output), comm_type(output), root, s);
               }
               comm.group_end();
               if (is_root) output.copy_(list[root]);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::send(std::vector<at::Tensor>& tensors, int dst_rank,
                                                       int /*tag*/) {
  const at::Tensor& t = single(tensors, device_type_);
  return run(t.device(), c10d::OpType::SEND, "send", {t}, {t},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.send(t.data_ptr(), count(t), comm_type(t), dst_rank, s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::recv(std::vector<at::Tensor>& tensors, int src_rank,
                                                       int /*tag*/) {
  const at::Tensor& t = single(tensors, device_type_);
  return run(t.device(), c10d::OpType::RECV, "recv", {t}, {t},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.recv(t.data_ptr(), count(t), comm_type(t), src_rank, s);
             });
}

c10::intrusive_ptr<c10d::Work> CollectiveBackend::barrier(const c10d::BarrierOptions& opts) {
  c10::Device device(device_type_, c10::impl::VirtualGuardImpl(device_type_).getDevice().index());
  if (!opts.device_ids.empty()) {
    device = c10::Device(device_type_, static_cast<c10::DeviceIndex>(opts.device_ids[0]));
  } else if (opts.device.has_value() && opts.device->type() == device_type_) {
    device = *opts.device;
  } else {
    const std::lock_guard<std::mutex> lock(channel_mutex_);
    if (!channels_.empty()) device = c10::Device(device_type_, channels_.begin()->first);
  }
  at::Tensor one = at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(device));
  return run(device, c10d::OpType::BARRIER, "barrier", {one}, {one},
             [&](Communicator& comm, StreamHandle s, Pending& /*pending*/) {
               comm.all_reduce(one.data_ptr(), one.data_ptr(), 1, CommDataType::kFloat32, CommReduceOp::kSum, s);
             }, /*host_waits=*/true);
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
