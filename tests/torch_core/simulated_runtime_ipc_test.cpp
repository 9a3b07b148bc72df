// The simulated runtime's interprocess sharing against the runtime interface's contract.
// Two runtimes in one process stand for two processes (the runtime refuses only its own
// handles): memory shared both ways, an event that orders the consumer after the
// producer's queued work, and the refusals cudart gives. The Python tests share tensors
// between real processes over the same calls.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/runtime_test_support.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using namespace runtime_test;  // NOLINT: the tests' shared vocabulary

void test_memory_is_shared_both_ways() {
  SimulatedRuntime producer(small_config());
  SimulatedRuntime consumer(small_config());
  const std::size_t n = 1000;
  auto* ints = static_cast<int*>(producer.allocate(0, n * sizeof(int)));
  std::vector<int> values(n, 7);
  producer.memcpy(ints, values.data(), n * sizeof(int), CopyKind::kHostToDevice);
  const std::string handle = producer.ipc_memory_handle(0, ints);
  CHECK_EQ(handle.size(), SimulatedRuntime::kIpcHandleBytes);
  CHECK_TRUE(handle == producer.ipc_memory_handle(0, ints));  // the same bytes every time

  void* opened = consumer.ipc_open_memory(0, handle);
  CHECK_TRUE(all_equal(read_ints(consumer, opened, n), 7));
  std::vector<int> nines(n, 9);
  consumer.memset_async(opened, 0, sizeof(int), nullptr);  // a device call accepts the range
  consumer.memcpy(opened, nines.data(), n * sizeof(int), CopyKind::kHostToDevice);
  CHECK_TRUE(all_equal(read_ints(producer, ints, n), 9));
  // The range ends with the allocation, and the consumer cannot free it.
  CHECK_THROWS(consumer.memcpy(values.data(), opened, (n + 1) * sizeof(int), CopyKind::kDeviceToHost), RuntimeError,
               "not inside device memory");
  CHECK_THROWS(consumer.free(0, opened), RuntimeError, "not the start of memory allocated");
  consumer.ipc_close_memory(0, opened);
  CHECK_THROWS(consumer.ipc_close_memory(0, opened), RuntimeError, "closed already");
  CHECK_THROWS(read_ints(consumer, opened, 1), RuntimeError, "not inside device memory");
  // The consumer's memory is its own: nothing was charged for the mapping.
  CHECK_EQ(consumer.memory_info(0).free_bytes, consumer.memory_info(0).total_bytes);
  producer.free(0, ints);
}

void test_event_orders_the_consumer_after_queued_work() {
  SimulatedRuntime producer(small_config());
  SimulatedRuntime consumer(small_config());
  const std::size_t n = 4096;
  auto* ints = static_cast<int*>(producer.allocate(0, n * sizeof(int)));
  StreamHandle stream = producer.create_stream(0, 0);
  Gate gate;
  gate.hold(producer, stream);
  producer.enqueue(stream, [ints, n] {
    for (std::size_t i = 0; i < n; ++i) ints[i] = 5;
  });
  EventHandle event = producer.create_ipc_event(0);
  producer.record_event(event, stream);
  const std::string event_handle = producer.ipc_event_handle(event);
  const std::string memory_handle = producer.ipc_memory_handle(0, ints);

  void* opened = consumer.ipc_open_memory(0, memory_handle);
  EventHandle remote = consumer.ipc_open_event(0, event_handle);
  CHECK_TRUE(!consumer.query_event(remote));
  StreamHandle reader = consumer.create_stream(0, 0);
  consumer.stream_wait_event(reader, remote);
  std::vector<int> host(n, -1);
  int* pinned = static_cast<int*>(consumer.allocate_host_pinned(n * sizeof(int)));
  consumer.memcpy_async(pinned, opened, n * sizeof(int), CopyKind::kDeviceToHost, reader);
  CHECK_TRUE(stays_false([&] { return consumer.query_stream(reader); }));  // held by the producer's gate
  gate.open();
  consumer.synchronize_stream(reader);
  CHECK_TRUE(std::all_of(pinned, pinned + n, [](int v) { return v == 5; }));
  CHECK_TRUE(consumer.query_event(remote));
  consumer.synchronize_event(remote);
  CHECK_THROWS(consumer.record_event(remote, reader), RuntimeError, "only the process that created it");

  consumer.destroy_event(remote);
  consumer.destroy_stream(reader);
  consumer.free_host_pinned(pinned);
  consumer.ipc_close_memory(0, opened);
  producer.destroy_event(event);
  // A handle to a destroyed event no longer opens.
  CHECK_THROWS(consumer.ipc_open_event(0, event_handle), RuntimeError, "was destroyed");
  producer.destroy_stream(stream);
  producer.free(0, ints);
}

void test_refusals() {
  SimulatedRuntime producer(small_config());
  SimulatedRuntime consumer(small_config());
  auto* bytes = static_cast<char*>(producer.allocate(1, 4096));
  const std::string handle = producer.ipc_memory_handle(1, bytes);
  CHECK_THROWS(producer.ipc_open_memory(1, handle), RuntimeError, "made by this runtime");
  CHECK_THROWS(producer.ipc_memory_handle(1, bytes + 512), RuntimeError, "not the start of memory");
  CHECK_THROWS(producer.ipc_memory_handle(0, bytes), RuntimeError, "not the start of memory");
  CHECK_THROWS(consumer.ipc_open_memory(0, "not a handle"), RuntimeError, "invalid memory handle");
  CHECK_THROWS(consumer.ipc_open_memory(0, std::string(64, '\0')), RuntimeError, "invalid memory handle");
  CHECK_THROWS(consumer.ipc_open_event(0, handle), RuntimeError, "invalid event handle");
  EventHandle plain = producer.create_event(1, false);
  CHECK_THROWS(producer.ipc_event_handle(plain), RuntimeError, "create_ipc_event");
  producer.destroy_event(plain);
  producer.free(1, bytes);
}

}  // namespace

int main() {
  cc_check::run("memory_is_shared_both_ways", test_memory_is_shared_both_ways);
  cc_check::run("event_orders_the_consumer_after_queued_work", test_event_orders_the_consumer_after_queued_work);
  cc_check::run("refusals", test_refusals);
  return cc_check::summary();
}
