#include "third_device/torch_cuda/simulated/csrc/library_calls.h"

#include <mutex>

namespace torch_cuda::simulated {
namespace {

struct Record {
  std::mutex mutex;
  std::map<std::string, std::int64_t> counts;
};

Record& record() {
  static Record* const instance = new Record;  // leaked: kernels may queue during exit
  return *instance;
}

}  // namespace

void record_library_call(const char* name) {
  Record& r = record();
  const std::lock_guard<std::mutex> lock(r.mutex);
  ++r.counts[name];
}

std::map<std::string, std::int64_t> library_calls() {
  Record& r = record();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return r.counts;
}

}  // namespace torch_cuda::simulated
