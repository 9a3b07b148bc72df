// The real variant's communicator (torch_core/csrc/distributed/communicator.h) over NCCL
// from the pinned nvidia-nccl-cu13 wheel: each call is the NCCL call of the same name on
// the caller's stream. Torch-free, so tests/gpu runs it without torch.
#pragma once

#include <nccl.h>

#include <array>
#include <atomic>
#include <string>

#include "torch_core/csrc/distributed/communicator.h"

namespace torch_cuda::distributed {

using torch_core::StreamHandle;
using torch_core::distributed::CommDataType;
using torch_core::distributed::CommReduceOp;

// NCCL's rendezvous token: rank 0 makes it, every rank of the group passes the same bytes.
using NcclUniqueId = std::array<char, NCCL_UNIQUE_ID_BYTES>;
NcclUniqueId make_nccl_unique_id();

ncclDataType_t nccl_type(CommDataType type);
ncclRedOp_t nccl_op(CommReduceOp op);

// NCCL's version as torch._C._nccl_version packs it: major << 32 | minor << 16 | patch.
long long nccl_version();

class NcclCommunicator final : public torch_core::distributed::Communicator {
 public:
  // Joins the group on `device` (ncclCommInitRank): blocks until every rank has joined.
  // Throws std::runtime_error with NCCL's words when it cannot.
  NcclCommunicator(int device, int rank, int size, const NcclUniqueId& id);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void all_reduce(const void* input, void* output, std::size_t count, CommDataType type, CommReduceOp op,
                  StreamHandle stream) override;
  void broadcast(const void* input, void* output, std::size_t count, CommDataType type, int root,
                 StreamHandle stream) override;
  void reduce(const void* input, void* output, std::size_t count, CommDataType type, CommReduceOp op, int root,
              StreamHandle stream) override;
  void all_gather(const void* input, void* output, std::size_t count, CommDataType type,
                  StreamHandle stream) override;
  void reduce_scatter(const void* input, void* output, std::size_t count, CommDataType type, CommReduceOp op,
                      StreamHandle stream) override;
  void group_start() override;
  void group_end() override;
  void send(const void* input, std::size_t count, CommDataType type, int peer, StreamHandle stream) override;
  void recv(void* output, std::size_t count, CommDataType type, int peer, StreamHandle stream) override;
  std::string async_error() override;
  void abort() override;

 private:
  void check(ncclResult_t result, const char* call);

  int device_;
  int rank_;
  int size_;
  ncclComm_t comm_ = nullptr;
  std::atomic<bool> aborted_{false};
};

}  // namespace torch_cuda::distributed
