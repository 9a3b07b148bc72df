#include "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_rendezvous.h"

#include <cstdint>
#include <memory>
#include <vector>

#include <c10/util/Exception.h>

#include "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_communicator.h"

namespace torch_cuda::distributed {

torch_core::distributed::CommunicatorFactory nccl_communicator_factory() {
  return [](const c10::intrusive_ptr<c10d::Store>& store, const std::string& key, int rank, int size,
            c10::Device device, std::chrono::milliseconds timeout)
             -> std::unique_ptr<torch_core::distributed::Communicator> {
    const std::string id_key = key + "/nccl_unique_id";
    NcclUniqueId id{};
    if (rank == 0) {
      id = make_nccl_unique_id();
      store->set(id_key, std::vector<std::uint8_t>(id.begin(), id.end()));
    } else {
      store->wait({id_key}, timeout);
      const std::vector<std::uint8_t> bytes = store->get(id_key);
      TORCH_CHECK(bytes.size() == id.size(), "NCCL's unique id in the store has ", bytes.size(), " bytes, not ",
                  id.size(), ": another program wrote ", id_key);
      std::copy(bytes.begin(), bytes.end(), id.begin());
    }
    return std::make_unique<NcclCommunicator>(device.index(), rank, size, id);
  };
}

}  // namespace torch_cuda::distributed
