#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.h"

#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/lru_cache.h"

namespace torch_cuda::fft {
namespace {

bool is_power_of_two(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

std::string signal_text(const FftKey& key) {
  std::ostringstream text;
  text << "[";
  for (int i = 1; i <= key.rank; ++i) text << (i > 1 ? ", " : "") << key.sizes[i];
  text << "]";
  return text.str();
}

// The last dimension's size on one side: onesided (n / 2 + 1) on the complex side of an
// R2C or C2R transform.
std::int64_t last_size(const FftKey& key, bool onesided) {
  const std::int64_t n = key.sizes[key.rank];
  return onesided ? n / 2 + 1 : n;
}

// A contiguous side (cufft_simple_embed).
DataLayout simple_layout(const FftKey& key, bool onesided) {
  DataLayout layout;
  layout.dist = 1;
  for (int i = 0; i < key.rank; ++i) {
    layout.embed[i] = i + 1 == key.rank ? last_size(key, onesided) : key.sizes[i + 1];
    layout.dist *= layout.embed[i];
  }
  return layout;
}

// `strides` as an embedding (as_cufft_embed), or nothing (false) when none describes them.
bool embed(const FftKey& key, const std::array<std::int64_t, kMaxRank + 1>& strides, bool onesided,
           DataLayout& layout) {
  const int rank = key.rank;
  std::int64_t inner_stride = strides[rank];
  if (inner_stride <= 0) return false;
  std::int64_t signal_numel = last_size(key, onesided);
  for (int i = 1; i < rank; ++i) signal_numel *= key.sizes[i];
  if (key.sizes[0] == 1) {
    layout.dist = signal_numel;  // one batch: its distance is never used, but must be valid
  } else if (strides[0] == 0) {
    return false;
  } else {
    layout.dist = strides[0];
  }
  for (int i = rank - 1; i > 0; --i) {
    const std::int64_t stride = strides[i];
    if (key.sizes[i] == 1) {
      layout.embed[i] = 1;
    } else if (stride > 0 && stride % inner_stride == 0) {
      layout.embed[i] = stride / inner_stride;
      inner_stride = stride;
    } else {
      return false;
    }
  }
  layout.embed[0] = key.sizes[1];
  layout.stride = strides[rank];
  layout.simple =
      layout.stride == 1 && layout.dist == signal_numel && layout.embed[rank - 1] == last_size(key, onesided);
  for (int i = 1; i + 1 < rank; ++i) layout.simple = layout.simple && layout.embed[i] == key.sizes[i + 1];
  return true;
}

}  // namespace

bool complex_input(Transform transform) { return transform != Transform::kR2C; }

bool complex_output(Transform transform) { return transform != Transform::kC2R; }

bool FftKey::operator==(const FftKey& other) const {
  return rank == other.rank && sizes == other.sizes && in_strides == other.in_strides &&
         out_strides == other.out_strides && transform == other.transform && value_type == other.value_type;
}

std::size_t FftKeyHash::operator()(const FftKey& key) const {
  std::size_t hash = std::hash<int>()(key.rank);
  const auto mix = [&hash](std::int64_t value) { hash_combine(hash, value); };
  for (int i = 0; i <= kMaxRank; ++i) {
    mix(key.sizes[i]);
    mix(key.in_strides[i]);
    mix(key.out_strides[i]);
  }
  mix(static_cast<std::int64_t>(key.transform));
  mix(static_cast<std::int64_t>(key.value_type));
  return hash;
}

FftPlan plan_fft(const FftKey& key) {
  if (key.rank < 1 || key.rank > kMaxRank) {
    throw std::invalid_argument("cuFFT plans transform 1 to 3 dimensions, not " + std::to_string(key.rank));
  }
  for (int i = 0; i <= key.rank; ++i) {
    if (key.sizes[i] <= 0) throw std::invalid_argument("cuFFT cannot plan an empty transform of " + signal_text(key));
  }
  FftPlan plan;
  plan.transform = key.transform;
  plan.value_type = key.value_type;
  plan.rank = key.rank;
  plan.batch = key.sizes[0];
  for (int i = 0; i < key.rank; ++i) plan.n[i] = key.sizes[i + 1];

  if (key.value_type == ValueType::kHalf) {
    for (int i = 1; i <= key.rank; ++i) {
      if (!is_power_of_two(key.sizes[i])) {
        throw std::invalid_argument(
            "cuFFT doesn't support signals of half type with size at any dimension that is not a power of two, "
            "but got a signal size of " +
            signal_text(key));
      }
    }
    // cuFFT's half R2C cannot read a strided real input.
    plan.clone_input = key.in_strides[key.rank] != 1;
  }
  const bool in_onesided = key.transform == Transform::kC2R;
  const bool out_onesided = key.transform == Transform::kR2C;
  if (plan.clone_input || !embed(key, key.in_strides, in_onesided, plan.in)) {
    plan.clone_input = true;
    plan.in = simple_layout(key, in_onesided);
  }
  if (!embed(key, key.out_strides, out_onesided, plan.out)) {
    throw std::invalid_argument("Out strides cannot be represented as CuFFT embedding");
  }
  return plan;
}

}  // namespace torch_cuda::fft
