// The FFT plans and the cuFFT executor (third_device/torch_cuda/torch_cuda/csrc/aten/fft),
// torch-free.
//
// Everywhere: plan_fft's layouts (contiguous sides are simple, strided ones embedded, what
// no embedding describes is cloned, half needs powers of two, an output must be
// describable) and the plan cache's LRU semantics. With a GPU: C2C, R2C and C2R plans
// (one to three dimensions, embedded strided input, batch distances, float, double and
// half) against a naive DFT on the host, and a plan run from two threads. Without one: says
// why and checks that making a plan fails with a clear error.
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
namespace fft = torch_cuda::fft;
using Complex = std::complex<double>;

// A key of `sizes` (batch first) whose sides are contiguous, with strides in elements.
fft::FftKey contiguous_key(fft::Transform transform, fft::ValueType value_type, std::vector<std::int64_t> sizes) {
  fft::FftKey key;
  key.rank = static_cast<int>(sizes.size()) - 1;
  key.transform = transform;
  key.value_type = value_type;
  for (int i = 0; i <= key.rank; ++i) key.sizes[i] = sizes[i];
  const auto strides = [&](bool onesided) {
    std::array<std::int64_t, fft::kMaxRank + 1> result{};
    std::int64_t stride = 1;
    for (int i = key.rank; i >= 0; --i) {
      result[i] = stride;
      stride *= (i == key.rank && onesided) ? sizes[i] / 2 + 1 : sizes[i];
    }
    return result;
  };
  key.in_strides = strides(transform == fft::Transform::kC2R);
  key.out_strides = strides(transform == fft::Transform::kR2C);
  return key;
}

// ---- host ---------------------------------------------------------------------------------

void plan_checks() {
  using fft::Transform;
  using fft::ValueType;
  fft::FftKey key = contiguous_key(Transform::kR2C, ValueType::kFloat, {4, 6, 10});
  fft::FftPlan plan = fft::plan_fft(key);
  check(plan.in.simple && plan.out.simple && !plan.clone_input, "contiguous R2C: both sides simple");
  check(plan.rank == 2 && plan.n[0] == 6 && plan.n[1] == 10 && plan.batch == 4, "R2C: n and batch");
  check(plan.out.dist == 6 * 6 && plan.out.embed[1] == 6, "R2C's complex side is onesided (10 / 2 + 1)");

  // Every other column of a (4, 6, 20) tensor: embedded with stride 2 and distance 120.
  key.in_strides = {120, 20, 2, 0};
  plan = fft::plan_fft(key);
  check(!plan.clone_input && !plan.in.simple && plan.in.stride == 2 && plan.in.embed[1] == 10 && plan.in.dist == 120,
        "strided R2C input is embedded (stride 2, embed 10, dist 120)");

  // A transposed (inner dimension not the smallest stride) input has no embedding.
  key.in_strides = {60, 1, 6, 0};
  plan = fft::plan_fft(key);
  check(plan.clone_input && plan.in.simple && plan.in.dist == 60, "transposed input: cloned contiguous");

  key = contiguous_key(Transform::kC2C, ValueType::kFloat, {3, 8});
  key.in_strides = {0, 1, 0, 0};
  check(fft::plan_fft(key).clone_input, "a zero batch stride over several batches is cloned");
  key = contiguous_key(Transform::kC2C, ValueType::kFloat, {1, 8});
  key.in_strides = {0, 1, 0, 0};
  plan = fft::plan_fft(key);
  check(!plan.clone_input && plan.in.dist == 8, "one batch: its distance is the signal size, whatever the stride");

  key = contiguous_key(Transform::kC2R, ValueType::kHalf, {2, 16});
  key.in_strides = {18, 2, 0, 0};
  check(fft::plan_fft(key).clone_input, "half with a strided last dimension is cloned");
  key = contiguous_key(Transform::kC2C, ValueType::kHalf, {2, 12});
  std::string message = gpu_test::thrown<std::invalid_argument>([&] { fft::plan_fft(key); }, "half size 12");
  check(contains(message, "not a power of two") && contains(message, "[12]"), "half size 12 refused: " + message);

  key = contiguous_key(Transform::kC2C, ValueType::kFloat, {2, 8});
  key.out_strides = {8, -1, 0, 0};
  message = gpu_test::thrown<std::invalid_argument>([&] { fft::plan_fft(key); }, "negative out stride");
  check(contains(message, "Out strides cannot be represented"), "negative out stride refused: " + message);
  key.rank = 4;
  message = gpu_test::thrown<std::invalid_argument>([&] { fft::plan_fft(key); }, "rank 4");
  check(contains(message, "1 to 3 dimensions"), "rank 4 refused: " + message);

  fft::FftKey a = contiguous_key(Transform::kC2C, ValueType::kFloat, {2, 8});
  fft::FftKey b = a;
  check(a == b && fft::FftKeyHash()(a) == fft::FftKeyHash()(b), "equal keys hash equally");
  b.value_type = ValueType::kDouble;
  check(!(a == b), "the value type is part of the key");
}

