#include "torch_core/csrc/aten/engine/host_engine.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <numeric>
#include <vector>
#include <tuple>
#include <utility>

#include <c10/core/DynamicCast.h>
#include <c10/core/ScalarType.h>

#include "torch_core/csrc/aten/engine/elementwise_dispatch.h"
#include "torch_core/csrc/aten/engine/host_elementwise_loop.h"
#include "torch_core/csrc/aten/engine/index_loop.h"
#include "torch_core/csrc/aten/engine/random_dispatch.h"
#include "torch_core/csrc/aten/engine/reduce_dispatch.h"
#include "torch_core/csrc/aten/kernel_loop.h"

namespace torch_core::engine {

namespace {

using Pointers = std::array<char*, kMaxOperands>;

// Stores a reduction's projected value: one output, or two (var_mean's var and mean).
template <typename R>
void store_projected(const R& value, const OperandLoop& d, const Pointers& p, int) {
  c10::cast_and_store<R>(d.dtypes[0], p[0], value);
}
template <typename R>
void store_projected(const OutPair<R>& value, const OperandLoop& d, const Pointers& p, int noutputs) {
  c10::cast_and_store<R>(d.dtypes[0], p[0], value.first);
  if (noutputs > 1) c10::cast_and_store<R>(d.dtypes[1], p[1], value.second);
}

// Each output folds its slice in order, from the functor's identity.
template <typename F>
void host_reduce(const F& f, const OperandLoop& d, int noutputs) {
  using Input = typename reduce_traits<F>::input;
  const ReductionLoops loops = split_reduction(d, noutputs);
  const c10::ScalarType input_dtype = d.dtypes[noutputs];
  loop::for_each(loops.outer, [&](Pointers& p) {
    auto acc = f.identity();
    loop::StridedLoop<1> slice = loops.inner;
    slice.data[0] = p[noutputs];
    int64_t index = 0;
    loop::for_each(slice, [&](std::array<char*, 1>& in) {
      acc = f.reduce(acc, c10::fetch_and_cast<Input>(input_dtype, in[0]), index++);
    });
    store_projected(f.project(acc), d, p, noutputs);
  });
}

// Element i (in iteration order) draws from Philox subsequence i of the call's stream.
template <typename F>
void host_random(const F& f, const OperandLoop& d, uint64_t seed, uint64_t offset) {
  using traits = functor_traits<F>;
  uint64_t element = 0;
  loop::for_each(d.loop, [&](Pointers& p) {
    PhiloxDraws rng(seed, element++, offset);
    if constexpr (traits::arity == 1) {
      c10::cast_and_store<typename traits::result>(d.dtypes[0], p[0], f(rng));
    } else {
      using Param = std::tuple_element_t<1, typename traits::args>;
      c10::cast_and_store<typename traits::result>(d.dtypes[0], p[0],
                                                   f(rng, c10::fetch_and_cast<Param>(d.dtypes[1], p[1])));
    }
  });
}

// Sort order with NaN above every number.
template <typename T>
bool sorts_before(T a, T b) {
  using M = opmath_t<T>;
  if constexpr (kIsFloating<T>) {
    if (detail::isnan(static_cast<M>(a))) return false;
    if (detail::isnan(static_cast<M>(b))) return true;
  }
  return static_cast<M>(a) < static_cast<M>(b);
}

template <typename T>
void host_sort_segments(const SortCall& call) {
  const int64_t n = call.segment_size;
  std::vector<int64_t> order(n);
  std::vector<T> sorted(n);
  for (int64_t s = 0; s < call.segments; ++s) {
    T* keys = reinterpret_cast<T*>(call.keys) + s * n;
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return call.descending ? sorts_before(keys[b], keys[a]) : sorts_before(keys[a], keys[b]);
    });
    for (int64_t i = 0; i < n; ++i) sorted[i] = keys[order[i]];
    std::copy(sorted.begin(), sorted.end(), keys);
    std::copy(order.begin(), order.end(), call.indices + s * n);
  }
}

void host_sort(const SortCall& call) {
  const bool known = detail::visit_dtype(call.dtype, [&](auto value) {
    using T = decltype(value);
    if constexpr (kIsComplex<T>) {
      TORCH_CHECK(false, "sort: complex keys have no order");
    } else {
      host_sort_segments<T>(call);
    }
  });
  TORCH_CHECK_NOT_IMPLEMENTED(known, "\"sort\" not implemented for '", c10::toString(call.dtype), "'");
}

template <typename T>
void host_scan_segments(const ScanCall& call) {
  const T* in = reinterpret_cast<const T*>(call.input);
  T* out = reinterpret_cast<T*>(call.output);
  for (int64_t s = 0; s < call.segments; ++s) {
    const int64_t base = s * call.segment_size;
    T acc = in[base];
    out[base] = acc;
    for (int64_t i = 1; i < call.segment_size; ++i) {
      acc = call.op == ScanOp::kSum ? acc + in[base + i] : acc * in[base + i];
      out[base + i] = acc;
    }
  }
}

void host_scan(const ScanCall& call) {
  switch (call.dtype) {
    case c10::kLong: return host_scan_segments<int64_t>(call);
    case c10::kFloat: return host_scan_segments<float>(call);
    case c10::kDouble: return host_scan_segments<double>(call);
    case c10::kComplexFloat: return host_scan_segments<c10::complex<float>>(call);
    case c10::kComplexDouble: return host_scan_segments<c10::complex<double>>(call);
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, "\"scan\" not implemented for '", c10::toString(call.dtype), "'");
  }
}

