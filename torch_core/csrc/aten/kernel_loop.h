// The kernel loop API, host side: an elementwise iteration space over strided operands,
// written once and run by a backend wherever its kernels run (the simulated device runs
// it on a stream's worker thread; a CUDA implementation of the same API maps an index to
// a thread). Torch-free: operands are raw pointers with byte strides, so kernels and
// their tests build without torch.
//
// A kernel is a functor over element values, e.g. `[](float a, float b) { return a + b; }`,
// and a StridedLoop<N> gives operand 0 (the output) and N-1 inputs. The caller does
// broadcasting (a broadcast dimension has stride 0) and type promotion; the loop only
// walks indices. Dimensions are ordered outermost first; the innermost is walked in a
// tight loop.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace torch_core::loop {

constexpr int kMaxDims = 16;

template <int N>
struct StridedLoop {
  static_assert(N >= 1, "a loop has at least one operand");
  int ndim = 0;
  std::array<int64_t, kMaxDims> sizes{};
  std::array<char*, N> data{};
  std::array<std::array<int64_t, kMaxDims>, N> strides{};  // bytes, per operand and dimension

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }

  // Merges dimension d into d+1 wherever every operand is contiguous across the two
  // (stride[d] == stride[d+1] * size[d+1]), so contiguous data is one long inner loop.
  void coalesce() {
    if (ndim <= 1) return;
    int out = 0;
    for (int d = 1; d < ndim; ++d) {
      bool mergeable = true;
      for (int op = 0; op < N; ++op) {
        if (strides[op][out] != strides[op][d] * sizes[d]) mergeable = false;
      }
      if (mergeable) {
        sizes[out] *= sizes[d];
        for (int op = 0; op < N; ++op) strides[op][out] = strides[op][d];
      } else {
        ++out;
        sizes[out] = sizes[d];
        for (int op = 0; op < N; ++op) strides[op][out] = strides[op][d];
      }
    }
    ndim = out + 1;
  }
};

// Calls f(std::array<char*, N>& pointers) once per index, innermost dimension fastest.
template <int N, typename F>
void for_each(const StridedLoop<N>& loop, F&& f) {
  if (loop.numel() == 0) return;
  if (loop.ndim == 0) {
    std::array<char*, N> ptrs = loop.data;
    f(ptrs);
    return;
  }
  const int inner = loop.ndim - 1;
  std::array<int64_t, kMaxDims> index{};
  std::array<char*, N> base = loop.data;
  while (true) {
    std::array<char*, N> ptrs = base;
    for (int64_t i = 0; i < loop.sizes[inner]; ++i) {
      f(ptrs);
      for (int op = 0; op < N; ++op) ptrs[op] += loop.strides[op][inner];
    }
    // Odometer over the outer dimensions.
    int d = inner - 1;
    for (; d >= 0; --d) {
      ++index[d];
      for (int op = 0; op < N; ++op) base[op] += loop.strides[op][d];
      if (index[d] < loop.sizes[d]) break;
      for (int op = 0; op < N; ++op) base[op] -= loop.strides[op][d] * loop.sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

namespace detail {
template <typename T>
T load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}
template <typename T>
void store(char* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}
template <typename Out, typename... In, typename Op, std::size_t... I>
void apply(std::array<char*, 1 + sizeof...(In)>& ptrs, const Op& op, std::index_sequence<I...>) {
  store<Out>(ptrs[0], static_cast<Out>(op(load<In>(ptrs[I + 1])...)));
}
}  // namespace detail

// out = op(in...) elementwise; operand 0 is the output.
template <typename Out, typename... In, typename Op>
void elementwise(const StridedLoop<1 + sizeof...(In)>& loop, const Op& op) {
  for_each(loop, [&](std::array<char*, 1 + sizeof...(In)>& ptrs) {
    detail::apply<Out, In...>(ptrs, op, std::index_sequence_for<In...>{});
  });
}

// Reduction: `outer` walks the output elements (operand 0: the output, operand 1: where
// that element's input slice starts), `inner` walks one slice (its data pointer is
// ignored, its strides are the input's along the reduced dimensions). Each output is
// op-folded from `init` in the accumulation type Acc (double for float sums keeps them
// close to a tree reduction).
template <typename Out, typename In, typename Acc, typename Op>
void reduce(const StridedLoop<2>& outer, const StridedLoop<1>& inner, Acc init, const Op& op) {
  for_each(outer, [&](std::array<char*, 2>& ptrs) {
    Acc acc = init;
    StridedLoop<1> slice = inner;
    slice.data[0] = ptrs[1];
    for_each(slice, [&](std::array<char*, 1>& p) { acc = op(acc, static_cast<Acc>(detail::load<In>(p[0]))); });
    detail::store<Out>(ptrs[0], static_cast<Out>(acc));
  });
}

// Copies `itemsize` bytes per element (same-type copy of any strides, any element type).
inline void copy_elements(const StridedLoop<2>& loop, std::size_t itemsize) {
  for_each(loop, [itemsize](std::array<char*, 2>& ptrs) { std::memcpy(ptrs[0], ptrs[1], itemsize); });
}

// Writes the `itemsize`-byte `pattern` into every element.
inline void fill_elements(const StridedLoop<1>& loop, const unsigned char* pattern, std::size_t itemsize) {
  for_each(loop, [pattern, itemsize](std::array<char*, 1>& ptrs) { std::memcpy(ptrs[0], pattern, itemsize); });
}

}  // namespace torch_core::loop
