// torch.distributed's "nccl" in _CUDAC, for either variant's communicator:
// _nccl_process_group_class() (ProcessGroupNCCL: torch_core's CollectiveBackend, bound on
// first use, once torch.distributed has made c10d's Backend class), _nccl_version and
// _nccl_version_suffix (torch.cuda.nccl.version()). torch_patches/nccl_process_group.py
// points torch at them.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "torch_core/csrc/distributed/collective_backend.h"

namespace torch_cuda {

// `version` packed as torch._C._nccl_version's: major << 32 | minor << 16 | patch.
void bind_nccl(pybind11::module_& m, torch_core::distributed::CommunicatorFactory factory, long long version,
               const std::string& suffix);

}  // namespace torch_cuda
