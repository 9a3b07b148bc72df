#include "torch_core/csrc/device/memory_history_bindings.h"

#include <Python.h>
#include <frameobject.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <c10/util/Exception.h>
#include <pybind11/stl.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/runtime/allocator_history.h"

namespace py = pybind11;

namespace torch_core {

namespace {

std::string utf8(PyObject* text) {
  const char* chars = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
  if (chars == nullptr) {
    PyErr_Clear();
    return "??";
  }
  return chars;
}

// The calling thread's Python stack, innermost frame first. Threads that never ran
// Python (the runtime's own workers) have none: asking for the GIL there would only
// make them a thread state.
Traceback python_stack() {
  if (!Py_IsInitialized() || PyGILState_GetThisThreadState() == nullptr) return nullptr;
  py::gil_scoped_acquire gil;
  auto frames = std::make_shared<std::vector<StackFrame>>();
  PyFrameObject* frame = PyThreadState_GetFrame(PyThreadState_Get());
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    frames->push_back({utf8(code->co_filename), utf8(code->co_name), PyFrame_GetLineNumber(frame)});
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return frames;
}

py::list frames_list(const Traceback& frames) {
  py::list result;
  if (frames == nullptr) return result;
  for (const StackFrame& frame : *frames) {
    py::dict entry;
    entry["filename"] = frame.filename;
    entry["line"] = frame.line;
    entry["name"] = frame.name;
    result.append(std::move(entry));
  }
  return result;
}

py::dict trace_entry_dict(const TraceEntry& entry) {
  py::dict result;
  result["action"] = trace_action_name(entry.action);
  if (entry.action != TraceAction::kOom) result["addr"] = entry.address;
  result["size"] = entry.size;
  result["stream"] = reinterpret_cast<std::uintptr_t>(entry.stream);
  result["time_us"] = entry.time_us;
  result["frames"] = frames_list(entry.frames);
  if (entry.action == TraceAction::kOom) result["device_free"] = entry.device_free;
  result["user_metadata"] = entry.user_metadata;
  return result;
}

// torch.cuda.memory._record_memory_history's arguments, checked as stock checks them.
HistorySettings history_settings(const std::optional<std::string>& enabled,
                                 const std::optional<std::string>& context,
                                 const std::string& stacks, std::size_t max_entries,
                                 const std::vector<std::string>& skip_actions) {
  TORCH_CHECK(!enabled || *enabled == "state" || *enabled == "all",
              "expected state to be 'state', 'all', or None");
  TORCH_CHECK(!context || *context == "state" || *context == "alloc" || *context == "all",
              "expected context to be 'state', 'alloc', 'all', or None");
  TORCH_CHECK(stacks == "python" || stacks == "all", "expected stacks to be 'python', or 'all'");
  HistorySettings settings;
  if (!enabled) return settings;
  settings.blocks = true;
  settings.trace = *enabled == "all";
  settings.alloc_stacks = context.has_value();
  settings.trace_stacks = context && *context != "state";
  settings.free_stacks = context && *context == "all";
  settings.max_entries = max_entries;
  for (const std::string& name : skip_actions) {
    TraceAction action{};
    TORCH_CHECK(trace_action_from_name(name, action), "skip_actions: unknown action '",
                      name, "'; the actions are alloc, free_requested, free_completed, ",
                      "segment_alloc, segment_free, oom and snapshot");
    settings.skip.insert(action);
  }
  // Python frames only: "all" would add C++ frames, which torch_core does not unwind.
  if (settings.alloc_stacks || settings.free_stacks) settings.gather = python_stack;
  return settings;
}

}  // namespace

void bind_memory_history(py::module_& m, Backend& backend) {
  Backend* b = &backend;  // process-lifetime: captured by pointer

  m.def("_record_memory_history",
        [b](std::optional<std::string> enabled, std::optional<std::string> context,
            const std::string& stacks, std::size_t max_entries, bool clear_history,
            const std::vector<std::string>& skip_actions) {
          HistorySettings settings =
              history_settings(enabled, context, stacks, max_entries, skip_actions);
          b->allocator().core().record_history(std::move(settings), clear_history);
        },
        py::arg("enabled"), py::arg("context"), py::arg("stacks"), py::arg("max_entries"),
        py::arg("clear_history"), py::arg("skip_actions"),
        "Starts (or with enabled=None stops) recording memory history.");
  m.def("_is_history_enabled", [b] { return b->allocator().core().history_enabled(); });
  m.def("_memory_trace", [b](int device) {
    py::list entries;
    for (const TraceEntry& entry :
         b->allocator().core().trace(b->checked_index(static_cast<c10::DeviceIndex>(device)))) {
      entries.append(trace_entry_dict(entry));
    }
    return entries;
  }, py::arg("device"), "The allocator's recorded actions on `device`, oldest first.");
  m.def("_set_memory_metadata", &set_thread_memory_metadata, py::arg("metadata"),
        "Text the calling thread's trace entries carry from now on (empty: none).");
  m.def("_get_memory_metadata", &thread_memory_metadata,
        "The calling thread's memory metadata.");
  m.def("_allocation_traceback", [b](std::uintptr_t ptr) -> py::object {
    const Traceback frames =
        b->allocator().core().allocation_traceback(reinterpret_cast<void*>(ptr));
    if (frames == nullptr) return py::none();
    return frames_list(frames);
  }, py::arg("ptr"), "The stack that allocated the live block at `ptr`, or None.");
}

py::list block_frames(const Traceback& frames) { return frames_list(frames); }

}  // namespace torch_core
