// One elementwise functor run over an OperandLoop on the host, with gpu_kernel's dynamic
// casting: the host engine's loop for torch_core's functors (host_engine.cpp) and for the
// functors of a backend's C++ extensions (torch_core/csrc/extension/host_kernel.h).
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include <c10/core/DynamicCast.h>
#include <c10/core/ScalarType.h>

#include "torch_core/csrc/aten/engine/functor_traits.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/kernel_loop.h"

namespace torch_core::engine {

namespace host_detail {

using Pointers = std::array<char*, kMaxOperands>;

// One element: each input loaded from its own dtype as the functor's argument type, the
// result stored as the output's dtype.
template <typename F, std::size_t... I>
void apply_casting(const F& f, const std::array<c10::ScalarType, kMaxOperands>& dtypes, const Pointers& p,
                   std::index_sequence<I...>) {
  using traits = functor_traits<F>;
  const auto result =
      f(c10::fetch_and_cast<std::tuple_element_t<I, typename traits::args>>(dtypes[I + 1], p[I + 1])...);
  c10::cast_and_store<typename traits::result>(dtypes[0], p[0], result);
}

// The same without casts, when every operand already has the functor's type.
template <typename F, std::size_t... I>
void apply_direct(const F& f, const Pointers& p, std::index_sequence<I...>) {
  using traits = functor_traits<F>;
  using R = typename traits::result;
  const R result = f(loop::detail::load<std::tuple_element_t<I, typename traits::args>>(p[I + 1])...);
  loop::detail::store<R>(p[0], result);
}

template <typename T>
bool has_type(c10::ScalarType dtype) {
  return dtype == c10::CppTypeToScalarType<T>::value;
}

template <typename F, std::size_t... I>
bool all_direct(const OperandLoop& d, std::index_sequence<I...>) {
  using traits = functor_traits<F>;
  return has_type<typename traits::result>(d.dtypes[0]) &&
         (has_type<std::tuple_element_t<I, typename traits::args>>(d.dtypes[I + 1]) && ...);
}

}  // namespace host_detail

// out = f(in...) for every element of `d` (operand 0 the output), on the calling thread.
template <typename F>
void host_elementwise_loop(const F& f, const OperandLoop& d) {
  using host_detail::Pointers;
  constexpr auto indices = std::make_index_sequence<functor_traits<F>::arity>{};
  if (host_detail::all_direct<F>(d, indices)) {
    loop::for_each(d.loop, [&](Pointers& p) { host_detail::apply_direct(f, p, indices); });
  } else {
    loop::for_each(d.loop, [&](Pointers& p) { host_detail::apply_casting(f, d.dtypes, p, indices); });
  }
}

}  // namespace torch_core::engine
