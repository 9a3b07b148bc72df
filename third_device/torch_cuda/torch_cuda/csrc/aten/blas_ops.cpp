// Linear algebra on the CUDA key, shared by both variants: mm, addmm, _addmm_activation,
// bmm, baddbmm, mv and addmv plan their cuBLAS call (blas/gemm_plan.h: transposes, leading
// dimensions, batch strides, dtype, alpha/beta, and the precision of
// torch.backends.cuda.matmul read from at::globalContext() on every call) and hand the plan
// to the variant's executor on the current CUDA stream: cuBLAS in the real variant, the
// same column-major call on the host in the simulated one (so the planning here runs in CI).
//
// addmm with a bias (1-D self, beta 1: nn.Linear) and _addmm_activation go to cuBLASLt
// with the bias (and ReLU or GELU) as the gemm's epilogue, under stock's conditions
// (addmm_out_cuda_impl's useLtInterface; DISABLE_ADDMM_CUDA_LT=1 turns it off). Otherwise
// _addmm_activation is addmm then relu_ or gelu_(approximate="tanh"), as stock's CUDA
// kernel (the CPU's uses the exact GELU). TunableOp does not tune the cuBLASLt call yet.
//
// Cases outside float/double/half/bfloat16/complex64/complex128 and mixed dtypes or
// devices fall back to the CPU (with torch's own errors for bad shapes). Conjugate views
// are materialised (stock's cuBLAS calls take a conjugate transpose as CUBLAS_OP_C
// instead). An empty inner dimension needs no library
// call: the product is zero, so the result is beta * self (zeros when beta is 0).
// The out= overloads (and so addmm_, baddbmm_, addmv_) compute the functional result and
// write it out with the structured kernels' checks.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>

#include <ATen/Context.h>
#include <ATen/native/Resize.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_addmm_activation_ops.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/addmv_ops.h>
#include <ATen/ops/baddbmm_ops.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/mm_ops.h>
#include <ATen/ops/mv_ops.h>
#include <ATen/ops/relu.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Scalar.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tunable_gemm.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::native {

namespace {

std::optional<blas::DType> blas_dtype(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat:
      return blas::DType::kFloat32;
    case c10::kDouble:
      return blas::DType::kFloat64;
    case c10::kHalf:
      return blas::DType::kFloat16;
    case c10::kBFloat16:
      return blas::DType::kBFloat16;
    case c10::kComplexFloat:
      return blas::DType::kComplex64;
    case c10::kComplexDouble:
      return blas::DType::kComplex128;
    default:
      return std::nullopt;
  }
}

// torch.backends.cuda.matmul, as the user set it (the process-wide at::Context).
blas::MatmulPrecision precision() {
  const at::Context& context = at::globalContext();
  blas::MatmulPrecision p;
  p.allow_tf32 = context.allowTF32CuBLAS();
  p.allow_fp16_reduced_precision_reduction =
      context.allowFP16ReductionCuBLAS() == at::CuBLASReductionOption::AllowReducedPrecisionWithSplitK;
  p.allow_bf16_reduced_precision_reduction =
      context.allowBF16ReductionCuBLAS() == at::CuBLASReductionOption::AllowReducedPrecisionWithSplitK;
  return p;
}

torch_core::StreamHandle current_stream(const at::Tensor& t) {
  return backend().streams().current_handle(t.device().index());
}

// True when every tensor is a strided CUDA tensor on `first`'s device, of its dtype, and
// that dtype has a gemm.
bool native(std::initializer_list<const at::Tensor*> tensors) {
  const at::Tensor& first = **tensors.begin();
  if (!first.defined() || !first.is_cuda() || !blas_dtype(first.scalar_type())) return false;
  for (const at::Tensor* t : tensors) {
    if (!t->defined() || !t->is_cuda() || t->device() != first.device() || t->scalar_type() != first.scalar_type() ||
        t->layout() != c10::kStrided) {
      return false;
    }
  }
  return true;
}

// Complex alpha and beta scale complex products only (a real one falls back, and raises
// there as stock does).
bool scalars_fit(const at::Tensor& self, const c10::Scalar& beta, const c10::Scalar& alpha) {
  return self.is_complex() || (!beta.isComplex() && !alpha.isComplex());
}

// A matrix (the last two dimensions of `t`) as gemm.h takes it: row-major with leading
// dimension ld, or stored transposed (column-major) with trans; otherwise a contiguous
// copy. `matrix` keeps the storage alive.
struct Operand {
  at::Tensor matrix;
  bool trans = false;
  int64_t ld = 0;
};

