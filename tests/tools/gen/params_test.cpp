// Parameter parsing: sizes, durations, scales, flags; unknown names and bad values rejected by
// name; effective values (defaults included) recorded in order.

#include "tools/gen/params.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/gen/generate.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

TEST(GenParams, SizesTakeBinarySuffixes) {
  uint64_t bytes = 0;
  ASSERT_TRUE(parse_bytes("4096", &bytes));
  EXPECT_EQ(bytes, 4096u);
  ASSERT_TRUE(parse_bytes("4K", &bytes));
  EXPECT_EQ(bytes, 4096u);
  ASSERT_TRUE(parse_bytes("512M", &bytes));
  EXPECT_EQ(bytes, 512ull << 20);
  ASSERT_TRUE(parse_bytes("66GiB", &bytes));
  EXPECT_EQ(bytes, 66ull << 30);
  ASSERT_TRUE(parse_bytes("1mb", &bytes));
  EXPECT_EQ(bytes, 1ull << 20);
  EXPECT_FALSE(parse_bytes("12Q", &bytes));
  EXPECT_FALSE(parse_bytes("M", &bytes));
  EXPECT_FALSE(parse_bytes("99999999999T", &bytes));  // overflows 64 bits
}

TEST(GenParams, DurationsScalesAndFlags) {
  uint64_t ns = 0;
  ASSERT_TRUE(parse_nanos("3us", &ns));
  EXPECT_EQ(ns, 3000u);
  ASSERT_TRUE(parse_nanos("2ms", &ns));
  EXPECT_EQ(ns, 2000000u);
  EXPECT_FALSE(parse_nanos("2h", &ns));
  double scale = 0;
  ASSERT_TRUE(parse_scale("small", &scale));
  EXPECT_EQ(scale, 1.0 / 256);
  ASSERT_TRUE(parse_scale("1/64", &scale));
  EXPECT_EQ(scale, 1.0 / 64);
  ASSERT_TRUE(parse_scale("0.5", &scale));
  EXPECT_EQ(scale, 0.5);
  EXPECT_FALSE(parse_scale("0", &scale));
  EXPECT_FALSE(parse_scale("-1", &scale));
  EXPECT_FALSE(parse_scale("1/0", &scale));
  bool flag = false;
  ASSERT_TRUE(parse_flag("on", &flag));
  EXPECT_TRUE(flag);
  ASSERT_TRUE(parse_flag("false", &flag));
  EXPECT_FALSE(flag);
}

std::vector<ParamSpec> sample_specs() {
  return {shared_params::threads(4), shared_params::size("512M", "region"), shared_params::scale(),
          shared_params::vector("vector"), shared_params::vlen(8, "per call")};
}

TEST(GenParams, DefaultsAndOverridesAreEffective) {
  std::vector<ParamSpec> specs = sample_specs();
  std::vector<std::string> args = {"--threads", "7", "--size=1M", "--vector", "--vlen", "3"};
  ParamValues values;
  Status status = parse_params(specs, args, &values);
  ASSERT_TRUE(status.is_ok()) << status.message();
  EXPECT_EQ(values.count("threads"), 7u);
  EXPECT_EQ(values.bytes("size"), 1u << 20);
  EXPECT_TRUE(values.flag("vector"));
  EXPECT_EQ(values.count("vlen"), 3u);
  std::vector<std::pair<std::string, std::string>> expected = {
      {"threads", "7"}, {"size", "1M"}, {"scale", "full"}, {"vector", "on"}, {"vlen", "3"}};
  EXPECT_EQ(values.effective(), expected);
}

TEST(GenParams, ScaleShrinksSizesToWholePages) {
  std::vector<ParamSpec> specs = sample_specs();
  std::vector<std::string> args = {"--scale", "small"};
  ParamValues values;
  ASSERT_TRUE(parse_params(specs, args, &values).is_ok());
  EXPECT_EQ(values.scaled_bytes("size"), 2u << 20);  // 512M / 256
  EXPECT_EQ(values.scaled(100), kPageSize);          // never below one page
}

