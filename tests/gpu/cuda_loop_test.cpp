// The kernel loop API over CUDA (third_device/torch_cuda/csrc/aten/cuda_loop.cuh and
// loop_kernels.h), torch-free.
//
// Everywhere: the GPU loops' index arithmetic (loop_index.h) against kernel_loop.h's host
// iteration order, the reduction split, and the shared functors (loop_ops.h) in the host
// loops. With a GPU: every instantiated kernel on strided, broadcast, transposed and
// contiguous operands against the host loops running the same functors. Without one:
// says why, and checks that launches fail with a CudaError and empty launches do nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/csrc/aten/loop_index.h"
#include "third_device/torch_cuda/csrc/aten/loop_kernels.h"
#include "third_device/torch_cuda/csrc/aten/loop_ops.h"
#include "third_device/torch_cuda/csrc/framework/cuda_check.h"
#include "torch_core/aten/kernel_loop.h"

namespace {

using gpu_test::check;
using gpu_test::make_loop;
using gpu_test::Operand;
using torch_core::loop::StridedLoop;
namespace tl = torch_cuda::loop;
namespace ops = torch_cuda::ops;
namespace kernels = torch_cuda::kernels;

// ---- host: index arithmetic, split plan, shared functors --------------------------------

// Every linear index's offsets (loop_index.h) equal the pointers for_each visits, in order.
template <int N>
void check_offsets(const StridedLoop<N>& loop, const std::string& name) {
  std::vector<std::array<std::int64_t, N>> visited;
  torch_core::loop::for_each(loop, [&](std::array<char*, N>& ptrs) {
    std::array<std::int64_t, N> off;
    for (int op = 0; op < N; ++op) off[op] = ptrs[op] - loop.data[op];
    visited.push_back(off);
  });
  const tl::LoopParams<N> params = tl::make_params(loop);
  check(tl::numel(params) == static_cast<std::int64_t>(visited.size()), name + ": numel matches for_each's count");
  bool same = true;
  for (std::size_t i = 0; i < visited.size(); ++i) {
    std::int64_t off[N];
    tl::offsets(params, static_cast<std::int64_t>(i), off);
    for (int op = 0; op < N; ++op) same = same && off[op] == visited[i][op];
  }
  check(same, name + ": GPU offsets visit kernel_loop.h's elements in its order");
}

void host_index_checks() {
  char* const base = reinterpret_cast<char*>(std::uintptr_t{1} << 20);
  // Transposed input, broadcast row (stride 0), contiguous output.
  check_offsets(make_loop<3>({5, 7}, {{base, {7, 1}, 4}, {base, {1, 5}, 4}, {base, {0, 1}, 4}}), "transpose+broadcast");
  // 4-d with a size-1 dimension, a sliced (stride 3) operand and a negative stride.
  check_offsets(make_loop<2>({2, 1, 3, 4}, {{base, {12, 12, 4, 1}, 8}, {base + 4096, {36, 5, -12, 3}, 8}}),
                "4-d sliced, negative stride");
  // A 0-d loop is one element.
  check_offsets(make_loop<2>({}, {{base, {}, 4}, {base, {}, 4}}), "0-d");
  // Contiguous operands coalesce to one dimension and take the fast path.
  {
    const auto params = tl::make_params(make_loop<3>({3, 4, 5}, {{base, {20, 5, 1}, 4}, {base, {20, 5, 1}, 4},
                                                                 {base, {20, 5, 1}, 4}}));
    const std::int64_t sizes[3] = {4, 4, 4};
    check(params.ndim == 1 && params.sizes[0] == 60 && tl::is_contiguous(params, sizes),
          "contiguous 3-d operands coalesce to one contiguous dimension");
    const std::int64_t wider[3] = {8, 4, 4};
    check(!tl::is_contiguous(params, wider), "a mismatched itemsize is not the contiguous path");
  }
  {
    const auto params = tl::make_params(make_loop<2>({4, 5}, {{base, {5, 1}, 4}, {base, {1, 4}, 4}}));
    const std::int64_t sizes[2] = {4, 4};
    check(params.ndim == 2 && !tl::is_contiguous(params, sizes), "a transposed operand is not contiguous");
  }

  // Reduction split: the chunks cover the slice exactly once.
  for (const auto& [outputs, slice] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 0}, {1, 1}, {1, 1000003}, {3, 1 << 24}, {7, 2049}, {1024, 100000}, {5000, 33}, {1, 2048}}) {
    const tl::ReducePlan plan = tl::plan_reduce(outputs, slice);
    const std::string name = "plan_reduce(" + std::to_string(outputs) + ", " + std::to_string(slice) + ")";
    check(plan.chunks >= 1 && plan.chunks <= tl::kMaxReduceChunks, name + ": 1 <= chunks <= kMaxReduceChunks");
    if (slice == 0) {
      check(plan.chunks == 1 && plan.chunk_size == 0, name + ": an empty slice is one empty chunk");
    } else {
      check(plan.chunks * plan.chunk_size >= slice && (plan.chunks - 1) * plan.chunk_size < slice,
            name + ": chunks cover the slice, none empty");
    }
    if (outputs >= tl::kTargetReduceBlocks) check(plan.chunks == 1, name + ": enough outputs, no split");
  }
  check(tl::plan_reduce(1, 1 << 24).chunks > 1, "a full reduction of 16M elements is split");

  // The shared functors in the host loops.
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30}, out(6, 0);
  const auto loop = make_loop<3>({2, 3}, {{reinterpret_cast<char*>(out.data()), {3, 1}, 4},
                                          {reinterpret_cast<char*>(a.data()), {3, 1}, 4},
                                          {reinterpret_cast<char*>(b.data()), {0, 1}, 4}});
  torch_core::loop::elementwise<float, float, float>(loop, ops::Add<float>{0.5f});
  check(out == std::vector<float>({6, 12, 18, 9, 15, 21}), "ops::Add in kernel_loop.h's elementwise");
  torch_core::loop::elementwise<float, float, float>(loop, ops::Sub<float>{2.0f});
  check(out == std::vector<float>({-19, -38, -57, -16, -35, -54}), "ops::Sub in kernel_loop.h's elementwise");
  torch_core::loop::elementwise<float>(make_loop<1>({6}, {{reinterpret_cast<char*>(out.data()), {1}, 4}}),
                                       ops::Fill<float>{2.5f});
  check(std::all_of(out.begin(), out.end(), [](float v) { return v == 2.5f; }), "ops::Fill in kernel_loop.h");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  check(std::isnan(ops::MaxOp<float>{}(1.0f, nan)) && std::isnan(ops::MaxOp<float>{}(nan, 1.0f)),
        "ops::MaxOp propagates NaN from either side");
  check(ops::MaxOp<std::int64_t>{}(-3, 7) == 7 && ops::MaxOp<std::int64_t>{}(7, -3) == 7, "ops::MaxOp on integers");
  check(ops::Div<double>{}(1.0, 4.0) == 0.25 && ops::Mul<std::int32_t>{}(-3, 5) == -15, "ops::Div, ops::Mul");
}

