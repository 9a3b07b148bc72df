#include "torch_core/csrc/aten/native_registration.h"

#include "torch_core/csrc/aten/native_ops.h"

namespace torch_core {

void register_device_generic_ops(torch::Library& m) {
  m.impl("empty.memory_format", TORCH_FN(native::empty_memory_format));
  m.impl("empty_strided", TORCH_FN(native::empty_strided));
  m.impl("resize_", TORCH_FN(native::resize_));
  m.impl("set_.source_Storage", TORCH_FN(native::set_source_storage_));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(native::set_source_storage_offset_));
  m.impl("set_.source_Tensor", TORCH_FN(native::set_source_tensor_));
  m.impl("record_stream", TORCH_FN(native::record_stream));
  m.impl("copy_", TORCH_FN(native::copy_));
  m.impl("_copy_from", TORCH_FN(native::_copy_from));
  m.impl("_copy_from_and_resize", TORCH_FN(native::_copy_from_and_resize));
  m.impl("_local_scalar_dense", TORCH_FN(native::_local_scalar_dense));
  m.impl("fill_.Scalar", TORCH_FN(native::fill_scalar_));
  m.impl("zero_", TORCH_FN(native::zero_));
  m.impl("view", TORCH_FN(native::view));
  m.impl("as_strided", TORCH_FN(native::as_strided));
  m.impl("_reshape_alias", TORCH_FN(native::_reshape_alias));
  m.impl("unfold", TORCH_FN(native::unfold));
  m.impl("view_as_real", TORCH_FN(native::view_as_real));
  m.impl("view_as_complex", TORCH_FN(native::view_as_complex));
}

}  // namespace torch_core
