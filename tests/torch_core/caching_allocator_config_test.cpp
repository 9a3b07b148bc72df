// The caching device allocator's settings: PYTORCH_ALLOC_CONF's format, defaults, every
// rejected item with the message that names it, and which variable wins.
#include <cstdlib>
#include <string>

#include "tests/cc_check/check.h"
#include "tests/torch_core/allocator_test_support.h"
#include "torch_core/csrc/runtime/allocator_config.h"

namespace {

using namespace allocator_test;  // NOLINT: the tests' shared vocabulary

void test_config_parsing() {
  const AllocatorConfig config = AllocatorConfig::parse(
      "max_split_size_mb:128,garbage_collection_threshold:0.6,roundup_power2_divisions:4",
      "PYTORCH_CUDA_ALLOC_CONF");
  CHECK_EQ(config.max_split_size, mib(128));
  CHECK_EQ(config.garbage_collection_threshold, 0.6);
  CHECK_EQ(config.divisions_for(mib(1)), 4u);
  CHECK_EQ(config.divisions_for(mib(100000)), 4u);
  CHECK_EQ(config.env_var, "PYTORCH_CUDA_ALLOC_CONF");

  const AllocatorConfig defaults = config_of("");
  CHECK_EQ(defaults.max_split_size, static_cast<std::size_t>(-1));
  CHECK_EQ(defaults.max_non_split_rounding_size, mib(20));
  CHECK_EQ(defaults.garbage_collection_threshold, 0.0);
  CHECK_EQ(defaults.divisions_for(mib(3)), 0u);

  const AllocatorConfig spaced =
      config_of(" max_split_size_mb : 40 , max_non_split_rounding_mb:64, "
                "expandable_segments:False,backend:native");
  CHECK_EQ(spaced.max_split_size, mib(40));
  CHECK_EQ(spaced.max_non_split_rounding_size, mib(64));
  CHECK_TRUE(!spaced.expandable_segments);
  CHECK_TRUE(config_of("expandable_segments:True").expandable_segments);
  CHECK_EQ(defaults.per_process_memory_fraction, -1.0);
  CHECK_EQ(config_of("per_process_memory_fraction:0.25").per_process_memory_fraction, 0.25);
  // Stock's keys with nothing to switch here are checked, then accepted.
  const AllocatorConfig stock_keys = config_of(
      "release_lock_on_cudamalloc:True,pinned_use_cuda_host_register:false,pinned_use_background_threads:True,"
      "graph_capture_record_stream_reuse:False,pinned_num_register_threads:8,pinned_reserve_segment_size_mb:64");
  CHECK_EQ(stock_keys.max_split_size, defaults.max_split_size);

  // kKeys (what c10 is told this parser takes) is the parser's own list.
  for (const char* key : AllocatorConfig::kKeys) {
    try {
      config_of(std::string(key) + ":?");
      CHECK_TRUE(false);  // no key takes '?'
    } catch (const RuntimeError& error) {
      CHECK_TRUE(std::string(error.what()).find("unknown key") == std::string::npos);
    }
  }

  // parse_onto: only the keys given change.
  const AllocatorConfig onto = AllocatorConfig::parse_onto(spaced, "expandable_segments:True", "setAllocatorSettings");
  CHECK_TRUE(onto.expandable_segments);
  CHECK_EQ(onto.max_split_size, mib(40));
  CHECK_EQ(onto.env_var, spaced.env_var);
  CHECK_THROWS(AllocatorConfig::parse_onto(spaced, "foo:1", "setAllocatorSettings"), RuntimeError,
               "invalid setAllocatorSettings='foo:1'");

  const AllocatorConfig bracket =
      config_of("roundup_power2_divisions:[256:1,512:2,1024:4,>:8]");
  CHECK_EQ(bracket.divisions_for(mib(1)), 1u);
  CHECK_EQ(bracket.divisions_for(mib(100)), 1u);
  CHECK_EQ(bracket.divisions_for(mib(300)), 2u);
  CHECK_EQ(bracket.divisions_for(mib(600)), 4u);
  CHECK_EQ(bracket.divisions_for(mib(2048)), 8u);
  CHECK_EQ(bracket.divisions_for(mib(1 << 20)), 8u);
  const AllocatorConfig partial = config_of("roundup_power2_divisions:[64:2]");
  CHECK_EQ(partial.divisions_for(mib(32)), 2u);
  CHECK_EQ(partial.divisions_for(mib(64)), 0u);  // beyond the last bound: no rounding

  const char* const env = "PYTORCH_CUDA_ALLOC_CONF";
  auto bad = [env](const std::string& text, const std::string& fragment) {
    CHECK_THROWS(AllocatorConfig::parse(text, env), RuntimeError, fragment);
    CHECK_THROWS(AllocatorConfig::parse(text, env), RuntimeError, env);
    CHECK_THROWS(AllocatorConfig::parse(text, env), RuntimeError, "accepted keys");
  };
  bad("foo:1", "unknown key 'foo'");
  bad("max_split_size_mb:abc", "'abc' is not a non-negative integer");
  bad("max_split_size_mb:-5", "not a non-negative integer");
  bad("max_split_size_mb:10", "max_split_size_mb must be >= 20");
  bad("max_split_size_mb:99999999999999999999999", "out of range");
  bad("max_non_split_rounding_mb:1", ">= 20");
  bad("max_split_size_mb", "expected");
  bad("max_split_size_mb:128,", "expected");
  bad("max_split_size_mb=128", "expected ':'");
  bad("garbage_collection_threshold:1.5", "must be in (0, 1)");
  bad("garbage_collection_threshold:0", "must be in (0, 1)");
  bad("garbage_collection_threshold:half", "'half' is not a number");
  bad("roundup_power2_divisions:3", "power of two");
  bad("roundup_power2_divisions:[256:3]", "power of two");
  bad("roundup_power2_divisions:[300:2]", "powers of two");
  bad("roundup_power2_divisions:[512:1,256:2]", "must increase");
  bad("roundup_power2_divisions:[256:1", "expected");
  bad("expandable_segments:maybe", "expected True or False");
  bad("backend:cudaMallocAsync", "only the native backend");
  bad("per_process_memory_fraction:1.5", "must be in [0, 1]");
  bad("release_lock_on_cudamalloc:yes", "expected True or False");
  bad("pinned_num_register_threads:3", "power of two up to 128");
  bad("pinned_num_register_threads:256", "power of two up to 128");
  bad("pinned_reserve_segment_size_mb:0", "must be positive");

  setenv("TEST_ALLOC_CONF_FROM_ENV", "max_split_size_mb:64", 1);
  CHECK_EQ(AllocatorConfig::from_env("TEST_ALLOC_CONF_FROM_ENV").max_split_size, mib(64));
  setenv("TEST_ALLOC_CONF_FROM_ENV", "max_split_size_mb:1", 1);
  CHECK_THROWS(AllocatorConfig::from_env("TEST_ALLOC_CONF_FROM_ENV"), RuntimeError,
               "TEST_ALLOC_CONF_FROM_ENV");
  // PYTORCH_ALLOC_CONF, stock's current name, wins over the backend's older one.
  setenv("PYTORCH_ALLOC_CONF", "max_split_size_mb:32", 1);
  CHECK_EQ(AllocatorConfig::from_env("TEST_ALLOC_CONF_FROM_ENV").max_split_size, mib(32));
  setenv("PYTORCH_ALLOC_CONF", "max_split_size_mb:1", 1);
  CHECK_THROWS(AllocatorConfig::from_env("TEST_ALLOC_CONF_FROM_ENV"), RuntimeError,
               "PYTORCH_ALLOC_CONF");
  unsetenv("PYTORCH_ALLOC_CONF");
  unsetenv("TEST_ALLOC_CONF_FROM_ENV");
  CHECK_EQ(AllocatorConfig::from_env("TEST_ALLOC_CONF_FROM_ENV").garbage_collection_threshold,
           0.0);
}

}  // namespace

int main() {
  cc_check::run("config_parsing", test_config_parsing);
  return cc_check::summary();
}