class Fake final : public fft::Executable {
 public:
  std::int64_t workspace_size() const override { return 0; }
  void run(const void*, void*, void*, bool, torch_core::StreamHandle) const override {}
};

void cache_checks() {
  fft::PlanCache& cache = fft::plan_cache(0);
  int made = 0;
  const auto make = [&made] {
    ++made;
    return std::make_unique<Fake>();
  };
  const auto key_of = [](std::int64_t n) {
    return contiguous_key(fft::Transform::kC2C, fft::ValueType::kFloat, {1, n});
  };
  check(cache.capacity() == 4096 && cache.size() == 0, "a device's cache: max_size 4096 (stock's), empty");
  const auto first = cache.lookup(key_of(8), make);
  check(cache.lookup(key_of(8), make) == first && made == 1, "a hit returns the plan");
  cache.lookup(key_of(16), make);
  cache.lookup(key_of(32), make);
  cache.lookup(key_of(8), make);  // 8 is now the most recent
  cache.set_capacity(2);
  check(cache.size() == 2, "shrinking evicts");
  cache.lookup(key_of(8), make);
  cache.lookup(key_of(32), make);
  check(made == 3, "the two most recently used plans stayed (8 and 32)");
  cache.lookup(key_of(16), make);
  check(made == 4 && cache.size() == 2, "16 was evicted and is made again");
  cache.set_capacity(0);
  cache.lookup(key_of(8), make);
  cache.lookup(key_of(8), make);
  check(made == 6 && cache.size() == 0, "max_size 0: every lookup makes a plan, none is kept");
  cache.set_capacity(4);
  cache.lookup(key_of(8), make);
  cache.clear();
  check(cache.size() == 0 && cache.capacity() == 4, "clear empties and keeps max_size");
  check(&fft::plan_cache(0) == &cache && &fft::plan_cache(1) != &cache, "one cache per device, kept");
  cache.set_capacity(fft::kDefaultPlanCacheSize);
}

void host_checks() {
  plan_checks();
  cache_checks();
}

// ---- device -------------------------------------------------------------------------------

// The unnormalised DFT of each batch's signal, row-major over `n` (exponent sign * 2 pi i).
std::vector<Complex> naive_dft(const std::vector<Complex>& x, const std::vector<std::int64_t>& n, std::int64_t batch,
                               int sign) {
  std::int64_t count = 1;
  for (const auto e : n) count *= e;
  std::vector<Complex> y(x.size());
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t k = 0; k < count; ++k) {
      Complex sum = 0;
      for (std::int64_t j = 0; j < count; ++j) {
        double phase = 0;
        std::int64_t kr = k, jr = j;
        for (std::size_t d = n.size(); d-- > 0;) {
          phase += static_cast<double>((kr % n[d]) * (jr % n[d])) / static_cast<double>(n[d]);
          kr /= n[d];
          jr /= n[d];
        }
        sum += x[b * count + j] * std::polar(1.0, sign * 2 * M_PI * phase);
      }
      y[b * count + k] = sum;
    }
  }
  return y;
}

std::vector<Complex> random_signal(std::size_t count, unsigned seed) {
  std::vector<Complex> x(count);
  for (std::size_t i = 0; i < count; ++i) {
    x[i] = Complex(std::sin(0.37 * (i + seed)) + 0.25 * std::cos(1.3 * i), (i % 5) * 0.2 - 0.4);
  }
  return x;
}

