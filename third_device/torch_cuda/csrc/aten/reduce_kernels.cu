// sum and amax on the GPU: cuda_loop.cuh's reduce over loop_ops.h's combiners.
#include <limits>

#include "third_device/torch_cuda/csrc/aten/cuda_loop.cuh"
#include "third_device/torch_cuda/csrc/aten/loop_kernels.h"
#include "third_device/torch_cuda/csrc/aten/loop_ops.h"

namespace torch_cuda::kernels {
namespace {

// ATen's CUDA accumulation types: float sums in float, integers in int64.
template <typename In>
struct SumAcc {
  using type = In;
};
template <>
struct SumAcc<std::int32_t> {
  using type = std::int64_t;
};

template <typename T>
T lowest() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}

}  // namespace

template <typename Out, typename In>
void sum(const StridedLoop<2>& outer, const StridedLoop<1>& inner, cudaStream_t stream) {
  using Acc = typename SumAcc<In>::type;
  loop::reduce<Out, In, Acc>(outer, inner, Acc(0), ops::SumOp<Acc>{}, stream);
}

template <typename T>
void amax(const StridedLoop<2>& outer, const StridedLoop<1>& inner, cudaStream_t stream) {
  loop::reduce<T, T, T>(outer, inner, lowest<T>(), ops::MaxOp<T>{}, stream);
}

template void sum<float, float>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void sum<double, double>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void sum<std::int64_t, std::int64_t>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void sum<std::int64_t, std::int32_t>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void amax<float>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void amax<double>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void amax<std::int32_t>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);
template void amax<std::int64_t>(const StridedLoop<2>&, const StridedLoop<1>&, cudaStream_t);

}  // namespace torch_cuda::kernels
