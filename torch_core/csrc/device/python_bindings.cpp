#include "torch_core/csrc/device/python_bindings.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include <ATen/Context.h>
#include <pybind11/stl.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/Storage.h>
#include <torch/csrc/utils/device_lazy_init.h>

#include "torch_core/csrc/aten/cpu_fallback.h"
#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/graph_bindings.h"
#include "torch_core/csrc/device/ipc_bindings.h"
#include "torch_core/csrc/device/memory_history_bindings.h"
#include "torch_core/csrc/device/pool_bindings.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/device/storage_resize.h"

namespace py = pybind11;

namespace torch_core {

namespace {

using StreamTuple = std::tuple<int64_t, int64_t, int64_t>;  // (stream_id, device_index, device_type)

StreamTuple pack(const c10::Stream& stream) {
  return {stream.id(), stream.device_index(), static_cast<int64_t>(stream.device_type())};
}

py::dict segment_dict(const SegmentInfo& segment) {
  py::dict result;
  result["device"] = segment.device;
  result["address"] = segment.address;
  result["total_size"] = segment.total_size;
  result["allocated_size"] = segment.allocated_size;
  result["active_size"] = segment.active_size;
  result["requested_size"] = segment.requested_size;
  result["stream"] = reinterpret_cast<std::uintptr_t>(segment.stream);
  result["segment_type"] = segment.is_large ? "large" : "small";
  result["segment_pool_id"] = py::make_tuple(segment.pool_id.first, segment.pool_id.second);
  result["is_expandable"] = segment.is_expandable;
  py::list blocks;
  for (const BlockInfo& block : segment.blocks) {
    py::dict b;
    b["address"] = block.address;
    b["size"] = block.size;
    b["requested_size"] = block.requested_size;
    b["state"] = block_state_name(block.state);
    b["frames"] = block_frames(block.frames);
    blocks.append(std::move(b));
  }
  result["blocks"] = std::move(blocks);
  return result;
}

py::dict stat_dict(const Stat& stat) {
  py::dict result;
  result["current"] = stat.current;
  result["peak"] = stat.peak;
  result["allocated"] = stat.allocated;
  result["freed"] = stat.freed;
  return result;
}

py::dict duration_dict(const DurationStat& stat) {
  py::dict result;
  result["total"] = stat.total;
  result["max"] = stat.max;
  result["min"] = stat.min;
  result["count"] = stat.count;
  result["avg"] = stat.count == 0 ? 0 : stat.total / stat.count;
  return result;
}

// The pinned allocator's statistics under stock's names (torch.cuda.host_memory_stats):
// its "allocations" are the pinned blocks held, "active_requests" those handed out.
py::dict host_stats_dict(const HostAllocatorStats& stats) {
  py::dict result;
  result["allocations"] = stat_dict(stats.segment);
  result["allocated_bytes"] = stat_dict(stats.reserved_bytes);
  result["active_requests"] = stat_dict(stats.allocation);
  result["active_bytes"] = stat_dict(stats.allocated_bytes);
  result["num_host_alloc"] = stats.num_host_alloc;
  result["num_host_free"] = stats.num_host_free;
  result["host_alloc_time"] = duration_dict(stats.host_alloc_time);
  result["host_free_time"] = duration_dict(stats.host_free_time);
  return result;
}

}  // namespace

void bind_device_api(py::module_& m, c10::DeviceType type) {
  Backend& backend = Backend::get(type);
  Backend* b = &backend;  // process-lifetime: captured by pointer

  // Errors as torch._C raises them (c10::IndexError -> IndexError, OutOfMemoryError ->
  // torch.OutOfMemoryError, ...), for every function of this module.
  // pybind11's own exceptions pass on to its default translators.
  py::register_local_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const c10::Error&) {
      torch::translate_exception_to_python(std::current_exception());
    } catch (const RuntimeError&) {
      torch::translate_exception_to_python(std::current_exception());
    }
  });

  m.attr("device_type") = b->name();

  // --- Initialisation --------------------------------------------------------------
  m.def("_init", [type] {
    torch::utils::register_fork_handler_for_device_init(type);
    at::globalContext().lazyInitDevice(type);
  }, "Initialises the device runtime (idempotent); called by the device module's _lazy_init.");
  m.def("_is_initialized", [b] { return b->initialized(); });
  m.def("_is_in_bad_fork", [type] { return torch::utils::is_device_in_bad_fork(type); });

  // --- Devices -----------------------------------------------------------------------
  m.def("_device_count", [b] {
    // A runtime that cannot start warns why (Backend::device_count): as a Python
    // UserWarning, as stock's "CUDA initialization: ..." is.
    torch::PyWarningHandler warnings;
    return b->device_count();
  }, "0, never an error, without devices.");
  m.def("_unavailable_reason", [b] { return b->runtime().unavailable_reason(); });
  m.def("_current_device", [b] { return static_cast<int>(b->current_device()); });
  m.def("_set_device", [b, type](int device) {
    if (device < 0) return;
    b->guard().setDevice(c10::Device(type, static_cast<c10::DeviceIndex>(device)));
  }, py::arg("device"));
  m.def("_exchange_device", [b, type](int device) {
    if (device < 0) return -1;
    return static_cast<int>(b->guard().exchangeDevice(c10::Device(type, static_cast<c10::DeviceIndex>(device))).index());
  }, py::arg("device"));
  m.def("_synchronize", [b](int device) {
    py::gil_scoped_release no_gil;
    b->guard().synchronizeDevice(static_cast<c10::DeviceIndex>(device));
  }, py::arg("device") = -1);
  m.def("_get_device_properties", [b](int device) {
    const c10::DeviceIndex index = b->checked_index(static_cast<c10::DeviceIndex>(device));
    return properties_dict(b->runtime().properties(index));
  }, py::arg("device"));

  // --- Streams -----------------------------------------------------------------------
  m.def("_current_stream", [b](int device) {
    return pack(b->guard().getStream(c10::Device(b->device_type(), static_cast<c10::DeviceIndex>(device))));
  }, py::arg("device") = -1, "(stream_id, device_index, device_type) of the thread's current stream.");
  m.def("_default_stream", [b](int device) {
    return pack(b->guard().getDefaultStream(c10::Device(b->device_type(), static_cast<c10::DeviceIndex>(device))));
  }, py::arg("device") = -1);
  m.def("_external_stream", [b](std::uintptr_t handle, int device) {
    const c10::DeviceIndex index = b->checked_index(static_cast<c10::DeviceIndex>(device));
    return pack(b->streams().external_stream(index, reinterpret_cast<StreamHandle>(handle)));
  }, py::arg("handle"), py::arg("device") = -1,
        "(stream_id, device_index, device_type) of a runtime stream made elsewhere.");
  m.def("_set_stream", [b](int64_t stream_id, int64_t device_index, int64_t device_type) {
    TORCH_CHECK(device_type == static_cast<int64_t>(b->device_type()), "not a ", b->name(), " stream");
    const c10::Stream stream(c10::Stream::UNSAFE,
                             c10::Device(b->device_type(), static_cast<c10::DeviceIndex>(device_index)), stream_id);
    b->guard().exchangeStream(stream);
  }, py::arg("stream_id"), py::arg("device_index"), py::arg("device_type"),
        "Makes the stream current on its device for this thread (the current device is unchanged).");
  m.def("_stream_priority_range", [b] {
    const StreamPriorityRange range = b->runtime().stream_priority_range();
    return std::make_pair(range.least, range.greatest);
  });

  // --- Memory ------------------------------------------------------------------------
  m.def("_memory_stats", [b](int device) { return b->allocator().stats_dict(static_cast<c10::DeviceIndex>(device)); },
        py::arg("device") = -1);
  m.def("_memory_snapshot", [b] {
    py::list segments;
    for (const SegmentInfo& segment : b->allocator().snapshot()) segments.append(segment_dict(segment));
    return segments;
  });
  m.def("_empty_cache", [b] {
    py::gil_scoped_release no_gil;
    b->allocator().emptyCache();
    b->host_allocator().empty_cache();
  });
  m.def("_empty_host_cache", [b] {
    py::gil_scoped_release no_gil;
    b->host_allocator().empty_cache();
  });
  m.def("_reset_peak_memory_stats", [b](int device) {
    b->allocator().resetPeakStats(static_cast<c10::DeviceIndex>(device));
  }, py::arg("device") = -1);
  m.def("_reset_accumulated_memory_stats", [b](int device) {
    b->allocator().resetAccumulatedStats(static_cast<c10::DeviceIndex>(device));
  }, py::arg("device") = -1);
  // torch.cuda.memory._host_allocator(): the pinned host allocator's address (c10::Allocator*).
  m.def("_host_allocator_address", [b] {
    return reinterpret_cast<std::uintptr_t>(static_cast<c10::Allocator*>(&b->host_allocator()));
  });
  m.def("_host_memory_stats", [b] { return host_stats_dict(b->host_allocator().core().stats()); });
  m.def("_reset_peak_host_memory_stats", [b] { b->host_allocator().core().reset_peak_stats(); });
  m.def("_reset_accumulated_host_memory_stats",
        [b] { b->host_allocator().core().reset_accumulated_stats(); });
  // torch.cuda.caching_allocator_alloc / _delete: a raw block of the current device for
  // use on `stream` (a raw stream handle, as current_stream().cuda_stream gives it).
  m.def("_raw_alloc", [b](std::size_t bytes, std::uintptr_t stream) {
    const auto device = static_cast<c10::DeviceIndex>(b->current_device());
    c10::DataPtr memory = b->allocator().allocate_on(device, bytes, reinterpret_cast<StreamHandle>(stream));
    return reinterpret_cast<std::uintptr_t>(memory.release_context());
  }, py::arg("bytes"), py::arg("stream"));
  m.def("_raw_delete", [b](std::uintptr_t ptr) { b->allocator().free(reinterpret_cast<void*>(ptr)); },
        py::arg("ptr"));
  // The runtime's own device memory, bypassing the caching allocator: for allocators written
  // in Python over ctypes (a MemPool's or change_current_allocator's), as stock's _use_uvm
  // is over cuda-python's cudaMallocManaged. 0 when the device is out of memory.
  m.def("_runtime_malloc", [b](std::size_t bytes, int device) {
    DeviceRuntime& runtime = b->initialize();
    const int index = b->checked_index(static_cast<c10::DeviceIndex>(device));
    void* ptr = runtime_call(b->device_type(), [&] { return runtime.allocate(index, bytes); });
    return reinterpret_cast<std::uintptr_t>(ptr);
  }, py::arg("bytes"), py::arg("device"));
  m.def("_runtime_free", [b](std::uintptr_t ptr, int device) {
    DeviceRuntime& runtime = b->initialize();
    const int index = b->checked_index(static_cast<c10::DeviceIndex>(device));
    py::gil_scoped_release no_gil;  // the runtime waits for work still using the memory
    runtime_call(b->device_type(), [&] { runtime.free(index, reinterpret_cast<void*>(ptr)); });
  }, py::arg("ptr"), py::arg("device"));
  m.def("_caching_allocator_enable",
        [b](bool enabled) { b->allocator().core().set_caching_enabled(enabled); },
        py::arg("enabled"));
  m.def("_caching_allocator_is_enabled", [b] { return b->allocator().core().caching_enabled(); });
  bind_memory_history(m, backend);
  bind_graphs(m, backend);
  bind_pools(m, backend);
  bind_ipc(m, backend);
  m.def("_mem_get_info", [b](int device) {
    return b->allocator().getMemoryInfo(b->checked_index(static_cast<c10::DeviceIndex>(device)));
  }, py::arg("device") = -1);
  m.def("_set_memory_fraction", [b](double fraction, int device) {
    b->allocator().set_memory_fraction(b->checked_index(static_cast<c10::DeviceIndex>(device)), fraction);
  }, py::arg("fraction"), py::arg("device") = -1);
  // UntypedStorage.resize_ for a storage on this device: libtorch_python resizes only the
  // devices it was compiled for, and PrivateUse1 (a backend on the CUDA key patches
  // resize_ to call this; torch_cuda's torch_patches/cuda_storage.py).
  m.def("_storage_resize_", [type](py::handle storage, int64_t nbytes) {
    TORCH_CHECK_TYPE(THPStorage_Check(storage.ptr()), "_storage_resize_ expects a torch.UntypedStorage, got ",
                     Py_TYPE(storage.ptr())->tp_name);
    TORCH_CHECK_VALUE(nbytes >= 0, "_storage_resize_: the new size must be >= 0 bytes, got ", nbytes);
    const c10::Storage& target = THPStorage_Unpack(storage.ptr());
    TORCH_CHECK_VALUE(target.device_type() == type, "_storage_resize_ resizes ",
                      c10::DeviceTypeName(type, /*lower_case=*/true), " storages, not ",
                      c10::DeviceTypeName(target.device_type(), /*lower_case=*/true), " ones");
    py::gil_scoped_release no_gil;
    resize_device_storage(*target.unsafeGetStorageImpl(), static_cast<std::size_t>(nbytes));
  }, py::arg("storage"), py::arg("nbytes"));

  // --- Random ------------------------------------------------------------------------
  m.def("_default_generator", [b, type](int device) {
    const c10::DeviceIndex index = b->checked_index(static_cast<c10::DeviceIndex>(device));
    torch::utils::register_fork_handler_for_device_init(type);
    const at::Generator& generator = at::globalContext().defaultGenerator(c10::Device(type, index));
    return py::reinterpret_steal<py::object>(THPGenerator_initDefaultGenerator(generator));
  }, py::arg("device"), "The device's default torch.Generator (torch.cuda.default_generators[i]).");

  // --- CPU fallback --------------------------------------------------------------------
  m.def("_fallback_counts", [type] { return fallback_counts(type); },
        "{operator name: calls that ran on the CPU} since the last reset.");
  m.def("_reset_fallback_counts", [type] { reset_fallback_counts(type); });
  m.def("_set_fallback_policy", [type](const std::string& policy) {
    set_fallback_policy(type, parse_fallback_policy(policy));
  }, py::arg("policy"), "'allow', 'warn' (once per operator) or 'error'.");
  m.def("_get_fallback_policy", [type] { return std::string(fallback_policy_name(fallback_policy(type))); });
}

py::dict properties_dict(const DeviceProperties& props) {
  py::dict result;
  result["name"] = props.name;
  result["total_memory"] = props.total_memory_bytes;
  result["major"] = props.major;
  result["minor"] = props.minor;
  result["multi_processor_count"] = props.multiprocessor_count;
  return result;
}

}  // namespace torch_core