double max_error(const std::vector<Complex>& a, const std::vector<Complex>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// Runs `plan` once on device copies of `in` (elements of T), returns the output's elements.
template <typename T>
std::vector<T> run_plan(const fft::FftPlan& plan, const std::vector<T>& in, std::size_t out_count, bool forward,
                        cudaStream_t stream) {
  const auto executable = fft::make_executable(plan);
  gpu_test::DeviceBuffer<T> input(in);
  gpu_test::DeviceBuffer<T> output{std::vector<T>(out_count)};
  gpu_test::DeviceBuffer<char> workspace{std::vector<char>(static_cast<std::size_t>(executable->workspace_size()))};
  executable->run(input.get(), output.get(), workspace.get(), forward, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  return output.to_host();
}

template <typename Real>
void c2c_check(fft::ValueType value_type, std::vector<std::int64_t> n, double tolerance, cudaStream_t stream) {
  const std::int64_t batch = 3;
  std::vector<std::int64_t> sizes{batch};
  sizes.insert(sizes.end(), n.begin(), n.end());
  const fft::FftPlan plan = fft::plan_fft(contiguous_key(fft::Transform::kC2C, value_type, sizes));
  std::int64_t count = batch;
  for (const auto e : n) count *= e;
  const std::vector<Complex> x = random_signal(static_cast<std::size_t>(count), 1);
  std::vector<Real> packed(2 * x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    packed[2 * i] = static_cast<Real>(x[i].real());
    packed[2 * i + 1] = static_cast<Real>(x[i].imag());
  }
  for (const bool forward : {true, false}) {
    const std::vector<Real> out = run_plan(plan, packed, packed.size(), forward, stream);
    std::vector<Complex> got(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      got[i] = Complex(static_cast<double>(out[2 * i]), static_cast<double>(out[2 * i + 1]));
    }
    const double error = max_error(got, naive_dft(x, n, batch, forward ? -1 : 1));
    check(error < tolerance, "C2C rank " + std::to_string(n.size()) + (forward ? " forward" : " inverse") +
                                 ": max error " + std::to_string(error));
  }
}

// R2C of every other element of a padded real input (embedded: stride 2), then C2R back.
void r2c_c2r_check(cudaStream_t stream) {
  const std::int64_t batch = 2, rows = 4, cols = 10, padded = 2 * cols + 2;
  fft::FftKey key = contiguous_key(fft::Transform::kR2C, fft::ValueType::kDouble, {batch, rows, cols});
  key.in_strides = {rows * padded, padded, 2, 0};
  const fft::FftPlan plan = fft::plan_fft(key);
  check(!plan.clone_input && plan.in.stride == 2, "strided R2C is embedded, not cloned");
  std::vector<double> real(static_cast<std::size_t>(batch * rows * padded), 1e9);  // the gaps must not be read
  std::vector<Complex> signal(static_cast<std::size_t>(batch * rows * cols));
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < cols; ++c) {
        const double v = std::sin(0.1 * (b * 97 + r * 13 + c * 3)) + 0.01 * c;
        real[b * rows * padded + r * padded + 2 * c] = v;
        signal[(b * rows + r) * cols + c] = v;
      }
    }
  }
  const std::int64_t half = cols / 2 + 1;
  const std::vector<double> out = run_plan(plan, real, static_cast<std::size_t>(2 * batch * rows * half), true, stream);
  const std::vector<Complex> expected = naive_dft(signal, {rows, cols}, batch, -1);
  double error = 0;
  std::vector<double> spectrum(out);
  for (std::int64_t line = 0; line < batch * rows; ++line) {
    for (std::int64_t k = 0; k < half; ++k) {
      const Complex got(out[2 * (line * half + k)], out[2 * (line * half + k) + 1]);
      error = std::max(error, std::abs(got - expected[line * cols + k]));
    }
  }
  check(error < 1e-9, "R2C 2-d with an embedded strided input: max error " + std::to_string(error));

  const fft::FftPlan inverse = fft::plan_fft(contiguous_key(fft::Transform::kC2R, fft::ValueType::kDouble,
                                                            {batch, rows, cols}));
  const std::vector<double> back = run_plan(inverse, spectrum, static_cast<std::size_t>(batch * rows * cols), false,
                                            stream);
  error = 0;
  for (std::size_t i = 0; i < back.size(); ++i) {
    error = std::max(error, std::abs(back[i] / static_cast<double>(rows * cols) - signal[i].real()));
  }
  check(error < 1e-9, "C2R undoes R2C (unnormalised: divided by the signal size): max error " + std::to_string(error));
}

