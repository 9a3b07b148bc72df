// The random-number stubs: stock's random operators (uniform_, normal_, bernoulli_,
// random_, exponential_, ...) check their arguments and call these with a TensorIterator
// (or the tensor) to fill. Each call reserves its draws from the device's Philox generator
// (or the one passed), so manual_seed and get/set_rng_state replay it, and hands the
// engine one RandomCall. multinomial's sampling with replacement is composed of engine
// operators over uniform_ (at the end).
#include <cstdint>
#include <mutex>
#include <optional>

#include <ATen/ExpandUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/aten/engine/kernel_engine.h"
#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"
#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/philox_generator.h"

namespace torch_core::engine {

namespace {

using Generator = std::optional<at::Generator>;

void run_random(at::TensorIteratorBase& iter, RandomCall call, const Generator& generator) {
  if (iter.numel() == 0) return;
  const c10::Device device = iter.device();
  PhiloxGenerator* gen = philox_generator_or_default(
      generator, Backend::get(device.type()).default_generator(device.index()), device.type());
  {
    // Note [Acquire lock when using random generators].
    std::lock_guard<std::mutex> lock(gen->mutex_);
    const PhiloxInputs inputs = gen->philox_inputs(kMaxDrawsPerElement);
    call.seed = inputs.seed;
    call.offset = inputs.offset;
    call.graph_seed = inputs.graph_seed;
    call.graph_offset = inputs.graph_offset;
  }
  kernel_engine(device.type()).random(call, describe(iter), current_stream(iter));
}

RandomCall make_call(RandomOp op, c10::ScalarType dtype, double arg0 = 0, double arg1 = 0) {
  RandomCall call{op, dtype};
  call.arg0 = arg0;
  call.arg1 = arg1;
  return call;
}

void uniform_kernel(at::TensorIteratorBase& iter, double from, double to, Generator gen) {
  run_random(iter, make_call(RandomOp::kUniform, iter.dtype(), from, to), gen);
}

void normal_kernel(const at::TensorBase& self, double mean, double std, Generator gen) {
  auto iter = at::TensorIterator::borrowing_nullary_op(self);
  run_random(iter, make_call(RandomOp::kNormal, self.scalar_type(), mean, std), gen);
}

void log_normal_kernel(at::TensorIteratorBase& iter, double mean, double std, Generator gen) {
  run_random(iter, make_call(RandomOp::kLogNormal, iter.dtype(), mean, std), gen);
}

void cauchy_kernel(at::TensorIteratorBase& iter, double median, double sigma, Generator gen) {
  run_random(iter, make_call(RandomOp::kCauchy, iter.dtype(), median, sigma), gen);
}

void exponential_kernel(at::TensorIteratorBase& iter, double lambda, Generator gen) {
  run_random(iter, make_call(RandomOp::kExponential, iter.dtype(), lambda), gen);
}

void geometric_kernel(at::TensorIteratorBase& iter, double p, Generator gen) {
  run_random(iter, make_call(RandomOp::kGeometric, iter.dtype(), p), gen);
}

void bernoulli_scalar_kernel(const at::TensorBase& self, double p, Generator gen) {
  auto iter = at::TensorIterator::borrowing_nullary_op(self);
  run_random(iter, make_call(RandomOp::kBernoulli, self.scalar_type(), p), gen);
}

// As stock's CUDA kernel: p may live on the CPU, and must expand to self's shape.
void bernoulli_tensor_kernel(const at::TensorBase& self, const at::TensorBase& p_, Generator gen) {
  const at::Tensor out(self);
  const at::Tensor p = at::Tensor(p_).to(self.device());
  const c10::MaybeOwned<at::Tensor> expanded = at::expand_inplace(out, p);
  auto iter = at::TensorIteratorConfig()
                  .add_output(out)
                  .add_const_input(*expanded)
                  .check_all_same_dtype(false)
                  .build();
  run_random(iter, make_call(RandomOp::kBernoulliTensor, p.scalar_type()), gen);
}

void random_from_to_kernel(at::TensorIteratorBase& iter, uint64_t range, int64_t base, Generator gen) {
  RandomCall call = make_call(RandomOp::kRandomFromTo, iter.dtype());
  call.range = range;
  call.base = base;
  run_random(iter, call, gen);
}

void random_full_64_bits_range_kernel(at::TensorIteratorBase& iter, Generator gen) {
  random_from_to_kernel(iter, /*range=*/0, /*base=*/0, gen);
}

// random_() without bounds: [0, 2^digits] for floating types (every integer the type
// holds exactly), [0, max] for integers, {0, 1} for bool.
uint64_t default_range(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kBool: return 2;
    case c10::kByte: return uint64_t{1} << 8;
    case c10::kChar: return uint64_t{1} << 7;
    case c10::kShort: return uint64_t{1} << 15;
    case c10::kInt: return uint64_t{1} << 31;
    case c10::kLong: return uint64_t{1} << 63;
    case c10::kHalf: return (uint64_t{1} << 11) + 1;
    case c10::kBFloat16: return (uint64_t{1} << 8) + 1;
    case c10::kFloat: return (uint64_t{1} << 24) + 1;
    case c10::kDouble: return (uint64_t{1} << 53) + 1;
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, "\"random_\" not implemented for '", c10::toString(dtype), "'");
  }
}