// dst += src for one element of `dtype` (index_put_ with accumulate=True).
void accumulate(c10::ScalarType dtype, char* dst, const char* src) {
  if (c10::isComplexType(dtype)) {
    using C = c10::complex<double>;
    c10::cast_and_store<C>(dtype, dst, c10::fetch_and_cast<C>(dtype, dst) + c10::fetch_and_cast<C>(dtype, src));
  } else if (c10::isFloatingType(dtype)) {
    c10::cast_and_store<double>(dtype, dst, c10::fetch_and_cast<double>(dtype, dst) + c10::fetch_and_cast<double>(dtype, src));
  } else if (dtype == c10::kBool) {
    c10::cast_and_store<bool>(dtype, dst, c10::fetch_and_cast<bool>(dtype, dst) || c10::fetch_and_cast<bool>(dtype, src));
  } else {
    c10::cast_and_store<int64_t>(dtype, dst, c10::fetch_and_cast<int64_t>(dtype, dst) + c10::fetch_and_cast<int64_t>(dtype, src));
  }
}

void host_index(const IndexCall& call, const OperandLoop& d) {
  const std::size_t itemsize = c10::elementSize(d.dtypes[0]);
  loop::for_each(d.loop, [&](Pointers& p) {
    int64_t offset = 0, bad = 0, bad_size = 0;
    // Raised on the stream's worker: it surfaces at the next synchronisation, as a CUDA
    // device-side assert does.
    TORCH_CHECK_INDEX(index_offset(call, d.dtypes.data(), p, offset, bad, bad_size), "index ", bad,
                      " is out of bounds for dimension with size ", bad_size);
    switch (call.kind) {
      case IndexKind::kGather:
        std::memcpy(p[0], p[1] + offset, itemsize);
        break;
      case IndexKind::kPut:
        std::memcpy(p[0] + offset, p[1], itemsize);
        break;
      case IndexKind::kAccumulate:
        accumulate(d.dtypes[0], p[0] + offset, p[1]);
        break;
    }
  });
}

struct HostExecutor {
  template <typename T>
  using acc_t = reduce_acc_t<T, /*kOnDevice=*/false>;

  HostLaunch launch;
  StreamHandle stream;
  const char* device;

  const char* device_name() const { return device; }

  template <typename F>
  void run(const F& f, const OperandLoop& loop) {
    // The description is copied into the work item: the iterator (and any host scalar
    // it pointed to) is gone by the time the worker runs it.
    OperandLoop work = loop;
    launch(stream, [f, work]() mutable {
      work.bind_scalars();
      host_elementwise_loop(f, work);
    });
  }

  template <typename F>
  void run_reduce(const F& f, const OperandLoop& loop, int noutputs) {
    launch(stream, [f, work = loop, noutputs] { host_reduce(f, work, noutputs); });
  }

  template <typename F>
  void run_random(const F& f, const OperandLoop& loop, const RandomCall& call) {
    launch(stream, [f, work = loop, call] { host_random(f, work, call.run_seed(), call.run_offset()); });
  }
};

class HostKernelEngine final : public KernelEngine {
 public:
  HostKernelEngine(c10::DeviceType device_type, HostLaunch launch)
      : launch_(launch), name_(c10::DeviceTypeName(device_type, /*lower_case=*/true)) {}

  void elementwise(const ElementwiseCall& call, const OperandLoop& loop, StreamHandle stream) override {
    HostExecutor executor{launch_, stream, name_.c_str()};
    dispatch_elementwise(call, loop, executor);
  }

  void reduce(const ReduceCall& call, const OperandLoop& loop, StreamHandle stream) override {
    HostExecutor executor{launch_, stream, name_.c_str()};
    dispatch_reduce(call, loop, executor);
  }

  void index(const IndexCall& call, const OperandLoop& loop, StreamHandle stream) override {
    launch_(stream, [call, work = loop] { host_index(call, work); });
  }

  void random(const RandomCall& call, const OperandLoop& loop, StreamHandle stream) override {
    HostExecutor executor{launch_, stream, name_.c_str()};
    dispatch_random(call, loop, executor);
  }

  std::size_t sort_scratch_bytes(const SortCall&) override { return 0; }

  void sort(const SortCall& call, StreamHandle stream) override {
    launch_(stream, [call] { host_sort(call); });
  }

  std::size_t scan_scratch_bytes(const ScanCall&) override { return 0; }

  void scan(const ScanCall& call, StreamHandle stream) override {
    launch_(stream, [call] { host_scan(call); });
  }

 private:
  const HostLaunch launch_;
  const std::string name_;
};

// Each device type's launch function, for host_launch().
std::array<std::atomic<HostLaunch>, static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)>
    host_launches{};

}  // namespace

void register_host_engine(c10::DeviceType device_type, HostLaunch launch) {
  host_launches[static_cast<std::size_t>(device_type)].store(launch);
  // Leaked: the engine serves stub calls for the rest of the process.
  register_kernel_engine(device_type, new HostKernelEngine(device_type, launch));
}

HostLaunch host_launch(c10::DeviceType device_type) {
  const HostLaunch launch = host_launches[static_cast<std::size_t>(device_type)].load();
  TORCH_CHECK(launch != nullptr, "no host engine runs kernels on ", c10::DeviceTypeName(device_type, true),
              " devices: a kernel compiled for the host (a C++ extension's source built without the device's ",
              "compiler) cannot run there; build the extension for this backend's real variant");
  return launch;
}

}  // namespace torch_core::engine
