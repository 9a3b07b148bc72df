// The headers most of torch_core's and the backends' C++ sources include, precompiled once
// per build (//toolchains/torch:aten_pch; toolchains/cc/precompiled_header.bzl): ATen's
// tensor, context, operator and iterator headers, the dispatcher's registration API and
// the standard library they pull in. Parsing these was most of each such compile.
// Only stable, pinned headers belong here: a change to any of them recompiles every user.

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/Context.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>
#include <torch/library.h>
