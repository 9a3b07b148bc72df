// cuda_test: the example's checks from a CUDA source.
#include "example_check.h"

#ifdef SAXPY_LOCAL_DEFINE
#error "local_defines of :saxpy must not reach its dependents"
#endif
#ifndef SAXPY_HOST_DEFINE
#error "host_defines of :saxpy must reach its dependents"
#endif

int main() { return run_example_checks(); }
