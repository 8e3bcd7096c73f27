// record's tracing-cost probe read from its trace (tools/cli/record_probe.h): the medians of the
// probe's syscall and fault gaps, found by the probe's zero-length madvise calls.

#include <gtest/gtest.h>

#include <vector>

#include "tools/cli/record_perf.h"
#include "tools/cli/record_probe.h"

namespace mmreplay::tools {
namespace {

namespace ev = formats::ev;
using formats::Event;

constexpr uint64_t kRegion = 0x7f0000000000;
constexpr uint64_t kRegionBytes = 16 * 4096;

Event timed(Event e, uint64_t duration_ns) {
  e.duration_ns = duration_ns;
  return e;
}

TEST(RecordProbe, MediansOfTheProbeGapsGiveTheTracingAndFaultCosts) {
  formats::ImportedTrace t;
  t.streams.resize(2);
  auto& s = t.streams[1];
  // Start-up noise: a fault elsewhere and a real madvise, which must not count.
  s.push_back(ev::page_fault(0, 0x400000, false));
  s.push_back(timed(ev::madvise(100, kRegion, kRegionBytes, 14), 500));
  // Faults 2500, 2500, 9000 (preempted), 2400 ns apart: median 2500.
  uint64_t ts = 1000;
  const uint64_t fault_gaps[] = {2500, 2500, 9000, 2400};
  s.push_back(ev::page_fault(ts, kRegion, true));
  for (size_t i = 0; i < 4; ++i) {
    ts += fault_gaps[i];
    s.push_back(ev::page_fault(ts, kRegion + (i + 1) * 4096, true));
  }
  // madvise(region, 0) calls of 300 ns, 800, 800, 5000, 700 ns between: median 800.
  ts += 1000;
  const uint64_t call_gaps[] = {800, 800, 5000, 700};
  s.push_back(timed(ev::madvise(ts, kRegion, 0, 0), 300));
  for (uint64_t gap : call_gaps) {
    ts += 300 + gap;
    s.push_back(timed(ev::madvise(ts, kRegion, 0, 0), 300));
  }
  // A fault outside the region between probe faults would not be a probe gap.
  s.push_back(ev::page_fault(ts + 10, kRegion + kRegionBytes, true));
  TracingCost c;
  tracing_cost_from_trace(t, kRegionBytes, &c);
  EXPECT_EQ(c.syscall_samples, 4u);
  EXPECT_EQ(c.fault_samples, 4u);
  EXPECT_EQ(c.tracing_ns, 800u);
  EXPECT_EQ(c.fault_ns, 2500u - 800u);
}

TEST(RecordProbe, NoProbeEventsGiveNoCost) {
  formats::ImportedTrace t;
  t.streams.resize(1);
  t.streams[0].push_back(ev::page_fault(0, kRegion, true));
  t.streams[0].push_back(ev::page_fault(1000, kRegion + 4096, true));
  TracingCost c;
  tracing_cost_from_trace(t, kRegionBytes, &c);
  EXPECT_EQ(c.tracing_ns, 0u);
  EXPECT_EQ(c.fault_ns, 0u);
  EXPECT_EQ(c.syscall_samples, 0u);
}

// A thread writing a buffer page by page: `pages` faults `gap_ns` apart, from `ts`.
void touch_pages(std::vector<Event>* s, uint64_t ts, uint64_t base, size_t pages, uint64_t gap_ns) {
  for (size_t i = 0; i < pages; ++i)
    s->push_back(ev::page_fault(ts + i * gap_ns, base + i * 4096, true));
}

// The program's back-to-back faults: only pairs one page apart with nothing between them count.
TEST(RecordProbe, TheProgramsBackToBackFaultsAreThoseOnePageApart) {
  formats::ImportedTrace t;
  t.streams.resize(2);
  touch_pages(&t.streams[0], 0, kRegion, 4, 12000);  // 3 pairs of 12 us
  // Not pairs: two pages apart, a kernel-mode fault, a syscall between.
  t.streams[1].push_back(ev::page_fault(0, kRegion, true));
  t.streams[1].push_back(ev::page_fault(100, kRegion + 2 * 4096, true));
  t.streams[1].push_back(ev::page_fault(200, kRegion + 3 * 4096, true, false, /*kernel=*/true));
  t.streams[1].push_back(ev::page_fault(300, kRegion + 4 * 4096, true));
  t.streams[1].push_back(timed(ev::madvise(400, kRegion, 0, 0), 10));
  t.streams[1].push_back(ev::page_fault(500, kRegion + 5 * 4096, true));
  const ProgramFaultGaps g = program_fault_gaps(t, 4096);
  EXPECT_EQ(g.samples, 3u);
  EXPECT_EQ(g.median_ns, 12000u);
}

// record warns when the program's back-to-back faults took over 1.2x the probe's: a slow phase
// of the host (pmadv_dontneed's recordings: 14.6 us against the probe's 11.1 us), which replay
// would keep as think time. Too few pairs, or no probe, say nothing.
TEST(RecordProbe, WarnsWhenTheProgramsFaultsRanSlowerThanTheProbes) {
  TracingCost probe;
  probe.tracing_ns = 1300;
  probe.fault_ns = 9700;  // a probe fault gap of 11,000 ns
  probe.fault_samples = 4095;
  EXPECT_FALSE(program_faults_slower_than_probe({kMinProgramFaultGaps, 10900}, probe));
  EXPECT_FALSE(program_faults_slower_than_probe({kMinProgramFaultGaps, 13200}, probe));
  EXPECT_TRUE(program_faults_slower_than_probe({kMinProgramFaultGaps, 14600}, probe));
  EXPECT_FALSE(program_faults_slower_than_probe({kMinProgramFaultGaps - 1, 14600}, probe));
  EXPECT_FALSE(program_faults_slower_than_probe({kMinProgramFaultGaps, 14600}, TracingCost{}));
}

// record's probes carry their recorder's pid, so one killed before it removed them can be told
// by it (remove_orphaned_probes); a probe of another tool, or a name without a pid, is not ours.
TEST(RecordProbes, AProbesOwnerIsThePidItsNameEndsIn) {
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_open_12454"), 12454);
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_openat_nc_7"), 7);
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_pipe_socketpair_12454__return"), 12454);
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_sockaddr_connect_99"), 99);
  EXPECT_EQ(probe_owner("probe_libc:malloc_12454"), 0);
  EXPECT_EQ(probe_owner("probe_other:mmreplay_open_12454"), 0);
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_open_"), 0);
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_open_12x"), 0);
  EXPECT_EQ(probe_owner("probe_libc:mmreplay_open_12345678901"), 0);
}

}  // namespace
}  // namespace mmreplay::tools
