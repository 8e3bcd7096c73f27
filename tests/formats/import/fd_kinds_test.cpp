// Descriptors by kind (issue 19 item 5): the importers follow each process's descriptor table
// (formats/import/fd_table.h) and give every file its kind, whether the recording created it,
// and the offsets that dup and fork share.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "formats/import/fd_table.h"
#include "formats/import/import.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::stream_of;

// The read/write events of `tid`, in order.
std::vector<Event> file_events(const ImportedTrace& t, uint64_t tid) {
  std::vector<Event> out;
  const int s = stream_of(t, tid);
  EXPECT_GE(s, 0);
  if (s < 0) return out;
  for (const Event& e : t.streams[static_cast<size_t>(s)]) {
    if (e.kind == EventKind::kFileRead || e.kind == EventKind::kFileWrite) out.push_back(e);
  }
  return out;
}

const FileInfo& file_of(const ImportedTrace& t, const Event& e) {
  return t.meta.files.at(e.arg0 - 1);
}

ImportedTrace import(ImportFormat format, std::string_view text, ImportReport* report) {
  ImportedTrace t;
  const Status s = import_text(format, "in.txt", text, &t, report);
  EXPECT_TRUE(s) << s.message();
  return t;
}

TEST(FdKinds, StraceNamesKindsFromPathsAndYAnnotations) {
  ImportReport r;
  const ImportedTrace t = import(
      ImportFormat::kStrace,
      "7 1.000000 openat(AT_FDCWD</w>, \"/data/in\", O_RDONLY) = 3</data/in> <0.000001>\n"
      "7 1.000010 openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = 4 <0.000001>\n"
      "7 1.000020 read(3</data/in>, \"ab\"..., 4096) = 4096 <0.000001>\n"
      "7 1.000030 write(4</dev/null>, \"ab\"..., 4096) = 4096 <0.000001>\n"
      "7 1.000040 write(1</dev/pts/3>, \"hi\\n\", 3) = 3 <0.000001>\n"
      "7 1.000050 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 5 <0.000001>\n"
      "7 1.000060 accept4(5<TCP:[0.0.0.0:6379]>, NULL, NULL, SOCK_CLOEXEC) = "
      "6<TCP:[127.0.0.1:6379->127.0.0.1:5000]> <0.000001>\n"
      "7 1.000070 read(6<TCP:[127.0.0.1:6379->127.0.0.1:5000]>, \"x\", 100) = 1 <0.000001>\n"
      "7 1.000080 eventfd2(0, EFD_CLOEXEC) = 7<anon_inode:[eventfd]> <0.000001>\n"
      "7 1.000090 write(7, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8 <0.000001>\n"
      "7 1.000100 memfd_create(\"buf\", MFD_CLOEXEC) = 8 <0.000001>\n"
      "7 1.000110 write(8, \"abc\", 3) = 3 <0.000001>\n"
      "7 1.000120 openat(AT_FDCWD, \"/tmp/out\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 9 <0.000001>\n"
      "7 1.000130 write(9, \"abc\", 3) = 3 <0.000001>\n"
      "7 1.000140 openat(AT_FDCWD, \"/dev/sda1\", O_RDONLY) = 10 <0.000001>\n"
      "7 1.000150 read(10, \"\", 512) = 512 <0.000001>\n"
      "7 1.000160 pipe2([11<pipe:[99]>, 12<pipe:[99]>], O_CLOEXEC) = 0 <0.000001>\n"
      "7 1.000170 write(12, \"abc\", 3) = 3 <0.000001>\n"
      "7 1.000180 read(11, \"abc\", 3) = 3 <0.000001>\n",
      &r);
  const std::vector<Event> io = file_events(t, 7);
  ASSERT_EQ(io.size(), 10u);
  const std::vector<std::pair<FileKind, bool>> want = {
      {FileKind::kRegular, false}, {FileKind::kCharDevice, false},  {FileKind::kTty, false},
      {FileKind::kSocket, true},   {FileKind::kAnon, true},         {FileKind::kAnon, true},
      {FileKind::kRegular, true},  {FileKind::kBlockDevice, false}, {FileKind::kPipe, true},
      {FileKind::kPipe, true}};
  for (size_t i = 0; i < want.size(); ++i) {
    const FileInfo& f = file_of(t, io[i]);
    EXPECT_EQ(f.kind, want[i].first) << i << " " << f.path;
    EXPECT_EQ(f.created, want[i].second) << i << " " << f.path;
  }
  EXPECT_EQ(file_of(t, io[0]).path, "/data/in");
  EXPECT_EQ(file_of(t, io[2]).path, "/dev/pts/3");  // fd 1, inherited, named by -y
  EXPECT_EQ(io[8].arg0, io[9].arg0) << "both ends of one pipe are one file";
  EXPECT_EQ(r.fd_calls, 9u);
  EXPECT_EQ(r.files_per_kind[static_cast<size_t>(FileKind::kPipe)], 1u);
}

