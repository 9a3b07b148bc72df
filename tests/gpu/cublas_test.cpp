// The cuBLAS wrappers (third_device/torch_cuda/torch_cuda/csrc/aten/blas), torch-free.
//
// Everywhere: argument checks, the torch.backends.cuda.matmul precision mapping, the
// CUBLAS_WORKSPACE_CONFIG parser, the cuBLASLt plan's checks. With a GPU: gemm (every
// transpose, padded leading dimensions, alpha/beta), strided-batched gemm (with a broadcast
// operand), gemv (both orientations, strided vectors) at fp32/fp64 against a naive host
// reference, fp16/bf16 through cublasGemmEx, the TF32 switch, cublasLtMatmul with each
// bias epilogue (every transpose, a misaligned operand, fp16), and per-thread handles.
// Without one: says why and checks that getting a handle fails with a clear error.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
namespace blas = torch_cuda::blas;

// ---- host ---------------------------------------------------------------------------------

void host_checks() {
  blas::MatmulPrecision strict;
  strict.allow_tf32 = false;
  strict.allow_fp16_reduced_precision_reduction = false;
  strict.allow_bf16_reduced_precision_reduction = false;
  blas::MatmulPrecision loose;
  loose.allow_tf32 = true;

  const blas::MatmulPrecision defaults;
  check(!defaults.allow_tf32 && defaults.allow_fp16_reduced_precision_reduction &&
            defaults.allow_bf16_reduced_precision_reduction,
        "MatmulPrecision defaults are torch's (tf32 off, reduced-precision reductions on)");

  auto c = blas::math_config(blas::DType::kFloat32, strict);
  check(c.compute_type == CUBLAS_COMPUTE_32F && c.math_mode == CUBLAS_DEFAULT_MATH && c.data_type == CUDA_R_32F,
        "fp32 without tf32: CUBLAS_COMPUTE_32F, default math");
  c = blas::math_config(blas::DType::kFloat32, loose);
  check(c.compute_type == CUBLAS_COMPUTE_32F_FAST_TF32 && c.math_mode == CUBLAS_TF32_TENSOR_OP_MATH,
        "fp32 with allow_tf32: CUBLAS_COMPUTE_32F_FAST_TF32, TF32 math mode");
  c = blas::math_config(blas::DType::kFloat64, loose);
  check(c.compute_type == CUBLAS_COMPUTE_64F && c.scale_type == CUDA_R_64F && c.math_mode == CUBLAS_DEFAULT_MATH,
        "fp64 ignores allow_tf32: CUBLAS_COMPUTE_64F");
  c = blas::math_config(blas::DType::kFloat16, strict);
  check(c.data_type == CUDA_R_16F && c.compute_type == CUBLAS_COMPUTE_32F && c.scale_type == CUDA_R_32F &&
            (c.math_mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
        "fp16 without reduced-precision reduction: fp32 compute, DISALLOW_REDUCED_PRECISION_REDUCTION");
  c = blas::math_config(blas::DType::kFloat16, loose);
  check(!(c.math_mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), "fp16 by default allows reduced reduction");
  c = blas::math_config(blas::DType::kBFloat16, strict);
  check(c.data_type == CUDA_R_16BF && (c.math_mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
        "bf16 without reduced-precision reduction: DISALLOW_REDUCED_PRECISION_REDUCTION");
  c = blas::math_config(blas::DType::kComplex64, loose);
  check(c.data_type == CUDA_C_32F && c.scale_type == CUDA_C_32F && c.compute_type == CUBLAS_COMPUTE_32F_FAST_TF32,
        "complex64 with allow_tf32: complex data and scale, CUBLAS_COMPUTE_32F_FAST_TF32");
  c = blas::math_config(blas::DType::kComplex128, loose);
  check(c.data_type == CUDA_C_64F && c.scale_type == CUDA_C_64F && c.compute_type == CUBLAS_COMPUTE_64F,
        "complex128: complex double data and scale, CUBLAS_COMPUTE_64F");
  strict.allow_fp16_reduced_precision_reduction = true;
  c = blas::math_config(blas::DType::kBFloat16, strict);
  check(c.math_mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, "the bf16 knob is separate from fp16's");

  const blas::MatmulPrecision before = blas::matmul_precision();
  blas::set_matmul_precision(loose);
  check(blas::matmul_precision().allow_tf32, "set_matmul_precision(allow_tf32) is read back");
  blas::set_matmul_precision(before);
  check(!blas::matmul_precision().allow_tf32, "and restored");

  check(blas::parse_workspace_config(":4096:8") == std::size_t{32} << 20, "CUBLAS_WORKSPACE_CONFIG :4096:8 is 32 MiB");
  check(blas::parse_workspace_config(":4096:2:16:8") == std::size_t{8 << 20} + (128 << 10),
        ":4096:2:16:8 is 8 MiB + 128 KiB");
  for (const char* bad : {"", "4096:8", ":4096", ":a:8", ":4096:8:", "::"}) {
    check(!blas::parse_workspace_config(bad).has_value(), std::string("CUBLAS_WORKSPACE_CONFIG '") + bad + "' rejected");
  }
  check(!blas::parse_workspace_config(nullptr).has_value(), "unset CUBLAS_WORKSPACE_CONFIG: the default");
  check(blas::default_workspace_bytes(9) == std::size_t{32} << 20 &&
            blas::default_workspace_bytes(8) == std::size_t{4096 * 1024 * 2 + 16 * 1024 * 8},
        "default workspace sizes are ATen's");
  blas::set_workspace_size(std::size_t{3} << 20);
  check(blas::workspace_bytes(9) == std::size_t{3} << 20, "a set workspace size wins");
  blas::set_workspace_size(std::nullopt);
  check(blas::workspace_bytes(8) == blas::default_workspace_bytes(8), "and unset, the default is back");

  // Argument checks, before any CUDA call (so they hold without a device too).
  float dummy[4] = {};
  blas::Gemm g;
  g.m = 3, g.n = 4, g.k = 5, g.a = dummy, g.lda = 4, g.b = dummy, g.ldb = 4, g.c = dummy, g.ldc = 4;
  check(contains(gpu_test::thrown<std::invalid_argument>([&] { blas::check_gemm(g); }, "lda < k"), "lda"),
        "gemm rejects lda < k (A is m x k row-major) naming lda");
  g.lda = 5;
  g.ldb = 3;
  check(contains(gpu_test::thrown<std::invalid_argument>([&] { blas::check_gemm(g); }, "ldb < n"), "ldb"),
        "gemm rejects ldb < n naming ldb");
  g.trans_b = true;  // B stored n x k: ldb >= k
  g.ldb = 5;
  bool ok = true;
  try {
    blas::check_gemm(g);
  } catch (const std::exception&) {
    ok = false;
  }
  check(ok, "a transposed B needs ldb >= k, which 5 is");
  g.m = std::int64_t{INT_MAX} + 1;
  check(contains(gpu_test::thrown<std::invalid_argument>([&] { blas::check_gemm(g); }, "m > INT_MAX"), "32-bit"),
        "gemm rejects sizes beyond cuBLAS's 32-bit API");
  blas::Gemm empty;
  empty.m = 0, empty.n = 3, empty.k = 2, empty.lda = 2, empty.ldb = 3, empty.ldc = 3;
  ok = true;
  try {
    blas::gemm(empty, nullptr);
    blas::gemm_strided_batched(g.m > 0 ? empty : empty, 0, 0, 0, 0, nullptr);
  } catch (const std::exception& error) {
    ok = false;
    std::fprintf(stderr, "%s\n", error.what());
  }
  check(ok, "an empty gemm returns without touching CUDA");
  blas::Gemv v;
  v.m = 2, v.n = 3, v.a = dummy, v.lda = 3, v.x = dummy, v.y = dummy, v.incx = 0;
  check(contains(gpu_test::thrown<std::invalid_argument>([&] { blas::check_gemv(v); }, "incx 0"), "incx"),
        "gemv rejects incx = 0");

  // cuBLASLt: the bias takes C's place (beta 0) and is one value per column of the
  // row-major C, so per row of the column-major D the plan describes.
  blas::Gemm lt;
  lt.m = 3, lt.n = 4, lt.k = 2, lt.a = dummy, lt.lda = 2, lt.b = dummy, lt.ldb = 4, lt.c = dummy, lt.ldc = 4;
  const blas::LtMatmulPlan plan = blas::plan_gemm_and_bias(lt, {}, dummy, blas::Epilogue::kGeluBias);
  check(plan.gemm.m == 4 && plan.gemm.n == 3 && plan.bias == dummy && plan.epilogue == blas::Epilogue::kGeluBias,
        "the Lt plan's D has C's columns as rows, so the bias broadcasts along C's rows");
  lt.beta = 1.0;
  check(contains(gpu_test::thrown<std::invalid_argument>(
                     [&] { blas::plan_gemm_and_bias(lt, {}, dummy, blas::Epilogue::kBias); }, "beta 1"),
                 "beta"),
        "gemm_and_bias refuses beta != 0 (C is not read)");
  lt.beta = 0.0;
  check(contains(gpu_test::thrown<std::invalid_argument>(
                     [&] { blas::plan_gemm_and_bias(lt, {}, nullptr, blas::Epilogue::kBias); }, "no bias"),
                 "bias"),
        "gemm_and_bias refuses a null bias");
}

void no_device_checks() {
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [] { blas::current_handle(nullptr); }, "current_handle without a device");
  std::printf("current_handle without a device: %s\n", message.c_str());
  check((contains(message, "CUDA error") || contains(message, "cuBLAS error")) &&
            contains(message, "CUDA_LAUNCH_BLOCKING") && contains(message, "from "),
        "getting a handle without a device fails naming the call: " + message);
  check(blas::created_handle_count() == 0, "no handle was created");
  float dummy[16] = {};
  blas::Gemm g;
  g.m = 2, g.n = 2, g.k = 2, g.a = dummy, g.lda = 2, g.b = dummy, g.ldb = 2, g.c = dummy, g.ldc = 2;
  gpu_test::thrown<std::runtime_error>([&] { blas::gemm(g, nullptr); }, "gemm without a device");
}

// ---- device -------------------------------------------------------------------------------

std::uint64_t rng_state = 0x9e3779b97f4a7c15ull;
double next_uniform() {  // [-1, 1)
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<double>(rng_state >> 11) / static_cast<double>(1ull << 52) - 1.0;
}

template <typename T>
std::vector<T> random_vector(std::size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(next_uniform());
  return v;
}

// Row-major reference: C = alpha op(A) op(B) + beta C.
template <typename T>
void reference_gemm(const blas::Gemm& g, const T* a, const T* b, T* c) {
  for (std::int64_t i = 0; i < g.m; ++i) {
    for (std::int64_t j = 0; j < g.n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < g.k; ++p) {
        const double av = g.trans_a ? a[p * g.lda + i] : a[i * g.lda + p];
        const double bv = g.trans_b ? b[j * g.ldb + p] : b[p * g.ldb + j];
        acc += av * bv;
      }
      const double old = g.beta == 0 ? 0.0 : static_cast<double>(c[i * g.ldc + j]);
      c[i * g.ldc + j] = static_cast<T>(g.alpha * acc + g.beta * old);
    }
  }
}

