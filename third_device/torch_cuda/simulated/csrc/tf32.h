// TF32, the precision of the tensor-core math that cuBLAS and cuDNN use for float when
// allowed: the simulated executors round their float inputs to it, so results carry the
// error they would on a GPU.
#pragma once

#include <cstdint>
#include <cstring>

namespace torch_cuda::simulated {

// TF32 keeps float's exponent and 10 of its 23 mantissa bits (round to nearest even).
inline float round_to_tf32(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7f800000u) != 0x7f800000u) {  // finite
    bits += 0x0fffu + ((bits >> 13) & 1u);
    bits &= 0xffffe000u;
  }
  std::memcpy(&value, &bits, sizeof(bits));
  return value;
}

}  // namespace torch_cuda::simulated
