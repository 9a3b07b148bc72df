"""contract_tests: the backend contract suite (tests/contract/test_*.py) for one backend.

Every test file imports `backend.py`, which loads the backend package named by
CONTRACT_BACKEND and talks to its device through torch only (torch.<device>,
torch.accelerator, tensors), so the same files run against torch_sim today and
torch_cuda when it registers its device module.
"""

CONTRACT_TESTS = [
    "accelerator",
    "autograd",
    "convolution",
    "device",
    "fallback",
    "generator",
    "graphs",
    "memory",
    "oom",
    "op_layer",
    "op_layer_random_and_nn",
    "op_layer_reductions_and_indexing",
    "profiler",
    "serialization",
    "sparse",
    "streams",
    "tensor",
]

def contract_tests(backend, deps, env = {}, test_env = {}, tags = [], not_yet = {}):
    """One py_test per contract file, `<backend>_<file>_test`.

    Args:
      backend: the Python package of the backend (`torch_sim`).
      deps: its py_library (and anything else the tests need).
      env: environment for every test (device-specific settings).
      test_env: {file: {var: value}} for single tests (e.g. a small memory for `oom`).
      tags: tags for every test.
      not_yet: {file: reason} for files the backend does not pass yet: they are built
        and tagged `manual` (run them by name), so the gap stays visible.
    """
    for test in CONTRACT_TESTS:
        test_environment = {"CONTRACT_BACKEND": backend}
        test_environment.update(env)
        test_environment.update(test_env.get(test, {}))
        native.py_test(
            name = "%s_%s_test" % (backend, test),
            srcs = ["test_%s.py" % test],
            main = "test_%s.py" % test,
            env = test_environment,
            size = "small",
            tags = tags + (["manual"] if test in not_yet else []),
            deps = deps + [
                ":contract_backend",
                "@torch//:torch_py",
            ],
        )