// ---- no device ---------------------------------------------------------------------------

void no_device_checks() {
  std::vector<float> host(8, 1.0f);
  char* p = reinterpret_cast<char*>(host.data());
  const auto loop = make_loop<3>({8}, {{p, {1}, 4}, {p, {1}, 4}, {p, {1}, 4}});
  const std::string message = gpu_test::thrown<torch_cuda::CudaError>(
      [&] { kernels::add<float>(loop, 1.0f, nullptr); }, "add without a device");
  check(gpu_test::contains(message, "cudaGetLastError") && gpu_test::contains(message, "CUDA_LAUNCH_BLOCKING"),
        "a failed launch names the check and advises CUDA_LAUNCH_BLOCKING: " + message);
  const auto outer = make_loop<2>({2}, {{p, {1}, 4}, {p, {4}, 4}});
  const auto inner = make_loop<1>({4}, {{p, {1}, 4}});
  gpu_test::thrown<torch_cuda::CudaError>([&] { kernels::sum<float, float>(outer, inner, nullptr); },
                                          "sum without a device");
  // Nothing to do launches nothing, so it cannot fail.
  const auto empty = make_loop<3>({0, 4}, {{p, {4, 1}, 4}, {p, {4, 1}, 4}, {p, {4, 1}, 4}});
  bool ok = true;
  try {
    kernels::add<float>(empty, 1.0f, nullptr);
    kernels::sum<float, float>(make_loop<2>({0}, {{p, {1}, 4}, {p, {1}, 4}}), inner, nullptr);
  } catch (const std::exception&) {
    ok = false;
  }
  check(ok, "empty loops launch nothing (no error without a device)");
  check(gpu_test::contains(gpu_test::thrown<std::invalid_argument>(
                               [&] { kernels::fill_bytes(make_loop<1>({1}, {{p, {1}, 3}}), p, 3, nullptr); },
                               "fill_bytes itemsize 3"),
                           "element size 3"),
        "fill_bytes rejects a 3-byte element before launching");
}

