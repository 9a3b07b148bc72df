#include "torch_core/csrc/device/pool_bindings.h"

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include <c10/util/Exception.h>
#include <pybind11/stl.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/device_graph.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"
#include "torch_core/csrc/runtime/segment_source.h"

namespace py = pybind11;

namespace torch_core {
namespace {

// An allocator as Python holds it: a pluggable allocator's functions, or (null) the
// caching allocator itself.
struct AllocatorHandle {
  std::shared_ptr<const SegmentSource> source;
};

// The C signatures of torch.cuda.memory.CUDAPluggableAllocator's functions.
using AllocFn = void* (*)(ssize_t size, int device, void* stream);
using FreeFn = void (*)(void* ptr, std::size_t size, int device, void* stream);

std::shared_ptr<const SegmentSource> source_from(std::uintptr_t alloc_fn, std::uintptr_t free_fn) {
  TORCH_CHECK(alloc_fn != 0 && free_fn != 0, "a custom allocator needs both its alloc and free functions");
  auto source = std::make_shared<SegmentSource>();
  const auto alloc = reinterpret_cast<AllocFn>(alloc_fn);
  const auto free = reinterpret_cast<FreeFn>(free_fn);
  source->allocate = [alloc](std::size_t bytes, int device, StreamHandle stream) {
    return alloc(static_cast<ssize_t>(bytes), device, stream);
  };
  source->free = [free](void* ptr, std::size_t bytes, int device, StreamHandle stream) {
    free(ptr, bytes, device, stream);
  };
  return source;
}

// torch.cuda.MemPool: a private pool of the current device, used while the object lives.
class MemPool {
 public:
  MemPool(Backend& backend, std::shared_ptr<AllocatorHandle> allocator, bool is_user_created, bool use_on_oom,
          bool no_split)
      : backend_(backend),
        device_(backend.current_device()),
        id_(is_user_created ? new_graph_pool_id() : new_internal_pool_id()),
        allocator_(std::move(allocator)) {
    backend_.allocator().core().create_pool(device_, id_, allocator_ ? allocator_->source : nullptr,
                                            PoolOptions{use_on_oom, no_split});
  }
  ~MemPool() {
    try {
      backend_.allocator().core().release_pool(device_, id_);
      backend_.allocator().core().empty_pool_cache(device_, id_);
    } catch (const std::exception& e) {
      TORCH_WARN("releasing MemPool (", id_.first, ", ", id_.second, ") failed: ", e.what());
    }
  }
  MemPool(const MemPool&) = delete;
  MemPool& operator=(const MemPool&) = delete;

  PoolId id() const { return id_; }
  // The allocator it was made with (the same Python object), or None.
  const std::shared_ptr<AllocatorHandle>& allocator() const { return allocator_; }
  int use_count() const { return backend_.allocator().core().pool_use_count(device_, id_); }

 private:
  Backend& backend_;
  const c10::DeviceIndex device_;
  const PoolId id_;
  const std::shared_ptr<AllocatorHandle> allocator_;
};

}  // namespace

void bind_pools(py::module_& m, Backend& backend) {
  Backend* b = &backend;  // process-lifetime: captured by pointer

  py::class_<AllocatorHandle, std::shared_ptr<AllocatorHandle>>(m, "_Allocator");
  m.def("_custom_allocator", [](std::uintptr_t alloc_fn, std::uintptr_t free_fn) {
    return std::make_shared<AllocatorHandle>(AllocatorHandle{source_from(alloc_fn, free_fn)});
  }, py::arg("alloc_fn"), py::arg("free_fn"),
        "An allocator over a shared library's functions: void* alloc(ssize_t size, int device, "
        "stream) and void free(void* ptr, size_t size, int device, stream), given as addresses.");
  m.def("_change_current_allocator", [b](const AllocatorHandle& allocator) {
    b->allocator().set_current_source(allocator.source);
  }, py::arg("allocator"));
  m.def("_get_allocator", [b] { return std::make_shared<AllocatorHandle>(AllocatorHandle{b->allocator().current_source()}); });

  py::class_<MemPool, std::shared_ptr<MemPool>>(m, "_MemPool")
      .def(py::init([b](std::shared_ptr<AllocatorHandle> allocator, bool is_user_created, bool use_on_oom,
                        bool no_split) {
             b->initialize();
             return std::make_shared<MemPool>(*b, std::move(allocator), is_user_created, use_on_oom, no_split);
           }),
           py::arg("allocator") = nullptr, py::arg("is_user_created") = true,
           py::arg("use_on_oom") = false, py::arg("no_split") = false)
      .def_property_readonly("id", &MemPool::id)
      .def_property_readonly("allocator", &MemPool::allocator)
      .def("use_count", &MemPool::use_count);

  // Allocations to a private pool outside capture (use_mem_pool, inductor's cudagraph trees).
  m.def("_begin_allocate_to_pool", [b](int device, PoolId pool) {
    b->allocator().core().begin_allocate_to_pool(b->checked_index(device), pool,
                                                  [](StreamHandle) { return true; });
  });
  m.def("_begin_allocate_current_thread_to_pool", [b](int device, PoolId pool) {
    const std::thread::id thread = std::this_thread::get_id();
    b->allocator().core().begin_allocate_to_pool(
        b->checked_index(device), pool, [thread](StreamHandle) { return std::this_thread::get_id() == thread; });
  });
  m.def("_end_allocate_to_pool", [b](int device, PoolId pool) {
    b->allocator().core().end_allocate_to_pool(b->checked_index(device), pool);
  });
  m.def("_release_pool", [b](int device, PoolId pool) {
    b->allocator().core().release_pool(b->checked_index(device), pool);
  });
  m.def("_pool_live_allocations", [b](int device, PoolId pool) {
    std::vector<std::uintptr_t> live;
    for (void* ptr : b->allocator().core().pool_live_allocations(b->checked_index(device), pool)) {
      live.push_back(reinterpret_cast<std::uintptr_t>(ptr));
    }
    return live;
  }, py::arg("device"), py::arg("pool"), "Addresses of the pool's blocks handed out and not freed.");
}

}  // namespace torch_core
