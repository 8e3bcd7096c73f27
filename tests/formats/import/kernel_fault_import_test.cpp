// perf script lines of faults taken in kernel mode (exceptions:page_fault_kernel) and of context
// switches (--show-switch-events): the fault lands inside the syscall that took it, flagged
// kernel mode; a kernel address is counted as ignored; an out-in pair is an off_cpu interval.

#include <gtest/gtest.h>

#include <string>

#include "formats/import/import.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

// dd's pattern: read() into a buffer mapped just before, so copy_to_user faults in the kernel.
constexpr const char* kReadIntoFreshBuffer =
    "dd 7/7 [1] 2.000000000: syscalls:sys_enter_mmap: addr: 0x0, len: 0x2000, prot: 0x3, "
    "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
    "dd 7/7 [1] 2.000001000: syscalls:sys_exit_mmap: 0x7f0000000000\n"
    "dd 7/7 [1] 2.000002000: syscalls:sys_enter_read: fd: 0x00000000, buf: 0x7f0000000000, "
    "count: 0x00002000\n"
    "dd 7/7 [1] 2.000003000: exceptions:page_fault_kernel: address=0x7f0000000000 "
    "ip=0xffffffff81234567 error_code=0x2\n"
    "dd 7/7 [1] 2.000004000: exceptions:page_fault_kernel: address=0x7f0000001000 "
    "ip=0xffffffff81234567 error_code=0x2\n"
    "dd 7/7 [1] 2.000004500: exceptions:page_fault_kernel: address=0xffffc90000001000 "
    "ip=0xffffffff81234567 error_code=0x0\n"
    "dd 7/7 [1] 2.000006000: syscalls:sys_exit_read: 0x2000\n"
    "dd 7/7 [1] 2.000007000: PERF_RECORD_SWITCH OUT preempt\n"
    "dd 7/7 [1] 2.000057000: PERF_RECORD_SWITCH IN         \n"
    "dd 7/7 [1] 2.000060000: exceptions:page_fault_user: address=0x7f0000001008 "
    "ip=0x401000 error_code=0x6\n";

TEST(KernelFaultImport, AKernelModeFaultOnAUserAddressSitsInsideItsSyscall) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_text(ImportFormat::kPerfScript, "dd.txt", kReadIntoFreshBuffer, &t, &r);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(t.streams.size(), 1u);
  const auto& events = t.streams[0];
  // The read (at its entry, with its duration), then its two faults in time order.
  size_t read = 0;
  while (read < events.size() && events[read].kind != EventKind::kFileRead) ++read;
  ASSERT_LT(read + 2, events.size());
  const Event& call = events[read];
  EXPECT_EQ(call.ts_ns, 2000002000u);
  EXPECT_EQ(call.duration_ns, 4000u);
  for (size_t k = 1; k <= 2; ++k) {
    const Event& f = events[read + k];
    EXPECT_EQ(f.kind, EventKind::kPageFault);
    EXPECT_TRUE(f.is_kernel_mode());
    EXPECT_TRUE(f.is_write());
    EXPECT_GT(f.ts_ns, call.ts_ns);
    EXPECT_LT(f.ts_ns, call.ts_ns + call.duration_ns);
  }
  EXPECT_EQ(events[read + 1].addr, 0x7f0000000000u);
  EXPECT_EQ(events[read + 2].addr, 0x7f0000001000u);
  // The fault on a kernel address (vmalloc) is not the program's: counted by name, not kept.
  EXPECT_EQ(r.ignored_by_name.at(std::string(kKernelAddressFault)), 1u);
  EXPECT_EQ(r.count(EventKind::kPageFault), 3u);
  // The user-mode fault after is not flagged.
  EXPECT_FALSE(events.back().is_kernel_mode());
  EXPECT_EQ(r.faults_outside_mappings, 0u);  // all three in the mmap'd buffer
}

TEST(KernelFaultImport, ASwitchOutAndInIsAnOffCpuInterval) {
  ImportedTrace t;
  ImportReport r;
  ASSERT_TRUE(import_text(ImportFormat::kPerfScript, "dd.txt", kReadIntoFreshBuffer, &t, &r));
  const Event* off = testing::first_of(t, 0, EventKind::kObservation);
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->arg0, static_cast<uint64_t>(ObservationKind::kOffCpu));
  EXPECT_EQ(off->arg1, 1u);  // preempted
  EXPECT_EQ(off->ts_ns, 2000007000u);
  EXPECT_EQ(off->duration_ns, 50000u);
  EXPECT_EQ(r.off_cpu_intervals, 1u);
  EXPECT_EQ(r.preempted_ns, 50000u);
  // Think time: 1 us before the read, 1 us after it, 3 us after the switch back: the 50 us
  // off the CPU are not in it.
  EXPECT_EQ(r.think_time_ns, 1000u + 1000u + 3000u);
}

TEST(KernelFaultImport, ASwitchRecordWithoutDirectionIsMalformed) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_text(ImportFormat::kPerfScript, "sw.txt",
                               "p 5/5 [0] 1.000000001: PERF_RECORD_SWITCH SIDEWAYS\n", &t, &r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("sw.txt:1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace mmreplay::formats
