// The real variant's NCCL communicator (third_device/torch_cuda/torch_cuda/csrc/distributed),
// torch-free.
//
// Everywhere: the data type and reduction mapping, the linked NCCL's version. With a GPU,
// on each device: a one-rank communicator's all_reduce (sum, avg), broadcast, reduce,
// all_gather, reduce_scatter and a grouped send/receive to itself, then abort. With two
// or more GPUs: two ranks (threads, one per device) all_reduce and exchange in a group.
// Without one: says why and checks that joining a group fails naming NCCL's call.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_communicator.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
namespace nccl = torch_cuda::distributed;
using torch_core::distributed::CommDataType;
using torch_core::distributed::CommReduceOp;

void host_checks() {
  check(nccl::nccl_type(CommDataType::kBFloat16) == ncclBfloat16 &&
            nccl::nccl_type(CommDataType::kUint8) == ncclUint8 && nccl::nccl_type(CommDataType::kInt64) == ncclInt64,
        "data types map to NCCL's");
  check(nccl::nccl_op(CommReduceOp::kAvg) == ncclAvg && nccl::nccl_op(CommReduceOp::kProduct) == ncclProd,
        "reductions map to NCCL's (AVG is ncclAvg)");
  const long long expected = (static_cast<long long>(NCCL_MAJOR) << 32) | (NCCL_MINOR << 16) | NCCL_PATCH;
  const long long linked = nccl::nccl_version();
  const std::string pinned =
      std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH);
  std::printf("linked NCCL %lld.%lld.%lld\n", linked >> 32, (linked >> 16) & 0xffff, linked & 0xffff);
  if (std::getenv("GPU_KIT_MACHINE_NCCL") != nullptr) {
    // tools/gpu_kit_run.sh runs this over the GPU machine's own NCCL (the kit does not pack
    // the pinned one): there NCCL 2's stable ABI is what must match.
    check(linked >> 32 == NCCL_MAJOR, "the machine's NCCL has the pinned header's major version (" + pinned + ")");
  } else {
    check(linked == expected, "the linked NCCL is the pinned one the header names (" + pinned + ")");
  }
}

void no_device_checks() {
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [] { nccl::NcclCommunicator(0, 0, 1, nccl::make_nccl_unique_id()); }, "joining a group without a device");
  std::printf("joining a group without a device: %s\n", message.c_str());
  check(contains(message, "NCCL error") && contains(message, "ncclCommInitRank"),
        "the error names NCCL and its call: " + message);
}

std::vector<float> host(const gpu_test::DeviceBuffer<float>& buffer) { return buffer.to_host(); }

void one_rank_checks(cudaStream_t stream) {
  int device = 0;
  gpu_test::cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  nccl::NcclCommunicator comm(device, 0, 1, nccl::make_nccl_unique_id());
  check(comm.rank() == 0 && comm.size() == 1, "a one-rank communicator");
  const std::vector<float> values{1, 2, 3, 4};
  gpu_test::DeviceBuffer<float> in(values), out(std::vector<float>(4, -1));
  comm.all_reduce(in.get(), out.get(), 4, CommDataType::kFloat32, CommReduceOp::kSum, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(host(out) == values, "all_reduce (sum) of one rank is its input, out of place");
  comm.all_reduce(out.get(), out.get(), 4, CommDataType::kFloat32, CommReduceOp::kAvg, stream);
  comm.broadcast(in.get(), out.get(), 4, CommDataType::kFloat32, 0, stream);
  comm.reduce(out.get(), out.get(), 4, CommDataType::kFloat32, CommReduceOp::kMax, 0, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(host(out) == values, "avg in place, broadcast and reduce keep one rank's values");
  gpu_test::DeviceBuffer<float> gathered(std::vector<float>(4, -1));
  comm.all_gather(in.get(), gathered.get(), 4, CommDataType::kFloat32, stream);
  comm.reduce_scatter(in.get(), out.get(), 4, CommDataType::kFloat32, CommReduceOp::kSum, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(host(gathered) == values && host(out) == values, "all_gather and reduce_scatter of one rank");
  gpu_test::DeviceBuffer<float> received(std::vector<float>(4, 0));
  comm.group_start();
  comm.send(in.get(), 4, CommDataType::kFloat32, 0, stream);
  comm.recv(received.get(), 4, CommDataType::kFloat32, 0, stream);
  comm.group_end();
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  check(host(received) == values, "a grouped send to itself and its receive");
  check(comm.async_error().empty(), "no asynchronous error: " + comm.async_error());
  comm.abort();
  check(contains(comm.async_error(), "aborted"), "after abort the communicator says so");
}

// Two ranks, one thread and device each, joining with one unique id.
void two_rank_checks() {
  const nccl::NcclUniqueId id = nccl::make_nccl_unique_id();
  std::vector<float> results[2];
  std::vector<std::string> errors(2);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      try {
        gpu_test::cuda_ok(cudaSetDevice(rank), "cudaSetDevice");
        cudaStream_t stream = nullptr;
        gpu_test::cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        nccl::NcclCommunicator comm(rank, rank, 2, id);
        gpu_test::DeviceBuffer<float> mine(std::vector<float>(1024, static_cast<float>(rank + 1)));
        gpu_test::DeviceBuffer<float> peer(std::vector<float>(3, 0));
        gpu_test::DeviceBuffer<float> sent(std::vector<float>(3, static_cast<float>(10 * (rank + 1))));
        comm.all_reduce(mine.get(), mine.get(), 1024, CommDataType::kFloat32, CommReduceOp::kSum, stream);
        comm.group_start();
        comm.send(sent.get(), 3, CommDataType::kFloat32, 1 - rank, stream);
        comm.recv(peer.get(), 3, CommDataType::kFloat32, 1 - rank, stream);
        comm.group_end();
        gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
        results[rank] = mine.to_host();
        std::vector<float> exchanged = peer.to_host();
        results[rank].insert(results[rank].end(), exchanged.begin(), exchanged.end());
        gpu_test::cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
      } catch (const std::exception& error) {
        errors[rank] = error.what();
      }
    });
  }
  for (std::thread& rank : ranks) rank.join();
  for (int rank = 0; rank < 2; ++rank) {
    check(errors[rank].empty(), "rank " + std::to_string(rank) + ": " + errors[rank]);
    if (!errors[rank].empty()) continue;
    std::vector<float> want(1024, 3.0f);
    want.insert(want.end(), 3, static_cast<float>(10 * (2 - rank)));
    check(results[rank] == want, "rank " + std::to_string(rank) + ": all_reduce over two GPUs and the exchange");
  }
}

void device_checks(cudaStream_t stream) {
  one_rank_checks(stream);
  int device = 0, count = 0;
  gpu_test::cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  gpu_test::cuda_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (device != 0) return;  // the two-rank check once, from device 0's pass
  if (count < 2) {
    std::printf("two-rank check skipped: it needs 2 GPUs, found %d\n", count);
    return;
  }
  two_rank_checks();
  gpu_test::cuda_ok(cudaSetDevice(device), "cudaSetDevice");
}

}  // namespace

int main() {
  return gpu_test::run("NCCL",
                       "NCCL not run; the type and reduction mapping, the version and no-device behaviour checked",
                       host_checks, no_device_checks, device_checks);
}
