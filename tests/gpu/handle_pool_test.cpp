// The per-thread pool of library handles (framework/handle_pool.h) that cuBLAS's and
// cuSOLVER's executors lease from, with plain ints for handles: no GPU needed. A thread
// keeps its handle per device; a thread that exits gives its handles back, and the next
// thread reuses them instead of creating more; a failed create leases nothing.
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/handle_pool.h"

namespace {

using gpu_test::check;

int next_handle = 0;
bool fail_next = false;

int create() {
  if (fail_next) {
    fail_next = false;
    throw std::runtime_error("no handle");
  }
  return ++next_handle;
}

using Pool = torch_cuda::HandlePool<int>;

int lease_on_new_thread(int device) {
  int handle = 0;
  std::thread([&] { handle = Pool::get(&create).lease(device); }).join();
  return handle;
}

}  // namespace

int main() {
  Pool& pool = Pool::get(&create);
  const int first = pool.lease(0);
  check(pool.lease(0) == first, "a thread keeps its handle for a device");
  const int other_device = pool.lease(1);
  check(other_device != first, "another device has its own handle");
  check(pool.created() == 2, "two handles made");

  const int on_thread = lease_on_new_thread(0);
  check(on_thread != first, "another thread does not share the main thread's handle");
  check(lease_on_new_thread(0) == on_thread, "an exited thread's handle is reused by the next thread");
  check(pool.created() == 3, "the reused handle is not made again");

  // Both threads hold their lease until both have one (a thread that exits gives its
  // handle back, and the next may then take it).
  std::vector<int> concurrent(2);
  std::atomic<int> leased{0};
  auto hold = [&](int i) {
    concurrent[i] = pool.lease(0);
    ++leased;
    while (leased.load() < 2) std::this_thread::yield();
  };
  std::thread a(hold, 0), b(hold, 1);
  a.join();
  b.join();
  check(concurrent[0] != concurrent[1], "two live threads never share a handle");

  fail_next = true;
  bool threw = false;
  std::thread([&] {
    try {
      pool.lease(2);
    } catch (const std::runtime_error&) {
      threw = true;
    }
  }).join();
  check(threw, "a failing create reaches the caller");
  const std::size_t made = pool.created();
  const int after_failure = lease_on_new_thread(2);
  check(after_failure == next_handle && pool.created() == made + 1,
        "after a failed create the next lease makes a new handle");
  return gpu_test::finish();
}
