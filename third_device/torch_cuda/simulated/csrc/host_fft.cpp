// The simulated variant's executor of fft_plan.h's plans: the transform cuFFT would run,
// on the host on the stream's worker, with cuFFT's documented semantics: each side read
// and written through its advanced data layout (embed, stride, dist), the complex side of
// R2C and C2R onesided (n / 2 + 1 in the last dimension), no normalisation, forward with
// exponent -1, C2R free to overwrite its input (this executor does: it leaves NaN there,
// so an operator that reuses a C2R input fails here as it could on a GPU), and an R2C
// input aligned as its complex type. Values are transformed in double and rounded once to
// the plan's type. Plans and runs are recorded as cufftXtMakePlanMany and cufftXtExec
// (library_calls.h).
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <c10/util/Half.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::fft {
namespace {

using Complex = std::complex<double>;

bool is_power_of_two(std::size_t n) { return (n & (n - 1)) == 0; }

// Radix-2 in place (n a power of two), exponent sign * 2 pi i jk / n.
void radix2(std::vector<Complex>& x, int sign) {
  const std::size_t n = x.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (std::size_t length = 2; length <= n; length <<= 1) {
    const double angle = sign * 2 * M_PI / static_cast<double>(length);
    for (std::size_t start = 0; start < n; start += length) {
      for (std::size_t k = 0; k < length / 2; ++k) {
        const Complex w = std::polar(1.0, angle * static_cast<double>(k));
        const Complex even = x[start + k];
        const Complex odd = x[start + k + length / 2] * w;
        x[start + k] = even + odd;
        x[start + k + length / 2] = even - odd;
      }
    }
  }
}

// The unnormalised DFT of `x` in place: radix 2, or Bluestein's chirp over a power-of-two
// convolution for other lengths.
void dft(std::vector<Complex>& x, int sign) {
  const std::size_t n = x.size();
  if (n <= 1) return;
  if (is_power_of_two(n)) return radix2(x, sign);
  std::size_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<Complex> chirp(n), a(m), b(m);
  for (std::size_t k = 0; k < n; ++k) {
    // k^2 mod 2n keeps the angle exact for large k.
    const auto k2 = static_cast<double>((static_cast<std::uint64_t>(k) * k) % (2 * n));
    chirp[k] = std::polar(1.0, sign * M_PI * k2 / static_cast<double>(n));
    a[k] = x[k] * chirp[k];
    b[k] = std::conj(chirp[k]);
    if (k > 0) b[m - k] = b[k];
  }
  radix2(a, -1);
  radix2(b, -1);
  for (std::size_t i = 0; i < m; ++i) a[i] *= b[i];
  radix2(a, 1);
  for (std::size_t k = 0; k < n; ++k) x[k] = a[k] * chirp[k] / static_cast<double>(m);
}

// The DFT along dimension `dim` of a row-major buffer of `extents`.
void dft_along(std::vector<Complex>& data, const std::vector<std::int64_t>& extents, std::size_t dim, int sign) {
  std::int64_t inner = 1;
  for (std::size_t i = dim + 1; i < extents.size(); ++i) inner *= extents[i];
  const std::int64_t length = extents[dim];
  const std::int64_t outer = static_cast<std::int64_t>(data.size()) / (length * inner);
  std::vector<Complex> line(static_cast<std::size_t>(length));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      Complex* first = data.data() + o * length * inner + i;
      for (std::int64_t k = 0; k < length; ++k) line[k] = first[k * inner];
      dft(line, sign);
      for (std::int64_t k = 0; k < length; ++k) first[k * inner] = line[k];
    }
  }
}