Operand as_operand(const at::Tensor& t) {
  // A conjugate (or negative) view is materialised: the plans have no conjugating op.
  if (t.is_conj() || t.is_neg()) return as_operand(t.resolve_conj().resolve_neg());
  const int64_t rows = t.size(-2), cols = t.size(-1);
  const int64_t rs = t.stride(-2), cs = t.stride(-1);
  if (cs == 1 && rs >= std::max<int64_t>(1, cols)) return {t, false, rs};
  if (rs == 1 && cs >= std::max<int64_t>(1, rows)) return {t, true, cs};
  at::Tensor copy = t.contiguous();
  return {copy, false, std::max<int64_t>(1, cols)};
}

// An empty inner dimension: A B is zero, so C = beta * C.
void scale_by_beta(const at::Tensor& c, const c10::Scalar& beta) {
  if (beta.toComplexDouble() == 0.0) {
    c.zero_();
  } else if (beta.toComplexDouble() != 1.0) {
    c.mul_(beta);
  }
}

// alpha and beta into a Gemm or Gemv: real and imaginary parts (the latter read for complex
// dtypes only).
template <typename Args>
void set_scalars(Args& args, const c10::Scalar& alpha, const c10::Scalar& beta) {
  const c10::complex<double> a = alpha.toComplexDouble(), b = beta.toComplexDouble();
  args.alpha = a.real();
  args.alpha_imag = a.imag();
  args.beta = b.real();
  args.beta_imag = b.imag();
}

// The row-major description of C = alpha * A B + beta * C (the last two dimensions; c is
// contiguous). `oa` and `ob` keep the operands' storage alive.
blas::Gemm describe_gemm(const at::Tensor& c, const Operand& oa, const Operand& ob, int64_t k,
                         const c10::Scalar& alpha, const c10::Scalar& beta) {
  blas::Gemm g;
  g.dtype = *blas_dtype(c.scalar_type());
  g.trans_a = oa.trans;
  g.trans_b = ob.trans;
  g.m = c.size(-2);
  g.n = c.size(-1);
  g.k = k;
  g.a = oa.matrix.const_data_ptr();
  g.lda = oa.ld;
  g.b = ob.matrix.const_data_ptr();
  g.ldb = ob.ld;
  g.c = c.data_ptr();
  g.ldc = std::max<int64_t>(1, g.n);
  set_scalars(g, alpha, beta);
  return g;
}

// C = alpha * A B + beta * C for matrices or batches (dim 3) of them; c is contiguous.
void run_gemm(const at::Tensor& c, const at::Tensor& a, const at::Tensor& b, const c10::Scalar& beta,
              const c10::Scalar& alpha) {
  if (a.size(-1) == 0) return scale_by_beta(c, beta);
  const bool batched = c.dim() == 3;
  const Operand oa = as_operand(a), ob = as_operand(b);
  const blas::Gemm g = describe_gemm(c, oa, ob, a.size(-1), alpha, beta);
  const blas::GemmPlan plan =
      batched ? blas::plan_gemm(g, precision(), c.size(0), oa.matrix.stride(0), ob.matrix.stride(0), c.stride(0))
              : blas::plan_gemm(g, precision());
  blas::tunable::execute_gemm(plan, batched, c, current_stream(c));
}

// The result of addmm/baddbmm/addmv: self broadcast to `shape` (checked always, with
// stock's message; read only when beta != 0, as torch: beta == 0 ignores NaN and inf in
// self).
at::Tensor initial_result(const at::Tensor& self, at::IntArrayRef shape, const c10::Scalar& beta) {
  const at::Tensor expanded = self.expand(shape);
  at::Tensor out = at::empty(shape, self.options());
  if (beta.toComplexDouble() != 0.0) out.copy_(expanded);
  return out;
}

// Stock's choice of cuBLASLt for addmm (addmm_out_cuda_impl, CUDA 12.1 and newer): a
// contiguous 1-D self of mat2's columns as the bias, beta 1, mat2 not a row or column.
bool use_lt(const at::Tensor& self, const at::Tensor& mat2, const c10::Scalar& beta) {
  static const bool disabled = [] {
    const char* value = std::getenv("DISABLE_ADDMM_CUDA_LT");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return !disabled && !self.is_complex() && beta.toComplexDouble() == 1.0 && self.dim() == 1 &&
         self.size(0) == mat2.size(1) &&
         self.is_contiguous() && mat2.size(0) > 1 && mat2.size(1) > 1;
}

// out (contiguous, m x n) = epilogue(alpha * mat1 mat2 + bias), through cuBLASLt.
void run_gemm_and_bias(const at::Tensor& out, const at::Tensor& mat1, const at::Tensor& mat2,
                       const at::Tensor& bias, const c10::Scalar& alpha, blas::Epilogue epilogue) {
  const Operand oa = as_operand(mat1), ob = as_operand(mat2);
  const blas::Gemm g = describe_gemm(out, oa, ob, mat1.size(1), alpha, 0);
  blas::execute(blas::plan_gemm_and_bias(g, precision(), bias.const_data_ptr(), epilogue), current_stream(out));
}

at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  if (!native({&self, &mat2}) || self.dim() != 2 || mat2.dim() != 2 || self.size(1) != mat2.size(0)) {
    return fall_back<at::_ops::mm>(self, mat2);
  }
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = at::empty({self.size(0), mat2.size(1)}, self.options());
  if (out.numel() > 0) run_gemm(out, self, mat2, 0, 1);
  return out;
}

