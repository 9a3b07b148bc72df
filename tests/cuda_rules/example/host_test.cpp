// cc_test: the example's checks from plain C++, which links the rdc library (its
// device-link object and the device runtime come with it).
#include "example_check.h"

#ifdef EXAMPLE_DEVICE_DEFINE
#error "defines of CUDA targets (not host_defines) must not reach C++ compiles"
#endif
#ifndef SAXPY_HOST_DEFINE
#error "host_defines of :saxpy must reach C++ dependents"
#endif

int main() { return run_example_checks(); }
