// Importer throughput in input lines per second, per format: perf script and strace text made
// in memory in the shape of the real fixtures (map, touch every page, madvise half, unmap, per
// thread), and the real trace.dat fixture for trace-cmd (records per second).
//
//   build/release/bench/formats/import_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>

#include "formats/import/import.h"
#include "formats/import/trace_cmd.h"

namespace mmreplay::bench {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 50;          // map/touch/free/unmap rounds per thread
constexpr int kPagesPerRound = 256;  // 1 MiB of 4 KiB pages
constexpr uint64_t kBase = 0x7f0000000000;
constexpr uint64_t kPage = 4096;
constexpr uint64_t kRoundBytes = kPagesPerRound * kPage;

// perf script text, -F comm,pid,tid,cpu,time,event,trace --ns.
std::string perf_text(uint64_t* lines) {
  std::string out;
  uint64_t ts = 1'000'000'000;
  *lines = 0;
  auto line = [&](int tid, const std::string& body) {
    out += fmt::format("         mmtouch 100/{} [001] {}.{:09}: {}\n", 100 + tid, ts / 1000000000,
                       ts % 1000000000, body);
    ts += 700;
    ++*lines;
  };
  for (int r = 0; r < kRounds; ++r) {
    for (int t = 0; t < kThreads; ++t) {
      const uint64_t addr = kBase + (static_cast<uint64_t>(t) * kRounds + r) * kRoundBytes;
      line(t, fmt::format("syscalls:sys_enter_mmap: addr: 0x00000000, len: {:#010x}, prot: "
                          "0x00000003, flags: 0x00000022, fd: 0xffffffff, off: 0x00000000",
                          kRoundBytes));
      line(t, fmt::format("syscalls:sys_exit_mmap: {:#x}", addr));
      for (int p = 0; p < kPagesPerRound; ++p) {
        line(t, fmt::format("exceptions:page_fault_user: address={:#x} ip=0x55d0c0a013e0 "
                            "error_code=0x6",
                            addr + static_cast<uint64_t>(p) * kPage));
      }
      line(t, fmt::format("syscalls:sys_enter_madvise: start: {:#x}, len_in: {:#010x}, behavior: "
                          "0x00000004",
                          addr, kRoundBytes / 2));
      line(t, "syscalls:sys_exit_madvise: 0x0");
      line(t,
           fmt::format("syscalls:sys_enter_munmap: addr: {:#x}, len: {:#010x}", addr, kRoundBytes));
      line(t, "syscalls:sys_exit_munmap: 0x0");
    }
  }
  return out;
}

// strace -f -ttt -T text: the same calls, half of them split unfinished/resumed.
std::string strace_text(uint64_t* lines) {
  std::string out;
  uint64_t us = 1796015527000000;
  *lines = 0;
  auto line = [&](int tid, const std::string& body) {
    out += fmt::format("[pid {}] {}.{:06} {}\n", 100 + tid, us / 1000000, us % 1000000, body);
    us += 3;
    ++*lines;
  };
  for (int r = 0; r < kRounds * 20; ++r) {
    for (int t = 0; t < kThreads; ++t) {
      const uint64_t addr = kBase + (static_cast<uint64_t>(t) * kRounds * 20 + r) * kRoundBytes;
      line(t, fmt::format("mmap(NULL, {}, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) "
                          "= {:#x} <0.000021>",
                          kRoundBytes, addr));
      line(t,
           fmt::format("madvise({:#x}, {}, MADV_DONTNEED <unfinished ...>", addr, kRoundBytes / 2));
      line(t, "<... madvise resumed>) = 0 <0.004130>");
      line(t, fmt::format("munmap({:#x}, {}) = 0 <0.000182>", addr, kRoundBytes));
    }
  }
  return out;
}

void run_text(benchmark::State& state, formats::ImportFormat format, const std::string& text,
              uint64_t lines) {
  uint64_t events = 0;
  for (auto _ : state) {
    formats::ImportedTrace trace;
    formats::ImportReport report;
    if (!formats::import_text(format, "bench", text, &trace, &report))
      state.SkipWithError("import");
    events = report.events;
    benchmark::DoNotOptimize(trace);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lines));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["lines"] = static_cast<double>(lines);
  state.counters["events"] = static_cast<double>(events);
}

void BM_ImportPerfScript(benchmark::State& state) {
  uint64_t lines = 0;
  static const std::string text = perf_text(&lines);
  static const uint64_t n = lines;
  run_text(state, formats::ImportFormat::kPerfScript, text, n);
}
BENCHMARK(BM_ImportPerfScript)->Unit(benchmark::kMillisecond);

void BM_ImportStrace(benchmark::State& state) {
  uint64_t lines = 0;
  static const std::string text = strace_text(&lines);
  static const uint64_t n = lines;
  run_text(state, formats::ImportFormat::kStrace, text, n);
}
BENCHMARK(BM_ImportStrace)->Unit(benchmark::kMillisecond);

void BM_ImportTraceDat(benchmark::State& state) {
  if (!formats::have_trace_dat_reader()) {
    state.SkipWithError("built without libtracecmd");
    return;
  }
  const std::string path = std::string(MMREPLAY_IMPORT_FIXTURES) + "/mmtouch.trace.dat";
  uint64_t records = 0;
  for (auto _ : state) {
    formats::ImportedTrace trace;
    formats::ImportReport report;
    if (!formats::import_file(formats::ImportFormat::kTraceCmd, path, &trace, &report)) {
      state.SkipWithError("import");
    }
    records = report.lines;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.counters["records"] = static_cast<double>(records);
}
BENCHMARK(BM_ImportTraceDat)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmreplay::bench
