// torch._assert_async on any torch_core backend: stock's CUDA kernels _assert_async_cuda
// and _assert_async_msg_cuda. Stock checks the value in a device-side assert that surfaces
// at a later synchronisation; this reads the one element back (a synchronisation) and
// raises at once, with the same message.
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/ops/_assert_async_native.h>

namespace at::native {

namespace {

void assert_nonzero(const Tensor& self, c10::string_view message) {
  const int64_t n = self.numel();
  TORCH_CHECK(n != 0, "Boolean value of Tensor with no values is ambiguous");
  TORCH_CHECK(n < 2, "Boolean value of Tensor with more than one value is ambiguous");
  TORCH_CHECK(self.item().toBool(), std::string(message));
}

}  // namespace

void _assert_async_cuda(const Tensor& self) {
  assert_nonzero(self, "Expected Tensor with single nonzero value, but got zero");
}

void _assert_async_msg_cuda(const Tensor& self, c10::string_view assert_msg) { assert_nonzero(self, assert_msg); }

}  // namespace at::native
