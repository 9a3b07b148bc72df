// The random number generator of a device: Philox4x32-10 counter-based, as CUDA's
// (ATen/cuda/CUDAGeneratorImpl.h), so kernels on host loops and on a GPU draw the same
// streams from the same (seed, offset).
//
// A kernel asks philox_inputs(n) for the (seed, offset) it starts from, having promised to
// use at most n 32-bit draws per subsequence; the offset then advances past them, so the
// next kernel draws fresh numbers. The generator's whole state is (seed, offset): the
// state tensor is 16 bytes (seed, then offset, each a native-endian uint64) on the CPU.
//
// In a captured graph (graph-safe Philox, as stock's CUDA generator): between
// capture_prologue() and capture_epilogue(), philox_inputs() on a capturing stream hands
// out offsets counted from a base that the graph's kernels read from device memory
// (seed, then base offset). Before each replay, replay_prologue() writes the generator's
// (seed, offset) there and advances the offset past what the capture drew, so replays
// draw what eager calls from the same state would.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include <ATen/core/TensorBase.h>

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>
#include <c10/core/GeneratorImpl.h>
#include <c10/core/TensorImpl.h>

namespace torch_core {

struct PhiloxInputs {
  uint64_t seed = 0;
  uint64_t offset = 0;  // in units of 32-bit draws within each subsequence
  // In a captured graph: the device words the seed and the base offset are read from.
  const uint64_t* graph_seed = nullptr;
  const uint64_t* graph_offset = nullptr;
};

class PhiloxGenerator final : public c10::GeneratorImpl {
 public:
  // PyTorch's default seed for device generators (default_rng_seed_val).
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;
  static constexpr std::size_t kStateBytes = 2 * sizeof(uint64_t);

  explicit PhiloxGenerator(c10::Device device, uint64_t seed = kDefaultSeed);

  void set_current_seed(uint64_t seed) override;  // also resets the offset to 0
  uint64_t current_seed() const override;
  // Draws a non-deterministic seed, sets it and returns it.
  uint64_t seed() override;
  // Offsets are multiples of 4 (whole Philox outputs), as CUDA requires.
  void set_offset(uint64_t offset) override;
  uint64_t get_offset() const override;
  void set_state(const c10::TensorImpl& new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;

  // True once after each seeding (stock's CUDAGeneratorImpl::reset_rnn_state): a backend's
  // RNN dropout state drawn from this generator is made again after torch.manual_seed.
  bool reset_rnn_state() { return !rnn_state_current_.exchange(true); }

  // Reserves `draws` 32-bit numbers per subsequence (rounded up to a multiple of 4) and
  // returns where they start. Callers hold mutex_ (Note [Acquire lock when using random
  // generators]).
  PhiloxInputs philox_inputs(uint64_t draws);

  // Graphs (see above); callers hold mutex_. The prologue runs before the capture begins
  // (it may allocate the device words) and counts the graph as a user of them, until
  // release_graph(): the last graph's release frees them, as stock's unregister_graph.
  // One capture at a time uses a generator.
  void capture_prologue();
  void release_graph();
  // What the capture drew per subsequence: the offset a replay advances by.
  uint64_t capture_epilogue();
  // Writes the (seed, offset) the next replay reads, on the device's current stream, and
  // advances the offset by `increment`.
  void replay_prologue(uint64_t increment);

 private:
  PhiloxGenerator* clone_impl() const override;

  uint64_t seed_;
  uint64_t offset_ = 0;
  std::atomic<bool> rnn_state_current_{false};
  at::TensorBase graph_words_;  // 2 int64 on the device, made by the first capture
  bool capturing_ = false;
  uint64_t graph_draws_ = 0;  // offsets handed out in the current capture
  int graphs_ = 0;            // graphs captured with it and not yet reset
};

// The generator behind a `std::optional<at::Generator>` argument of a random op on
// `device`: the given one (checked to be a PhiloxGenerator of that device type) or the
// device's default.
PhiloxGenerator* philox_generator_or_default(const std::optional<at::Generator>& generator,
                                             const at::Generator& default_generator,
                                             c10::DeviceType device_type);

// One default generator per device, made on first use (torch.cuda.default_generators).
class DefaultGenerators {
 public:
  explicit DefaultGenerators(c10::DeviceType device_type) : device_type_(device_type) {}
  // `device` must be a valid index (callers check it).
  const at::Generator& get(c10::DeviceIndex device, int device_count);
  at::Generator make_new(c10::DeviceIndex device) const;

 private:
  const c10::DeviceType device_type_;
  std::mutex mutex_;
  std::vector<at::Generator> generators_;
};

}  // namespace torch_core