// ---- device ------------------------------------------------------------------------------

template <typename T>
std::vector<T> iota(std::size_t n, T start, T step) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i) * step);
  return v;
}

template <typename T>
bool close(const std::vector<T>& got, const std::vector<T>& want, double rtol, double atol) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    if (std::isnan(w) ? !std::isnan(g) : std::fabs(g - w) > atol + rtol * std::fabs(w)) {
      std::fprintf(stderr, "  element %zu: got %.17g, want %.17g\n", i, g, w);
      return false;
    }
  }
  return true;
}

// out (rows x cols, row stride out_stride) = a^T op b, a stored (cols x rows) so it reads
// transposed, b a broadcast row; GPU vs the host loop with the same functor.
template <typename T, typename Launch, typename Functor>
void check_binary(const std::string& name, Launch launch, Functor functor, cudaStream_t stream, double rtol) {
  const std::int64_t rows = 37, cols = 129, out_stride = 2 * cols + 3;
  std::vector<T> a = iota<T>(rows * cols, T(1), T(3));
  std::vector<T> b = iota<T>(cols, T(2), T(1));
  std::vector<T> out(rows * out_stride, T(-7)), want = out;
  gpu_test::DeviceBuffer<T> da(a), db(b), dout(out);
  const std::int64_t s = sizeof(T);
  const auto host_loop = make_loop<3>({rows, cols}, {{reinterpret_cast<char*>(want.data()), {out_stride, 1}, s},
                                                     {reinterpret_cast<char*>(a.data()), {1, rows}, s},
                                                     {reinterpret_cast<char*>(b.data()), {0, 1}, s}});
  torch_core::loop::elementwise<T, T, T>(host_loop, functor);
  launch(gpu_test::rebased(host_loop, {dout.bytes_ptr(), da.bytes_ptr(), db.bytes_ptr()}), stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(close(dout.to_host(), want, rtol, 0), name + " on transposed/broadcast/strided operands (gaps untouched)");

  // Contiguous fast path, more elements than one grid-stride pass covers for some
  // threads (n not a multiple of the block).
  const std::int64_t n = 3 * 65535 * 256 / 2 + 77;
  std::vector<T> ca = iota<T>(n, T(1), T(1)), cb(n, T(3)), cout(n, T(0)), cwant(n);
  gpu_test::DeviceBuffer<T> dca(ca), dcb(cb), dcout(cout);
  const auto chost = make_loop<3>({n}, {{reinterpret_cast<char*>(cwant.data()), {1}, s},
                                        {reinterpret_cast<char*>(ca.data()), {1}, s},
                                        {reinterpret_cast<char*>(cb.data()), {1}, s}});
  torch_core::loop::elementwise<T, T, T>(chost, functor);
  launch(gpu_test::rebased(chost, {dcout.bytes_ptr(), dca.bytes_ptr(), dcb.bytes_ptr()}), stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(close(dcout.to_host(), cwant, rtol, 0), name + " contiguous, " + std::to_string(n) + " elements");
}

void elementwise_device_checks(cudaStream_t stream) {
  check_binary<float>("add<float>", [](auto loop, cudaStream_t st) { kernels::add<float>(loop, 0.5f, st); },
                      ops::Add<float>{0.5f}, stream, 1e-6);
  check_binary<double>("sub<double>", [](auto loop, cudaStream_t st) { kernels::sub<double>(loop, 2.0, st); },
                       ops::Sub<double>{2.0}, stream, 1e-15);
  check_binary<std::int32_t>("mul<int32>", [](auto loop, cudaStream_t st) { kernels::mul<std::int32_t>(loop, st); },
                             ops::Mul<std::int32_t>{}, stream, 0);
  check_binary<std::int64_t>("add<int64>",
                             [](auto loop, cudaStream_t st) { kernels::add<std::int64_t>(loop, -3, st); },
                             ops::Add<std::int64_t>{-3}, stream, 0);
  check_binary<std::int64_t>("sub<int64>",
                             [](auto loop, cudaStream_t st) { kernels::sub<std::int64_t>(loop, 1, st); },
                             ops::Sub<std::int64_t>{1}, stream, 0);
  check_binary<float>("div<float>", [](auto loop, cudaStream_t st) { kernels::div<float>(loop, st); },
                      ops::Div<float>{}, stream, 1e-6);
  check_binary<double>("div<double>", [](auto loop, cudaStream_t st) { kernels::div<double>(loop, st); },
                       ops::Div<double>{}, stream, 1e-15);

  // fill_bytes: every width on a strided (every other element) operand.
  for (const std::size_t itemsize : {1, 2, 4, 8, 16}) {
    const std::int64_t n = 1001;
    std::vector<unsigned char> host(n * 2 * itemsize, 0x11);
    gpu_test::DeviceBuffer<unsigned char> d(host);
    unsigned char pattern[16];
    for (std::size_t i = 0; i < 16; ++i) pattern[i] = static_cast<unsigned char>(0xa0 + i);
    kernels::fill_bytes(make_loop<1>({n}, {{d.bytes_ptr(), {2}, static_cast<std::int64_t>(itemsize)}}), pattern,
                        itemsize, stream);
    gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
    const auto got = d.to_host();
    bool ok = true;
    for (std::int64_t e = 0; e < 2 * n; ++e) {
      for (std::size_t i = 0; i < itemsize; ++i) {
        const unsigned char want = e % 2 == 0 ? pattern[i] : 0x11;
        ok = ok && got[e * itemsize + i] == want;
      }
    }
    check(ok, "fill_bytes itemsize " + std::to_string(itemsize) + " fills every other element, leaves the gaps");
  }

  // copy_bytes: a transposed copy (the strided path) of 8-byte elements.
  {
    const std::int64_t rows = 45, cols = 67;
    std::vector<double> src = iota<double>(rows * cols, 0.0, 1.0), dst(rows * cols, -1.0);
    gpu_test::DeviceBuffer<double> dsrc(src), ddst(dst);
    kernels::copy_bytes(make_loop<2>({rows, cols}, {{ddst.bytes_ptr(), {cols, 1}, 8}, {dsrc.bytes_ptr(), {1, rows}, 8}}),
                        8, stream);
    gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
    const auto got = ddst.to_host();
    bool ok = true;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) ok = ok && got[r * cols + c] == src[c * rows + r];
    check(ok, "copy_bytes transposes a 45 x 67 double matrix");
  }
}

// Reduces a (outer_n x slice) matrix stored row-major along its rows (slice contiguous)
// or, with `columns`, a (slice x outer_n) matrix along its columns (slice strided).
template <typename Out, typename In, typename Launch, typename Reference>
void check_reduce(const std::string& name, std::int64_t outer_n, std::int64_t slice, bool columns,
                  const std::vector<In>& input, Launch launch, Reference reference, cudaStream_t stream, double rtol) {
  const std::int64_t in_size = sizeof(In), out_size = sizeof(Out);
  std::vector<Out> out(outer_n + 2, Out(-5));  // two sentinels past the end
  gpu_test::DeviceBuffer<In> din(input.empty() ? std::vector<In>(1) : input);
  gpu_test::DeviceBuffer<Out> dout(out);
  const std::int64_t outer_stride = columns ? 1 : slice, inner_stride = columns ? outer_n : 1;
  const auto outer = make_loop<2>({outer_n}, {{dout.bytes_ptr(), {1}, out_size}, {din.bytes_ptr(), {outer_stride}, in_size}});
  const auto inner = make_loop<1>({slice}, {{nullptr, {inner_stride}, in_size}});
  launch(outer, inner, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const auto got = dout.to_host();
  std::vector<Out> want(outer_n + 2, Out(-5));
  for (std::int64_t o = 0; o < outer_n; ++o) {
    std::vector<In> values(slice);
    for (std::int64_t i = 0; i < slice; ++i) values[i] = input[o * outer_stride + i * inner_stride];
    want[o] = reference(values);
  }
  check(close(got, want, rtol, 0), name + " (" + std::to_string(outer_n) + " outputs x " + std::to_string(slice) +
                                       (columns ? ", strided slices)" : ", contiguous slices)"));
}

template <typename T>
T host_sum(const std::vector<T>& v) {
  // The host loop with the shared combiner, accumulating in double for floats.
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
  Acc acc = 0;
  for (const T x : v) acc = ops::SumOp<Acc>{}(acc, static_cast<Acc>(x));
  return static_cast<T>(acc);
}

template <typename T>
T host_amax(const std::vector<T>& v) {
  T acc = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  for (const T x : v) acc = ops::MaxOp<T>{}(acc, x);
  return acc;
}

void reduce_device_checks(cudaStream_t stream) {
  const auto sum_f = [](auto o, auto i, cudaStream_t s) { kernels::sum<float, float>(o, i, s); };
  const auto sum_d = [](auto o, auto i, cudaStream_t s) { kernels::sum<double, double>(o, i, s); };
  const auto amax_f = [](auto o, auto i, cudaStream_t s) { kernels::amax<float>(o, i, s); };
  const auto amax_i = [](auto o, auto i, cudaStream_t s) { kernels::amax<std::int32_t>(o, i, s); };

  std::vector<float> big(3 * 1000003);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
  // Full reductions of odd sizes: split into chunks, second pass.
  check_reduce<float, float>("sum<float> split", 3, 1000003, false, big, sum_f, host_sum<float>, stream, 1e-4);
  check_reduce<float, float>("sum<float> split", 1, 3000009, false, big, sum_f, host_sum<float>, stream, 1e-4);
  check_reduce<float, float>("sum<float> split, strided", 3, 1000003, true, big, sum_f, host_sum<float>, stream, 1e-4);
  // Many short slices: one pass, grid-stride over outputs.
  std::vector<double> many = iota<double>(70001 * 33, 0.25, 0.5);
  check_reduce<double, double>("sum<double>", 70001, 33, false, many, sum_d, host_sum<double>, stream, 1e-12);
  check_reduce<double, double>("sum<double>", 33, 70001, true, many, sum_d, host_sum<double>, stream, 1e-12);
  // Odd small shapes, slices shorter than a block.
  std::vector<float> small = iota<float>(7 * 5, -3.0f, 0.25f);
  check_reduce<float, float>("sum<float>", 7, 5, false, small, sum_f, host_sum<float>, stream, 1e-6);
  check_reduce<float, float>("amax<float>", 5, 7, true, small, amax_f, host_amax<float>, stream, 0);
  check_reduce<float, float>("sum<float> of one element", 1, 1, false, small, sum_f, host_sum<float>, stream, 0);
  // Empty slices: the identity; no outputs: nothing written (sentinels stay).
  check_reduce<float, float>("sum<float> of empty slices", 4, 0, false, {}, sum_f, host_sum<float>, stream, 0);
  check_reduce<float, float>("amax<float> of empty slices", 4, 0, false, {}, amax_f, host_amax<float>, stream, 0);
  check_reduce<float, float>("sum<float> with no outputs", 0, 10, false, small, sum_f, host_sum<float>, stream, 0);
  // NaN propagates through both passes.
  std::vector<float> with_nan = big;
  with_nan[1000003 + 777777] = std::numeric_limits<float>::quiet_NaN();
  check_reduce<float, float>("amax<float> with a NaN, split", 3, 1000003, false, with_nan, amax_f, host_amax<float>,
                             stream, 0);
  // Integers: exact, int32 summed into int64 beyond int32's range.
  std::vector<std::int32_t> ints(2 * 600001);
  for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<std::int32_t>((i * 2654435761u) % 20001) - 10000 + 2000000;
  check_reduce<std::int64_t, std::int32_t>(
      "sum<int64, int32>", 2, 600001, false, ints,
      [](auto o, auto i, cudaStream_t s) { kernels::sum<std::int64_t, std::int32_t>(o, i, s); },
      [](const std::vector<std::int32_t>& v) {
        std::int64_t acc = 0;
        for (const auto x : v) acc += x;
        return acc;
      },
      stream, 0);
  check_reduce<std::int32_t, std::int32_t>("amax<int32>", 2, 600001, true, ints, amax_i, host_amax<std::int32_t>, stream, 0);
  std::vector<std::int64_t> longs = iota<std::int64_t>(999 * 17, -5000, 3);
  check_reduce<std::int64_t, std::int64_t>(
      "sum<int64>", 999, 17, true, longs,
      [](auto o, auto i, cudaStream_t s) { kernels::sum<std::int64_t, std::int64_t>(o, i, s); }, host_sum<std::int64_t>,
      stream, 0);
  check_reduce<std::int64_t, std::int64_t>(
      "amax<int64>", 17, 999, false, longs, [](auto o, auto i, cudaStream_t s) { kernels::amax<std::int64_t>(o, i, s); },
      host_amax<std::int64_t>, stream, 0);
  std::vector<double> doubles = iota<double>(4097, -1.5, 0.001);
  check_reduce<double, double>("amax<double>", 1, 4097, false, doubles,
                               [](auto o, auto i, cudaStream_t s) { kernels::amax<double>(o, i, s); },
                               host_amax<double>, stream, 0);
}

}  // namespace

int main() {
  host_index_checks();
  std::string reason;
  const int count = gpu_test::device_count(reason);
  try {
    if (count == 0) {
      std::printf("skipped: no CUDA device (%s): GPU kernels not run; host index checks and no-device "
                  "behaviour checked\n",
                  reason.c_str());
      no_device_checks();
    } else {
      for (int device = 0; device < count; ++device) {
        gpu_test::cuda_ok(cudaSetDevice(device), "cudaSetDevice");
        cudaStream_t stream = nullptr;
        gpu_test::cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        elementwise_device_checks(stream);
        reduce_device_checks(stream);
        gpu_test::cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
        std::printf("device %d: kernel loop checks run\n", device);
      }
    }
  } catch (const std::exception& error) {
    check(false, std::string("unexpected exception: ") + error.what());
  }
  return gpu_test::finish();
}
