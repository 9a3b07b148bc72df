// fill and same-dtype copy of any dtype on the GPU, by element width: the two kernels
// torch_core's generic ops need from a device (device_kernels.h: strided copy, fill).
#include <cstring>
#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/csrc/aten/cuda_loop.cuh"
#include "third_device/torch_cuda/csrc/aten/loop_kernels.h"
#include "third_device/torch_cuda/csrc/aten/loop_ops.h"

namespace torch_cuda::kernels {
namespace {

template <typename T>
void fill_as(const StridedLoop<1>& loop, const void* pattern, cudaStream_t stream) {
  T value;
  std::memcpy(&value, pattern, sizeof(T));
  loop::elementwise<T>(loop, ops::Fill<T>{value}, stream);
}

template <typename T>
void copy_as(const StridedLoop<2>& loop, cudaStream_t stream) {
  loop::elementwise<T, T>(loop, ops::Identity<T>{}, stream);
}

[[noreturn]] void bad_itemsize(const char* what, std::size_t itemsize) {
  throw std::invalid_argument(std::string(what) + ": unsupported element size " + std::to_string(itemsize) +
                              " (1, 2, 4, 8 or 16 bytes)");
}

}  // namespace

void fill_bytes(const StridedLoop<1>& loop, const void* pattern, std::size_t itemsize, cudaStream_t stream) {
  switch (itemsize) {
    case 1: return fill_as<std::uint8_t>(loop, pattern, stream);
    case 2: return fill_as<std::uint16_t>(loop, pattern, stream);
    case 4: return fill_as<std::uint32_t>(loop, pattern, stream);
    case 8: return fill_as<std::uint64_t>(loop, pattern, stream);
    case 16: return fill_as<ops::Bytes16>(loop, pattern, stream);
    default: bad_itemsize("fill_bytes", itemsize);
  }
}

void copy_bytes(const StridedLoop<2>& loop, std::size_t itemsize, cudaStream_t stream) {
  switch (itemsize) {
    case 1: return copy_as<std::uint8_t>(loop, stream);
    case 2: return copy_as<std::uint16_t>(loop, stream);
    case 4: return copy_as<std::uint32_t>(loop, stream);
    case 8: return copy_as<std::uint64_t>(loop, stream);
    case 16: return copy_as<ops::Bytes16>(loop, stream);
    default: bad_itemsize("copy_bytes", itemsize);
  }
}

}  // namespace torch_cuda::kernels
