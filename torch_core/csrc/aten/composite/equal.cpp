// torch.equal on any torch_core backend: stock's cuda_equal, an elementwise eq reduced
// by all() on the device, with one host read of the answer. (Stock first compares named
// tensors' names; the wheel does not export that helper, and names are a prototype.)
#include <ATen/core/Tensor.h>
#include <ATen/ops/all.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/equal_native.h>

namespace at::native {

bool cuda_equal(const Tensor& self, const Tensor& src) {
  TORCH_CHECK(self.device() == src.device(), "Cannot compare two tensors on different devices. Got: ", self.device(),
              " and ", src.device());
  if (self.sizes() != src.sizes()) return false;
  if (self.numel() == 0) return true;
  // The same tensor (as stock's cpu_equal and cuda_equal shortcut it).
  if (self.is_alias_of(src) && self.storage_offset() == src.storage_offset() && self.dtype() == src.dtype() &&
      self.is_contiguous() == src.is_contiguous() && self.strides().equals(src.strides()) &&
      self.layout() == src.layout() && self.is_neg() == src.is_neg() && self.is_conj() == src.is_conj()) {
    return true;
  }
  return at::eq(self, src).all().item().to<bool>();
}

}  // namespace at::native
