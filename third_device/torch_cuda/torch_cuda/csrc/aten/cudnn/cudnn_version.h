// cuDNN's version as the variant has it, in CUDNN_VERSION's encoding (major * 10000 + minor
// * 100 + patch level): the headers it was compiled against and the library it runs. The
// real variant reads cudnn_version.h and asks cudnnGetVersion(); the simulated one stands in
// for the pinned cuDNN (//toolchains/cuda:build_info's cudnn_version). Neither needs a device;
// the real runtime_version loads cuDNN's sub-libraries, and throws std::runtime_error saying
// what to install when they are missing.
#pragma once

namespace torch_cuda::cudnn {

long compile_version();  // NOLINT(runtime/int): CUDAHooksInterface's type
long runtime_version();  // NOLINT(runtime/int)

}  // namespace torch_cuda::cudnn