TEST(FdKinds, PerfKnowsKindsFromTheCreatingCallAndCreatedFromTheFlags) {
  ImportReport r;
  const ImportedTrace t = import(
      ImportFormat::kPerfScript,
      "p 5/5 [0] 1.000000000: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffd1000, "
      "flags: 0x00000241, mode: 0x000001a4\n"
      "p 5/5 [0] 1.000001000: syscalls:sys_exit_openat: 0x3\n"
      "p 5/5 [0] 1.000002000: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffd1000, "
      "flags: 0x00000000, mode: 0x00000000\n"
      "p 5/5 [0] 1.000003000: syscalls:sys_exit_openat: 0x4\n"
      "p 5/5 [0] 1.000004000: syscalls:sys_enter_socket: family: 0x2, type: 0x1, protocol: 0x0\n"
      "p 5/5 [0] 1.000005000: syscalls:sys_exit_socket: 0x5\n"
      "p 5/5 [0] 1.000006000: syscalls:sys_enter_eventfd2: count: 0x0, flags: 0x80000\n"
      "p 5/5 [0] 1.000007000: syscalls:sys_exit_eventfd2: 0x6\n"
      "p 5/5 [0] 1.000008000: syscalls:sys_enter_pipe2: fildes: 0x7ffd2000, flags: 0x0\n"
      "p 5/5 [0] 1.000009000: syscalls:sys_exit_pipe2: 0x0\n"
      "p 5/5 [0] 1.000010000: syscalls:sys_enter_write: fd: 0x3, buf: 0x1000, count: 0x10\n"
      "p 5/5 [0] 1.000011000: syscalls:sys_exit_write: 0x10\n"
      "p 5/5 [0] 1.000012000: syscalls:sys_enter_read: fd: 0x4, buf: 0x1000, count: 0x10\n"
      "p 5/5 [0] 1.000013000: syscalls:sys_exit_read: 0x10\n"
      "p 5/5 [0] 1.000014000: syscalls:sys_enter_read: fd: 0x5, buf: 0x1000, count: 0x10\n"
      "p 5/5 [0] 1.000015000: syscalls:sys_exit_read: 0x10\n"
      "p 5/5 [0] 1.000016000: syscalls:sys_enter_read: fd: 0x6, buf: 0x1000, count: 0x8\n"
      "p 5/5 [0] 1.000017000: syscalls:sys_exit_read: 0x8\n",
      &r);
  const std::vector<Event> io = file_events(t, 5);
  ASSERT_EQ(io.size(), 4u);
  // perf prints the file name as a pointer: opens stay of unknown kind (replayed as regular).
  EXPECT_EQ(file_of(t, io[0]).kind, FileKind::kUnknown);
  EXPECT_TRUE(file_of(t, io[0]).created) << "O_CREAT|O_TRUNC";
  EXPECT_EQ(file_of(t, io[1]).kind, FileKind::kUnknown);
  EXPECT_FALSE(file_of(t, io[1]).created) << "O_RDONLY: it existed";
  EXPECT_EQ(file_of(t, io[2]).kind, FileKind::kSocket);
  EXPECT_EQ(file_of(t, io[3]).kind, FileKind::kAnon);
  // pipe2's fds sit behind a pointer perf does not follow: counted by name, not guessed.
  EXPECT_EQ(r.ignored_by_name.at("pipe2"), 1u);
}

