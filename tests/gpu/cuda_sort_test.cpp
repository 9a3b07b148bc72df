// The CUDA engine's segmented sort (sort.cu), without torch: its radix keys (radix_key.h)
// and, on a GPU, whole sorts over cudaMalloc'd buffers, both against the host engine's
// order (stable; NaN above every number and equal to every NaN; -0 equal to +0).
//
// Everywhere: the radix keys order every half, bfloat16, int8, uint8 and int16 value and
// the edge cases and 20,000 random patterns of float, double, int32 and int64 as the host
// engine does, both ways. With a GPU: float (NaNs of both signs, -0, ties), every half and
// int64 segments sorted both ways, indices and key bits checked. Without one: says why, and
// checks that sizing a sort fails with a CudaError naming CUB's call.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <c10/core/ScalarType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/radix_key.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace {

using gpu_test::check;
using gpu_test::DeviceBuffer;
using torch_core::engine::SortCall;
namespace engine = torch_cuda::engine;

// The positions of `values` in sort's order as the host engine sorts them (stable; NaN
// above every number and equal to every NaN; -0 equal to +0).
template <typename V>
std::vector<std::int64_t> reference_order(const std::vector<V>& values, bool descending) {
  auto before = [](V a, V b) {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  };
  std::vector<std::int64_t> order(values.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return descending ? before(values[b], values[a]) : before(values[a], values[b]);
  });
  return order;
}

// The positions of the elements `bits` in the ascending order of their radix keys, stably
// (what CUB's radix sort computes).
template <typename U>
std::vector<std::int64_t> radix_order(const std::vector<U>& bits, c10::ScalarType dtype, bool descending) {
  engine::RadixFormat format;
  check(engine::radix_format(dtype, descending, format),
        std::string("sort has a radix format for ") + c10::toString(dtype));
  std::vector<std::int64_t> order(bits.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return engine::radix_key(bits[a], format) < engine::radix_key(bits[b], format);
  });
  return order;
}

// Element bits: the edge cases of a format, pseudo-random patterns, then the edge cases
// again (ties).
template <typename U>
std::vector<U> test_bits(std::initializer_list<U> edges, std::size_t random_count) {
  std::vector<U> bits(edges);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (std::size_t i = 0; i < random_count; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    bits.push_back(static_cast<U>(state >> (64 - sizeof(U) * 8)));
  }
  bits.insert(bits.end(), edges.begin(), edges.end());
  return bits;
}

// Every pattern of an 8- or 16-bit element.
template <typename U>
std::vector<U> all_bits() {
  std::vector<U> bits(std::size_t{1} << (sizeof(U) * 8));
  std::iota(bits.begin(), bits.end(), U{0});
  return bits;
}

template <typename U, typename V>
std::vector<V> bits_as(const std::vector<U>& bits) {
  static_assert(sizeof(U) == sizeof(V));
  std::vector<V> values(bits.size());
  std::memcpy(values.data(), bits.data(), bits.size() * sizeof(U));
  return values;
}

// Half or BFloat16 elements' values, as floats.
template <typename Reduced>
std::vector<float> reduced_values(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values;
  for (const std::uint16_t b : bits) values.push_back(static_cast<float>(Reduced(b, Reduced::from_bits())));
  return values;
}

// The radix keys order `bits` as the host engine orders `values` (the same elements read as
// their dtype), both ways.
template <typename U, typename V>
void check_radix_order(c10::ScalarType dtype, const std::vector<U>& bits, const std::vector<V>& values) {
  for (const bool descending : {false, true}) {
    check(radix_order(bits, dtype, descending) == reference_order(values, descending),
          std::string("radix keys sort ") + c10::toString(dtype) + (descending ? " descending" : " ascending") +
              " as the host engine does (" + std::to_string(bits.size()) + " elements)");
  }
}

// +-0, +-1, +-inf, quiet and signalling NaNs of both signs, the smallest subnormals, the
// extremes; then random patterns.
std::vector<std::uint32_t> float_bits(std::size_t random_count) {
  return test_bits<std::uint32_t>({0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
                                   0xffc00000, 0x7f800001, 0xff800001, 0x00000001, 0x80000001, 0x7f7fffff, 0xff7fffff},
                                  random_count);
}

std::vector<std::uint64_t> long_bits(std::size_t random_count) {
  return test_bits<std::uint64_t>({0x0ULL, 0x1ULL, ~0x0ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL},
                                  random_count);
}

