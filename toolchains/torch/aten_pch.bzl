"""How a C++ library compiles with torch's precompiled headers (//toolchains/torch:aten_pch).

    cc_library(..., copts = ATEN_PCH_COPTS, additional_compiler_inputs = [ATEN_PCH])

For libraries whose sources include ATen's headers; not for torch-free ones (loading the
header costs ~1.5 s a compile) nor for ones whose copts change the optimisation level
(GCC would not use it; toolchains/cc/precompiled_header.bzl).
"""

ATEN_PCH = "//toolchains/torch:aten_pch"

# The copy of aten_pch.h beside its .gch, found through the bin directory's include path.
ATEN_PCH_COPTS = [
    "-include",
    "toolchains/torch/aten_pch/aten_pch.h",
    # Says so when GCC cannot use it (flags that differ from the header's compile).
    "-Winvalid-pch",
]
