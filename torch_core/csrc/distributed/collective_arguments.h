// The argument side of CollectiveBackend's calls (collective_backend.h): stock
// ProcessGroupNCCL's checks of the tensors it is given, and the translation of their dtype
// and reduction into the communicator's terms.
#pragma once

#include <cstddef>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include "torch_core/csrc/distributed/communicator.h"

namespace torch_core::distributed {

// The communicator's data type for `t`'s dtype (TypeError for one NCCL lacks).
CommDataType comm_type(const at::Tensor& t);

// The communicator's reduction for `op` on `t` (stock's mapping, getNcclReduceOp: booleans
// reduce as bytes, SUM as MAX and PRODUCT as MIN; PREMUL_SUM as a sum of premultiplied()
// inputs). ValueError or TypeError for what NCCL cannot do.
CommReduceOp comm_op(const c10d::ReduceOp& op, const at::Tensor& t);

// What a rank contributes to a reduction: its input, or under PREMUL_SUM (stock:
// ncclRedOpCreatePreMulSum) a copy times the factor, made on the current stream (the
// caller's input stays as it was).
at::Tensor premultiplied(const c10d::ReduceOp& op, const at::Tensor& input);

// What stock's ProcessGroupNCCL asks of every tensor (check_gpu_single_tensor): on the
// device type, dense, contiguous (ValueError otherwise).
void check_tensor(const at::Tensor& t, c10::DeviceType device_type);
// The one tensor of a call that takes one per process, checked.
const at::Tensor& single(const std::vector<at::Tensor>& tensors, c10::DeviceType device_type);
// Same device and dtype.
void check_same(const at::Tensor& a, const at::Tensor& b);

inline std::size_t count(const at::Tensor& t) { return static_cast<std::size_t>(t.numel()); }
inline char* bytes(const at::Tensor& t) { return static_cast<char*>(t.data_ptr()); }

}  // namespace torch_core::distributed
