// Stream work that touches simulated device memory that is not allocated: freed memory,
// never-allocated space of the device's heap, and unmapped reserved address space. Each
// is the error CUDA gives (an illegal memory access, reported by the next
// synchronisation), the runtime stays usable, the freed range is closed again, and a stray
// write does not survive into the next allocation. A fault that is not such an access
// still crashes the process.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/runtime_test_support.h"

namespace {

using namespace runtime_test;  // NOLINT: the tests' shared vocabulary

constexpr std::size_t kBytes = 64 * 1024;

// Queues a read of `ptr` on `stream` and returns the error its synchronisation raises.
std::string read_error(SimulatedRuntime& runtime, StreamHandle stream, const void* ptr) {
  int value = 0;
  runtime.enqueue(stream, [ptr, &value] { value = *static_cast<const volatile int*>(ptr); });
  try {
    runtime.synchronize_stream(stream);
  } catch (const torch_core::IllegalAddressError& error) {
    CHECK_EQ(value, 0);  // the access went on, and read zeros
    return error.what();
  }
  return "";
}

void test_read_after_free() {
  SimulatedRuntime runtime(small_config(1));
  StreamHandle stream = runtime.create_stream(0, 0);
  void* stale = runtime.allocate(0, kBytes);
  runtime.memset_async(stale, 0x11, kBytes, stream);
  runtime.synchronize_stream(stream);
  runtime.free(0, stale);

  const std::string message = read_error(runtime, stream, static_cast<char*>(stale) + 100);
  CHECK_TRUE(message.find("an illegal memory access was encountered") != std::string::npos);
  std::ostringstream address;
  address << static_cast<const void*>(static_cast<char*>(stale) + 100);
  CHECK_TRUE(message.find(address.str()) != std::string::npos);
  // Reported once; the stream and runtime go on working.
  runtime.synchronize_stream(stream);
  void* fresh = runtime.allocate(0, 2 * kBytes);
  runtime.memset_async(fresh, 0x22, 2 * kBytes, stream);
  runtime.synchronize_stream(stream);
  // The range was closed again: a second stale read is caught too.
  CHECK_TRUE(read_error(runtime, stream, static_cast<char*>(fresh) + 4 * kBytes).find("illegal memory access") !=
             std::string::npos);
  runtime.free(0, fresh);
  runtime.destroy_stream(stream);
}

void test_write_after_free_does_not_survive() {
  SimulatedRuntime runtime(small_config(1));
  StreamHandle stream = runtime.create_stream(0, 0);
  void* stale = runtime.allocate(0, kBytes);
  runtime.free(0, stale);
  runtime.enqueue(stream, [stale] { std::memset(stale, 0x7f, kBytes); });
  CHECK_THROWS(runtime.synchronize_stream(stream), torch_core::IllegalAddressError, "illegal memory access");
  void* again = runtime.allocate(0, kBytes);
  CHECK_EQ(again, stale);  // first fit gives the same range back
  std::vector<unsigned char> back(kBytes, 1);
  runtime.memcpy(back.data(), again, kBytes, CopyKind::kDeviceToHost);
  CHECK_TRUE(back == std::vector<unsigned char>(kBytes, 0));
  runtime.free(0, again);
  runtime.destroy_stream(stream);
}

void test_unmapped_reservation() {
  SimulatedRuntime runtime(small_config(1));
  StreamHandle stream = runtime.create_stream(0, 0);
  const std::size_t granule = runtime.vm_granularity(0);
  void* base = runtime.vm_reserve(0, 2 * granule);
  CHECK_TRUE(runtime.vm_map(0, base, granule));
  char* unmapped = static_cast<char*>(base) + granule;
  CHECK_TRUE(read_error(runtime, stream, unmapped).find("illegal memory access") != std::string::npos);
  // The mapped half is untouched by the recovery: still readable and writable.
  runtime.memset_async(base, 3, granule, stream);
  runtime.synchronize_stream(stream);
  runtime.vm_unmap(0, base, granule);
  CHECK_TRUE(read_error(runtime, stream, base).find("illegal memory access") != std::string::npos);
  runtime.vm_release(0, base, 2 * granule);
  runtime.destroy_stream(stream);
}

// Outside stream work, or outside device memory, a fault is what it was: a crash.
void test_other_faults_still_crash() {
  for (const bool on_worker : {false, true}) {
    const pid_t child = fork();
    if (child == 0) {
      SimulatedRuntime runtime(small_config(1));
      void* stale = runtime.allocate(0, kBytes);
      runtime.free(0, stale);
      if (on_worker) {  // a worker reading unmapped host memory
        runtime.enqueue(runtime.default_stream(0), [] { (void)*static_cast<volatile int*>(nullptr); });
        runtime.synchronize_device(0);
      } else {  // the host thread reading freed device memory
        (void)*static_cast<volatile int*>(stale);
      }
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
  }
}

}  // namespace

int main() {
  cc_check::run("read_after_free", test_read_after_free);
  cc_check::run("write_after_free_does_not_survive", test_write_after_free_does_not_survive);
  cc_check::run("unmapped_reservation", test_unmapped_reservation);
  cc_check::run("other_faults_still_crash", test_other_faults_still_crash);
  return cc_check::summary();
}
