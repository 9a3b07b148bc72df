// A kernel functor's result and argument types, read off its (const) operator(): what the
// engines' executors need to load each operand as the functor's argument type and store
// its result, for torch_core's functors and for those of a backend's C++ extensions.
#pragma once

#include <tuple>

namespace torch_core::engine {

template <typename F>
struct functor_traits : functor_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct functor_traits<R (C::*)(A...) const> {
  using result = R;
  using args = std::tuple<A...>;
  static constexpr int arity = sizeof...(A);
};

}  // namespace torch_core::engine
