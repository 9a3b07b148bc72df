// Sharing device storages between processes, for a torch_core backend's Python module:
// what UntypedStorage._share_cuda_, _new_shared_cuda and _release_ipc_counter_cuda and
// torch._C._cuda_ipc_collect do in stock CUDA torch (ipc_sharing.h).
#pragma once

#include <pybind11/pybind11.h>

namespace torch_core {

class Backend;

void bind_ipc(pybind11::module_& m, Backend& backend);

}  // namespace torch_core