std::string perf_call(uint64_t pid, uint64_t tid, double ts, std::string_view name,
                      std::string_view args, std::string_view ret) {
  return fmt::format(
      "p {}/{} [0] {:.9f}: syscalls:sys_enter_{}: {}\np {}/{} [0] {:.9f}: syscalls:sys_exit_{}: "
      "{}\n",
      pid, tid, ts, name, args, pid, tid, ts + 1e-6, name, ret);
}
std::string perf_read(uint64_t pid, uint64_t tid, double ts, int fd) {
  return perf_call(pid, tid, ts, "read", fmt::format("fd: {:#x}, buf: 0x1000, count: 0x64", fd),
                   "0x64");
}
const std::string kOpen = "dfd: 0xffffff9c, filename: 0x7ffd1000, flags: 0x0, mode: 0x0";

TEST(FdKinds, DupSharesTheFileAndItsOffsetAndCloseEndsTheFd) {
  ImportReport r;
  const std::string text =
      perf_call(5, 5, 1.0, "openat", kOpen, "0x3") + perf_read(5, 5, 1.1, 3) +
      perf_call(5, 5, 1.2, "dup", "fildes: 0x3", "0x4") + perf_read(5, 5, 1.3, 4) +
      perf_call(5, 5, 1.4, "close", "fd: 0x3", "0x0") + perf_read(5, 5, 1.5, 4) +
      perf_call(5, 5, 1.6, "dup2", "oldfd: 0x4, newfd: 0x0", "0x0") + perf_read(5, 5, 1.7, 0) +
      perf_call(5, 5, 1.8, "fcntl", "fd: 0x0, cmd: 0x406, arg: 0x0", "0x7") +
      perf_read(5, 5, 1.9, 7) + perf_call(5, 5, 2.0, "openat", kOpen, "0x3") +
      perf_read(5, 5, 2.1, 3);
  const ImportedTrace t = import(ImportFormat::kPerfScript, text, &r);
  const std::vector<Event> io = file_events(t, 5);
  ASSERT_EQ(io.size(), 6u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(io[i].arg0, io[0].arg0) << "dup, dup2, F_DUPFD_CLOEXEC: one file, read " << i;
    EXPECT_EQ(io[i].arg1, 100 * i) << "one offset, read " << i;
  }
  EXPECT_NE(io[5].arg0, io[0].arg0) << "fd 3 reopened after close: another file";
  EXPECT_EQ(io[5].arg1, 0u);
}

TEST(FdKinds, ForkCopiesTheTableAndCloneFilesSharesIt) {
  ImportReport r;
  const std::string text =
      perf_call(5, 5, 1.0, "openat", kOpen, "0x3") + perf_read(5, 5, 1.1, 3) +
      perf_call(5, 5, 1.2, "clone", "clone_flags: 0x1200011, newsp: 0x0", "0x6") +
      perf_read(6, 6, 1.3, 3) + perf_call(6, 6, 1.4, "close", "fd: 0x3", "0x0") +
      perf_call(6, 6, 1.5, "openat", kOpen, "0x3") + perf_read(6, 6, 1.6, 3) +
      perf_read(5, 5, 1.7, 3) +
      perf_call(5, 5, 1.8, "clone", "clone_flags: 0x3d0f00, newsp: 0x1", "0x7") +
      perf_call(5, 7, 1.9, "close", "fd: 0x3", "0x0") +
      perf_call(5, 7, 2.0, "openat", kOpen, "0x3") + perf_read(5, 5, 2.1, 3);
  const ImportedTrace t = import(ImportFormat::kPerfScript, text, &r);
  const std::vector<Event> parent = file_events(t, 5);
  const std::vector<Event> child = file_events(t, 6);
  ASSERT_EQ(parent.size(), 3u);
  ASSERT_EQ(child.size(), 2u);
  const uint64_t a = parent[0].arg0;
  EXPECT_EQ(child[0].arg0, a) << "the forked child's fd 3 is its parent's open file";
  EXPECT_EQ(child[0].arg1, 100u) << "fork shares the offset";
  EXPECT_NE(child[1].arg0, a) << "the child's reopened fd 3";
  EXPECT_EQ(parent[1].arg0, a) << "the child's close and open left the parent's fd 3 alone";
  EXPECT_EQ(parent[1].arg1, 200u);
  EXPECT_NE(parent[2].arg0, a) << "a CLONE_FILES thread's close and open are the parent's";
  EXPECT_NE(parent[2].arg0, child[1].arg0);
}

