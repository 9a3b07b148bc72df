// CollectiveBackend's calls (collective_backend.h): each checks its tensors and queues
// its communicator calls through run().
#include <algorithm>
#include <numeric>
#include <utility>

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>
#include <c10/util/irange.h>

#include "torch_core/csrc/distributed/collective_arguments.h"
#include "torch_core/csrc/distributed/collective_backend.h"

namespace torch_core::distributed {

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

}  // namespace torch_core::distributed
