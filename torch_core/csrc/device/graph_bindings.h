// Graphs for a torch_core backend's Python module: the _Graph class that torch.cuda's
// _CUDAGraph is made from, new private pool handles, and whether the current stream is
// capturing (device_graph.h has the semantics). Routing allocations to pools: pool_bindings.h.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_core {

class Backend;

void bind_graphs(pybind11::module_& m, Backend& backend);

}  // namespace torch_core