TEST(FdKinds, AClone3ThreadUnderPerfSharesTheTableOfItsProcess) {
  // perf cannot read clone3's flags (a struct behind a pointer): a child of the same pid is a
  // thread, and shares the table; one of another pid got a copy.
  ImportReport r;
  const std::string text = perf_call(5, 5, 1.0, "openat", kOpen, "0x3") +
                           perf_call(5, 5, 1.1, "clone3", "uargs: 0x7ffd0000, size: 0x58", "0x7") +
                           perf_call(5, 5, 1.2, "clone3", "uargs: 0x7ffd0000, size: 0x58", "0x8") +
                           perf_call(5, 7, 1.3, "close", "fd: 0x3", "0x0") +
                           perf_call(5, 7, 1.4, "openat", kOpen, "0x3") + perf_read(8, 8, 1.5, 3) +
                           perf_read(5, 5, 1.6, 3);
  const ImportedTrace t = import(ImportFormat::kPerfScript, text, &r);
  const std::vector<Event> parent = file_events(t, 5);
  const std::vector<Event> child = file_events(t, 8);
  ASSERT_EQ(parent.size(), 1u);
  ASSERT_EQ(child.size(), 1u);
  EXPECT_NE(parent[0].arg0, child[0].arg0)
      << "the thread reopened fd 3 in the shared table; the other process kept its copy";
}

TEST(FdKinds, PerfOpenProbesNameTheNextOpenOfTheirThreadOnly) {
  // record's uprobes on libc's open64 (tools/cli/record_perf.h OpenProbes) print the path.
  ImportReport r;
  const std::string text =
      "p 5/5 [0] 0.999999000: probe_libc:mmreplay_open_42: (7f0166f98fc0) path=\"/dev/null\"\n" +
      perf_call(5, 5, 1.0, "openat", kOpen, "0x3") +
      "p 5/5 [0] 1.099999000: probe_libc:mmreplay_openat_42: (7f0166f98fc0) path=\"/a b\"\n" +
      perf_call(5, 5, 1.1, "munmap", "addr: 0x10000, len: 0x1000", "0x0") +
      perf_call(5, 5, 1.2, "openat", kOpen, "0x4") +
      perf_call(5, 5, 1.3, "write", "fd: 0x3, buf: 0x1000, count: 0x10", "0x10") +
      perf_call(5, 5, 1.4, "write", "fd: 0x4, buf: 0x1000, count: 0x10", "0x10");
  const ImportedTrace t = import(ImportFormat::kPerfScript, text, &r);
  const std::vector<Event> io = file_events(t, 5);
  ASSERT_EQ(io.size(), 2u);
  EXPECT_EQ(file_of(t, io[0]).path, "/dev/null");
  EXPECT_EQ(file_of(t, io[0]).kind, FileKind::kCharDevice);
  EXPECT_EQ(file_of(t, io[1]).kind, FileKind::kUnknown) << "a syscall came between: not its path";
  EXPECT_EQ(r.ignored_by_name.count("probe_libc:mmreplay_open_42"), 0u);
}