template <typename T>
bool close(const std::vector<T>& got, const std::vector<T>& want, double tol) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    if (!(std::fabs(g - w) <= tol * (1 + std::fabs(w)))) {
      std::fprintf(stderr, "  element %zu: got %.10g, want %.10g\n", i, g, w);
      return false;
    }
  }
  return true;
}

template <typename T>
void check_gemms(blas::DType dtype, double tol, cudaStream_t stream, const std::string& label) {
  const std::int64_t m = 37, n = 19, k = 67, pad = 3;
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      blas::Gemm g;
      g.dtype = dtype, g.trans_a = ta, g.trans_b = tb, g.m = m, g.n = n, g.k = k;
      g.lda = (ta ? m : k) + pad, g.ldb = (tb ? k : n) + pad, g.ldc = n + pad;
      g.alpha = 1.5, g.beta = ta ? 0.5 : 0.0;
      const std::int64_t a_rows = ta ? k : m, b_rows = tb ? n : k;
      auto a = random_vector<T>(a_rows * g.lda), b = random_vector<T>(b_rows * g.ldb);
      auto c = random_vector<T>(m * g.ldc);
      if (g.beta == 0) {
        for (auto& x : c) x = static_cast<T>(NAN);  // beta == 0: C is not read
      }
      auto want = c;
      reference_gemm(g, a.data(), b.data(), want.data());
      if (g.beta == 0) {  // keep the padding's NaNs out of the comparison
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = n; j < g.ldc; ++j) want[i * g.ldc + j] = c[i * g.ldc + j] = 0;
      }
      gpu_test::DeviceBuffer<T> da(a), db(b), dc(c);
      g.a = da.get(), g.b = db.get(), g.c = dc.get();
      blas::gemm(g, stream);
      gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
      check(close(dc.to_host(), want, tol),
            label + " gemm trans_a=" + std::to_string(ta) + " trans_b=" + std::to_string(tb) +
                " (padded ld, alpha 1.5, beta " + std::to_string(g.beta) + ")");
    }
  }

  // bmm / baddbmm: batch 5, B broadcast (stride 0), A and C strided with a gap.
  const std::int64_t batch = 5;
  blas::Gemm g;
  g.dtype = dtype, g.m = m, g.n = n, g.k = k, g.lda = k, g.ldb = n, g.ldc = n, g.alpha = 1.0, g.beta = 1.0;
  const std::int64_t sa = m * k + 11, sc = m * n + 7;
  auto a = random_vector<T>(batch * sa), b = random_vector<T>(k * n), c = random_vector<T>(batch * sc);
  auto want = c;
  for (std::int64_t i = 0; i < batch; ++i) reference_gemm(g, a.data() + i * sa, b.data(), want.data() + i * sc);
  gpu_test::DeviceBuffer<T> da(a), db(b), dc(c);
  g.a = da.get(), g.b = db.get(), g.c = dc.get();
  blas::gemm_strided_batched(g, batch, sa, 0, sc, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(close(dc.to_host(), want, tol), label + " strided-batched gemm (batch 5, broadcast B, beta 1)");

  // gemv: y = alpha op(A) x + beta y with strided x and y.
  for (const bool trans : {false, true}) {
    blas::Gemv v;
    v.dtype = dtype, v.trans = trans, v.m = m, v.n = k, v.lda = k + pad, v.incx = 2, v.incy = 3;
    v.alpha = -0.75, v.beta = 0.25;
    const std::int64_t len_x = trans ? m : k, len_y = trans ? k : m;
    auto av = random_vector<T>(m * v.lda), x = random_vector<T>(len_x * v.incx), y = random_vector<T>(len_y * v.incy);
    auto ywant = y;
    for (std::int64_t i = 0; i < len_y; ++i) {
      double acc = 0;
      for (std::int64_t p = 0; p < len_x; ++p) {
        const double aval = trans ? av[p * v.lda + i] : av[i * v.lda + p];
        acc += aval * static_cast<double>(x[p * v.incx]);
      }
      ywant[i * v.incy] = static_cast<T>(v.alpha * acc + v.beta * static_cast<double>(y[i * v.incy]));
    }
    gpu_test::DeviceBuffer<T> dav(av), dx(x), dy(y);
    v.a = dav.get(), v.x = dx.get(), v.y = dy.get();
    blas::gemv(v, stream);
    gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
    check(close(dy.to_host(), ywant, tol), label + " gemv trans=" + std::to_string(trans) + " (incx 2, incy 3; gaps kept)");
  }
}

