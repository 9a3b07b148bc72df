// dot, vdot and trace on any torch_core backend: stock's dot_cuda and vdot_cuda (a cuBLAS
// dot there) as a product and a sum on the kernel engine, accumulated in the opmath dtype
// as cuBLAS does, with stock's checks and messages; trace_cuda, the diagonal's sum.
#include <climits>

#include <ATen/core/Tensor.h>
#include <ATen/ops/conj_physical.h>
#include <ATen/ops/dot_native.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/trace_native.h>
#include <ATen/ops/vdot_native.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/composite/opmath.h"

namespace at::native {

namespace {

using torch_core::composite::opmath;

// Stock's dot_check (Blas.cpp), which the wheel does not export.
void check_vectors(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", other.dim(),
              "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
              self.scalar_type(), " and ", other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
              other.numel(), " elements respectively");
  TORCH_CHECK(self.device() == other.device(), "Expected all tensors to be on the same device. Found: ",
              self.device(), ", ", other.device());
  TORCH_CHECK(self.numel() <= INT_MAX && self.stride(0) <= INT_MAX && other.stride(0) <= INT_MAX,
              "dot only supports n, incx, incy with the bound [val] <= ", INT_MAX);
}

Tensor product_sum(const Tensor& self, const Tensor& other) {
  return at::sum(at::mul(opmath(self), opmath(other))).to(self.scalar_type());
}

}  // namespace

Tensor dot_cuda(const Tensor& self, const Tensor& other) {
  check_vectors(self, other);
  return product_sum(self, other);
}

Tensor vdot_cuda(const Tensor& self, const Tensor& other) {
  check_vectors(self, other);
  return product_sum(self.is_complex() ? at::conj_physical(self) : self, other);
}

Tensor trace_cuda(const Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "expected a matrix");
  return self.diagonal().sum();
}

}  // namespace at::native
