#include "torch_core/csrc/device/philox_generator.h"

#include <cstring>

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/fill.h>
#include <ATen/ops/select.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/device_graph.h"

namespace torch_core {

namespace {

c10::DispatchKeySet key_set_for(c10::Device device) {
  return c10::DispatchKeySet(c10::computeDispatchKey(std::nullopt, c10::kStrided, device));
}

}  // namespace

PhiloxGenerator::PhiloxGenerator(c10::Device device, uint64_t seed)
    : c10::GeneratorImpl(device, key_set_for(device)), seed_(seed) {}

void PhiloxGenerator::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
  rnn_state_current_ = false;
}

uint64_t PhiloxGenerator::current_seed() const { return seed_; }

uint64_t PhiloxGenerator::seed() {
  const uint64_t random = c10::detail::getNonDeterministicRandom(/*is_cuda=*/true);
  set_current_seed(random);
  return random;
}

void PhiloxGenerator::set_offset(uint64_t offset) {
  TORCH_CHECK(offset % 4 == 0, "offset must be a multiple of 4");  // stock's message
  offset_ = offset;
}

uint64_t PhiloxGenerator::get_offset() const { return offset_; }

// As stock's CUDA generator: the seed and the offset (a uint64 each), or the seed alone
// (offset 0), with its messages.
void PhiloxGenerator::set_state(const c10::TensorImpl& new_state) {
  at::detail::check_rng_state(new_state);
  const auto bytes = static_cast<std::size_t>(new_state.numel());
  const bool seed_only = bytes == sizeof(uint64_t);
  TORCH_CHECK(seed_only || bytes == kStateBytes, "RNG state is wrong size");
  uint64_t values[2] = {0, 0};
  std::memcpy(values, new_state.data(), bytes);
  set_offset(values[1]);
  seed_ = values[0];
  rnn_state_current_ = false;
}

c10::intrusive_ptr<c10::TensorImpl> PhiloxGenerator::get_state() const {
  at::TensorBase state = at::detail::empty_cpu({static_cast<int64_t>(kStateBytes)}, c10::ScalarType::Byte,
                                               std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  const uint64_t values[2] = {seed_, offset_};
  std::memcpy(state.data_ptr(), values, kStateBytes);
  return state.getIntrusivePtr();
}

PhiloxInputs PhiloxGenerator::philox_inputs(uint64_t draws) {
  const uint64_t rounded = (draws + 3) / 4 * 4;
  if (current_stream_capturing(device_.type(), device_.index())) {
    // A value baked into the graph would repeat the same numbers at every replay.
    TORCH_CHECK(capturing_, "Random number generation while capturing a ", c10::DeviceTypeName(device_.type()),
                " graph uses a generator the capture does not own: register it with the graph's "
                "register_generator_state() before capture_begin(), or use the capturing device's default "
                "generator");
    const auto* words = static_cast<const uint64_t*>(graph_words_.const_data_ptr());
    PhiloxInputs inputs{0, graph_draws_, words, words + 1};
    graph_draws_ += rounded;
    return inputs;
  }
  const PhiloxInputs inputs{seed_, offset_};
  offset_ += rounded;
  return inputs;
}

void PhiloxGenerator::capture_prologue() {
  TORCH_CHECK(!capturing_, "A ", c10::DeviceTypeName(device_.type()), " generator of device ",
              static_cast<int>(device_.index()), " is in use by another graph's capture; capture one graph at a "
              "time with a generator");
  if (!graph_words_.defined()) {  // outside the capture: not memory of the graph's pool
    const c10::DeviceGuard on_device(device_);
    graph_words_ = at::detail::empty_generic({2}, &Backend::get(device_.type()).allocator(), key_set_for(device_),
                                             c10::ScalarType::Long, std::nullopt);
  }
  capturing_ = true;
  graph_draws_ = 0;
  ++graphs_;
}

void PhiloxGenerator::release_graph() {
  if (graphs_ > 0 && --graphs_ == 0) graph_words_ = at::TensorBase();
}

uint64_t PhiloxGenerator::capture_epilogue() {
  capturing_ = false;
  return graph_draws_;
}

void PhiloxGenerator::replay_prologue(uint64_t increment) {
  // Fills on the device's current stream (the replay's), with the values as kernel
  // arguments as stock's: no host buffer to copy from, nothing to synchronise.
  const at::Tensor words(graph_words_);
  at::Tensor seed_word = at::select(words, 0, 0);
  at::Tensor offset_word = at::select(words, 0, 1);
  at::fill_(seed_word, static_cast<int64_t>(seed_));
  at::fill_(offset_word, static_cast<int64_t>(offset_));
  offset_ += increment;
}

PhiloxGenerator* PhiloxGenerator::clone_impl() const {
  auto* copy = new PhiloxGenerator(device_, seed_);
  copy->offset_ = offset_;
  return copy;
}

PhiloxGenerator* philox_generator_or_default(const std::optional<at::Generator>& generator,
                                             const at::Generator& default_generator,
                                             c10::DeviceType device_type) {
  const at::Generator& chosen = generator.has_value() && generator->defined() ? *generator : default_generator;
  TORCH_CHECK(chosen.defined(), "Generator with undefined implementation is not allowed");
  TORCH_CHECK(chosen.device().type() == device_type, "Expected a '",
              c10::DeviceTypeName(device_type, /*lower_case=*/true),
              "' device type for generator but found '",
              c10::DeviceTypeName(chosen.device().type(), /*lower_case=*/true), "'");
  return chosen.get<PhiloxGenerator>();
}

const at::Generator& DefaultGenerators::get(c10::DeviceIndex device, int device_count) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (generators_.empty()) {
    generators_.reserve(static_cast<std::size_t>(device_count));
    for (int i = 0; i < device_count; ++i) {
      generators_.push_back(at::make_generator<PhiloxGenerator>(
          c10::Device(device_type_, static_cast<c10::DeviceIndex>(i))));
    }
  }
  TORCH_CHECK_INDEX(device >= 0 && static_cast<std::size_t>(device) < generators_.size(),
                    "no default generator for device index ", static_cast<int>(device));
  return generators_[static_cast<std::size_t>(device)];
}

at::Generator DefaultGenerators::make_new(c10::DeviceIndex device) const {
  return at::make_generator<PhiloxGenerator>(c10::Device(device_type_, device));
}

}  // namespace torch_core
