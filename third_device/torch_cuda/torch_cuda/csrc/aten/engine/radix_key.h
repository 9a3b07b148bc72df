// The keys sort.cu hands CUB: a sortable dtype's element, read as the unsigned integer of
// its width, mapped to an unsigned integer whose ascending order is the order sort wants:
// NaN above +inf and every NaN equal, -0 equal to +0 (as CUB's own float traits have it),
// signed integers by value; the bitwise complement of that for a descending sort. So CUB's
// radix sort is compiled for four key types (8, 16, 32 and 64 bits) in one direction, not
// for every dtype in both. Integer arithmetic only, so the host tests check the very code
// the kernel runs.
#pragma once

#include <cstdint>

#include <c10/core/ScalarType.h>
#include <c10/macros/Macros.h>

namespace torch_cuda::engine {

// How an element's bits order: as an unsigned or a two's-complement integer, or as an IEEE
// binary float with `mantissa_bits` bits of fraction.
struct RadixFormat {
  enum Kind : std::uint8_t { kUnsigned, kSigned, kFloat };
  Kind kind = kUnsigned;
  int mantissa_bits = 0;
  bool descending = false;
};

// The format of `dtype`'s elements; valid (kind set) for the dtypes sort supports.
inline bool radix_format(c10::ScalarType dtype, bool descending, RadixFormat& format) {
  format.descending = descending;
  switch (dtype) {
    case c10::kBool:
    case c10::kByte: format.kind = RadixFormat::kUnsigned; return true;
    case c10::kChar:
    case c10::kShort:
    case c10::kInt:
    case c10::kLong: format.kind = RadixFormat::kSigned; return true;
    case c10::kHalf: format.kind = RadixFormat::kFloat; format.mantissa_bits = 10; return true;
    case c10::kBFloat16: format.kind = RadixFormat::kFloat; format.mantissa_bits = 7; return true;
    case c10::kFloat: format.kind = RadixFormat::kFloat; format.mantissa_bits = 23; return true;
    case c10::kDouble: format.kind = RadixFormat::kFloat; format.mantissa_bits = 52; return true;
    default: return false;
  }
}

// The radix key of an element whose bits are `bits` (U: an unsigned integer of the
// element's width).
template <typename U>
C10_HOST_DEVICE inline U radix_key(U bits, const RadixFormat& format) {
  constexpr U sign = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
  U key = bits;
  if (format.kind == RadixFormat::kSigned) {
    key = static_cast<U>(bits ^ sign);
  } else if (format.kind == RadixFormat::kFloat) {
    const U fraction = static_cast<U>((U{1} << format.mantissa_bits) - 1);
    const U exponent = static_cast<U>((sign - 1) & ~fraction);
    const U magnitude = static_cast<U>(bits & ~sign);
    if ((magnitude & exponent) == exponent && (magnitude & fraction) != 0) {
      key = static_cast<U>(exponent | fraction);  // every NaN: above +inf's exponent | 0
    } else if (magnitude == 0) {
      key = 0;  // -0 as +0
    }
    // Negative numbers reversed below the positive ones, which keep their order.
    key = (key & sign) != 0 ? static_cast<U>(~key) : static_cast<U>(key | sign);
  }
  return format.descending ? static_cast<U>(~key) : key;
}

}  // namespace torch_cuda::engine