// complex128 gemm (A stored transposed, padded leading dimensions) and gemv (a gemm with
// n == 1) with complex alpha and beta, against a host reference in std::complex.
void check_complex_gemm(cudaStream_t stream) {
  using Z = std::complex<double>;
  const std::int64_t m = 5, n = 4, k = 6, pad = 2;
  blas::Gemm g;
  g.dtype = blas::DType::kComplex128, g.trans_a = true, g.m = m, g.n = n, g.k = k;
  g.lda = m + pad, g.ldb = n + pad, g.ldc = n + pad;
  g.alpha = 1.5, g.alpha_imag = -0.5, g.beta = 0.25, g.beta_imag = 2.0;
  auto complex_vector = [](std::size_t size) {
    std::vector<Z> v(size);
    for (auto& x : v) x = Z(next_uniform(), next_uniform());
    return v;
  };
  const std::vector<Z> a = complex_vector(k * g.lda), b = complex_vector(k * g.ldb), c = complex_vector(m * g.ldc);
  std::vector<Z> want = c;
  const Z alpha(g.alpha, g.alpha_imag), beta(g.beta, g.beta_imag);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      Z acc = 0;
      for (std::int64_t p = 0; p < k; ++p) acc += a[p * g.lda + i] * b[p * g.ldb + j];
      want[i * g.ldc + j] = alpha * acc + beta * c[i * g.ldc + j];
    }
  }
  gpu_test::DeviceBuffer<Z> da(a), db(b), dc(c);
  g.a = da.get(), g.b = db.get(), g.c = dc.get();
  blas::gemm(g, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const std::vector<Z> got = dc.to_host();
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  check(worst < 1e-12, "complex128 gemm with complex alpha and beta (" + std::to_string(worst) + ")");

  blas::Gemv v;
  v.dtype = blas::DType::kComplex128, v.m = m, v.n = k, v.lda = k, v.incx = 1, v.incy = 1;
  v.alpha = 0.5, v.alpha_imag = 1.0;
  const std::vector<Z> va = complex_vector(m * k), x = complex_vector(k);
  std::vector<Z> ywant(m);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t p = 0; p < k; ++p) ywant[i] += va[i * k + p] * x[p];
    ywant[i] *= Z(v.alpha, v.alpha_imag);
  }
  gpu_test::DeviceBuffer<Z> dva(va), dx(x), dy(std::vector<Z>(m, Z(NAN, NAN)));  // beta 0: y is not read
  v.a = dva.get(), v.x = dx.get(), v.y = dy.get();
  blas::gemv(v, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const std::vector<Z> ygot = dy.to_host();
  worst = 0;
  for (std::int64_t i = 0; i < m; ++i) worst = std::max(worst, std::abs(ygot[i] - ywant[i]));
  check(worst < 1e-12, "complex128 gemv (a gemm) with complex alpha (" + std::to_string(worst) + ")");
}

