// max_unpool2d/3d on any torch_core backend: stock's CUDA kernels
// max_unpooling{2,3}d_forward(_out)_cuda, with their checks and messages, as a scatter of
// each plane's values to their flat indices in a zeroed output plane.
#include <vector>

#include <ATen/ops/empty.h>
#include <ATen/ops/max_unpool2d_native.h>
#include <ATen/ops/max_unpool3d_native.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Exception.h>

namespace at::native {

namespace {

void check_nonempty(const Tensor& self, const char* fn_name) {
  for (int64_t i = 1; i < self.dim(); ++i) {
    TORCH_CHECK(self.size(i) > 0, fn_name, ": Expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes(), " with dimension ", i, " being empty.");
  }
}

void check_indices(const Tensor& self, const Tensor& indices) {
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
}

// out: self's leading dimensions with output_size; each plane's values scattered to
// their indices.
Tensor& unpool(const Tensor& self, const Tensor& indices, IntArrayRef output_size, Tensor& out) {
  const int64_t spatial = static_cast<int64_t>(output_size.size());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - spatial);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  out.resize_(shape);
  if (out.numel() == 0) return out;
  const int64_t planes = out.numel() / c10::multiply_integers(output_size);
  const Tensor plane_values = self.reshape({planes, -1});
  Tensor planes_out = at::zeros({planes, out.numel() / planes}, self.options());
  planes_out.scatter_(1, indices.reshape({planes, -1}), plane_values);
  out.copy_(planes_out.view(shape));
  return out;
}

}  // namespace

Tensor& max_unpooling2d_forward_out_cuda(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                                         Tensor& out) {
  TORCH_CHECK(out.is_contiguous(), "output must be contiguous");
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  check_nonempty(self, "max_unpooling2d_forward_out_cuda()");
  TORCH_CHECK(self.dim() == 3 || self.dim() == 4,
              "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ", self.dim(),
              " dimensions.");
  check_indices(self, indices);
  TORCH_CHECK(output_size.size() == 2,
              "There should be exactly two elements (height, width) in output_size, but got ", output_size.size(),
              " elements.");
  return unpool(self, indices, output_size, out);
}

Tensor max_unpooling2d_forward_cuda(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  Tensor out = at::empty({0}, self.options());
  return max_unpooling2d_forward_out_cuda(self, indices, output_size, out);
}

Tensor& max_unpooling3d_forward_out_cuda(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                                         IntArrayRef stride, IntArrayRef padding, Tensor& out) {
  TORCH_CHECK(out.is_contiguous(), "output must be contiguous");
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5,
              "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with ", self.dim(),
              " dimensions.");
  TORCH_CHECK(output_size.size() == 3,
              "There should be exactly three elements (depth, height, width) in output_size, but got: ",
              output_size.size(), " elements.");
  TORCH_CHECK(stride.size() == 3, "There should be exactly three elements (depth, height, width) in stride, but got: ",
              stride.size(), " elements.");
  TORCH_CHECK(padding.size() == 3,
              "There should be exactly three elements (depth, height, width) in padding, but got: ", padding.size(),
              " elements.");
  check_indices(self, indices);
  check_nonempty(self, "max_unpooling3d_forward_out_cuda()");
  TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0, "strides should be greater than zero, but got stride: ",
              stride);
  return unpool(self, indices, output_size, out);
}

Tensor max_unpooling3d_forward_cuda(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                                    IntArrayRef stride, IntArrayRef padding) {
  Tensor out = at::empty({0}, self.options());
  return max_unpooling3d_forward_out_cuda(self, indices, output_size, stride, padding, out);
}

}  // namespace at::native
