// The simulated variant's executor of gemm_plan.h's plans: the column-major calls cuBLAS
// would make, run on the host on the stream's worker with cuBLAS's documented semantics:
// op(A) / op(B) through the transposes and leading dimensions, batch strides (0
// broadcasts), beta == 0 not reading C, alpha and beta in the scale type, accumulation in
// the compute type (float for CUBLAS_COMPUTE_32F, with inputs rounded to TF32 when
// allow_tf32 asks for CUBLAS_COMPUTE_32F_FAST_TF32; double for 64F; the complex types in
// complex<float> and complex<double>, with complex alpha and beta); cuBLASLt's bias
// epilogues add the bias per row of D in the compute type, then apply ReLU or GELU (the
// tanh approximation), then round once. Each plan is recorded under the call it stands in
// for (library_calls.h).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/complex.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/simulated/csrc/tf32.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::blas {

namespace {

template <typename T, typename Acc>
Acc load(const void* base, std::int64_t index, bool tf32) {
  const Acc value = static_cast<Acc>(static_cast<const T*>(base)[index]);
  if constexpr (std::is_same_v<Acc, float>) {
    return tf32 ? simulated::round_to_tf32(value) : value;
  } else if constexpr (std::is_same_v<Acc, c10::complex<float>>) {
    return tf32 ? Acc(simulated::round_to_tf32(value.real()), simulated::round_to_tf32(value.imag())) : value;
  } else {
    return value;
  }
}

// alpha or beta in the accumulation type: complex for the complex types.
template <typename Acc>
Acc scalar(double real, double imag) {
  if constexpr (c10::is_complex<Acc>::value) {
    return Acc(static_cast<typename Acc::value_type>(real), static_cast<typename Acc::value_type>(imag));
  } else {
    return static_cast<Acc>(real);
  }
}

// op(M)(row, col) of a column-major matrix with leading dimension ld.
std::int64_t at(bool trans, std::int64_t row, std::int64_t col, int ld) {
  return trans ? col + row * static_cast<std::int64_t>(ld) : row + col * static_cast<std::int64_t>(ld);
}

// alpha * op(A) op(B) in Acc, handed to finish(element of C, row, value) per element.
template <typename T, typename Acc, typename Finish>
void gemm_typed(const GemmPlan& p, Finish finish) {
  const bool tf32 = (std::is_same_v<T, float> || std::is_same_v<T, c10::complex<float>>) && p.precision.allow_tf32;
  const Acc alpha = scalar<Acc>(p.alpha, p.alpha_imag);
  for (int batch = 0; batch < p.batch; ++batch) {
    const auto* a = static_cast<const T*>(p.a) + batch * p.stride_a;
    const auto* b = static_cast<const T*>(p.b) + batch * p.stride_b;
    auto* c = static_cast<T*>(p.c) + batch * p.stride_c;
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        Acc sum = 0;
        for (std::int64_t l = 0; l < p.k; ++l) {
          sum += load<T, Acc>(a, at(p.trans_a, i, l, p.lda), tf32) * load<T, Acc>(b, at(p.trans_b, l, j, p.ldb), tf32);
        }
        finish(c[i + j * static_cast<std::int64_t>(p.ldc)], i, alpha * sum);
      }
    }
  }
}

template <typename T, typename Acc>
void gemm_typed(const GemmPlan& p) {
  const Acc beta = scalar<Acc>(p.beta, p.beta_imag);
  gemm_typed<T, Acc>(p, [beta](T& out, std::int64_t, Acc value) {
    // beta == 0: C is not read (NaN or inf there does not propagate).
    out = static_cast<T>(beta == Acc(0) ? value : value + beta * static_cast<Acc>(out));
  });
}

template <typename Acc>
Acc gelu_tanh(Acc x) {
  const Acc kBeta = static_cast<Acc>(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
  const Acc kKappa = static_cast<Acc>(0.044715);
  return static_cast<Acc>(0.5) * x * (static_cast<Acc>(1) + std::tanh(kBeta * (x + kKappa * x * x * x)));
}

template <typename T, typename Acc>
void lt_matmul_typed(const LtMatmulPlan& plan) {
  const auto* bias = static_cast<const T*>(plan.bias);
  const Epilogue epilogue = plan.epilogue;
  gemm_typed<T, Acc>(plan.gemm, [bias, epilogue](T& out, std::int64_t row, Acc value) {
    Acc x = value + static_cast<Acc>(bias[row]);
    if (epilogue == Epilogue::kReluBias) x = x > Acc(0) ? x : Acc(0);
    if (epilogue == Epilogue::kGeluBias) x = gelu_tanh(x);
    out = static_cast<T>(x);
  });
}

template <typename T>
void gemv_typed(const GemvPlan& p) {
  const std::int64_t y_len = p.trans ? p.cols : p.rows;
  const std::int64_t x_len = p.trans ? p.rows : p.cols;
  const auto* a = static_cast<const T*>(p.a);
  const auto* x = static_cast<const T*>(p.x);
  auto* y = static_cast<T*>(p.y);
  for (std::int64_t i = 0; i < y_len; ++i) {
    T sum = 0;
    for (std::int64_t l = 0; l < x_len; ++l) sum += a[at(p.trans, i, l, p.lda)] * x[l * p.incx];
    T& out = y[i * p.incy];
    out = p.beta == 0 ? static_cast<T>(p.alpha) * sum : static_cast<T>(p.alpha) * sum + static_cast<T>(p.beta) * out;
  }
}

void run_gemm(const GemmPlan& p) {
  switch (p.dtype) {
    case DType::kFloat32: return gemm_typed<float, float>(p);
    case DType::kFloat64: return gemm_typed<double, double>(p);
    case DType::kFloat16: return gemm_typed<c10::Half, float>(p);
    case DType::kBFloat16: return gemm_typed<c10::BFloat16, float>(p);
    case DType::kComplex64: return gemm_typed<c10::complex<float>, c10::complex<float>>(p);
    case DType::kComplex128: return gemm_typed<c10::complex<double>, c10::complex<double>>(p);
  }
}

void run_lt_matmul(const LtMatmulPlan& plan) {
  switch (plan.gemm.dtype) {
    case DType::kFloat32: return lt_matmul_typed<float, float>(plan);
    case DType::kFloat64: return lt_matmul_typed<double, double>(plan);
    case DType::kFloat16: return lt_matmul_typed<c10::Half, float>(plan);
    case DType::kBFloat16: return lt_matmul_typed<c10::BFloat16, float>(plan);
    case DType::kComplex64:
    case DType::kComplex128: break;  // plan_gemm_and_bias refuses them
  }
}

}  // namespace

void execute(const GemmPlan& plan, torch_core::StreamHandle stream) {
  if (plan.m == 0 || plan.n == 0 || plan.batch == 0) return;
  simulated::record_library_call(plan.batch == 1 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx");
  torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan] { run_gemm(plan); });
}

void execute(const LtMatmulPlan& plan, torch_core::StreamHandle stream) {
  if (plan.gemm.m == 0 || plan.gemm.n == 0) return;
  simulated::record_library_call("cublasLtMatmul");
  torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan] { run_lt_matmul(plan); });
}

void execute(const GemvPlan& plan, torch_core::StreamHandle stream) {
  if ((plan.trans ? plan.cols : plan.rows) == 0) return;
  simulated::record_library_call(plan.dtype == DType::kFloat64 ? "cublasDgemv" : "cublasSgemv");
  torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan] {
    if (plan.dtype == DType::kFloat64) gemv_typed<double>(plan);
    else gemv_typed<float>(plan);
  });
}

}  // namespace torch_cuda::blas