// cublasLtMatmul with each epilogue: row-major C (m x n) = epilogue(alpha op(A) op(B) +
// bias[column]), every transpose, A at a 4-byte offset (the heuristic must not assume 256).
template <typename T, typename ToT, typename FromT>
void check_lt_matmul(blas::DType dtype, ToT to_t, FromT from_t, double tol, cudaStream_t stream,
                     const std::string& label) {
  const std::int64_t m = 29, n = 24, k = 40;
  const struct {
    blas::Epilogue epilogue;
    const char* name;
  } epilogues[] = {{blas::Epilogue::kBias, "bias"}, {blas::Epilogue::kReluBias, "relu+bias"},
                   {blas::Epilogue::kGeluBias, "gelu+bias"}};
  for (const auto& [epilogue, name] : epilogues) {
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        blas::Gemm g;
        g.dtype = dtype, g.trans_a = ta, g.trans_b = tb, g.m = m, g.n = n, g.k = k, g.alpha = 0.5;
        g.lda = ta ? m : k, g.ldb = tb ? k : n, g.ldc = n;
        const std::int64_t offset = static_cast<std::int64_t>(4 / sizeof(T) > 0 ? 4 / sizeof(T) : 1);
        std::vector<T> a(offset + m * k), b(k * n), bias(n), c(m * n, to_t(0.0));
        std::vector<double> ad(m * k), bd(k * n), want(m * n);
        for (std::int64_t i = 0; i < m * k; ++i) a[offset + i] = to_t(next_uniform()), ad[i] = from_t(a[offset + i]);
        for (std::int64_t i = 0; i < k * n; ++i) b[i] = to_t(next_uniform()), bd[i] = from_t(b[i]);
        for (auto& x : bias) x = to_t(next_uniform());
        reference_gemm(g, ad.data(), bd.data(), want.data());
        for (std::int64_t i = 0; i < m * n; ++i) {
          double x = want[i] + from_t(bias[i % n]);
          if (epilogue == blas::Epilogue::kReluBias) x = x > 0 ? x : 0;
          if (epilogue == blas::Epilogue::kGeluBias) {
            x = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
          }
          want[i] = x;
        }
        gpu_test::DeviceBuffer<T> da(a), db(b), dbias(bias), dc(c);
        g.a = da.get() + offset, g.b = db.get(), g.c = dc.get();
        blas::execute(blas::plan_gemm_and_bias(g, blas::matmul_precision(), dbias.get(), epilogue), stream);
        gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
        std::vector<double> got;
        for (const T& x : dc.to_host()) got.push_back(from_t(x));
        // cuBLASLt's GELU epilogue evaluates its tanh to about 1e-9 even in fp64 (an H200
        // was 2e-10 off): the reference's tolerance for it is no finer than that.
        const double epilogue_tol = epilogue == blas::Epilogue::kGeluBias ? std::max(tol, 1e-8) : tol;
        check(close(got, want, epilogue_tol), label + " cublasLtMatmul " + name + " trans_a=" + std::to_string(ta) +
                                                  " trans_b=" + std::to_string(tb) + " (A misaligned)");
      }
    }
  }
}

