#include "torch_core/csrc/distributed/collective_arguments.h"

#include <string>

#include <ATen/TensorOperators.h>
#include <c10/util/Exception.h>

namespace torch_core::distributed {

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

at::Tensor premultiplied(const c10d::ReduceOp& op, const at::Tensor& input) {
  if (op.op_ != c10d::ReduceOp::PREMUL_SUM) return input;
  const auto factor = c10::static_intrusive_pointer_cast<c10d::PreMulSumSupplement>(op.supplement_);
  TORCH_CHECK_VALUE(factor, "ReduceOp.PREMUL_SUM without a factor: make one with ",
                    "torch.distributed._make_nccl_premul_sum(factor)");
  return factor->tensor_factor.defined() ? input * factor->tensor_factor : input * factor->double_factor;
}


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

}  // namespace torch_core::distributed