void half_check(cudaStream_t stream) {
  const fft::FftPlan plan = fft::plan_fft(contiguous_key(fft::Transform::kC2C, fft::ValueType::kHalf, {2, 16}));
  const std::vector<Complex> x = random_signal(32, 3);
  std::vector<__half> packed(64);
  for (std::size_t i = 0; i < x.size(); ++i) {
    packed[2 * i] = __double2half(x[i].real());
    packed[2 * i + 1] = __double2half(x[i].imag());
  }
  const std::vector<__half> out = run_plan(plan, packed, packed.size(), true, stream);
  std::vector<Complex> got(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) got[i] = Complex(__half2float(out[2 * i]), __half2float(out[2 * i + 1]));
  const double error = max_error(got, naive_dft(x, {16}, 2, -1));
  check(error < 5e-2, "C2C half, n = 16: max error " + std::to_string(error));
}

void threads_check(cudaStream_t) {
  // One plan run from two threads, each on its own stream and work area.
  const fft::FftPlan plan = fft::plan_fft(contiguous_key(fft::Transform::kC2C, fft::ValueType::kFloat, {64, 256}));
  const auto executable = fft::make_executable(plan);
  const std::vector<Complex> x = random_signal(64 * 256, 5);
  std::vector<float> packed(2 * x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    packed[2 * i] = static_cast<float>(x[i].real());
    packed[2 * i + 1] = static_cast<float>(x[i].imag());
  }
  const std::vector<Complex> expected = naive_dft(std::vector<Complex>(x.begin(), x.begin() + 256), {256}, 1, -1);
  std::vector<double> errors(2, 1e9);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      cudaStream_t stream = nullptr;
      gpu_test::cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      gpu_test::DeviceBuffer<float> input(packed);
      gpu_test::DeviceBuffer<float> output{std::vector<float>(packed.size())};
      const auto workspace_bytes = static_cast<std::size_t>(executable->workspace_size());
      gpu_test::DeviceBuffer<char> workspace{std::vector<char>(workspace_bytes)};
      for (int i = 0; i < 20; ++i) executable->run(input.get(), output.get(), workspace.get(), true, stream);
      gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
      const std::vector<float> out = output.to_host();
      std::vector<Complex> got(256);
      for (std::size_t i = 0; i < 256; ++i) got[i] = Complex(out[2 * i], out[2 * i + 1]);
      errors[t] = max_error(got, expected);
      cudaStreamDestroy(stream);
    });
  }
  for (auto& thread : threads) thread.join();
  check(errors[0] < 1e-3 && errors[1] < 1e-3, "one plan run from two threads on two streams");
}

void device_checks(cudaStream_t stream) {
  c2c_check<float>(fft::ValueType::kFloat, {16}, 1e-4, stream);
  c2c_check<float>(fft::ValueType::kFloat, {7}, 1e-4, stream);
  c2c_check<double>(fft::ValueType::kDouble, {6, 5}, 1e-10, stream);
  c2c_check<double>(fft::ValueType::kDouble, {4, 3, 5}, 1e-10, stream);
  r2c_c2r_check(stream);
  half_check(stream);
  threads_check(stream);
}

void no_device_checks() {
  const fft::FftPlan plan = fft::plan_fft(contiguous_key(fft::Transform::kC2C, fft::ValueType::kFloat, {1, 8}));
  const std::string message =
      gpu_test::thrown<std::runtime_error>([&] { fft::make_executable(plan); }, "making a plan without a device");
  check(contains(message, "cuFFT error"), "making a plan without a device fails with cuFFT's error: " + message);
}

}  // namespace

int main() {
  return gpu_test::run("cuFFT", "cuFFT not run; plan layouts, the plan cache and no-device behaviour checked",
                       host_checks, no_device_checks, device_checks);
}