bool addmm_native(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
                  const c10::Scalar& alpha) {
  return native({&self, &mat1, &mat2}) && mat1.dim() == 2 && mat2.dim() == 2 && mat1.size(1) == mat2.size(0) &&
         self.dim() <= 2 && scalars_fit(self, beta, alpha);
}

// addmm, then `activation` unless the product is empty (stock returns beta * self then).
at::Tensor addmm_with(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                      const c10::Scalar& beta, const c10::Scalar& alpha, std::optional<blas::Epilogue> activation) {
  const c10::DeviceGuard guard(self.device());
  if (use_lt(self, mat2, beta)) {
    at::Tensor out = at::empty({mat1.size(0), mat2.size(1)}, self.options());
    if (out.numel() == 0) return out;
    if (mat1.size(1) == 0) return out.copy_(self.expand(out.sizes()));
    run_gemm_and_bias(out, mat1, mat2, self, alpha, activation.value_or(blas::Epilogue::kBias));
    return out;
  }
  at::Tensor out = initial_result(self, {mat1.size(0), mat2.size(1)}, beta);
  if (out.numel() == 0) return out;
  run_gemm(out, mat1, mat2, beta, alpha);
  if (mat1.size(1) == 0 || !activation) return out;
  return *activation == blas::Epilogue::kReluBias ? at::relu_(out) : at::gelu_(out, "tanh");
}

at::Tensor addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
                 const c10::Scalar& alpha) {
  if (!addmm_native(self, mat1, mat2, beta, alpha)) return fall_back<at::_ops::addmm>(self, mat1, mat2, beta, alpha);
  return addmm_with(self, mat1, mat2, beta, alpha, std::nullopt);
}

at::Tensor addmm_activation(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                            const c10::Scalar& beta, const c10::Scalar& alpha, bool use_gelu) {
  if (!addmm_native(self, mat1, mat2, beta, alpha)) {
    return fall_back<at::_ops::_addmm_activation>(self, mat1, mat2, beta, alpha, use_gelu);
  }
  return addmm_with(self, mat1, mat2, beta, alpha, use_gelu ? blas::Epilogue::kGeluBias : blas::Epilogue::kReluBias);
}

at::Tensor bmm(const at::Tensor& self, const at::Tensor& mat2) {
  if (!native({&self, &mat2}) || self.dim() != 3 || mat2.dim() != 3 || self.size(0) != mat2.size(0) ||
      self.size(2) != mat2.size(1)) {
    return fall_back<at::_ops::bmm>(self, mat2);
  }
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = at::empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  if (out.numel() > 0) run_gemm(out, self, mat2, 0, 1);
  return out;
}

at::Tensor baddbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                   const c10::Scalar& beta, const c10::Scalar& alpha) {
  if (!native({&self, &batch1, &batch2}) || batch1.dim() != 3 || batch2.dim() != 3 ||
      batch1.size(0) != batch2.size(0) || batch1.size(2) != batch2.size(1) || self.dim() > 3 ||
      !scalars_fit(self, beta, alpha)) {
    return fall_back<at::_ops::baddbmm>(self, batch1, batch2, beta, alpha);
  }
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = initial_result(self, {batch1.size(0), batch1.size(1), batch2.size(2)}, beta);
  if (out.numel() > 0) run_gemm(out, batch1, batch2, beta, alpha);
  return out;
}

// y = alpha * mat vec + beta * y, y contiguous.
void run_gemv(const at::Tensor& y, const at::Tensor& mat, const at::Tensor& vec, const c10::Scalar& beta,
              const c10::Scalar& alpha) {
  if (vec.size(0) == 0) return scale_by_beta(y, beta);
  const Operand om = as_operand(mat);
  const at::Tensor resolved = vec.resolve_conj().resolve_neg();
  const at::Tensor x = resolved.stride(0) > 0 ? resolved : resolved.contiguous();
  blas::Gemv g;
  g.dtype = *blas_dtype(y.scalar_type());
  // gemv.h takes A as stored: (rows x cols) row-major, or its transpose with trans.
  g.trans = om.trans;
  g.m = om.trans ? mat.size(1) : mat.size(0);
  g.n = om.trans ? mat.size(0) : mat.size(1);
  g.a = om.matrix.const_data_ptr();
  g.lda = om.ld;
  g.x = x.const_data_ptr();
  g.incx = x.stride(0);
  g.y = y.data_ptr();
  g.incy = 1;
  set_scalars(g, alpha, beta);
  if (blas::gemv_is_gemm(g)) {
    blas::execute(blas::plan_gemv_as_gemm(g, precision()), current_stream(y));
  } else {
    blas::execute(blas::plan_gemv(g), current_stream(y));
  }
}

