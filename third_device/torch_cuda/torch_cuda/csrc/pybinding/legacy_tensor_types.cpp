#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/legacy_tensor_types.h"

#include <c10/core/DispatchKey.h>
#include <c10/util/Exception.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/device_lazy_init.h>
#include <torch/csrc/utils/tensor_new.h>

namespace py = pybind11;

namespace torch_cuda {
namespace {

// A legacy type's tp_new. The type says its dtype and whether it is sparse through its
// metaclass's properties, as torch's own type objects do.
PyObject* cuda_tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  HANDLE_TH_ERRORS
  const py::handle type_object(reinterpret_cast<PyObject*>(type));
  const py::object dtype = type_object.attr("dtype");
  TORCH_CHECK_TYPE(THPDtype_Check(dtype.ptr()), type->tp_name, ".dtype is not a torch.dtype");
  const auto scalar_type = reinterpret_cast<THPDtype*>(dtype.ptr())->scalar_type;
  const bool sparse = type_object.attr("is_sparse").cast<bool>();
  torch::utils::device_lazy_init(at::kCUDA);
  TORCH_WARN_ONCE("The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use "
                  "methods such as torch.tensor(data, dtype=*, device='cuda') to create tensors.");
  return THPVariable_Wrap(torch::utils::legacy_tensor_ctor(
      sparse ? c10::DispatchKey::SparseCUDA : c10::DispatchKey::CUDA, scalar_type, args, kwargs));
  END_HANDLE_TH_ERRORS
}

}  // namespace

void bind_legacy_tensor_types(py::module_& m) {
  m.def("_install_legacy_tensor_constructors", [](const py::list& types) {
    for (const py::handle& t : types) {
      TORCH_CHECK_TYPE(PyType_Check(t.ptr()) && t.attr("is_cuda").cast<bool>(),
                       "_install_legacy_tensor_constructors takes torch.cuda's legacy tensor types, not ",
                       py::str(t).cast<std::string>());
      reinterpret_cast<PyTypeObject*>(t.ptr())->tp_new = &cuda_tensor_new;
    }
  }, py::arg("types"), "Makes each of torch.cuda's legacy tensor types construct CUDA tensors.");
}

}  // namespace torch_cuda
