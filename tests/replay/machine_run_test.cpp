// --machine in a run: a preset gives the CPUs, memory and topology; --cpus and --memory still
// override it; a name that is no preset is a bad argument naming the flag and the presets.
// --swap-device: zram by default with the zram profile, recorded in the results.

#include <gtest/gtest.h>

#include "replay/results_json.h"
#include "replay/run.h"
#include "tests/replay/generated_trace.h"

namespace mmreplay::replay {
namespace {

std::unique_ptr<formats::TraceReader> small_trace() {
  const std::vector<std::string> params = {"--processes", "4", "--loops", "1", "--scale", "1/256"};
  return testing::open_trace(
      testing::generate_file("page-fault-scale", params, "machine-run.mmtrace"));
}

TEST(MachineRun, UnknownMachineIsABadArgumentListingThePresets) {
  auto reader = small_trace();
  ChunkCache cache(16);
  RunSpec spec;
  spec.machine = "pdp-11";
  RunResult r;
  const Status s = execute_run(spec, *reader, cache, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("--machine pdp-11: no such machine (", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("westmere-ex-8s"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(MachineRun, PresetGivesCpusAndMemoryAndFlagsOverrideThem) {
  auto reader = small_trace();
  ChunkCache cache(16);
  RunSpec spec;
  spec.machine = "xeon-2s-48";
  RunResult preset;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &preset));
  EXPECT_EQ(preset.cpus, 48u);
  EXPECT_EQ(preset.memory_bytes, uint64_t{32} << 30);
  spec.cpus = 8;
  spec.memory_bytes = uint64_t{2} << 30;
  RunResult overridden;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &overridden));
  EXPECT_EQ(overridden.cpus, 8u);
  EXPECT_EQ(overridden.memory_bytes, uint64_t{2} << 30);
  EXPECT_EQ(run_to_json(0, overridden)["machine"]["preset"], "xeon-2s-48");
}

TEST(MachineRun, SwapDeviceIsZramWithTheZramProfileUnlessGiven) {
  auto reader = small_trace();
  ChunkCache cache(16);
  RunSpec spec;
  RunResult block;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &block));
  EXPECT_EQ(block.swap_device, kernelsim::SwapDevice::kBlock);
  EXPECT_FALSE(run_to_json(0, block)["machine"].contains("swap_device"))
      << "results of a block device read as they always did";
  spec.profile = "zram";
  RunResult zram;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &zram));
  EXPECT_EQ(zram.swap_device, kernelsim::SwapDevice::kSynchronous);
  EXPECT_EQ(run_to_json(0, zram)["machine"]["swap_device"], "zram");
  spec.swap_device = "block";
  RunResult given;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &given));
  EXPECT_EQ(given.swap_device, kernelsim::SwapDevice::kBlock);
}

// A built-in profile's swap costs are its own disk's; on zram a run takes zram's, so the default
// profile on zram replays as the zram profile does, and not as the default profile on its disk.
TEST(MachineRun, OnZramABuiltInProfileTakesZramsSwapCosts) {
  auto reader = testing::open_trace(testing::generate_file(
      "madv-bomb", {"--processes", "4", "--size", "4M", "--loops", "2"}, "zram-costs.mmtrace"));
  ChunkCache cache(16);
  auto run = [&](const std::string& device, const std::string& profile) {
    RunSpec spec;
    spec.memory_bytes = 12 << 20;
    spec.swap_bytes = 64 << 20;
    spec.swap_device = device;
    spec.profile = profile;
    RunResult r;
    EXPECT_TRUE(execute_run(spec, *reader, cache, &r));
    return r;
  };
  const RunResult zram_default = run("zram", "default");
  const RunResult zram_zram = run("zram", "zram");
  const RunResult disk_default = run("block", "default");
  ASSERT_GT(zram_default.counters.at("swapouts"), 0u) << "the run swaps";
  EXPECT_EQ(zram_default.makespan_ns, zram_zram.makespan_ns);
  EXPECT_EQ(zram_default.counters, zram_zram.counters);
  EXPECT_NE(zram_default.makespan_ns, disk_default.makespan_ns);
}

TEST(MachineRun, UnknownSwapDeviceIsABadArgument) {
  auto reader = small_trace();
  ChunkCache cache(16);
  RunSpec spec;
  spec.swap_device = "floppy";
  RunResult r;
  const Status s = execute_run(spec, *reader, cache, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--swap-device floppy: expected block or zram");
}

}  // namespace
}  // namespace mmreplay::replay
