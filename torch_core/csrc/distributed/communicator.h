// A communicator: one rank's end of a group of ranks that exchange device memory, in
// NCCL's terms (ncclComm_t): every call is queued on a stream of the communicator's
// device, runs after the work queued there before it, and the work queued after it waits
// for it. CollectiveBackend (collective_backend.h) builds torch.distributed's process
// group on one; a backend supplies the communicator (torch_cuda: NCCL on a GPU, and the
// simulated devices' loopback communicator), so the process group's stream ordering,
// argument checks and error handling are shared. Torch-free.
#pragma once

#include <cstddef>
#include <string>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core::distributed {

// NCCL's data types (bool travels as kUint8).
enum class CommDataType { kInt8, kUint8, kInt32, kInt64, kFloat16, kFloat32, kFloat64, kBFloat16 };

// NCCL's reductions (kAvg: the sum divided by the group's size, in the data type).
enum class CommReduceOp { kSum, kProduct, kMin, kMax, kAvg };

std::size_t element_size(CommDataType type);
const char* name(CommDataType type);
const char* name(CommReduceOp op);

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // `count` elements of `type` per buffer unless said otherwise. Input and output may be
  // the same buffer (in place).
  virtual void all_reduce(const void* input, void* output, std::size_t count, CommDataType type,
                          CommReduceOp op, StreamHandle stream) = 0;
  virtual void broadcast(const void* input, void* output, std::size_t count, CommDataType type,
                         int root, StreamHandle stream) = 0;
  // Only the root's output is written.
  virtual void reduce(const void* input, void* output, std::size_t count, CommDataType type,
                      CommReduceOp op, int root, StreamHandle stream) = 0;
  // output: size() * count elements, rank r's input at r * count.
  virtual void all_gather(const void* input, void* output, std::size_t count, CommDataType type,
                          StreamHandle stream) = 0;
  // input: size() * count elements; output (count) is the reduction of every rank's
  // slice at rank() * count.
  virtual void reduce_scatter(const void* input, void* output, std::size_t count,
                              CommDataType type, CommReduceOp op, StreamHandle stream) = 0;

  // Point-to-point. Between group_start() and group_end() sends and receives are issued
  // together (NCCL's grouped calls), so every rank can post all of its own before any
  // completes: all_to_all is built that way. Outside a group each call stands alone.
  virtual void group_start() = 0;
  virtual void group_end() = 0;
  virtual void send(const void* input, std::size_t count, CommDataType type, int peer,
                    StreamHandle stream) = 0;
  virtual void recv(void* output, std::size_t count, CommDataType type, int peer,
                    StreamHandle stream) = 0;

  // The first failure of a queued call, once it has failed (ncclCommGetAsyncError); empty
  // while there is none. After a failure the communicator takes no more calls.
  virtual std::string async_error() = 0;
  // Stops queued and running calls (ncclCommAbort); later calls fail.
  virtual void abort() = 0;
};

}  // namespace torch_core::distributed
