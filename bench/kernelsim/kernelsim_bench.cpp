// Model throughput: simulated page faults and madvise calls per host second, with one thread on
// one virtual CPU (uncontended) and with 64 threads of one mm on 64 virtual CPUs (mmap_sem,
// zone->lock and TLB-shootdown traffic), and under memory pressure with reclaim and swap active.
// Figures are quoted, never asserted.
//
//   build/release/bench/kernelsim/kernelsim_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "kernelsim/sim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

constexpr uint64_t kBase = 0x10000000;
constexpr uint64_t kFaultsPerRun = 1 << 17;  // 512 MiB of anonymous memory
constexpr uint64_t kRegionPages = 64;
constexpr int kMadviseRounds = 256;

std::unique_ptr<Simulation> make(uint32_t cpus, const char* policy) {
  MachineConfig m;
  m.nr_cpus = cpus;
  return Simulation::create(m, cost_profile_default(), policy, nullptr);
}

// `threads` threads of one mm each write-fault their own share of kFaultsPerRun pages.
void BM_PageFaults(benchmark::State& state, uint32_t threads, const char* policy) {
  const uint64_t per_thread = kFaultsPerRun / threads;
  uint64_t faults = 0;
  for (auto _ : state) {
    auto sim = make(threads, policy);
    for (uint32_t i = 0; i < threads; ++i) {
      const uint64_t base = kBase + i * per_thread * PAGE_SIZE;
      std::vector<Op> ops = {Op::mmap_anon(base, per_thread * PAGE_SIZE, PROT_READ | PROT_WRITE),
                             Op::touch(base, per_thread * PAGE_SIZE, true)};
      sim->spawn_thread(1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    faults += sim->stats().vm.pgfault;
  }
  state.counters["faults/s"] = benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kIsRate);
}

// `threads` threads of one mm each repeat: dirty a 64-page region, MADV_DONTNEED it.
void BM_Madvise(benchmark::State& state, uint32_t threads, const char* policy) {
  uint64_t calls = 0;
  for (auto _ : state) {
    auto sim = make(threads, policy);
    for (uint32_t i = 0; i < threads; ++i) {
      const uint64_t base = kBase + i * kRegionPages * 2 * PAGE_SIZE;
      std::vector<Op> ops = {Op::mmap_anon(base, kRegionPages * PAGE_SIZE, PROT_READ | PROT_WRITE)};
      for (int r = 0; r < kMadviseRounds; ++r) {
        ops.push_back(Op::touch(base, kRegionPages * PAGE_SIZE, true));
        ops.push_back(Op::madvise(base, kRegionPages * PAGE_SIZE, MADV_DONTNEED));
      }
      sim->spawn_thread(1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    calls += sim->stats().count(OpKind::kMadvise);
  }
  state.counters["madvise/s"] = benchmark::Counter(static_cast<double>(calls), benchmark::Counter::kIsRate);
}

// Faults under memory pressure (reclaim active): 4 threads, each writing 128 MiB and then
// reading it back, on a 256 MiB machine with 1 GiB of swap: kswapd, direct reclaim, swap-out,
// major faults with readahead. `reclaim` picks the kswapd trigger (seed 003).
void BM_PageFaultsUnderPressure(benchmark::State& state, const char* policy) {
  constexpr uint32_t kThreads = 4;
  constexpr uint64_t kPerThread = (uint64_t{128} << 20) / PAGE_SIZE;
  uint64_t faults = 0;
  uint64_t stalls = 0;
  for (auto _ : state) {
    MachineConfig m;
    m.nr_cpus = kThreads + 1;
    m.memory_bytes = uint64_t{256} << 20;
    m.swap_bytes = uint64_t{1} << 30;
    auto sim = Simulation::create(m, cost_profile_default(), policy, nullptr);
    for (uint32_t i = 0; i < kThreads; ++i) {
      const uint64_t base = kBase + i * kPerThread * PAGE_SIZE * 2;
      const uint64_t len = kPerThread * PAGE_SIZE;
      std::vector<Op> ops = {Op::mmap_anon(base, len, PROT_READ | PROT_WRITE), Op::touch(base, len, true),
                             Op::touch(base, len, false)};
      sim->spawn_thread(i + 1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    faults += sim->stats().vm.pgfault;
    stalls += sim->stats().vm.allocstall;
  }
  state.counters["faults/s"] = benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kIsRate);
  state.counters["allocstalls"] =
      benchmark::Counter(static_cast<double>(stalls), benchmark::Counter::kAvgIterations);
}

BENCHMARK_CAPTURE(BM_PageFaults, uncontended, 1, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaults, cpus64_mmap_sem, 64, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaults, cpus64_per_vma, 64, "fault_lock=per-vma")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, uncontended, 1, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, cpus64_ipi, 64, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, cpus64_broadcast, 64, "tlb=broadcast")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaultsUnderPressure, reactive, "reclaim=reactive")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaultsUnderPressure, predictive, "reclaim=predictive")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmreplay::kernelsim

BENCHMARK_MAIN();
