// bincount and histc on any torch_core backend: stock's CUDA kernels (_bincount_cuda,
// _histc_cuda, _histc_out_cuda) with their checks, result dtypes and messages, counting
// with scatter_add_ (stock's kernels count with atomics; both are nondeterministic in
// order, so both raise under torch.use_deterministic_algorithms). Like stock's, they read
// the input's extremes on the host where the result's size or range needs them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/bincount_native.h>
#include <ATen/ops/histc_native.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>

namespace at::native {

Tensor _bincount_cuda(const Tensor& self, const std::optional<Tensor>& weights_opt, int64_t minlength) {
  TORCH_CHECK(c10::isIntegralType(self.scalar_type(), /*includeBool=*/false), "\"bincount_cuda\" not implemented for '",
              self.scalar_type(), "'");
  const Tensor weights = weights_opt.value_or(Tensor());
  globalContext().alertNotDeterministic("_bincount_cuda");
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  const bool has_weights = weights.defined();
  // Float weights count in float, any other in double; no weights count in int64.
  const ScalarType out_type = !has_weights ? kLong : weights.scalar_type() == kFloat ? kFloat : kDouble;
  if (self.dim() == 1 && self.numel() == 0) return at::zeros({minlength}, self.options().dtype(kLong));
  TORCH_CHECK(self.dim() == 1 && (self.scalar_type() == kByte || self.min().item<int64_t>() >= 0),
              "bincount only supports 1-d non-negative integral inputs.");
  TORCH_CHECK(!has_weights || (weights.dim() == 1 && weights.size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  const int64_t nbins = std::max(self.max().item<int64_t>() + 1, minlength);
  Tensor counts = at::zeros({nbins}, self.options().dtype(out_type));
  const Tensor values = has_weights ? weights.to(out_type) : at::ones({self.size(0)}, counts.options());
  return counts.scatter_add_(0, self.to(kLong), values);
}

Tensor _histc_cuda(const Tensor& self, int64_t nbins, const Scalar& min, const Scalar& max) {
  const ScalarType type = self.scalar_type();
  TORCH_CHECK(type != ScalarType::Half, "HalfTensor is not supported");
  const bool integral = c10::isIntegralType(type, /*includeBool=*/false);
  TORCH_CHECK(integral || type == kFloat || type == kDouble, "\"histc\" not implemented for '", type, "'");
  globalContext().alertNotDeterministic("_histc_cuda");
  TORCH_CHECK(nbins > 0, "bins must be > 0");
  Tensor counts = at::zeros({nbins}, self.options());
  // Values as the input's type holds them (stock computes in it: Scalar::to<scalar_t>).
  const auto in_type = [&](double value) {
    if (integral) return static_cast<double>(static_cast<int64_t>(value));
    return type == kFloat ? static_cast<double>(static_cast<float>(value)) : value;
  };
  double low = in_type(integral ? static_cast<double>(min.toLong()) : min.toDouble());
  double high = in_type(integral ? static_cast<double>(max.toLong()) : max.toDouble());
  if (low == high && self.numel() > 0) {
    low = self.min().item<double>();
    high = self.max().item<double>();
  }
  if (low == high) {
    low -= 1;
    high += 1;
  }
  TORCH_CHECK(!(std::isinf(low) || std::isinf(high) || std::isnan(low) || std::isnan(high)), "range of [", low, ", ",
              high, "] is not finite");
  TORCH_CHECK(low < high, "max must be larger than min");
  const auto scalar = [&](double value) {
    return integral ? Scalar(static_cast<int64_t>(value)) : Scalar(in_type(value));
  };
  const Tensor x = self.flatten();
  const Tensor inside = x.masked_select(x.ge(scalar(low)).logical_and(x.le(scalar(high))));
  if (inside.numel() == 0) return counts;
  // bin = (x - min) * nbins / (max - min) in the input's type, the top edge in the last bin.
  const Tensor scaled = inside.sub(scalar(low)).mul(nbins);
  const Scalar range = scalar(high - low);
  const Tensor position = integral ? scaled.div(range, "trunc") : scaled.div(range);
  const Tensor bins = position.to(kLong).clamp_max(nbins - 1);
  return counts.scatter_add_(0, bins, at::ones({bins.size(0)}, counts.options()));
}

Tensor& _histc_out_cuda(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max, Tensor& result) {
  const Tensor counts = _histc_cuda(self, bins, min, max);
  resize_output(result, counts.sizes());
  result.copy_(counts);
  return result;
}

}  // namespace at::native
