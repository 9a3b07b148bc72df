#include "torch_core/csrc/distributed/communicator.h"

namespace torch_core::distributed {

std::size_t element_size(CommDataType type) {
  switch (type) {
    case CommDataType::kInt8:
    case CommDataType::kUint8:
      return 1;
    case CommDataType::kFloat16:
    case CommDataType::kBFloat16:
      return 2;
    case CommDataType::kInt32:
    case CommDataType::kFloat32:
      return 4;
    case CommDataType::kInt64:
    case CommDataType::kFloat64:
      return 8;
  }
  return 0;
}

const char* name(CommDataType type) {
  switch (type) {
    case CommDataType::kInt8: return "int8";
    case CommDataType::kUint8: return "uint8";
    case CommDataType::kInt32: return "int32";
    case CommDataType::kInt64: return "int64";
    case CommDataType::kFloat16: return "float16";
    case CommDataType::kFloat32: return "float32";
    case CommDataType::kFloat64: return "float64";
    case CommDataType::kBFloat16: return "bfloat16";
  }
  return "?";
}

const char* name(CommReduceOp op) {
  switch (op) {
    case CommReduceOp::kSum: return "sum";
    case CommReduceOp::kProduct: return "product";
    case CommReduceOp::kMin: return "min";
    case CommReduceOp::kMax: return "max";
    case CommReduceOp::kAvg: return "avg";
  }
  return "?";
}

}  // namespace torch_core::distributed
