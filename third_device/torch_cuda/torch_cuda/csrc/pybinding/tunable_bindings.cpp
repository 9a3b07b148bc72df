#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/tunable_bindings.h"

#include <cstdint>
#include <string>

#include <pybind11/stl.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tuning_context.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"
#include "toolchains/cuda/build_info/cuda_build_info.h"

namespace py = pybind11;

namespace torch_cuda {

namespace {

using blas::tunable::TuningContext;

TuningContext& context() { return TuningContext::get(); }

int current_device() { return backend().current_device(); }

// "2.13.0+cpu" -> "2.13.0": stock's PT_VERSION is the version without its local part.
std::string torch_release(const std::string& version) { return version.substr(0, version.find('+')); }

}  // namespace

void bind_tunable(py::module_& m) {
  // What a results file must have been written with (stock rejects one from other software).
  context().set_validators({{"PT_VERSION", torch_release(TORCH_CUDA_BUILD_TORCH_VERSION)},
                            {"CUDA_VERSION", std::to_string(variant::cudart_version())},
                            {"TORCH_CUDA_VARIANT", variant::name()}});

  m.def("_tunableop_enable", [](bool on) { context().enable(on); });
  m.def("_tunableop_is_enabled", [] { return context().enabled(); });
  m.def("_tunableop_tuning_enable", [](bool on) { context().enable_tuning(on); });
  m.def("_tunableop_tuning_is_enabled", [] { return context().tuning_enabled(); });
  m.def("_tunableop_record_untuned_enable", [](bool on) { context().enable_record_untuned(on); });
  m.def("_tunableop_record_untuned_is_enabled", [] { return context().record_untuned_enabled(); });
  m.def("_tunableop_set_max_tuning_duration", [](int ms) { context().set_max_tuning_duration_ms(ms); });
  m.def("_tunableop_get_max_tuning_duration", [] { return context().max_tuning_duration_ms(); });
  m.def("_tunableop_set_max_tuning_iterations", [](int n) { context().set_max_tuning_iterations(n); });
  m.def("_tunableop_get_max_tuning_iterations", [] { return context().max_tuning_iterations(); });
  m.def("_tunableop_set_filename", [](const std::string& filename, bool insert_device_ordinal) {
    context().set_filename(filename, insert_device_ordinal, current_device());
  });
  m.def("_tunableop_get_filename", [] { return context().filename(current_device()); });
  m.def("_tunableop_get_results", [] { return context().results(); });
  m.def("_tunableop_get_validators", [] { return context().validators(); });
  m.def("_tunableop_read_file", [](const std::string& path) {
    std::string problem;
    const bool read = context().read_file(path, &problem);
    if (!read) py::module_::import("warnings").attr("warn")("TunableOp: " + problem);
    return read;
  });
  m.def("_tunableop_write_file_if_changed", [] { context().write_file_if_changed(current_device()); },
        "At exit: the results file, when tuning found something new (stock writes it then).");
  // Set in MiB, read in bytes (negative: the L2 cache's size, which only matters with
  // more than one solution to compare; CUDA builds have one).
  m.def("_tunableop_set_rotating_buffer_size", [](int mebibytes) { context().set_rotating_buffer_size_mb(mebibytes); });
  m.def("_tunableop_get_rotating_buffer_size", [] {
    const int mebibytes = context().rotating_buffer_size_mb();
    return mebibytes < 0 ? std::int64_t{mebibytes} : std::int64_t{mebibytes} << 20;
  });
  m.def("_tunableop_set_numerical_check_tolerances", [](bool on, double atol, double rtol) {
    context().set_numerical_check(on, atol, rtol);
  });
  m.def("_tunableop_get_numerical_check_tolerances", [] { return context().numerical_check(); });
}

}  // namespace torch_cuda