// The element offsets of one side's signal within its batch, in row-major order of
// `extents` (cuFFT's advanced layout: ((i1 * embed[1] + i2) * embed[2] + i3) * stride;
// batch b starts b * dist further).
std::vector<std::int64_t> offsets(const DataLayout& layout, const std::vector<std::int64_t>& extents) {
  std::int64_t count = 1;
  for (const std::int64_t e : extents) count *= e;
  std::vector<std::int64_t> result(static_cast<std::size_t>(count));
  std::vector<std::int64_t> index(extents.size(), 0);
  for (std::int64_t flat = 0; flat < count; ++flat) {
    std::int64_t linear = index[0];
    for (std::size_t d = 1; d < extents.size(); ++d) linear = linear * layout.embed[d] + index[d];
    result[flat] = linear * layout.stride;
    for (std::size_t d = extents.size(); d-- > 0;) {
      if (++index[d] < extents[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

template <typename T>
class HostPlan final : public Executable {
 public:
  explicit HostPlan(const FftPlan& plan) : plan_(plan) {}

  std::int64_t workspace_size() const override { return 0; }

  void run(const void* in, void* out, void*, bool forward, torch_core::StreamHandle stream) const override {
    if (plan_.transform == Transform::kR2C && reinterpret_cast<std::uintptr_t>(in) % (2 * sizeof(T)) != 0) {
      throw std::invalid_argument(
          "cuFFT: CUFFT_INVALID_VALUE from cufftXtExec: an R2C input must be aligned as its complex type");
    }
    simulated::record_library_call("cufftXtExec");
    const FftPlan plan = plan_;
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, in, out, forward] {
      transform(plan, const_cast<T*>(static_cast<const T*>(in)), static_cast<T*>(out), forward ? -1 : 1);
    });
  }

 private:
  static void transform(const FftPlan& plan, T* in, T* out, int sign) {
    std::vector<std::int64_t> full(plan.n.begin(), plan.n.begin() + plan.rank);
    std::vector<std::int64_t> half = full;
    half.back() = full.back() / 2 + 1;
    const std::vector<std::int64_t>& in_extents = plan.transform == Transform::kC2R ? half : full;
    const std::vector<std::int64_t>& out_extents = plan.transform == Transform::kR2C ? half : full;
    const bool in_complex = complex_input(plan.transform), out_complex = complex_output(plan.transform);
    const std::vector<std::int64_t> in_at = offsets(plan.in, in_extents);
    const std::vector<std::int64_t> out_at = offsets(plan.out, out_extents);
    // Row-major over the full signal; R2C keeps the onesided part of each last line.
    const std::int64_t last = full.back(), kept = out_extents.back();
    for (std::int64_t b = 0; b < plan.batch; ++b) {
      T* const in_batch = in + b * plan.in.dist * (in_complex ? 2 : 1);
      T* const out_batch = out + b * plan.out.dist * (out_complex ? 2 : 1);
      std::vector<Complex> data(in_at.size());
      for (std::size_t i = 0; i < in_at.size(); ++i) data[i] = load(in_batch, in_at[i], in_complex);
      std::vector<Complex> result = plan.transform == Transform::kC2R ? complex_to_real(data, full, half, sign)
                                                                       : complex_transform(data, full, sign);
      for (std::size_t i = 0; i < out_at.size(); ++i) {
        const std::int64_t source = (static_cast<std::int64_t>(i) / kept) * last + static_cast<std::int64_t>(i) % kept;
        store(out_batch, out_at[i], result[source], out_complex);
      }
      if (plan.transform == Transform::kC2R) {
        for (const std::int64_t at : in_at) store(in_batch, at, Complex(kNaN, kNaN), true);
      }
    }
  }

  // C2C, or R2C over the real values as complex ones.
  static std::vector<Complex> complex_transform(std::vector<Complex> data, const std::vector<std::int64_t>& full,
                                                int sign) {
    for (std::size_t d = 0; d < full.size(); ++d) dft_along(data, full, d, sign);
    return data;
  }

  // C2R: the other dimensions first on the onesided data (`half`: full's last dimension
  // n / 2 + 1), then each last line completed by Hermitian symmetry (X[n - k] = conj(X[k]))
  // and transformed to its real part.
  static std::vector<Complex> complex_to_real(std::vector<Complex> data, const std::vector<std::int64_t>& full,
                                              const std::vector<std::int64_t>& half, int sign) {
    const std::int64_t n = full.back(), h = half.back();
    for (std::size_t d = 0; d + 1 < full.size(); ++d) dft_along(data, half, d, sign);
    const std::int64_t lines = static_cast<std::int64_t>(data.size()) / h;
    std::vector<Complex> result(static_cast<std::size_t>(lines * n));
    std::vector<Complex> line(static_cast<std::size_t>(n));
    for (std::int64_t l = 0; l < lines; ++l) {
      for (std::int64_t k = 0; k < n; ++k) line[k] = k < h ? data[l * h + k] : std::conj(data[l * h + n - k]);
      dft(line, sign);
      for (std::int64_t k = 0; k < n; ++k) result[l * n + k] = Complex(line[k].real(), 0.0);
    }
    return result;
  }

  static Complex load(const T* base, std::int64_t at, bool is_complex) {
    if (!is_complex) return Complex(static_cast<double>(base[at]), 0.0);
    return Complex(static_cast<double>(base[2 * at]), static_cast<double>(base[2 * at + 1]));
  }

  static void store(T* base, std::int64_t at, Complex value, bool is_complex) {
    if (!is_complex) {
      base[at] = static_cast<T>(value.real());
      return;
    }
    base[2 * at] = static_cast<T>(value.real());
    base[2 * at + 1] = static_cast<T>(value.imag());
  }

  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  FftPlan plan_;
};

}  // namespace

std::unique_ptr<Executable> make_executable(const FftPlan& plan) {
  simulated::record_library_call("cufftXtMakePlanMany");
  switch (plan.value_type) {
    case ValueType::kHalf: return std::make_unique<HostPlan<c10::Half>>(plan);
    case ValueType::kFloat: return std::make_unique<HostPlan<float>>(plan);
    case ValueType::kDouble: return std::make_unique<HostPlan<double>>(plan);
  }
  throw std::invalid_argument("cuFFT: unknown value type");
}

}  // namespace torch_cuda::fft
