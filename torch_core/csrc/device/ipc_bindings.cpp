#include "torch_core/csrc/device/ipc_bindings.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <c10/util/Exception.h>
#include <pybind11/stl.h>
#include <torch/csrc/Storage.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/ipc_event.h"
#include "torch_core/csrc/device/ipc_sharing.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace py = pybind11;

namespace torch_core {
namespace {

std::optional<py::bytes> as_bytes(const std::optional<std::string>& value) {
  if (!value) return std::nullopt;
  return py::bytes(*value);
}

// Stock's check of a memory or event handle (THPStorage_bytesAsHandleString).
std::string handle_bytes(const py::bytes& handle) {
  std::string bytes = handle;
  TORCH_CHECK(bytes.size() == DeviceRuntime::kIpcHandleBytes, "incorrect handle size");
  return bytes;
}

// A torch.Stream as Python hands it over: (stream_id, device_index, device_type).
c10::Stream stream_of(int64_t stream_id, int64_t device_index, int64_t device_type) {
  return c10::Stream::unpack3(stream_id, static_cast<c10::DeviceIndex>(device_index),
                              static_cast<c10::DeviceType>(device_type));
}

}  // namespace

void bind_ipc(py::module_& m, Backend& backend) {
  const c10::DeviceType type = backend.device_type();

  m.def("_share_storage_ipc", [type](py::handle storage) {
    TORCH_CHECK_TYPE(THPStorage_Check(storage.ptr()), "_share_storage_ipc expects a torch.UntypedStorage, got ",
                     Py_TYPE(storage.ptr())->tp_name);
    const c10::Storage& target = THPStorage_Unpack(storage.ptr());
    TORCH_CHECK(target.device_type() == type, "_share_cuda_: only available on ",
                c10::DeviceTypeName(type, /*lower_case=*/false));
    SharedStorageHandle shared;
    {
      py::gil_scoped_release no_gil;
      shared = share_device_storage(*target.unsafeGetStorageImpl());
    }
    const py::object event_sync_required =
        shared.event_sync_required ? py::object(py::bool_(*shared.event_sync_required)) : py::object(py::none());
    return py::make_tuple(shared.device, as_bytes(shared.memory_handle), shared.size_bytes, shared.offset_bytes,
                          as_bytes(shared.ref_counter_handle), shared.ref_counter_offset,
                          as_bytes(shared.event_handle), event_sync_required);
  }, py::arg("storage"));

  m.def("_new_shared_storage_ipc",
        [type](int device, const py::bytes& handle, std::size_t size_bytes, std::size_t offset_bytes,
               const py::bytes& ref_counter, std::int64_t ref_counter_offset, const py::bytes& event_handle,
               bool event_sync_required) {
          SharedStorageHandle shared;
          shared.device = device;
          shared.memory_handle = handle_bytes(handle);
          shared.size_bytes = size_bytes;
          shared.offset_bytes = offset_bytes;
          shared.ref_counter_handle = std::string(ref_counter);
          shared.ref_counter_offset = ref_counter_offset;
          shared.event_handle = event_sync_required ? handle_bytes(event_handle) : std::string(event_handle);
          shared.event_sync_required = event_sync_required;
          c10::intrusive_ptr<c10::StorageImpl> storage;
          {
            py::gil_scoped_release no_gil;
            storage = open_shared_storage(type, shared);
          }
          return py::reinterpret_steal<py::object>(THPStorage_Wrap(c10::Storage(std::move(storage))));
        },
        py::arg("device"), py::arg("handle"), py::arg("size_bytes"), py::arg("offset_bytes"),
        py::arg("ref_counter_handle"), py::arg("ref_counter_offset"), py::arg("event_handle"),
        py::arg("event_sync_required"));

  m.def("_release_ipc_counter", [](const py::bytes& ref_counter, std::int64_t ref_counter_offset) {
    release_ipc_counter(std::string(ref_counter), ref_counter_offset);
  }, py::arg("ref_counter_handle"), py::arg("ref_counter_offset"));

  // torch.cuda.Event(interprocess=True) and Event.from_ipc_handle (torch_cuda's
  // _CudaEventBase); streams come as torch.Stream's (stream_id, device_index, device_type).
  Backend* b = &backend;  // process-lifetime: captured by pointer
  const auto checked = [b](int device) {
    return static_cast<int>(b->checked_index(static_cast<c10::DeviceIndex>(device)));
  };
  py::class_<IpcEvent>(m, "_IpcEvent")
      .def(py::init([b, checked](int device) { return std::make_unique<IpcEvent>(*b, checked(device)); }),
           py::arg("device"))
      .def_static("open", [b, checked](int device, const py::bytes& handle) {
        return std::make_unique<IpcEvent>(*b, checked(device), handle_bytes(handle));
      }, py::arg("device"), py::arg("handle"))
      .def("record", [](IpcEvent& event, int64_t id, int64_t index, int64_t type) {
        event.record(stream_of(id, index, type));
      }, py::arg("stream_id"), py::arg("device_index"), py::arg("device_type"),
         py::call_guard<py::gil_scoped_release>())
      .def("wait", [](IpcEvent& event, int64_t id, int64_t index, int64_t type) {
        event.wait(stream_of(id, index, type));
      }, py::arg("stream_id"), py::arg("device_index"), py::arg("device_type"),
         py::call_guard<py::gil_scoped_release>())
      .def("query", &IpcEvent::query, py::call_guard<py::gil_scoped_release>())
      .def("synchronize", &IpcEvent::synchronize, py::call_guard<py::gil_scoped_release>())
      .def("ipc_handle", [](IpcEvent& event) { return py::bytes(event.handle()); })
      .def_property_readonly("device", &IpcEvent::device);

  m.def("_ipc_collect", [] {
    py::gil_scoped_release no_gil;
    return collect_ipc();
  });
}

}  // namespace torch_core