TEST(FdKinds, AStraceDescriptorCallItCouldNotDecodeIsCountedNotFatal) {
  ImportReport r;
  const ImportedTrace t = import(ImportFormat::kStrace,
                                 "7 1.000000 pipe2(0x1, O_CLOEXEC) = 0 <0.000001>\n"
                                 "7 1.000010 close(3</x>, 9) = 0 <0.000001>\n"
                                 "7 1.000020 dup2({x}, 1) = 1 <0.000001>\n"
                                 "7 1.000030 write(1, \"a\", 1) = 1 <0.000001>\n",
                                 &r);
  EXPECT_EQ(r.ignored_by_name.at("pipe2"), 1u);
  EXPECT_EQ(r.ignored_by_name.at("dup2"), 1u);
  EXPECT_EQ(file_events(t, 7).size(), 1u);
}

TEST(FdKinds, PathsHaveTheirKinds) {
  EXPECT_EQ(file_kind_of_path("/dev/null"), FileKind::kCharDevice);
  EXPECT_EQ(file_kind_of_path("/dev/zero"), FileKind::kCharDevice);
  EXPECT_EQ(file_kind_of_path("/dev/pts/0"), FileKind::kTty);
  EXPECT_EQ(file_kind_of_path("/dev/tty1"), FileKind::kTty);
  EXPECT_EQ(file_kind_of_path("/dev/nvme0n1p2"), FileKind::kBlockDevice);
  EXPECT_EQ(file_kind_of_path("/dev/shm/x"), FileKind::kRegular);
  EXPECT_EQ(file_kind_of_path("pipe:[123]"), FileKind::kPipe);
  EXPECT_EQ(file_kind_of_path("socket:[9]"), FileKind::kSocket);
  EXPECT_EQ(file_kind_of_path("UNIX:[9->10]"), FileKind::kSocket);
  EXPECT_EQ(file_kind_of_path("anon_inode:[eventfd]"), FileKind::kAnon);
  EXPECT_EQ(file_kind_of_path("/memfd:buf (deleted)"), FileKind::kAnon);
  EXPECT_EQ(file_kind_of_path("/home/u/f.txt"), FileKind::kRegular);
  EXPECT_EQ(file_kind_of_path(""), FileKind::kUnknown);
}

TEST(FdKinds, RecordNamesTheInheritedFds) {
  std::vector<FileInfo> files = {{1, "pid 9 fd 1", 0, 4096, FileKind::kUnknown, false},
                                 {2, "pid 9 fd 3", 0, 4096, FileKind::kUnknown, false},
                                 {3, "pid 8 fd 1", 0, 4096, FileKind::kUnknown, false}};
  EXPECT_EQ(name_inherited_fds(9, {{1, "/dev/null"}, {2, "pipe:[5]"}}, &files), 1u);
  EXPECT_EQ(files[0].path, "/dev/null");
  EXPECT_EQ(files[0].kind, FileKind::kCharDevice);
  EXPECT_EQ(files[1].kind, FileKind::kUnknown);
  EXPECT_EQ(files[2].kind, FileKind::kUnknown) << "another process's fd 1";
}

TEST(FdKinds, RecordResolvesRelativeOpensAgainstTheStartingDirectory) {
  std::vector<FileInfo> files = {{1, "data/in.txt", 0, 4096, FileKind::kUnknown, false},
                                 {2, "../../dev/null", 0, 4096, FileKind::kUnknown, false},
                                 {3, "pid 9 fd 3", 0, 4096, FileKind::kUnknown, false},
                                 {4, "/etc/hosts", 0, 4096, FileKind::kRegular, false},
                                 {5, "", 0, 4096, FileKind::kUnknown, false},
                                 {6, "unknown pid 9 fd 4", 0, 4096, FileKind::kUnknown, true}};
  EXPECT_EQ(resolve_relative_paths("/home/u", &files), 2u);
  EXPECT_EQ(files[0].path, "/home/u/data/in.txt");
  EXPECT_EQ(files[0].kind, FileKind::kRegular);
  EXPECT_EQ(files[1].path, "/dev/null");
  EXPECT_EQ(files[1].kind, FileKind::kCharDevice);
  EXPECT_EQ(files[2].kind, FileKind::kUnknown) << "an unnamed fd is no path";
  EXPECT_EQ(files[3].path, "/etc/hosts");
  EXPECT_EQ(files[4].kind, FileKind::kUnknown);
  EXPECT_EQ(files[5].path, "unknown pid 9 fd 4") << "an fd opened unseen is no path either";
  EXPECT_EQ(resolve_relative_paths("", &files), 0u) << "no directory, nothing resolved";
}

