// record's tracepoint hold (tools/cli/tracepoint_hold.h): which tracepoints of perf's -e list it
// holds, and that a helper really holds them where this process may open tracepoint events.

#include "tools/cli/tracepoint_hold.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/cli/record_perf.h"

namespace mmreplay::tools {
namespace {

namespace fs = std::filesystem;

// A tracefs events folder with `group/name/id` files.
class FakeEvents {
 public:
  FakeEvents() : dir_(fs::temp_directory_path() / ("tp_hold_test." + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
  }
  ~FakeEvents() { fs::remove_all(dir_); }
  void add(const std::string& group, const std::string& name, const std::string& id_text) {
    fs::create_directories(dir_ / group / name);
    std::ofstream(dir_ / group / name / "id") << id_text;
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

TEST(TracepointHold, HoldsTheNamedTracepointsWithIdsButNotUprobes) {
  FakeEvents events;
  events.add("syscalls", "sys_enter_madvise", "123\n");
  events.add("syscalls", "sys_exit_madvise", "124\n");
  events.add("probe_libc", "mmreplay_open_1", "900\n");  // perf probe -d must be free to go
  events.add("filemap", "mm_filemap_delete_from_page_cache", "not-a-number\n");
  fs::create_directories(events.path() + "/exceptions/page_fault_user");  // no id file
  const std::vector<uint64_t> ids = tracepoint_ids(
      "syscalls:sys_enter_madvise,syscalls:sys_exit_madvise,probe_libc:mmreplay_open_1,"
      "filemap:mm_filemap_delete_from_page_cache,exceptions:page_fault_user,probe_*:x,"
      "no_colon,mmap_lock:missing",
      events.path());
  EXPECT_EQ(ids, (std::vector<uint64_t>{123, 124}));
}

TEST(TracepointHold, AWildcardHoldsEveryTracepointOfItsGroupItMatchesOnce) {
  FakeEvents events;
  events.add("syscalls", "sys_enter_madvise", "123\n");
  events.add("syscalls", "sys_exit_madvise", "124\n");
  events.add("syscalls", "sys_enter_mmap", "125\n");
  events.add("exceptions", "page_fault_user", "200\n");
  EXPECT_EQ(tracepoint_ids("syscalls:*,syscalls:sys_enter_madvise", events.path()),
            (std::vector<uint64_t>{123, 124, 125}));
  EXPECT_EQ(tracepoint_ids("syscalls:sys_enter_*", events.path()),
            (std::vector<uint64_t>{123, 125}));
  EXPECT_EQ(tracepoint_ids("nosuchgroup:*", events.path()), std::vector<uint64_t>{});
}

TEST(TracepointHold, NothingToHoldStartsNoHelper) {
  const TracepointHold hold("probe_libc:mmreplay_open_1,nosuchgroup:*");
  EXPECT_EQ(hold.held(), 0U);
}

TEST(TracepointHold, TheHelperHoldsEveryTracepointItWasGiven) {
  const std::string list = "syscalls:sys_enter_madvise,syscalls:sys_exit_madvise";
  bool have_ids = false;
  for (const char* dir : kTracefsEvents)
    have_ids = have_ids || tracepoint_ids(list, dir).size() == 2;
  if (!have_ids) GTEST_SKIP() << "no tracefs with the syscall tracepoints here";
  if (::geteuid() != 0) GTEST_SKIP() << "tracepoint events need root (or perf_event_paranoid -1)";
  const TracepointHold hold(list);
  EXPECT_EQ(hold.held(), 2U);
}

}  // namespace
}  // namespace mmreplay::tools
