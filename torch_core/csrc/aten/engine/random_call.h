// One random-number kernel call as a kernel engine receives it: which distribution, into
// which dtype, with which parameters, from which Philox4x32-10 stream. Element i of the
// iteration draws from subsequence i of the generator's (seed, offset), so the host and
// CUDA engines fill a tensor with the same numbers whatever their launch shape.
#pragma once

#include <cstdint>

#include <c10/core/ScalarType.h>

#include "torch_core/csrc/aten/host_device.h"

namespace torch_core::engine {

// X(name): the distributions; random_functors.h has a functor for each.
#define TORCH_CORE_RANDOM_OPS(X) \
  X(Uniform) X(Normal) X(LogNormal) X(Cauchy) X(Exponential) X(Geometric) X(Bernoulli) X(BernoulliTensor) X(RandomFromTo)

enum class RandomOp {
#define TORCH_CORE_ENUM(name) k##name,
  TORCH_CORE_RANDOM_OPS(TORCH_CORE_ENUM)
#undef TORCH_CORE_ENUM
  kCount
};

struct RandomCall {
  RandomOp op;
  c10::ScalarType dtype;  // the output's
  // The distribution's parameters: (from, to), (mean, std), (median, sigma), lambda, p.
  double arg0 = 0;
  double arg1 = 0;
  // RandomFromTo: values base + r % range; range 0 means all 64 bits (random_ of int64's
  // full range).
  uint64_t range = 0;
  int64_t base = 0;
  // Where the call's draws start (PhiloxGenerator::philox_inputs). Inside a captured
  // graph the seed and a base offset live in device memory instead, written before each
  // replay, and `offset` counts from that base: every replay draws fresh numbers.
  uint64_t seed = 0;
  uint64_t offset = 0;
  const uint64_t* graph_seed = nullptr;
  const uint64_t* graph_offset = nullptr;

  // What the kernel draws from, read when it runs (device memory, in a graph).
  TORCH_CORE_HOST_DEVICE uint64_t run_seed() const { return graph_seed != nullptr ? *graph_seed : seed; }
  TORCH_CORE_HOST_DEVICE uint64_t run_offset() const {
    return graph_offset != nullptr ? *graph_offset + offset : offset;
  }
};

// At most this many 32-bit draws per element (a double normal: two 53-bit uniforms).
constexpr uint64_t kMaxDrawsPerElement = 4;

// The distribution's name, for error messages ("uniform", "random_from_to", ...).
const char* name_of(RandomOp op);

}  // namespace torch_core::engine
