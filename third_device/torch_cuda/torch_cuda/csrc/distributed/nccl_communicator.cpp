#include "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_communicator.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>

namespace torch_cuda::distributed {
namespace {

[[noreturn]] void fail(ncclResult_t result, const char* call, const char* detail) {
  // NCCL's string already says to run with NCCL_DEBUG=INFO for its own account.
  std::string message = std::string("NCCL error: ") + ncclGetErrorString(result) + " from " + call;
  if (detail != nullptr && *detail != '\0') message += ": " + std::string(detail);
  throw std::runtime_error(message);
}

cudaStream_t cuda_stream(StreamHandle stream) { return static_cast<cudaStream_t>(stream); }

// NCCL's calls act on the current device: the communicator's, for the call.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    cudaGetDevice(&previous_);
    if (previous_ != device) cudaSetDevice(device);
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

NcclUniqueId make_nccl_unique_id() {
  ncclUniqueId id;
  const ncclResult_t result = ncclGetUniqueId(&id);
  if (result != ncclSuccess) fail(result, "ncclGetUniqueId", nullptr);
  NcclUniqueId bytes;
  std::copy(std::begin(id.internal), std::end(id.internal), bytes.begin());
  return bytes;
}

ncclDataType_t nccl_type(CommDataType type) {
  switch (type) {
    case CommDataType::kInt8: return ncclInt8;
    case CommDataType::kUint8: return ncclUint8;
    case CommDataType::kInt32: return ncclInt32;
    case CommDataType::kInt64: return ncclInt64;
    case CommDataType::kFloat16: return ncclFloat16;
    case CommDataType::kFloat32: return ncclFloat32;
    case CommDataType::kFloat64: return ncclFloat64;
    case CommDataType::kBFloat16: return ncclBfloat16;
  }
  throw std::invalid_argument("nccl_type: unknown data type");
}

ncclRedOp_t nccl_op(CommReduceOp op) {
  switch (op) {
    case CommReduceOp::kSum: return ncclSum;
    case CommReduceOp::kProduct: return ncclProd;
    case CommReduceOp::kMin: return ncclMin;
    case CommReduceOp::kMax: return ncclMax;
    case CommReduceOp::kAvg: return ncclAvg;
  }
  throw std::invalid_argument("nccl_op: unknown reduction");
}

long long nccl_version() {
  int version = 0;
  const ncclResult_t result = ncclGetVersion(&version);
  if (result != ncclSuccess) fail(result, "ncclGetVersion", nullptr);
  // NCCL 2.9 and later: major * 10000 + minor * 100 + patch.
  const long long major = version / 10000, minor = (version / 100) % 100, patch = version % 100;
  return (major << 32) | (minor << 16) | patch;
}

NcclCommunicator::NcclCommunicator(int device, int rank, int size, const NcclUniqueId& id)
    : device_(device), rank_(rank), size_(size) {
  ncclUniqueId unique;
  std::copy(id.begin(), id.end(), unique.internal);
  const DeviceScope scope(device_);
  const ncclResult_t result = ncclCommInitRank(&comm_, size_, unique, rank_);
  if (result != ncclSuccess) fail(result, "ncclCommInitRank", nullptr);
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ == nullptr) return;
  const DeviceScope scope(device_);
  // An aborted communicator is freed by the abort; a live one waits for its calls.
  if (!aborted_) ncclCommDestroy(comm_);
}

void NcclCommunicator::check(ncclResult_t result, const char* call) {
  if (result != ncclSuccess) fail(result, call, ncclGetLastError(comm_));
}

void NcclCommunicator::all_reduce(const void* input, void* output, std::size_t count, CommDataType type,
                                  CommReduceOp op, StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclAllReduce(input, output, count, nccl_type(type), nccl_op(op), comm_, cuda_stream(stream)),
        "ncclAllReduce");
}

void NcclCommunicator::broadcast(const void* input, void* output, std::size_t count, CommDataType type, int root,
                                 StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclBroadcast(input, output, count, nccl_type(type), root, comm_, cuda_stream(stream)), "ncclBroadcast");
}

void NcclCommunicator::reduce(const void* input, void* output, std::size_t count, CommDataType type,
                              CommReduceOp op, int root, StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclReduce(input, output, count, nccl_type(type), nccl_op(op), root, comm_, cuda_stream(stream)),
        "ncclReduce");
}

void NcclCommunicator::all_gather(const void* input, void* output, std::size_t count, CommDataType type,
                                  StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclAllGather(input, output, count, nccl_type(type), comm_, cuda_stream(stream)), "ncclAllGather");
}

void NcclCommunicator::reduce_scatter(const void* input, void* output, std::size_t count, CommDataType type,
                                      CommReduceOp op, StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclReduceScatter(input, output, count, nccl_type(type), nccl_op(op), comm_, cuda_stream(stream)),
        "ncclReduceScatter");
}

void NcclCommunicator::group_start() { check(ncclGroupStart(), "ncclGroupStart"); }

void NcclCommunicator::group_end() {
  const DeviceScope scope(device_);
  check(ncclGroupEnd(), "ncclGroupEnd");
}

void NcclCommunicator::send(const void* input, std::size_t count, CommDataType type, int peer,
                            StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclSend(input, count, nccl_type(type), peer, comm_, cuda_stream(stream)), "ncclSend");
}

void NcclCommunicator::recv(void* output, std::size_t count, CommDataType type, int peer, StreamHandle stream) {
  const DeviceScope scope(device_);
  check(ncclRecv(output, count, nccl_type(type), peer, comm_, cuda_stream(stream)), "ncclRecv");
}

std::string NcclCommunicator::async_error() {
  if (aborted_) return "the communicator was aborted";
  ncclResult_t state = ncclSuccess;
  const ncclResult_t result = ncclCommGetAsyncError(comm_, &state);
  if (result != ncclSuccess) return std::string("ncclCommGetAsyncError: ") + ncclGetErrorString(result);
  if (state == ncclSuccess || state == ncclInProgress) return {};
  const char* last = ncclGetLastError(comm_);
  return std::string(ncclGetErrorString(state)) + (last != nullptr && *last != '\0' ? ": " + std::string(last) : "");
}

void NcclCommunicator::abort() {
  if (comm_ == nullptr || aborted_.exchange(true)) return;
  const DeviceScope scope(device_);
  ncclCommAbort(comm_);
}

}  // namespace torch_cuda::distributed
