// torch.cuda's legacy tensor types as constructors (torch.cuda.FloatTensor(2, 3),
// torch.cuda.LongTensor([1, 2]), torch.cuda.sparse.FloatTensor(i, v, size)): the CPU wheel
// makes these type objects but its constructor refuses them ("Torch not compiled with CUDA
// enabled", a compile-time check). The torch_patches entry legacy_cuda_tensor_types gives
// them this constructor: stock's, over libtorch_python's legacy_tensor_ctor.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_cuda {

void bind_legacy_tensor_types(pybind11::module_& m);

}  // namespace torch_cuda
