// Model throughput: simulated page faults, madvise calls and file reads per host second, with one
// thread on one virtual CPU (uncontended) and with 64 threads of one mm on 64 virtual CPUs
// (mmap_sem, zone->lock and TLB-shootdown traffic). Figures are quoted, never asserted.
//
//   build/release/bench/kernelsim/kernelsim_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "kernelsim/costs/machine_presets.h"
#include "kernelsim/simulation.h"

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

// A machine preset's topology and distance costs over the default profile
// (costs/machine_presets.h), with `cpus` of its CPUs.
std::unique_ptr<Simulation> make_on(const char* preset, uint32_t cpus, const char* policy) {
  const MachinePreset* p = find_machine_preset(preset);
  MachineConfig m;
  apply_machine_preset(*p, &m);
  m.nr_cpus = cpus;
  m.memory_bytes = uint64_t{16} << 30;  // as make(): the same zone for every case
  CostProfile c = cost_profile_default();
  apply_machine_costs(*p, &c);
  return Simulation::create(m, c, policy, nullptr);
}

// `threads` threads of one mm each write-fault their own share of kFaultsPerRun pages, on one
// socket (preset nullptr) or on a preset's sockets.
void BM_PageFaults(benchmark::State& state, uint32_t threads, const char* policy,
                   const char* preset = nullptr) {
  const uint64_t per_thread = kFaultsPerRun / threads;
  uint64_t faults = 0;
  uint64_t events = 0;  // queue events fired: host work the model cannot do inline
  for (auto _ : state) {
    auto sim = preset != nullptr ? make_on(preset, threads, policy) : make(threads, policy);
    for (uint32_t i = 0; i < threads; ++i) {
      const uint64_t base = kBase + i * per_thread * PAGE_SIZE;
      std::vector<Op> ops = {Op::mmap_anon(base, per_thread * PAGE_SIZE, PROT_READ | PROT_WRITE),
                             Op::touch(base, per_thread * PAGE_SIZE, true)};
      sim->spawn_thread(1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    faults += sim->stats().vm.pgfault;
    events += sim->events().events_fired();
  }
  state.counters["faults/s"] =
      benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kIsRate);
  state.counters["events/fault"] = static_cast<double>(events) / static_cast<double>(faults);
}

// One thread maps `map_gib` GiB (64 TiB: an ASan/Go/JVM-style MAP_NORESERVE reservation),
// write-faults its first GiB and unmaps it all. Host memory follows the touched GiB, not the
// mapping: run each size alone under /usr/bin/time -v to compare maximum RSS.
void BM_Reservation(benchmark::State& state, uint64_t map_gib) {
  constexpr uint64_t kTouched = uint64_t{1} << 30;
  constexpr uint32_t kMapNoreserve = 0x4000;  // MAP_NORESERVE (no overcommit in the model)
  uint64_t faults = 0;
  for (auto _ : state) {
    auto sim = make(1, "");
    std::vector<Op> ops = {
        Op::mmap_anon(kBase, map_gib << 30, PROT_READ | PROT_WRITE, kMapNoreserve),
        Op::touch(kBase, kTouched, true), Op::munmap(kBase, map_gib << 30)};
    sim->spawn_thread(1, 0, std::make_unique<VectorOpSource>(std::move(ops)));
    sim->run();
    faults += sim->stats().vm.pgfault;
  }
  state.counters["faults/s"] =
      benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kIsRate);
}

