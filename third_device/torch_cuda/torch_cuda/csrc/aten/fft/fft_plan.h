// The plans of torch_cuda's FFTs: everything decided before cuFFT is called, in plain
// host C++ (no CUDA header), so that both variants run the same plan. The CUDA key's
// _fft_r2c / _fft_c2r / _fft_c2c (fft_ops.cpp) collapse their batch dimensions into one,
// describe the transform as an FftKey (stock's CuFFTParams: sizes and strides of the
// batched input and output) and plan it; an executor runs the plan:
//   real       fft/cufft_executor.cpp: cufftXtMakePlanMany once per key, cufftXtExec
//   simulated  simulated/csrc/host_fft.cpp: the same transform on the host with cuFFT's
//              documented semantics (the advanced data layout's embed/stride/dist,
//              unnormalised transforms, forward exponent -1, C2R overwriting its input)
// so a wrong embedding, distance or onesided size in a plan fails in CI.
//
// cuFFT's advanced data layout (NOTE [ cuFFT Embedded Strides ] in stock's SpectralOps.cpp):
// element (b, i1, ..., ir) of one side lies at b * dist + ((i1 * embed[1] + i2) * embed[2]
// + i3) * stride, counted in elements of that side's type (a complex value is one).
// Strides that no embedding describes make the input a contiguous copy (clone_input); an
// output must always be describable (the operators make it contiguous).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace torch_cuda::fft {

// cuFFT transforms at most three dimensions in one plan.
inline constexpr int kMaxRank = 3;

enum class Transform : std::int8_t { kC2C, kR2C, kC2R };
// The real type of the values (a complex<float> transform is kFloat).
enum class ValueType : std::int8_t { kHalf, kFloat, kDouble };

bool complex_input(Transform transform);
bool complex_output(Transform transform);

// The plan cache's key. sizes[0] is the batch, sizes[1..rank] the two-sided signal (the
// real side's sizes); strides are per dimension of the batched input and output, in
// elements of their types.
struct FftKey {
  int rank = 1;
  std::array<std::int64_t, kMaxRank + 1> sizes{};
  std::array<std::int64_t, kMaxRank + 1> in_strides{};
  std::array<std::int64_t, kMaxRank + 1> out_strides{};
  Transform transform = Transform::kC2C;
  ValueType value_type = ValueType::kFloat;

  bool operator==(const FftKey& other) const;
};

struct FftKeyHash {
  std::size_t operator()(const FftKey& key) const;
};

// One side's layout in cuFFT's terms. `simple`: contiguous (cufftXtMakePlanMany then gets
// null embeds, and cuFFT assumes stride 1 and dist the signal's size).
struct DataLayout {
  std::array<std::int64_t, kMaxRank> embed{};
  std::int64_t stride = 1;
  std::int64_t dist = 1;
  bool simple = true;
};

// One cufftXtMakePlanMany call, and what the caller must do before executing it.
struct FftPlan {
  Transform transform = Transform::kC2C;
  ValueType value_type = ValueType::kFloat;
  int rank = 1;
  std::array<std::int64_t, kMaxRank> n{};  // the two-sided signal
  std::int64_t batch = 1;
  DataLayout in;
  DataLayout out;
  // The input must be a contiguous copy (its strides have no embedding, or a half
  // transform's input is strided in its last dimension); `in` describes that copy.
  bool clone_input = false;
};

// The plan of `key`, as stock's CuFFTConfig decides it. Throws std::invalid_argument for a
// rank outside 1..3, a non-positive size, a half transform with a size that is not a power
// of two (cuFFT's half transforms need them), and output strides no embedding describes.
FftPlan plan_fft(const FftKey& key);

}  // namespace torch_cuda::fft