TEST(GenParams, UnknownAndBadValuesAreNamed) {
  std::vector<ParamSpec> specs = sample_specs();
  ParamValues values;
  std::vector<std::string> unknown = {"--thread", "3"};
  Status status = parse_params(specs, unknown, &values);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("--thread"), std::string::npos) << status.message();

  std::vector<std::string> zero = {"--threads", "0"};
  status = parse_params(specs, zero, &values);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("--threads"), std::string::npos) << status.message();

  std::vector<std::string> missing = {"--size"};
  status = parse_params(specs, missing, &values);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("missing value"), std::string::npos) << status.message();

  std::vector<std::string> too_many = {"--vlen", "5000"};  // above UIO_MAXIOV
  EXPECT_FALSE(parse_params(specs, too_many, &values).is_ok());

  std::vector<std::string> stray = {"7"};
  EXPECT_FALSE(parse_params(specs, stray, &values).is_ok());
}

// Issue 15's loose inputs: a scale of 1e300, an empty size range, a chunk that is no power of two.
TEST(GenParams, BoundsAndRangesAreEnforcedWithTheBoundInTheMessage) {
  PreparedWorkload prepared;
  auto error_of = [&](std::vector<std::string> args) {
    const Status s = prepare_workload("jemalloc-purge", args, "", &prepared);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    return s.message();
  };
  EXPECT_NE(error_of({"--scale", "1e300"}).find("--scale: 1e300 is outside (0, 1e6]"),
            std::string::npos);
  EXPECT_NE(error_of({"--min-size", "64K", "--max-size", "4K"})
                .find("--min-size 64K is above --max-size 4K"),
            std::string::npos);
  EXPECT_NE(error_of({"--chunk", "3M"}).find("--chunk: 3M is not a power of two"),
            std::string::npos);
  EXPECT_TRUE(prepare_workload("jemalloc-purge",
                               std::vector<std::string>{"--chunk", "4M", "--scale", "1e6"}, "",
                               &prepared));
  EXPECT_TRUE(prepare_workload("jemalloc-purge",
                               std::vector<std::string>{"--min-size", "8K", "--max-size", "8K"}, "",
                               &prepared));
}

TEST(GenParams, EveryWorkloadRejectsAnUnknownParameterByName) {
  for (const WorkloadSpec& spec : all_workloads()) {
    PreparedWorkload prepared;
    std::vector<std::string> args = {"--no-such-knob", "1"};
    Status status = prepare_workload(spec.name, args, "", &prepared);
    ASSERT_FALSE(status.is_ok()) << spec.name;
    EXPECT_NE(status.message().find("--no-such-knob"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(spec.name), std::string::npos) << status.message();
  }
}

TEST(GenParams, EveryWorkloadHeaderRecordsAllParametersAndTheCommand) {
  for (const WorkloadSpec& spec : all_workloads()) {
    PreparedWorkload prepared;
    Status status = prepare_workload(spec.name, {}, "out.mmtrace", &prepared);
    ASSERT_TRUE(status.is_ok()) << spec.name << ": " << status.message();
    EXPECT_EQ(prepared.meta.generator, spec.name);
    ASSERT_EQ(prepared.meta.params.size(), spec.params.size()) << spec.name;
    std::string expected_command = "trace-replay gen " + spec.name;
    for (const ParamSpec& param : spec.params) {
      expected_command += " --" + param.name + " " + param.default_text;
    }
    expected_command += " -o out.mmtrace";
    EXPECT_EQ(prepared.meta.recorder.command_line, expected_command);
    EXPECT_GT(prepared.meta.recorder.cpus, 0u) << spec.name;
    EXPECT_GT(prepared.meta.recorder.memory_bytes, 0u) << spec.name;
    EXPECT_FALSE(spec.description.empty());
  }
}

TEST(GenParams, ListShowsEveryWorkloadWithDefaultsAndUnits) {
  std::string list = describe_workloads();
  for (const char* name :
       {"madv-bomb", "jemalloc-purge", "bulk-free", "page-fault-scale", "parallel-dd", "cma-bh",
        "page_fault1", "page_fault2", "page_fault3", "tlb_flush1", "tlb_flush2", "tlb_flush3",
        "ebizzy", "madvise-vector", "mmap-munmap"}) {
    EXPECT_NE(list.find(std::string(name) + "\n"), std::string::npos) << name;
  }
  EXPECT_NE(list.find("512M bytes"), std::string::npos) << list.substr(0, 600);
}

}  // namespace
}  // namespace mmreplay::gen
