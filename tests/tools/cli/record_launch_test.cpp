// record's launcher (tools/cli/record_launch.h): how much it warms, the argv perf runs, and a
// command it cannot exec, and finding this binary (cli_util.h).

#include "tools/cli/record_launch.h"

#include <gtest/gtest.h>

#include "tools/cli/cli_util.h"
#include "tools/cli/record_perf.h"

namespace mmreplay::tools {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(RecordLaunch, WarmsWhatWasAskedUpToAQuarterOfTheFreeMemory) {
  EXPECT_EQ(warm_bytes(256, 8192 * kMiB), 256 * kMiB);
  EXPECT_EQ(warm_bytes(256, 512 * kMiB), 128 * kMiB);
  EXPECT_EQ(warm_bytes(0, 8192 * kMiB), 0u);
  EXPECT_EQ(warm_bytes(256, 0), 0u);
}

TEST(RecordLaunch, PerfRunsThisBinaryWithTheWarmUpBeforeTheCommand) {
  const std::vector<std::string> argv =
      launcher_argv("/usr/bin/trace-replay", 64, {"/bin/xz", "-T2", "in"});
  const std::vector<std::string> want = {
      "/usr/bin/trace-replay", kLaunchCommand, "--warm-mib", "64", "--", "/bin/xz", "-T2", "in"};
  EXPECT_EQ(argv, want);
}

TEST(RecordLaunch, WarmsAndFreesMemory) {
  EXPECT_TRUE(warm_free_memory(0));
  EXPECT_TRUE(warm_free_memory(4 * kMiB));
}

TEST(RecordLaunch, ACommandThatCannotBeExecutedGivesTheShellsExitStatus) {
  EXPECT_EQ(launch(1, {"/nonexistent/mmreplay-no-such-command"}), kExitCannotRun);
  EXPECT_EQ(launch(1, {}), kExitCannotRun);
}

TEST(RecordLaunch, FindsItsOwnBinary) {
  EXPECT_FALSE(self_executable().empty());
}

}  // namespace
}  // namespace mmreplay::tools