// The dynamic loader opens a library with its own openat (no probe names it), maps it read-only,
// then maps its text over part of that with MAP_FIXED; perf records the text mapping with the
// path (PERF_RECORD_MMAP2, --show-mmap-events). The file takes that path, every mmap of the
// process keeps the one id, and a second process mapping the same library shares its file.
std::string loader_maps_libc(uint64_t pid, uint64_t base, double ts) {
  const std::string text_at = fmt::format("{:#x}", base + 0x26000);
  return perf_call(pid, pid, ts, "openat", kOpen, "0x3") +
         perf_call(pid, pid, ts + 0.01, "mmap",
                   fmt::format("addr: 0x0, len: 0x1e2000, prot: 0x1, flags: 0x802, fd: 0x3, off: "
                               "0x0"),
                   fmt::format("{:#x}", base)) +
         fmt::format(
             "p {0}/{0} [0] {1:.9f}: PERF_RECORD_MMAP2 {0}/{0}: [{2}(0x156000) @ 0x26000 "
             "fe:00 332835 0]: r-xp /usr/lib/x86_64-linux-gnu/libc.so.6\n",
             pid, ts + 0.020001, text_at) +
         perf_call(pid, pid, ts + 0.02, "mmap",
                   fmt::format("addr: {}, len: 0x156000, prot: 0x5, flags: 0x812, fd: 0x3, off: "
                               "0x26000",
                               text_at),
                   text_at) +
         perf_call(pid, pid, ts + 0.03, "close", "fd: 0x3", "0x0");
}

TEST(FdKinds, PerfMappingRecordsNameTheLibrariesTheLoaderOpened) {
  ImportReport r;
  const std::string text =
      "perf 0/0 [000] 0.000000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276988) @ "
      "0xffffffff81000000]: x [kernel.kallsyms]_text\n"
      "p 5/5 [0] 0.900000000: PERF_RECORD_MMAP2 5/5: [0x7f4d59e80000(0x2000) @ 0 00:00 0 0]: "
      "r-xp [vdso]\n" +
      loader_maps_libc(5, 0x7f0000000000, 1.0) + loader_maps_libc(6, 0x7f1000000000, 2.0);
  const ImportedTrace t = import(ImportFormat::kPerfScript, text, &r);
  EXPECT_EQ(stream_of(t, 0), -1) << "perf's record of the kernel makes no thread";
  EXPECT_EQ(r.files_named_by_mappings, 1u);
  std::vector<uint64_t> ids;
  for (const auto& stream : t.streams) {
    for (const Event& e : stream) {
      if (e.kind == EventKind::kMmap) ids.push_back(e.arg1);
    }
  }
  ASSERT_EQ(ids.size(), 4u);
  for (uint64_t id : ids) EXPECT_EQ(id, ids[0]) << "one file, in both processes";
  const FileInfo& libc = t.meta.files.at(ids[0] - 1);
  EXPECT_EQ(libc.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(libc.kind, FileKind::kRegular);
  // The second process's open made a file of its own, named by nothing now: no event uses it.
  ASSERT_EQ(t.meta.files.size(), 2u);
  EXPECT_TRUE(is_unnamed_fd_name(t.meta.files.at(ids[0] == 1 ? 1 : 0).path));
}

}  // namespace
}  // namespace mmreplay::formats