// `threads` threads of one mm each repeat: dirty a `region_pages` region, MADV_DONTNEED it. At
// 64 pages the touch's faults are most of the work; at 1 page it is an allocator returning one
// freed page (jemalloc's purge), and the call with its shootdown is most of it.
void BM_Madvise(benchmark::State& state, uint32_t threads, const char* policy,
                uint64_t region_pages = kRegionPages) {
  uint64_t calls = 0;
  uint64_t faults = 0;
  uint64_t events = 0;
  uint64_t requeued = 0;  // of those, events moved later (IPI time charged meanwhile), not fired
  for (auto _ : state) {
    auto sim = make(threads, policy);
    for (uint32_t i = 0; i < threads; ++i) {
      const uint64_t base = kBase + i * kRegionPages * 2 * PAGE_SIZE;
      std::vector<Op> ops = {Op::mmap_anon(base, region_pages * PAGE_SIZE, PROT_READ | PROT_WRITE)};
      for (int r = 0; r < kMadviseRounds; ++r) {
        ops.push_back(Op::touch(base, region_pages * PAGE_SIZE, true));
        ops.push_back(Op::madvise(base, region_pages * PAGE_SIZE, MADV_DONTNEED));
      }
      sim->spawn_thread(1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    calls += sim->stats().count(OpKind::kMadvise);
    faults += sim->stats().vm.pgfault;
    events += sim->events().events_fired();
    requeued += sim->events().events_requeued();
  }
  state.counters["madvise/s"] =
      benchmark::Counter(static_cast<double>(calls), benchmark::Counter::kIsRate);
  // Each call follows a re-touch of its region: region_pages faults per call.
  state.counters["faults/call"] = static_cast<double>(faults) / static_cast<double>(calls);
  state.counters["events/call"] = static_cast<double>(events) / static_cast<double>(calls);
  state.counters["requeued/call"] = static_cast<double>(requeued) / static_cast<double>(calls);
}

// Seed 001's page_fault2 shape: 16 processes in one memcg on 16 vCPUs, each mapping,
// write-faulting and unmapping its share of kFaultsPerRun pages in 4 MiB rounds. Reports the
// model's faults per host second, the simulated memcg counter wait per fault and the simulated
// fault rate (millions per virtual second, the figure seed 001 quotes).
void BM_MemcgPageFaults(benchmark::State& state, const char* policy) {
  constexpr uint32_t kProcs = 16;
  constexpr uint64_t kRoundPages = 1024;
  uint64_t faults = 0;
  double wait_ns = 0;
  double sim_rate = 0;  // simulated faults per virtual second, in millions
  for (auto _ : state) {
    auto sim = make(kProcs, policy);
    for (uint32_t i = 0; i < kProcs; ++i) {
      std::vector<Op> ops;
      for (uint64_t done = 0; done < kFaultsPerRun / kProcs; done += kRoundPages) {
        ops.push_back(Op::mmap_anon(kBase, kRoundPages * PAGE_SIZE, PROT_READ | PROT_WRITE));
        ops.push_back(Op::touch(kBase, kRoundPages * PAGE_SIZE, true));
        ops.push_back(Op::munmap(kBase, kRoundPages * PAGE_SIZE));
      }
      sim->spawn_thread(i + 1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    faults += sim->stats().vm.pgfault;
    const LockClassStats* l = sim->lockstat().find("&counter->lock");
    const uint64_t w = l != nullptr ? l->wait_time.sum() : sim->stats().vm.memcg_counter_wait_ns;
    wait_ns = static_cast<double>(w);
    sim_rate = static_cast<double>(sim->stats().vm.pgfault) * 1e3 /
               static_cast<double>(sim->now().count_ns());
  }
  state.counters["faults/s"] =
      benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kIsRate);
  state.counters["counter_wait_ns/fault"] = wait_ns / static_cast<double>(kFaultsPerRun);
  state.counters["sim_Mfaults/s"] = sim_rate;
}

constexpr int kReadsPerThread = 1 << 15;

// `threads` threads on their own CPUs each read(2) 4 KiB blocks of their own file, cycling over
// `blocks` blocks: 8 fit the 16-entry bh_lru (hits), 64 do not (every read misses and refills).
void BM_FileRead(benchmark::State& state, uint32_t threads, uint64_t blocks) {
  uint64_t reads = 0;
  for (auto _ : state) {
    auto sim = make(threads, "");
    for (uint32_t i = 0; i < threads; ++i) {
      std::vector<Op> ops;
      ops.reserve(kReadsPerThread);
      for (int r = 0; r < kReadsPerThread; ++r) {
        ops.push_back(
            Op::file_read(i + 1, (static_cast<uint64_t>(r) % blocks) * PAGE_SIZE, PAGE_SIZE));
      }
      sim->spawn_thread(1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    reads += sim->stats().count(OpKind::kFileRead);
  }
  state.counters["reads/s"] =
      benchmark::Counter(static_cast<double>(reads), benchmark::Counter::kIsRate);
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
      std::vector<Op> ops = {Op::mmap_anon(base, len, PROT_READ | PROT_WRITE),
                             Op::touch(base, len, true), Op::touch(base, len, false)};
      sim->spawn_thread(i + 1, i, std::make_unique<VectorOpSource>(std::move(ops)));
    }
    sim->run();
    faults += sim->stats().vm.pgfault;
    stalls += sim->stats().vm.allocstall;
  }
  state.counters["faults/s"] =
      benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kIsRate);
  state.counters["allocstalls"] =
      benchmark::Counter(static_cast<double>(stalls), benchmark::Counter::kAvgIterations);
}

BENCHMARK_CAPTURE(BM_PageFaults, uncontended, 1, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaults, cpus64_mmap_sem, 64, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaults, cpus64_per_vma, 64, "fault_lock=per-vma")
    ->Unit(benchmark::kMillisecond);
// Issue 17: contended faults on multi-socket topologies (lock handoffs and shared lines priced
// by distance): 64 CPUs of the 8-socket Westmere-EX (sockets 0-6 of its first threads), and all
// 160 of its CPUs with SMT siblings.
BENCHMARK_CAPTURE(BM_PageFaults, cpus64_westmere_ex_mmap_sem, 64, "", "westmere-ex-8s")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaults, cpus160_westmere_ex_mmap_sem, 160, "", "westmere-ex-8s")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaults, cpus160_westmere_ex_per_vma, 160, "fault_lock=per-vma",
                  "westmere-ex-8s")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reservation, map1GiB_touch1GiB, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reservation, map64TiB_touch1GiB, uint64_t{64} << 10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, uncontended, 1, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, cpus64_ipi, 64, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, cpus64_broadcast, 64, "tlb=broadcast")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, uncontended_1page, 1, "", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Madvise, cpus64_ipi_1page, 64, "", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcgPageFaults, cpus16_memcg_off, "memcg=off")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcgPageFaults, cpus16_res_counter, "memcg=res_counter,charge_batch=32")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcgPageFaults, cpus16_uncharge_pagevec,
                  "memcg=res_counter,charge_batch=32,uncharge_batch=pagevec,pagevec_size=14")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcgPageFaults, cpus16_page_counter, "memcg=page_counter,charge_batch=32")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FileRead, bh_lru_hits, 1, 8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FileRead, bh_lru_misses, 1, 64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FileRead, cpus4_misses, 4, 64)->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_PageFaultsUnderPressure, reactive, "reclaim=reactive")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PageFaultsUnderPressure, predictive, "reclaim=predictive")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmreplay::kernelsim