void radix_key_checks() {
  const auto halves = all_bits<std::uint16_t>();
  check_radix_order(c10::kHalf, halves, reduced_values<c10::Half>(halves));
  check_radix_order(c10::kBFloat16, halves, reduced_values<c10::BFloat16>(halves));
  const auto floats = float_bits(20000);
  check_radix_order(c10::kFloat, floats, bits_as<std::uint32_t, float>(floats));
  const auto doubles = test_bits<std::uint64_t>(
      {0x0ULL, 0x8000000000000000ULL, 0x3ff0000000000000ULL, 0xbff0000000000000ULL, 0x7ff0000000000000ULL,
       0xfff0000000000000ULL, 0x7ff8000000000000ULL, 0xfff8000000000000ULL, 0x7ff0000000000001ULL,
       0x0000000000000001ULL, 0x8000000000000001ULL, 0x7fefffffffffffffULL, 0xffefffffffffffffULL},
      20000);
  check_radix_order(c10::kDouble, doubles, bits_as<std::uint64_t, double>(doubles));

  const auto bytes = all_bits<std::uint8_t>();
  check_radix_order(c10::kByte, bytes, bytes);
  check_radix_order(c10::kChar, bytes, bits_as<std::uint8_t, std::int8_t>(bytes));
  const std::vector<std::uint8_t> bools = {1, 0, 1, 1, 0};
  check_radix_order(c10::kBool, bools, bools);
  check_radix_order(c10::kShort, halves, bits_as<std::uint16_t, std::int16_t>(halves));
  const auto ints = test_bits<std::uint32_t>({0x0, 0x1, 0xffffffff, 0x7fffffff, 0x80000000}, 20000);
  check_radix_order(c10::kInt, ints, bits_as<std::uint32_t, std::int32_t>(ints));
  const auto longs = long_bits(20000);
  check_radix_order(c10::kLong, longs, bits_as<std::uint64_t, std::int64_t>(longs));

  engine::RadixFormat format;
  check(!engine::radix_format(c10::kComplexFloat, false, format), "complex keys have no radix format");
}

void no_device_checks() {
  const std::vector<float> host(8, 1.0f);
  SortCall call;
  call.dtype = c10::kFloat;
  call.segments = 1;
  call.segment_size = static_cast<std::int64_t>(host.size());
  const std::string message =
      gpu_test::thrown<torch_cuda::CudaError>([&] { engine::sort_scratch_bytes(call); }, "sort without a device");
  check(gpu_test::contains(message, "cub_sort"), "a failed sort names CUB's call: " + message);
}

// Sorts `bits` (`segments` equal segments of dtype elements) on the device, both ways, and
// checks each segment's indices against the host engine's order of `values` and its keys,
// bit for bit, against the elements in that order.
template <typename U, typename V>
void sort_device_checks(cudaStream_t stream, c10::ScalarType dtype, const std::vector<U>& bits,
                        const std::vector<V>& values, std::int64_t segments) {
  const auto n = static_cast<std::int64_t>(bits.size());
  const std::int64_t size = n / segments;
  std::vector<std::int64_t> host_offsets(segments + 1);
  for (std::int64_t s = 0; s <= segments; ++s) host_offsets[s] = s * size;
  const DeviceBuffer<std::int64_t> offsets(host_offsets);
  for (const bool descending : {false, true}) {
    const DeviceBuffer<U> keys(bits);
    const DeviceBuffer<std::int64_t> indices{std::vector<std::int64_t>(n)};
    SortCall call;
    call.dtype = dtype;
    call.descending = descending;
    call.segments = segments;
    call.segment_size = size;
    call.keys = keys.bytes_ptr();
    call.indices = indices.get();
    call.segment_offsets = offsets.get();
    call.scratch_bytes = engine::sort_scratch_bytes(call);
    const DeviceBuffer<unsigned char> scratch{std::vector<unsigned char>(call.scratch_bytes)};
    call.scratch = scratch.get();
    engine::run_sort(call, stream);
    gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
    const auto sorted = keys.to_host();
    const auto order = indices.to_host();
    bool ok = true;
    for (std::int64_t s = 0; s < segments; ++s) {
      const std::vector<V> segment(values.begin() + s * size, values.begin() + (s + 1) * size);
      const auto want = reference_order(segment, descending);
      for (std::int64_t i = 0; i < size; ++i) {
        ok = ok && order[s * size + i] == want[i] && sorted[s * size + i] == bits[s * size + want[i]];
      }
    }
    check(ok, std::string("sort of ") + c10::toString(dtype) + (descending ? ", descending" : ", ascending") +
                  ": the host engine's order, keys bit for bit");
  }
}

}  // namespace

int main() {
  return gpu_test::run("CUDA sort", "GPU sorts not run; radix keys and no-device behaviour checked", radix_key_checks,
                       no_device_checks, [](cudaStream_t stream) {
                         const auto floats = float_bits(2072);  // 3 segments of 700
                         sort_device_checks(stream, c10::kFloat, floats, bits_as<std::uint32_t, float>(floats), 3);
                         const auto halves = all_bits<std::uint16_t>();
                         sort_device_checks(stream, c10::kHalf, halves, reduced_values<c10::Half>(halves), 2);
                         const auto longs = long_bits(20000);  // 3 segments of 6670
                         sort_device_checks(stream, c10::kLong, longs, bits_as<std::uint64_t, std::int64_t>(longs), 3);
                       });
}
