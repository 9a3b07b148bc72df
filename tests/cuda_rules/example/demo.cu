// cuda_binary: runs the example's checks (for cuobjdump: the architectures it carries).
#include "example_check.h"

int main() { return run_example_checks(); }