at::Tensor mv(const at::Tensor& self, const at::Tensor& vec) {
  if (!native({&self, &vec}) || self.dim() != 2 || vec.dim() != 1 || self.size(1) != vec.size(0)) {
    return fall_back<at::_ops::mv>(self, vec);
  }
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = at::empty({self.size(0)}, self.options());
  if (out.numel() > 0) run_gemv(out, self, vec, 0, 1);
  return out;
}

at::Tensor addmv(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const c10::Scalar& beta,
                 const c10::Scalar& alpha) {
  if (!native({&self, &mat, &vec}) || mat.dim() != 2 || vec.dim() != 1 || mat.size(1) != vec.size(0) ||
      self.dim() > 1 || !scalars_fit(self, beta, alpha)) {
    return fall_back<at::_ops::addmv>(self, mat, vec, beta, alpha);
  }
  // addmv's structured meta check, which this kernel stands in for.
  TORCH_CHECK(mat.size(0) == self.numel() || self.numel() == 1, "size mismatch, got input (",
              self.dim() == 0 ? 1 : self.size(0), "), mat (", mat.size(0), "x", mat.size(1), "), vec (",
              vec.size(0), ")");
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = initial_result(self, {mat.size(0)}, beta);
  if (out.numel() > 0) run_gemv(out, mat, vec, beta, alpha);
  return out;
}

// What a structured kernel's out= wrapper does with its result: stock's dtype and device
// checks, resize_output (with its warning for a non-empty out of another shape), copy.
at::Tensor& write_out(at::Tensor& out, const at::Tensor& result) {
  TORCH_CHECK(out.scalar_type() == result.scalar_type(), "Expected out tensor to have dtype ", result.dtype(),
              ", but got ", out.dtype(), " instead");
  TORCH_CHECK(out.device() == result.device(), "Expected out tensor to have device ", result.device(), ", but got ",
              out.device(), " instead");
  at::native::resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

at::Tensor& mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  return write_out(out, native::mm(self, mat2));
}
at::Tensor& addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
                      const c10::Scalar& alpha, at::Tensor& out) {
  return write_out(out, native::addmm(self, mat1, mat2, beta, alpha));
}
at::Tensor& addmm_activation_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                                 const c10::Scalar& beta, const c10::Scalar& alpha, bool use_gelu, at::Tensor& out) {
  return write_out(out, native::addmm_activation(self, mat1, mat2, beta, alpha, use_gelu));
}
at::Tensor& bmm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  return write_out(out, native::bmm(self, mat2));
}
at::Tensor& baddbmm_out(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                        const c10::Scalar& beta, const c10::Scalar& alpha, at::Tensor& out) {
  return write_out(out, native::baddbmm(self, batch1, batch2, beta, alpha));
}
at::Tensor& mv_out(const at::Tensor& self, const at::Tensor& vec, at::Tensor& out) {
  return write_out(out, native::mv(self, vec));
}
at::Tensor& addmv_out(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const c10::Scalar& beta,
                      const c10::Scalar& alpha, at::Tensor& out) {
  return write_out(out, native::addmv(self, mat, vec, beta, alpha));
}

}  // namespace

}  // namespace torch_cuda::native

// Static registrations (the target is alwayslink), in both variants.
TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  namespace native = torch_cuda::native;
  m.impl("mm", TORCH_FN(native::mm));
  m.impl("addmm", TORCH_FN(native::addmm));
  m.impl("_addmm_activation", TORCH_FN(native::addmm_activation));
  m.impl("bmm", TORCH_FN(native::bmm));
  m.impl("baddbmm", TORCH_FN(native::baddbmm));
  m.impl("mv", TORCH_FN(native::mv));
  m.impl("addmv", TORCH_FN(native::addmv));
  m.impl("mm.out", TORCH_FN(native::mm_out));
  m.impl("addmm.out", TORCH_FN(native::addmm_out));
  m.impl("_addmm_activation.out", TORCH_FN(native::addmm_activation_out));
  m.impl("bmm.out", TORCH_FN(native::bmm_out));
  m.impl("baddbmm.out", TORCH_FN(native::baddbmm_out));
  m.impl("mv.out", TORCH_FN(native::mv_out));
  m.impl("addmv.out", TORCH_FN(native::addmv_out));
}
