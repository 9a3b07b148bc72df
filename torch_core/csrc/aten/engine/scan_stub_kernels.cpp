// cumsum_stub and cumprod_stub: stock's structured cumsum/cumprod (their meta functions
// pick the result dtype and size the result) call these with the input already in the
// result's dtype. The kernel gathers `dim` into contiguous segments in the opmath type,
// has the engine scan them (scan_call.h), and writes the result through its strides.
#include <cstdint>

#include <ATen/OpMathType.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/ops/empty_like.h>

#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/aten/engine/kernel_engine.h"
#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

void scan(const at::Tensor& result, const at::Tensor& self, int64_t dim, ScanOp op) {
  if (self.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, self.dim());
  const at::Tensor input = dim_last(self, dim).to(at::toOpMathType(result.scalar_type())).contiguous();
  const at::Tensor output = at::empty_like(input, at::MemoryFormat::Contiguous);

  ScanCall call;
  call.op = op;
  call.dtype = input.scalar_type();
  call.segment_size = input.size(-1);
  call.segments = input.numel() / call.segment_size;
  call.input = static_cast<const char*>(input.const_data_ptr());
  call.output = static_cast<char*>(output.data_ptr());
  KernelEngine& engine = kernel_engine(self.device().type());
  call.scratch_bytes = engine.scan_scratch_bytes(call);
  const at::Tensor scratch = engine_scratch(self.device(), call.scratch_bytes, call.scratch);
  engine.scan(call, current_stream(self.device()));
  dim_last(result, dim).copy_(output);
}

void cumsum_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim) {
  scan(result, self, dim, ScanOp::kSum);
}

void cumprod_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim) {
  scan(result, self, dim, ScanOp::kProd);
}

}  // namespace

void fill_scan_stubs(c10::DeviceType t) {
  set_slot(at::native::cumsum_stub, t, &cumsum_kernel);
  set_slot(at::native::cumprod_stub, t, &cumprod_kernel);
}

}  // namespace torch_core::engine
