// The cuBLASLt executor of gemm_plan.h's LtMatmulPlan (the real variant): one
// cublasLtMatmul with the plan's epilogue, as ATen's gemm_and_bias. The compute and scale
// types follow math_config (so torch.backends.cuda.matmul.allow_tf32 reaches it); without
// allow_{fp16,bf16}_reduced_precision_reduction the heuristic may only pick algorithms
// that reduce in the compute type (CUBLASLT_REDUCTION_SCHEME_NONE). The operands'
// alignments are passed to the heuristic, which otherwise assumes 256 bytes (a view at an
// offset would get an algorithm that cannot read it).
#include <cstdint>
#include <memory>
#include <type_traits>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm.h"

namespace torch_cuda::blas {
namespace {

// A cuBLASLt descriptor, destroyed with its Destroy function.
template <typename Descriptor, cublasStatus_t (*kDestroy)(Descriptor)>
class Owned {
 public:
  explicit Owned(Descriptor made) : descriptor_(made) {}
  Descriptor get() const { return descriptor_.get(); }

 private:
  struct Deleter {
    void operator()(Descriptor d) const { kDestroy(d); }
  };
  std::unique_ptr<std::remove_pointer_t<Descriptor>, Deleter> descriptor_;
};

using MatmulDesc = Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using Preference = Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

template <typename Value>
void set(const MatmulDesc& desc, cublasLtMatmulDescAttributes_t attribute, const Value& value) {
  TORCH_CUDABLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.get(), attribute, &value, sizeof(value)));
}

template <typename Value>
void set(const Preference& preference, cublasLtMatmulPreferenceAttributes_t attribute, const Value& value) {
  TORCH_CUDABLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference.get(), attribute, &value, sizeof(value)));
}

// A column-major matrix as stored: op(M) is (rows x cols), so M is (cols x rows) when
// transposed.
MatrixLayout layout(cudaDataType_t type, bool trans, int rows, int cols, int ld) {
  cublasLtMatrixLayout_t made = nullptr;
  TORCH_CUDABLAS_CHECK(cublasLtMatrixLayoutCreate(&made, type, trans ? cols : rows, trans ? rows : cols, ld));
  return MatrixLayout(made);
}

cublasLtEpilogue_t epilogue_of(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::kReluBias:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case Epilogue::kGeluBias:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
    case Epilogue::kBias:
      break;
  }
  return CUBLASLT_EPILOGUE_BIAS;
}

// The largest power of two up to 256 that divides the address (ATen's _getAlignment).
std::uint32_t alignment(const void* pointer) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  std::uint32_t bytes = 1;
  while (bytes < 256 && address % (bytes * 2) == 0) bytes *= 2;
  return bytes;
}

bool reduced_precision_allowed(const GemmPlan& p) {
  if (p.dtype == DType::kFloat16) return p.precision.allow_fp16_reduced_precision_reduction;
  if (p.dtype == DType::kBFloat16) return p.precision.allow_bf16_reduced_precision_reduction;
  return true;
}

}  // namespace

void execute(const LtMatmulPlan& plan, torch_core::StreamHandle stream_handle) {
  const GemmPlan& p = plan.gemm;
  if (p.m == 0 || p.n == 0) return;
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const MathConfig config = math_config(p.dtype, p.precision);

  cublasLtMatmulDesc_t made_desc = nullptr;
  TORCH_CUDABLAS_CHECK(cublasLtMatmulDescCreate(&made_desc, config.compute_type, config.scale_type));
  const MatmulDesc desc(made_desc);
  set(desc, CUBLASLT_MATMUL_DESC_TRANSA, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N);
  set(desc, CUBLASLT_MATMUL_DESC_TRANSB, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N);
  set(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue_of(plan.epilogue));
  set(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, plan.bias);

  const MatrixLayout a = layout(config.data_type, p.trans_a, p.m, p.k, p.lda);
  const MatrixLayout b = layout(config.data_type, p.trans_b, p.k, p.n, p.ldb);
  const MatrixLayout d = layout(config.data_type, false, p.m, p.n, p.ldc);

  const LtBinding lt = current_lt_binding(stream);
  cublasLtMatmulPreference_t made_preference = nullptr;
  TORCH_CUDABLAS_CHECK(cublasLtMatmulPreferenceCreate(&made_preference));
  const Preference preference(made_preference);
  set(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, lt.workspace_bytes);
  set(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment(p.a));
  set(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment(p.b));
  set(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment(p.c));
  set(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment(p.c));
  if (!reduced_precision_allowed(p)) {
    const auto in_compute_type = static_cast<std::uint32_t>(CUBLASLT_REDUCTION_SCHEME_NONE);
    set(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, in_compute_type);
  }

  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  TORCH_CUDABLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt.handle, desc.get(), a.get(), b.get(), d.get(), d.get(),
                                                      preference.get(), 1, &heuristic, &found));
  if (found == 0) {
    throw_cublas_error(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic (no algorithm for this plan)",
                       __FILE__, __LINE__);
  }
  const float alpha_f = static_cast<float>(p.alpha), beta_f = 0.0f;
  const double alpha_d = p.alpha, beta_d = 0.0;
  const bool wide = config.scale_type == CUDA_R_64F;
  TORCH_CUDABLAS_CHECK(cublasLtMatmul(lt.handle, desc.get(), wide ? static_cast<const void*>(&alpha_d) : &alpha_f,
                                      p.a, a.get(), p.b, b.get(), wide ? static_cast<const void*>(&beta_d) : &beta_f,
                                      p.c, d.get(), p.c, d.get(), &heuristic.algo, lt.workspace, lt.workspace_bytes,
                                      stream));
}

}  // namespace torch_cuda::blas
