// Helpers for the kernelsim tests: a Simulation from a policy string, op streams, and
// hand-written task bodies.

#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/fs/file.h"
#include "kernelsim/kernel/smp.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/pgtable.h"
#include "kernelsim/policy/presets.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim::testing {

// The kernel config of `policy` for a test. The tests put each task on a CPU by hand, and it
// stays there, as a thread pinned by sched_setaffinity() would: idle balancing
// (sched/load_balance.h) is off unless the policy names idle_balance.
inline KernelConfig test_config(const std::string& policy) {
  KernelConfig config;
  if (!policy.empty()) {
    const Status s = expand_policy(policy, &config);
    EXPECT_TRUE(s) << s.message();
  }
  if (policy.find("idle_balance") == std::string::npos) config.idle_balance = IdleBalanceMode::kOff;
  return config;
}

inline std::unique_ptr<Simulation> make_sim(uint32_t nr_cpus, const std::string& policy = "",
                                            const CostProfile& costs = cost_profile_default()) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = nr_cpus;
  auto sim = Simulation::create(m, costs, test_config(policy), &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

// A simulation of `nr_cpus` CPUs, `memory_bytes` of memory and `swap_bytes` of swap on `device`,
// under `policy`.
inline std::unique_ptr<Simulation> make_sim_with_swap(uint32_t nr_cpus, uint64_t memory_bytes,
                                                      uint64_t swap_bytes,
                                                      SwapDevice device = SwapDevice::kBlock,
                                                      const std::string& policy = "") {
  std::string error;
  MachineConfig m;
  m.nr_cpus = nr_cpus;
  m.memory_bytes = memory_bytes;
  m.swap_bytes = swap_bytes;
  m.swap_device = device;
  auto sim = Simulation::create(m, cost_profile_default(), test_config(policy), &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

// A simulation of `nr_cpus` CPUs and `memory_bytes` of memory, no swap.
inline std::unique_ptr<Simulation> make_sim_with_memory(uint32_t nr_cpus, uint64_t memory_bytes) {
  return make_sim_with_swap(nr_cpus, memory_bytes, 0);
}

inline Task& thread(Simulation& sim, uint32_t mm_id, uint32_t cpu, std::vector<Op> ops,
                    SimTime start = SimTime::zero()) {
  return sim.spawn_thread(mm_id, cpu, std::make_unique<VectorOpSource>(std::move(ops)), start);
}

constexpr uint64_t kBase = 0x10000000;  // a mapping address the tests use
constexpr uint64_t kPage = PAGE_SIZE;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kPagesPerMiB = kMiB / kPage;
constexpr uint32_t kFile = 1;  // a file id the tests use

// Runs ops on one thread of mm 1 and stops before it exits (its mm stays intact for the checks).
inline std::unique_ptr<Simulation> run_ops(std::vector<Op> ops) {
  auto sim = make_sim(1);
  ops.push_back(Op::think(SimTime::ms(10'000)));
  thread(*sim, 1, 0, std::move(ops));
  sim->run_until(SimTime::ms(5'000));
  return sim;
}

// A simulation of `cpus` CPUs whose `file` is a regular file of `pages` pages, cached at the start
// when `warm`.
inline std::unique_ptr<Simulation> sim_with_file(uint32_t file, bool warm, uint64_t pages,
                                                 uint32_t cpus = 1,
                                                 const std::string& policy = "") {
  auto sim = make_sim(cpus, policy);
  sim->files().set(file, FileSpec{FileType::kRegular, warm, pages * kPage});
  return sim;
}

// Runs ops on one thread of mm 1, kept alive afterwards (it thinks on) for the checks.
inline void run_then_look(Simulation& sim, std::vector<Op> ops) {
  ops.push_back(Op::think(SimTime::ms(100'000)));
  thread(sim, 1, 0, std::move(ops));
  sim.run_until(SimTime::ms(50'000));
}

inline const Mm& mm1(const Simulation& sim) {
  return *sim.find_mm(1);
}

// The pte of `addr` in mm `mm_id` (pte::kNone where no VMA covers it).
inline uint8_t pte_at(const Simulation& sim, uint64_t addr, uint32_t mm_id = 1) {
  const Vma* v = sim.find_mm(mm_id)->vmas.vma_lookup(addr);
  return v == nullptr ? pte::kNone : v->ptes.get(addr);
}

// What a task that sent one smp_call_function_many() saw.
struct IpiSender {
  SimTime sent;
  SimTime done;
  uint32_t nr = 0;
};

// At `send_at` (after a sync point), smp_call_function_many() to CPU `target` with a handler of
// `work`.
inline Co<void> send_ipi_at(Task& t, SimTime send_at, uint32_t target, SimTime work, IpiSender* s) {
  t.work(send_at - t.clock());
  co_await sync_point(t);
  s->sent = t.clock();
  CpuMask mask;
  mask.set(target);
  co_await smp_call_function_many(
      t, mask, [work](Cpu&) { return work; }, &s->nr);
  s->done = t.clock();
}

// Maps `mib` MiB of anonymous memory at addr and writes every page of it.
inline std::vector<Op> write_anon(uint64_t addr, uint64_t mib) {
  return {Op::mmap_anon(addr, mib * kMiB, PROT_READ | PROT_WRITE),
          Op::touch(addr, mib * kMiB, true)};
}

// Pages of mm `mm_id` in [start, end) that sit in the swap cache (PageFrame::swapcache): read back
// from swap (and read ahead), or written out by reclaim and not freed by a later scan yet.
inline uint64_t swap_cache_pages_in(const Simulation& sim, uint64_t start, uint64_t end,
                                    uint32_t mm_id = 1) {
  const Lruvec& lru = sim.lruvec();
  uint64_t n = 0;
  for (uint64_t a = start; a < end; a += kPage) {
    const uint32_t f = lru.find(*sim.find_mm(mm_id), a);
    if (f != kNoFrame && lru.frame(f).swapcache) ++n;
  }
  return n;
}

// SwapInfo's invariant (1) (mm/swapfile.h): every slot in use is a swapped pte's or a page's in
// the swap cache, an entry fork shares being one slot for all its holders; the swap cache's
// count is the frames that have the bit; and swap_count.h invariant (5): each shared swapped pte
// has its mm's record, and an mm has no other.
inline void expect_swap_accounted(const Simulation& sim) {
  uint64_t swapents = 0;
  sim.for_each_mm([&](const Mm& mm) {
    swapents += mm.swapents;
    uint64_t shared = 0;
    mm.vmas.for_each([&](const Vma& v) {
      for (uint64_t a = v.ptes.next_populated(v.start, v.end); a < v.end;
           a = v.ptes.next_populated(a + kPage, v.end)) {
        if (v.ptes.get(a) == (pte::kSwapped | pte::kCowShared)) {
          ++shared;
          EXPECT_TRUE(mm.shared_swap.contains(a)) << "mm " << mm.id << " at " << a;
        }
      }
    });
    EXPECT_EQ(mm.shared_swap.size(), shared) << "mm " << mm.id;
  });
  uint64_t cached = 0;
  for (uint32_t f = 0; f < sim.lruvec().nr_frames(); ++f) cached += sim.lruvec().frame(f).swapcache;
  EXPECT_EQ(sim.swap().swap_cache_pages(), cached) << "frames with PageFrame::swapcache";
  EXPECT_EQ(sim.swap().inuse() + sim.swap().shared_refs(), swapents + cached);
}

}  // namespace mmreplay::kernelsim::testing
