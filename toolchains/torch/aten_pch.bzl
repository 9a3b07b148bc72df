"""How a C++ library compiles with torch's precompiled headers (//toolchains/torch:aten_pch).

    cc_library(..., copts = ATEN_PCH_COPTS, additional_compiler_inputs = ATEN_PCH_INPUTS)

For libraries whose sources include ATen's headers; not for torch-free ones (loading the
header costs ~1.5 s a compile) nor for ones whose copts change the optimisation level
(GCC cannot use it there, and -Werror=invalid-pch says so;
toolchains/cc/precompiled_header.bzl). `--//toolchains/torch:precompiled_headers=false`
compiles every source without it, as it is written.
"""

_ENABLED = "//toolchains/torch:precompiled_headers_enabled"
_OPT = "//toolchains/torch:precompiled_headers_opt"

ATEN_PCH_INPUTS = select({
    _ENABLED: ["//toolchains/torch:aten_pch"],
    "//conditions:default": [],
})

# The copy of aten_pch.h beside its .gch directory, found through the bin directory's
# include path.
_INCLUDE = ["-include", "toolchains/torch/aten_pch/aten_pch.h"]

ATEN_PCH_COPTS = select({
    # Two variants (with and without -fPIC): GCC takes the one that fits, and would report
    # the other as unusable, so no -Werror=invalid-pch here.
    _OPT: _INCLUDE,
    # A .gch GCC cannot use (flags that differ from the header's compile) fails the compile
    # instead of being read as text, slowly, without a word.
    _ENABLED: _INCLUDE + ["-Werror=invalid-pch"],
    "//conditions:default": [],
})
