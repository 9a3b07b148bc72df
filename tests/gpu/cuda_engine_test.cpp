// The CUDA engine (third_device/torch_cuda/torch_cuda/csrc/aten/engine), without torch: its entry
// points take torch_core's OperandLoop descriptions built here by hand over cudaMalloc'd
// buffers, and the results are compared with the same functors run on the host.
//
// Everywhere: the GPU index arithmetic (loop_index.h) against kernel_loop.h's host order,
// the reduction split, the functors' semantics on the host. With a GPU: dynamic casting
// (half and float inputs into a float output), transposed, broadcast and strided operands,
// host scalars, bool outputs, reductions with many outputs and with one huge one, argmax,
// var_mean's two outputs, and the index kernels. Without one: says why, and checks that a
// launch fails with a CudaError naming the check.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Half.h>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/loop_index.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "torch_core/csrc/aten/engine/elementwise_functors.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/engine/reduce_functors.h"

namespace {

using gpu_test::check;
using torch_core::engine::ElementwiseCall;
using torch_core::engine::ElementwiseOp;
using torch_core::engine::OperandLoop;
using torch_core::engine::ReduceCall;
using torch_core::engine::ReduceOp;
namespace tl = torch_cuda::loop;
namespace engine = torch_cuda::engine;

// An operand: base pointer, dtype, strides in elements (outermost first).
struct Arg {
  void* data;
  c10::ScalarType dtype;
  std::vector<std::int64_t> strides;
};

OperandLoop describe(const std::vector<std::int64_t>& sizes, const std::vector<Arg>& args) {
  OperandLoop d;
  d.ntensors = static_cast<int>(args.size());
  d.loop.ndim = static_cast<int>(sizes.size());
  for (int dim = 0; dim < d.loop.ndim; ++dim) d.loop.sizes[dim] = sizes[dim];
  for (int op = 0; op < d.ntensors; ++op) {
    d.dtypes[op] = args[op].dtype;
    d.loop.data[op] = static_cast<char*>(args[op].data);
    const auto itemsize = static_cast<std::int64_t>(c10::elementSize(args[op].dtype));
    for (int dim = 0; dim < d.loop.ndim; ++dim) d.loop.strides[op][dim] = args[op].strides[dim] * itemsize;
  }
  return d;
}

// ---- host: index arithmetic, reduction split, functors ----------------------------------

void host_checks() {
  char* const base = reinterpret_cast<char*>(std::uintptr_t{1} << 20);
  // Every linear index's offsets (loop_index.h) equal the pointers for_each visits, in order.
  const OperandLoop d = describe({5, 7}, {{base, c10::kFloat, {7, 1}}, {base, c10::kFloat, {1, 5}},
                                          {base, c10::kFloat, {0, 1}}});
  std::vector<std::int64_t> visited;
  torch_core::loop::for_each(d.loop, [&](std::array<char*, torch_core::engine::kMaxOperands>& p) {
    visited.push_back(p[1] - base);
  });
  const auto params = tl::make_params(d.loop);
  bool same = tl::numel(params) == static_cast<std::int64_t>(visited.size());
  for (std::size_t i = 0; same && i < visited.size(); ++i) {
    std::int64_t off[torch_core::engine::kMaxOperands];
    tl::offsets(params, static_cast<std::int64_t>(i), off);
    same = off[1] == visited[i];
  }
  check(same, "GPU offsets visit kernel_loop.h's elements in its order (transposed operand)");

  // A reduce-mode loop: the output has stride 0 along the reduced dimension.
  const OperandLoop r = describe({3, 4, 5}, {{base, c10::kFloat, {5, 0, 1}}, {base, c10::kFloat, {20, 5, 1}}});
  const auto split = torch_core::engine::split_reduction(r, 1);
  check(split.outer.ndim == 2 && split.outer.numel() == 15 && split.inner.ndim == 1 && split.inner.numel() == 4 &&
            split.inner.strides[0][0] == 5 * 4,
        "split_reduction: kept dims outside, the reduced one inside with the input's stride");

  // Semantics of the functors (the GPU runs the same code).
  using namespace torch_core::engine;
  check(DivFloor<std::int64_t>{}(-7, 2) == -4 && Remainder<std::int64_t>{}(-7, 2) == 1 &&
            Remainder<double>{}(-7.5, 2.0) == 0.5,
        "floor division and remainder take the divisor's sign");
  check(DivTrunc<std::int64_t>{}(INT64_MIN, -1) == INT64_MIN && DivFloor<std::int64_t>{}(5, 0) == 0,
        "integer division never traps");
  check(std::isnan(Maximum<float>{}(1.0f, NAN)) && std::isnan(Clamp<float>{0.0f, 1.0f}(NAN)),
        "maximum and clamp propagate NaN");
  check(Pow<std::int64_t>{}(3, 4) == 81 && Pow<std::int64_t>{}(-1, -3) == -1, "integer powers");
  const ArgMaxReduce<float, float> argmax{};
  auto acc = argmax.identity();
  for (int i = 0; i < 4; ++i) acc = argmax.reduce(acc, i == 2 ? 5.0f : 1.0f, i);
  check(argmax.project(acc) == 2, "argmax's index");
}

void no_device_checks() {
  std::vector<float> host(8, 1.0f);
  const OperandLoop d = describe({8}, {{host.data(), c10::kFloat, {1}}, {host.data(), c10::kFloat, {1}},
                                       {host.data(), c10::kFloat, {1}}});
  const std::string message = gpu_test::thrown<torch_cuda::CudaError>(
      [&] { engine::run_Add(ElementwiseCall{ElementwiseOp::kAdd, c10::kFloat, 1}, d, nullptr); },
      "add without a device");
  check(gpu_test::contains(message, "cudaGetLastError"), "a failed launch names the check: " + message);
}

// ---- device ------------------------------------------------------------------------------

template <typename T>
std::vector<T> from_device(const void* data, std::size_t n) {
  std::vector<T> host(n);
  gpu_test::cuda_ok(cudaMemcpy(host.data(), data, n * sizeof(T), cudaMemcpyDeviceToHost), "D2H");
  return host;
}

template <typename T>
void* to_device(const std::vector<T>& host) {
  void* data = nullptr;
  gpu_test::cuda_ok(cudaMalloc(&data, host.size() * sizeof(T) + 1), "cudaMalloc");
  gpu_test::cuda_ok(cudaMemcpy(data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "H2D");
  return data;
}

bool close(double got, double want, double tol) { return std::fabs(got - want) <= tol * (1 + std::fabs(want)); }

void elementwise_device_checks(cudaStream_t stream) {
  // out (rows x cols, row stride out_stride) = half a read transposed + alpha * float row b.
  const std::int64_t rows = 37, cols = 129, out_stride = cols + 3;
  std::vector<c10::Half> a(rows * cols);
  std::vector<float> b(cols), out(rows * out_stride, -7.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = c10::Half(static_cast<float>(i % 97) / 8);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) / 3;
  void *da = to_device(a), *db = to_device(b), *dout = to_device(out);
  const OperandLoop d = describe({rows, cols}, {{dout, c10::kFloat, {out_stride, 1}}, {da, c10::kHalf, {1, rows}},
                                                 {db, c10::kFloat, {0, 1}}});
  engine::run_Add(ElementwiseCall{ElementwiseOp::kAdd, c10::kFloat, 0.5}, d, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const auto got = from_device<float>(dout, out.size());
  bool ok = true;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const float want = static_cast<float>(a[c * rows + r]) + 0.5f * b[c];
      ok = ok && close(got[r * out_stride + c], want, 1e-6);
    }
    for (std::int64_t c = cols; c < out_stride; ++c) ok = ok && got[r * out_stride + c] == -7.0f;
  }
  check(ok, "add: half (transposed) + alpha * float (broadcast) into a strided float output, gaps untouched");

  // A host scalar operand, and a bool output.
  OperandLoop cmp = describe({cols}, {{dout, c10::kBool, {1}}, {db, c10::kFloat, {1}}, {nullptr, c10::kFloat, {0}}});
  const float threshold = 10.0f;
  std::memcpy(cmp.scalar_bytes[2].data(), &threshold, sizeof(threshold));
  cmp.is_host_scalar[2] = true;
  engine::run_Gt(ElementwiseCall{ElementwiseOp::kGt, c10::kFloat}, cmp, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const auto flags = from_device<std::uint8_t>(dout, cols);
  ok = true;
  for (std::int64_t c = 0; c < cols; ++c) ok = ok && (flags[c] != 0) == (b[c] > threshold);
  check(ok, "gt against a host scalar into bool");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
}

void reduce_device_checks(cudaStream_t stream) {
  // Many outputs (sum over the middle dimension) and one huge output.
  const std::int64_t outer = 300, slice = 70, inner = 9;
  std::vector<float> x(outer * slice * inner);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 101) / 16;
  void* dx = to_device(x);
  void* dsum = to_device(std::vector<float>(outer * inner));
  engine::reduce_Sum(ReduceCall{ReduceOp::kSum, c10::kFloat},
                     describe({outer, slice, inner}, {{dsum, c10::kFloat, {inner, 0, 1}},
                                                      {dx, c10::kFloat, {slice * inner, inner, 1}}}),
                     stream);
  const std::int64_t n = std::int64_t{1} << 22;
  std::vector<float> big(n, 0.25f);
  void* dbig = to_device(big);
  void* dtotal = to_device(std::vector<double>(1));
  engine::reduce_Sum(ReduceCall{ReduceOp::kSum, c10::kDouble},
                     describe({n}, {{dtotal, c10::kDouble, {0}}, {dbig, c10::kFloat, {1}}}), stream);
  // argmax along the last dimension; var_mean (two outputs) along it.
  void* dargmax = to_device(std::vector<std::int64_t>(outer * slice));
  engine::reduce_ArgMax(ReduceCall{ReduceOp::kArgMax, c10::kFloat},
                        describe({outer * slice, inner}, {{dargmax, c10::kLong, {1, 0}}, {dx, c10::kFloat, {inner, 1}}}),
                        stream);
  void* dvar = to_device(std::vector<float>(outer * slice));
  void* dmean = to_device(std::vector<float>(outer * slice));
  ReduceCall var_mean{ReduceOp::kStdVar, c10::kFloat, /*correction=*/1, /*take_sqrt=*/false, /*noutputs=*/2};
  engine::reduce_StdVar(var_mean,
                        describe({outer * slice, inner}, {{dvar, c10::kFloat, {1, 0}}, {dmean, c10::kFloat, {1, 0}},
                                                          {dx, c10::kFloat, {inner, 1}}}),
                        stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");

  const auto sums = from_device<float>(dsum, outer * inner);
  bool ok = true;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      double want = 0;
      for (std::int64_t s = 0; s < slice; ++s) want += x[(o * slice + s) * inner + i];
      ok = ok && close(sums[o * inner + i], want, 1e-5);
    }
  }
  check(ok, "sum over a middle dimension, 2700 outputs");
  check(from_device<double>(dtotal, 1)[0] == 0.25 * static_cast<double>(n), "sum of 4M floats into one double");
  const auto argmax = from_device<std::int64_t>(dargmax, outer * slice);
  const auto var = from_device<float>(dvar, outer * slice), mean = from_device<float>(dmean, outer * slice);
  bool arg_ok = true, var_ok = true;
  for (std::int64_t row = 0; row < outer * slice; ++row) {
    std::int64_t best = 0;
    double m = 0, m2 = 0;
    for (std::int64_t i = 0; i < inner; ++i) {
      if (x[row * inner + i] > x[row * inner + best]) best = i;
      m += x[row * inner + i];
    }
    m /= inner;
    for (std::int64_t i = 0; i < inner; ++i) m2 += (x[row * inner + i] - m) * (x[row * inner + i] - m);
    arg_ok = arg_ok && argmax[row] == best;
    var_ok = var_ok && close(mean[row], m, 1e-5) && close(var[row], m2 / (inner - 1), 1e-4);
  }
  check(arg_ok, "argmax: the first index of the maximum");
  check(var_ok, "var_mean: both outputs");
  for (void* p : {dx, dsum, dbig, dtotal, dargmax, dvar, dmean}) cudaFree(p);
}

