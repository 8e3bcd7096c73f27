// msync(2) imported (mm/msync.c): MS_SYNC is an fsync of the file of the shared mapping it names,
// followed through mmap, munmap and mremap (formats/import/shared_file_maps.h); MS_ASYNC, private
// mappings and memory no file backs make no event, and the report counts each by name.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/import/import.h"
#include "formats/import/shared_file_maps.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {
namespace msync_import {

using testing::import_snippet;

// The paths of the files the trace's fsync events sync, in order.
std::vector<std::string> synced_paths(const ImportedTrace& t) {
  std::vector<std::string> out;
  for (const Event& e : t.streams.at(0)) {
    if (e.kind == EventKind::kFsync) out.push_back(t.meta.files.at(e.arg0 - 1).path);
  }
  return out;
}

TEST(SharedFileMaps, SplitsMovesAndForgets) {
  SharedFileMaps m;
  m.map(0x1000, 0x5000, 7);
  m.unmap(0x2000, 0x3000);  // a hole: two pieces of file 7 left
  EXPECT_EQ(m.files_in(0x2000, 0x3000), std::vector<uint64_t>{});
  EXPECT_EQ(m.files_in(0x1000, 0x2000), std::vector<uint64_t>{7});
  EXPECT_EQ(m.files_in(0x4000, 0x5000), std::vector<uint64_t>{7});
  m.map(0x4000, 0x6000, 8);  // over the second piece's end
  EXPECT_EQ(m.files_in(0x0, 0x10000), (std::vector<uint64_t>{7, 8}));
  m.move(0x1000, 0x2000, 0x9000, 0x2000, /*keep_old=*/false);
  EXPECT_EQ(m.files_in(0x1000, 0x2000), std::vector<uint64_t>{});
  EXPECT_EQ(m.files_in(0xa000, 0xa001), std::vector<uint64_t>{7}) << "grown as it moved";
  m.move(0x7000, 0x8000, 0x9000, 0x1000, /*keep_old=*/false);  // anonymous memory moved over
  EXPECT_EQ(m.files_in(0x9000, 0xa000), std::vector<uint64_t>{});
  EXPECT_EQ(m.files_in(0xa000, 0xb000), std::vector<uint64_t>{7});
}

TEST(MsyncImport, StraceMsSyncIsAnFsyncOfTheSharedMappingsFile) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace,
      "7 1.000000 openat(AT_FDCWD, \"/db\", O_RDWR) = 3 <0.000001>\n"
      "7 1.000001 openat(AT_FDCWD, \"/lib\", O_RDONLY) = 4 <0.000001>\n"
      "7 1.000002 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000 "
      "<0.000002>\n"
      "7 1.000003 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE, 4, 0) = 0x7f0000100000 "
      "<0.000002>\n"
      "7 1.000010 msync(0x7f0000000000, 8192, MS_SYNC) = 0 <0.000300>\n"
      "7 1.000400 msync(0x7f0000001000, 4096, MS_ASYNC) = 0 <0.000001>\n"
      "7 1.000410 msync(0x7f0000100000, 4096, MS_SYNC) = 0 <0.000001>\n"
      "7 1.000420 mremap(0x7f0000000000, 8192, 16384, MREMAP_MAYMOVE) = 0x7f0000200000 "
      "<0.000005>\n"
      "7 1.000430 msync(0x7f0000000000, 8192, MS_SYNC) = 0 <0.000001>\n"
      "7 1.000440 msync(0x7f0000203000, 4096, MS_SYNC|MS_INVALIDATE) = 0 <0.000200>\n"
      "7 1.000700 munmap(0x7f0000200000, 16384) = 0 <0.000010>\n"
      "7 1.000800 msync(0x7f0000200000, 4096, MS_SYNC) = 0 <0.000001>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(synced_paths(t), (std::vector<std::string>{"/db", "/db"}))
      << "the shared mapping, then where mremap moved it";
  EXPECT_EQ(r.ignored_by_name["msync"], 4u) << "MS_ASYNC's (no event, counted), a private "
                                               "mapping's, the old range's after the move, and "
                                               "the one after the munmap";
  for (const Event& e : t.streams[0]) {
    if (e.kind == EventKind::kFsync) {
      EXPECT_EQ(e.addr, 0u) << "an fsync names its file only";
    }
  }
}

TEST(MsyncImport, PerfScriptMsSyncOfASharedMapping) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "db 1/1 [000] 1.000000: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x1, "
      "flags: 0x2, mode: 0x0\n"
      "db 1/1 [000] 1.000001: syscalls:sys_exit_openat: 0x3\n"
      "db 1/1 [000] 1.000002: syscalls:sys_enter_mmap: addr: 0x0, len: 0x2000, prot: 0x3, "
      "flags: 0x1, fd: 0x3, off: 0x0\n"
      "db 1/1 [000] 1.000003: syscalls:sys_exit_mmap: 0x7f0000000000\n"
      "db 1/1 [000] 1.000010: syscalls:sys_enter_msync: start: 0x7f0000000000, len: 0x2000, "
      "flags: 0x4\n"
      "db 1/1 [000] 1.000300: syscalls:sys_exit_msync: 0x0\n"
      "db 1/1 [000] 1.000400: syscalls:sys_enter_msync: start: 0x7f0000000000, len: 0x2000, "
      "flags: 0x1\n"
      "db 1/1 [000] 1.000401: syscalls:sys_exit_msync: 0x0\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  std::vector<uint64_t> fsync_files;
  for (const Event& e : t.streams.at(0)) {
    if (e.kind == EventKind::kFsync) fsync_files.push_back(e.arg0);
  }
  ASSERT_EQ(fsync_files.size(), 1u) << "MS_SYNC only";
  EXPECT_NE(fsync_files[0], 0u);
  EXPECT_EQ(r.ignored_by_name["msync"], 1u) << "MS_ASYNC: no event, counted";
}

}  // namespace msync_import
}  // namespace
}  // namespace mmreplay::formats
