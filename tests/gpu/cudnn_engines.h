// cuDNN's engine libraries for the torch-free cuDNN tests: libcudnn.so.9 finds them by
// soname, so they are loaded before the first call from the whole pinned wheel
// (@cuda_cudnn_engines, the CUDNN_RUNTIME paths), as torch preloads them from site-packages.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gpu_test {

inline void load_cudnn_engine_libraries() {
  std::istringstream paths(std::getenv("CUDNN_RUNTIME") ? std::getenv("CUDNN_RUNTIME") : "");
  std::string path;
  while (paths >> path) {
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      throw std::runtime_error("could not load " + path + ": " + dlerror());
    }
  }
}

}  // namespace gpu_test
