// The communicator of simulated devices (distributed/communicator.h): NCCL's calls with
// NCCL's stream semantics, for ranks in separate processes. Each call is a work item on
// the simulated stream, so it runs after the kernels queued before it and delays those
// queued after it, as a NCCL kernel does: an ordering mistake in the process group shows as
// a wrong result. The bytes travel through gloo over loopback (a ProcessGroupGloo of its
// own per communicator, made from the group's store), between the device buffers, which
// are host memory on a simulated device. A failed call (a dead peer, a timeout) is kept as
// the communicator's error and the calls queued after it are skipped, as after a NCCL
// error.
#pragma once

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/distributed/collective_backend.h"

namespace torch_core::simulated_device {

// Makes simulated communicators for `device_type`'s streams (needs the Python
// interpreter: gloo's process group is made through torch.distributed).
distributed::CommunicatorFactory communicator_factory(c10::DeviceType device_type);

}  // namespace torch_core::simulated_device
