#include "torch_core/csrc/runtime/simulated_fault_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "torch_core/csrc/runtime/pointer_text.h"

namespace torch_core {
namespace simulated_faults {
namespace {

// Read by the signal handler: fixed slots of atomics, never a lock or an allocation.
struct Slot {
  std::atomic<std::uintptr_t> begin{0};  // 0: free
  std::atomic<std::uintptr_t> end{0};
  std::atomic<Protected*> owner{nullptr};
};
constexpr std::size_t kSlots = 256;
std::array<Slot, kSlots> slots;
std::mutex slots_mutex;  // taken by watch, unwatch and finish, never by the handler
std::uintptr_t page_mask = 0;
struct sigaction previous_action;

thread_local WorkScope* current_scope = nullptr;

bool watched(std::uintptr_t address) {
  for (const Slot& slot : slots) {
    const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    if (begin != 0 && address >= begin && address < slot.end.load(std::memory_order_relaxed)) return true;
  }
  return false;
}

// As if we had never installed a handler: the previous one runs, or the default action.
void forward(int signal, siginfo_t* info, void* context) {
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  if (previous_action.sa_handler == SIG_DFL || previous_action.sa_handler == SIG_IGN) {
    // Returning re-runs the access, which faults again under the default action.
    sigaction(signal, &previous_action, nullptr);
    return;
  }
  previous_action.sa_handler(signal);
}

}  // namespace

struct FaultHandler {
  static void on_fault(int signal, siginfo_t* info, void* context) {
    WorkScope* scope = current_scope;
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    if (scope != nullptr && info->si_code == SEGV_ACCERR && watched(address) &&
        mprotect(reinterpret_cast<void*>(address & page_mask), ~page_mask + 1, PROT_READ | PROT_WRITE) == 0) {
      if (scope->count_++ == 0) scope->first_address_ = info->si_addr;
      return;  // the access runs again, now on an open page
    }
    forward(signal, info, context);
  }
};

namespace {

void install_handler() {
  page_mask = ~(static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)) - 1);
  struct sigaction action = {};
  action.sa_sigaction = [](int signal, siginfo_t* info, void* context) {
    FaultHandler::on_fault(signal, info, context);
  };
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &action, &previous_action);
}

}  // namespace

void watch(const void* base, std::size_t bytes, Protected* owner) {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (Slot& slot : slots) {
    if (slot.begin.load(std::memory_order_relaxed) != 0) continue;
    const auto begin = reinterpret_cast<std::uintptr_t>(base);
    slot.end.store(begin + bytes, std::memory_order_relaxed);
    slot.owner.store(owner, std::memory_order_relaxed);
    slot.begin.store(begin, std::memory_order_release);
    return;
  }
}

void unwatch(const void* base) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (Slot& slot : slots) {
    if (slot.begin.load(std::memory_order_relaxed) == reinterpret_cast<std::uintptr_t>(base)) {
      slot.begin.store(0, std::memory_order_release);
      slot.owner.store(nullptr, std::memory_order_relaxed);
    }
  }
}

WorkScope::WorkScope() { current_scope = this; }

WorkScope::~WorkScope() { current_scope = nullptr; }

std::string WorkScope::finish() {
  if (count_ == 0) return "";
  {
    std::lock_guard<std::mutex> lock(slots_mutex);
    for (Slot& slot : slots) {
      Protected* owner = slot.owner.load(std::memory_order_relaxed);
      if (slot.begin.load(std::memory_order_relaxed) != 0 && owner != nullptr) owner->reprotect();
    }
  }
  return std::string(kIllegalAccess) + " (cudaErrorIllegalAddress): the work read or wrote device memory at " +
         pointer_text(first_address_) + " that is not allocated (freed, never allocated, or unmapped), " +
         std::to_string(count_) +
         " page fault(s) in all; keep tensors alive, or record_stream() them, while work queued on a stream still "
         "uses them";
}

}  // namespace simulated_faults
}  // namespace torch_core