void random_kernel(at::TensorIteratorBase& iter, Generator gen) {
  random_from_to_kernel(iter, default_range(iter.dtype()), 0, gen);
}

// multinomial with replacement (stock's operator checks the distribution and handles the
// other cases with exponential_ and topk): per row, the normalised cumulative
// distribution and n_sample uniforms from the device generator; a sample is the number of
// cumulative probabilities at or below its uniform (an inverse-CDF lookup as one
// comparison and one sum, so zero-probability categories are never drawn).
void multinomial_with_replacement_kernel(at::Tensor& result, const at::Tensor& self, int64_t n_sample,
                                         Generator gen) {
  const at::Tensor rows = self.dim() == 1 ? self.unsqueeze(0) : self;
  const at::Tensor probs = rows.to(self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat);
  at::Tensor cdf = probs.cumsum(-1);
  cdf = cdf.div(cdf.narrow(-1, cdf.size(-1) - 1, 1));
  at::Tensor uniforms = at::empty({rows.size(0), n_sample}, probs.options());
  uniforms.uniform_(0, 1, gen);
  at::Tensor samples = uniforms.unsqueeze(-1).ge(cdf.unsqueeze(-2)).sum(-1);
  samples.clamp_max_(rows.size(-1) - 1);  // rounding of the last cumulative value
  result.copy_(self.dim() == 1 ? samples.squeeze(0) : samples);
}

}  // namespace

void fill_random_stubs(c10::DeviceType t) {
  namespace native = at::native;
  set_slot(native::uniform_stub, t, &uniform_kernel);
  set_slot(native::normal_stub, t, &normal_kernel);
  set_slot(native::log_normal_stub, t, &log_normal_kernel);
  set_slot(native::cauchy_stub, t, &cauchy_kernel);
  set_slot(native::exponential_stub, t, &exponential_kernel);
  set_slot(native::geometric_stub, t, &geometric_kernel);
  set_slot(native::bernoulli_scalar_stub, t, &bernoulli_scalar_kernel);
  set_slot(native::bernoulli_tensor_stub, t, &bernoulli_tensor_kernel);
  set_slot(native::random_from_to_stub, t, &random_from_to_kernel);
  set_slot(native::random_full_64_bits_range_stub, t, &random_full_64_bits_range_kernel);
  set_slot(native::random_stub, t, &random_kernel);
  set_slot(native::multinomial_with_replacement_stub, t, &multinomial_with_replacement_kernel);
}

}  // namespace torch_core::engine
