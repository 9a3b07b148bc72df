// How the real variant's ranks make their NCCL communicators: rank 0 makes NCCL's unique
// id and puts it in the group's store under the communicator's key; the others wait for
// it there (up to the group's timeout), then every rank joins (ncclCommInitRank).
#pragma once

#include "torch_core/csrc/distributed/collective_backend.h"

namespace torch_cuda::distributed {

torch_core::distributed::CommunicatorFactory nccl_communicator_factory();

}  // namespace torch_cuda::distributed