// fp16 / bf16 through cublasGemmEx: inputs rounded to the type on the host, reference in
// double from the rounded values.
template <typename H, typename ToH, typename FromH>
void check_half_gemm(blas::DType dtype, ToH to_h, FromH from_h, cudaStream_t stream, const std::string& label) {
  const std::int64_t m = 33, n = 17, k = 64;
  blas::Gemm g;
  g.dtype = dtype, g.m = m, g.n = n, g.k = k, g.lda = k, g.ldb = n, g.ldc = n, g.alpha = 1.0, g.beta = 0.0;
  std::vector<H> a(m * k), b(k * n), c(m * n, to_h(0.0f));
  std::vector<double> ad(m * k), bd(k * n), want(m * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = to_h(static_cast<float>(next_uniform())), ad[i] = from_h(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = to_h(static_cast<float>(next_uniform())), bd[i] = from_h(b[i]);
  reference_gemm(g, ad.data(), bd.data(), want.data());
  gpu_test::DeviceBuffer<H> da(a), db(b), dc(c);
  g.a = da.get(), g.b = db.get(), g.c = dc.get();
  blas::gemm(g, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  std::vector<double> got;
  for (const H& h : dc.to_host()) got.push_back(from_h(h));
  check(close(got, want, dtype == blas::DType::kFloat16 ? 1e-2 : 5e-2), label + " gemm vs double reference");
}

void device_checks(cudaStream_t stream) {
  const blas::MatmulPrecision saved = blas::matmul_precision();
  blas::MatmulPrecision strict = saved;
  strict.allow_tf32 = false;
  blas::set_matmul_precision(strict);
  check_gemms<float>(blas::DType::kFloat32, 1e-5, stream, "fp32");
  check_gemms<double>(blas::DType::kFloat64, 1e-12, stream, "fp64");
  check_complex_gemm(stream);

  // TF32 accepted: the same fp32 gemms within TF32's ~1e-3 relative error.
  blas::MatmulPrecision tf32 = strict;
  tf32.allow_tf32 = true;
  blas::set_matmul_precision(tf32);
  check_gemms<float>(blas::DType::kFloat32, 2e-2, stream, "fp32 with allow_tf32");

  const auto to_half = [](float f) { return __float2half(f); };
  const auto from_half = [](__half h) { return static_cast<double>(__half2float(h)); };
  const auto to_bf16 = [](float f) { return __float2bfloat16(f); };
  const auto from_bf16 = [](__nv_bfloat16 h) { return static_cast<double>(__bfloat162float(h)); };
  for (const bool reduced : {true, false}) {
    blas::MatmulPrecision p = strict;
    p.allow_fp16_reduced_precision_reduction = reduced;
    p.allow_bf16_reduced_precision_reduction = reduced;
    blas::set_matmul_precision(p);
    const std::string suffix = reduced ? "" : " (reduced-precision reduction disallowed)";
    check_half_gemm<__half>(blas::DType::kFloat16, to_half, from_half, stream, "fp16" + suffix);
    check_half_gemm<__nv_bfloat16>(blas::DType::kBFloat16, to_bf16, from_bf16, stream, "bf16" + suffix);
  }
  const auto identity = [](double x) { return x; };
  check_lt_matmul<float>(blas::DType::kFloat32, identity, identity, 1e-4, stream, "fp32");
  check_lt_matmul<double>(blas::DType::kFloat64, identity, identity, 1e-10, stream, "fp64");
  check_lt_matmul<__half>(
      blas::DType::kFloat16, [](double x) { return __float2half(static_cast<float>(x)); }, from_half, 1e-2, stream,
      "fp16");
  blas::set_matmul_precision(saved);

  // Handles: one per thread, bound to the stream it was asked for; a new thread reuses
  // an exited thread's handle instead of creating one.
  cublasHandle_t mine = blas::current_handle(stream);
  check(blas::current_handle(stream) == mine, "a thread gets its own handle back");
  cudaStream_t bound = nullptr;
  TORCH_CUDABLAS_CHECK(cublasGetStream(blas::current_handle(nullptr), &bound));
  check(bound == nullptr, "the handle is rebound to the stream asked for");
  int device = 0;
  gpu_test::cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  cublasHandle_t other = nullptr;
  std::thread([&] {
    gpu_test::cuda_ok(cudaSetDevice(device), "cudaSetDevice");
    other = blas::current_handle(stream);
  }).join();
  check(other != nullptr && other != mine, "another thread gets another handle");
  const std::size_t created = blas::created_handle_count();
  cublasHandle_t reused = nullptr;
  std::thread([&] {
    gpu_test::cuda_ok(cudaSetDevice(device), "cudaSetDevice");
    reused = blas::current_handle(stream);
  }).join();
  check(reused == other && blas::created_handle_count() == created, "an exited thread's handle is reused");

  // Workspaces come from the installed allocator (torch_cuda's: the caching allocator),
  // one per (handle, stream), sized as set, CUBLAS_WORKSPACE_CONFIG or the default says;
  // a new size replaces the workspace the next time its pair is bound.
  static std::vector<std::size_t> requested;
  static int released = 0;
  blas::set_workspace_allocator({[](std::size_t bytes) -> void* {
                                   requested.push_back(bytes);
                                   void* memory = nullptr;
                                   gpu_test::cuda_ok(cudaMalloc(&memory, bytes), "cudaMalloc");
                                   return memory;
                                 },
                                 [](void* memory) {
                                   ++released;
                                   gpu_test::cuda_ok(cudaFree(memory), "cudaFree");
                                 }});
  cudaStream_t fresh = nullptr;
  gpu_test::cuda_ok(cudaStreamCreate(&fresh), "cudaStreamCreate");
  blas::current_handle(fresh);
  blas::current_handle(fresh);
  check(requested.size() == 1 && requested[0] > 0,
        "a new stream's workspace comes from the installed allocator, once");
  blas::set_workspace_size(std::size_t{1} << 20);
  blas::current_handle(fresh);
  check(requested.size() == 2 && requested[1] == std::size_t{1} << 20 && released == 1,
        "a new workspace size replaces the stream's workspace, giving the old one back");
  blas::clear_workspaces();
  check(released == 2, "clear_workspaces gives the workspaces back");
  blas::current_handle(fresh);
  check(requested.size() == 3, "a cleared pair gets a new workspace when bound");
  blas::set_workspace_size(std::nullopt);
  blas::clear_workspaces();
  blas::set_workspace_allocator({});
  gpu_test::cuda_ok(cudaStreamDestroy(fresh), "cudaStreamDestroy");
}

}  // namespace

int main() {
  return gpu_test::run("cuBLAS", "cuBLAS not run; argument checks, precision mapping and no-device behaviour checked",
                       host_checks, no_device_checks, device_checks);
}
