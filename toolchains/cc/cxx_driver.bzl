"""The pinned C++ driver for builds that a test runs itself (torch's cpp_extension,
setuptools), outside Bazel's actions: add CXX_DRIVER_DATA to the test's data and
CXX_DRIVER_ENV to its env, so that they compile with @host_gcc, not the machine's c++.
$(rootpath) is relative to the test's working directory: a build that runs elsewhere makes
CXX absolute first."""

CXX_DRIVER_ENV = {"CXX": "$(rootpath @host_gcc//:bin/g++)"}

CXX_DRIVER_DATA = [
    "@host_gcc//:bin/g++",
    "@host_gcc//:cxx_driver",
]