void index_device_checks(cudaStream_t stream) {
  // out[i] = src[idx[i]] (gather), then dst[idx[i]] += v (accumulate, with a repeated index).
  const std::vector<float> src = {10, 11, 12, 13, 14};
  const std::vector<std::int64_t> idx = {4, -1, 0, 2, 2};
  void *dsrc = to_device(src), *didx = to_device(idx), *dout = to_device(std::vector<float>(idx.size()));
  torch_core::engine::IndexCall call;
  call.nindices = 1;
  call.sizes[0] = 5;
  call.strides[0] = sizeof(float);
  const auto n = static_cast<std::int64_t>(idx.size());
  engine::run_index(call, describe({n}, {{dout, c10::kFloat, {1}}, {dsrc, c10::kFloat, {0}}, {didx, c10::kLong, {1}}}),
                    stream);
  call.kind = torch_core::engine::IndexKind::kAccumulate;
  void* ddst = to_device(std::vector<float>(5, 0.0f));
  void* dones = to_device(std::vector<float>(idx.size(), 1.0f));
  engine::run_index(call, describe({n}, {{ddst, c10::kFloat, {0}}, {dones, c10::kFloat, {1}}, {didx, c10::kLong, {1}}}),
                    stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(from_device<float>(dout, idx.size()) == std::vector<float>({14, 14, 10, 12, 12}), "index gather, negative index");
  check(from_device<float>(ddst, 5) == std::vector<float>({1, 0, 2, 0, 2}), "index_put_ accumulate, repeated index");
  for (void* p : {dsrc, didx, dout, ddst, dones}) cudaFree(p);
}

}  // namespace

int main() {
  return gpu_test::run("CUDA engine", "GPU kernels not run; host checks and no-device behaviour checked", host_checks,
                       no_device_checks, [](cudaStream_t stream) {
                         elementwise_device_checks(stream);
                         reduce_device_checks(stream);
                         index_device_checks(stream);
                       });
}
