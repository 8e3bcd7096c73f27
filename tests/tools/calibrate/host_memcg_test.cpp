// The memory limit record stores (tools/calibrate/host_memcg.h): /proc/PID/cgroup's lines, the
// limit files' texts, and the lowest limit on a group's path, on a made-up sysfs tree.

#include "tools/calibrate/host_memcg.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace mmreplay::tools {
namespace {

namespace fs = std::filesystem;

TEST(HostMemcg, ProcCgroupNamesTheV1MemoryGroupAndTheV2One) {
  // A hybrid machine: v1 controllers, v2's unified line; memory shares a line with nothing here.
  const CgroupOfProcess hybrid = parse_proc_cgroup(
      "12:pids:/user.slice\n"
      "11:cpu,cpuacct:/user.slice\n"
      "4:memory:/user.slice/user-0.slice/session-3.scope\n"
      "1:name=systemd:/user.slice/user-0.slice/session-3.scope\n"
      "0::/user.slice/user-0.slice/session-3.scope\n");
  EXPECT_EQ(hybrid.v1_memory, "/user.slice/user-0.slice/session-3.scope");
  EXPECT_EQ(hybrid.v2, "/user.slice/user-0.slice/session-3.scope");
  const CgroupOfProcess v2_only = parse_proc_cgroup("0::/system.slice/docker-ab12.scope\n");
  EXPECT_EQ(v2_only.v1_memory, "");
  EXPECT_EQ(v2_only.v2, "/system.slice/docker-ab12.scope");
  // memory among other controllers of one v1 hierarchy; a line with no path parses as empty.
  EXPECT_EQ(parse_proc_cgroup("7:blkio,memory:/box\n").v1_memory, "/box");
  EXPECT_EQ(parse_proc_cgroup("garbage\n7:memoryx:/not-memory\n").v1_memory, "");
}

TEST(HostMemcg, LimitTextIsBytesOrNoLimit) {
  EXPECT_EQ(parse_memcg_limit("268435456\n"), uint64_t{256} << 20);
  EXPECT_EQ(parse_memcg_limit("max\n"), 0u);
  EXPECT_EQ(parse_memcg_limit("9223372036854771712\n"), 0u) << "v1's PAGE_COUNTER_MAX";
  EXPECT_EQ(parse_memcg_limit(""), 0u);
  EXPECT_EQ(parse_memcg_limit("12abc"), 0u);
}

// A sysfs tree under a temporary folder, with /proc/PID/cgroup's text beside it.
class HostMemcgTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() /
        ("host_memcg_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  uint64_t limit() { return host_memcg_limit((root_ / "proc_cgroup").string(), root_.string()); }
  fs::path root_;
};

TEST_F(HostMemcgTree, V1TakesTheLowestLimitOnThePath) {
  write("proc_cgroup", "4:memory:/outer/inner\n0::/outer/inner\n");
  write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  write("memory/outer/memory.limit_in_bytes", "134217728\n");
  write("memory/outer/inner/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(limit(), uint64_t{128} << 20) << "the parent's limit binds the child";
  write("memory/outer/inner/memory.limit_in_bytes", "67108864\n");
  EXPECT_EQ(limit(), uint64_t{64} << 20);
}

TEST_F(HostMemcgTree, V2ReadsMemoryMaxAndTheRootHasNone) {
  write("proc_cgroup", "0::/system.slice/box.scope\n");
  write("system.slice/memory.max", "max\n");
  write("system.slice/box.scope/memory.max", "536870912\n");
  EXPECT_EQ(limit(), uint64_t{512} << 20);
  write("proc_cgroup", "0::/\n");
  EXPECT_EQ(limit(), 0u) << "the root group";
}

// record --cgroup DIR: the folder's limit and those above it, up to the hierarchy's top (the
// first folder without a limit file).
TEST_F(HostMemcgTree, ACgroupFolderTakesTheLowestLimitAboveIt) {
  write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  write("memory/box/memory.limit_in_bytes", "268435456\n");
  write("memory/box/job/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(cgroup_dir_memcg_limit((root_ / "memory/box/job").string()), uint64_t{256} << 20);
  write("v2/memory.max", "max\n");  // v2's top has none; a nested group of one does
  write("v2/slice/memory.max", "1073741824\n");
  EXPECT_EQ(cgroup_dir_memcg_limit((root_ / "v2/slice").string()), uint64_t{1} << 30);
  EXPECT_EQ(cgroup_dir_memcg_limit((root_ / "nothing").string()), 0u);
}

TEST_F(HostMemcgTree, NoCgroupFileOrNoLimitFileIsNoLimit) {
  EXPECT_EQ(limit(), 0u);
  write("proc_cgroup", "4:memory:/gone\n");
  EXPECT_EQ(limit(), 0u);
}

}  // namespace
}  // namespace mmreplay::tools
