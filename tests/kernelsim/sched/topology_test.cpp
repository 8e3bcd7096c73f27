// Topology: how CPUs are numbered into sockets, cores and SMT siblings, and what a lock handoff,
// an atomic on a shared line and an IPI cost at each distance.

#include "kernelsim/sched/topology.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernelsim/kernel/smp.h"
#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/mm/page_counter.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;

// 2 sockets x 4 cores x 2 threads: CPUs 0-3 socket 0, 4-7 socket 1, 8-15 their siblings.
constexpr CpuTopology kTwoSockets{2, 4, 2};

std::unique_ptr<Simulation> make_topo_sim(const CpuTopology& shape, uint32_t cpus,
                                          const CostProfile& costs = cost_profile_default()) {
  MachineConfig m;
  m.nr_cpus = cpus;
  m.topology = shape;
  std::string error;
  auto sim = Simulation::create(m, costs, "", &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

TEST(TopologyTest, ClassifiesDistancesLikeLinuxNumbersCpus) {
  const Topology t(kTwoSockets, 16, cost_profile_default());
  EXPECT_EQ(t.distance(3, 3), CpuDistance::kSameCpu);
  EXPECT_EQ(t.distance(0, 8), CpuDistance::kSmtSibling);
  EXPECT_EQ(t.distance(5, 13), CpuDistance::kSmtSibling);
  EXPECT_EQ(t.distance(0, 3), CpuDistance::kSameSocket);
  EXPECT_EQ(t.distance(0, 11), CpuDistance::kSameSocket);  // another core's second thread
  EXPECT_EQ(t.distance(0, 4), CpuDistance::kOtherSocket);
  EXPECT_EQ(t.distance(8, 12), CpuDistance::kOtherSocket);
  EXPECT_EQ(t.nr_sockets(), 2u);
  for (uint32_t a = 0; a < 16; ++a) {
    for (uint32_t b = 0; b < 16; ++b)
      EXPECT_EQ(t.distance(a, b), t.distance(b, a)) << a << " " << b;
  }
}

TEST(TopologyTest, FewerCpusUseTheFirstCoresAndMoreAddSockets) {
  // maxcpus=6 on the 16-CPU shape: first threads of socket 0, then socket 1; no siblings.
  const Topology few(kTwoSockets, 6, cost_profile_default());
  EXPECT_EQ(few.socket_of(3), 0u);
  EXPECT_EQ(few.socket_of(4), 1u);
  EXPECT_NE(few.distance(0, 5), CpuDistance::kSmtSibling);
  // 24 CPUs on a shape of 16: a third socket of the same shape.
  const Topology more(kTwoSockets, 24, cost_profile_default());
  EXPECT_EQ(more.nr_sockets(), 3u);
  EXPECT_EQ(more.distance(0, 12), CpuDistance::kSmtSibling);  // C = 12 first threads
  EXPECT_EQ(more.socket_of(11), 2u);
}

TEST(TopologyTest, DefaultShapeIsOneSocketAtTheProfilesTransferCost) {
  const CostProfile c = cost_profile_default();
  const Topology t(CpuTopology{}, 64, c);
  for (uint32_t b = 1; b < 64; ++b) {
    EXPECT_EQ(t.distance(0, b), CpuDistance::kSameSocket);
    EXPECT_EQ(t.line_transfer(0, b), c.cacheline_transfer);
    EXPECT_EQ(t.ipi_delivery(0, b), c.ipi_delivery);
  }
  EXPECT_EQ(t.line_transfer(7, 7), c.atomic_local);
}

TEST(TopologyTest, RejectsZeroCounts) {
  EXPECT_FALSE(check_topology(CpuTopology{0, 4, 1}).empty());
  EXPECT_FALSE(check_topology(CpuTopology{2, 4, 0}).empty());
  EXPECT_TRUE(check_topology(CpuTopology{}).empty());
  MachineConfig m;
  m.topology = CpuTopology{2, 0, 2};
  std::string error;
  EXPECT_EQ(Simulation::create(m, cost_profile_default(), "", &error), nullptr);
  EXPECT_NE(error.find("topology"), std::string::npos) << error;
}

// Each task starts at its arrival time (start_task's `start`), so neither depends on which of two
// tasks started at 0 the queue runs first.
Co<void> hold_then_release(Task& t, QSpinLock& l, SimTime hold, SimTime* released) {
  co_await l.lock(t);
  t.work(hold);
  co_await l.unlock(t);
  *released = t.clock();
}

Co<void> wait_for_lock(Task& t, QSpinLock& l, SimTime* granted) {
  co_await l.lock(t);
  *granted = t.clock();
  co_await l.unlock(t);
}

// The handoff from a holder on CPU 0 to a waiter on `waiter_cpu`: grant - release.
SimTime handoff_to(uint32_t waiter_cpu) {
  auto sim = make_topo_sim(kTwoSockets, 16);
  QSpinLock lock(*sim, "test_lock");
  SimTime released, granted;
  Task& h = sim->create_task(0, nullptr);
  sim->start_task(h, hold_then_release(h, lock, SimTime::us(10), &released), SimTime::us(1));
  Task& w = sim->create_task(waiter_cpu, nullptr);
  sim->start_task(w, wait_for_lock(w, lock, &granted), SimTime::us(2));
  sim->run();
  return granted - released;
}

TEST(TopologyTest, LockHandoffAcrossSocketsCostsMoreThanWithinOne) {
  const CostProfile c = cost_profile_default();
  EXPECT_EQ(handoff_to(8), c.cacheline_transfer_smt);
  EXPECT_EQ(handoff_to(1), c.cacheline_transfer);
  EXPECT_EQ(handoff_to(4), c.cacheline_transfer_remote);
  EXPECT_LT(handoff_to(8), handoff_to(1));
  EXPECT_LT(handoff_to(1), handoff_to(4));
}

struct IpiRun {
  SimTime sent;
  SimTime done;
};

Co<void> send_one_ipi(Task& t, uint32_t target, IpiRun* r) {
  t.work(SimTime::us(1));
  r->sent = t.clock();
  CpuMask mask;
  mask.set(target);
  uint32_t nr = 0;
  co_await smp_call_function_many(
      t, mask, [](Cpu&) { return SimTime::zero(); }, &nr);
  r->done = t.clock();
}

SimTime ipi_round_trip(uint32_t target) {
  auto sim = make_topo_sim(kTwoSockets, 16);
  IpiRun r;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, send_one_ipi(t, target, &r));
  sim->run();
  return r.done - r.sent;
}

TEST(TopologyTest, IpiToAnotherSocketCostsItsDeliveryAndAck) {
  const CostProfile c = cost_profile_default();
  const SimTime fixed = c.ipi_send + c.ipi_handler_entry;
  EXPECT_EQ(ipi_round_trip(1), fixed + c.ipi_delivery + c.cacheline_transfer);
  EXPECT_EQ(ipi_round_trip(8), fixed + c.ipi_delivery + c.cacheline_transfer_smt);
  EXPECT_EQ(ipi_round_trip(4), fixed + c.ipi_delivery_remote + c.cacheline_transfer_remote);
  EXPECT_GT(ipi_round_trip(4), ipi_round_trip(1));
}

// A contended workload: every CPU's thread faults its own range of one mm (mmap_sem, zone->lock,
// lru_lock) under memcg page_counter charging (a shared atomic line).
struct Outcome {
  SimTime makespan;
  uint64_t faults;
  uint64_t bounces;
  uint64_t counter_wait_ns;
  bool operator==(const Outcome&) const = default;
};

Outcome contended_faults(const MachineConfig& m, const CostProfile& c) {
  std::string error;
  auto sim = Simulation::create(m, c, "memcg=page_counter", &error);
  EXPECT_NE(sim, nullptr) << error;
  constexpr uint64_t kPages = 64;
  for (uint32_t i = 0; i < m.nr_cpus; ++i) {
    const uint64_t base = kBase + i * kPages * kPage;
    testing::thread(*sim, 1, i,
                    {Op::mmap_anon(base, kPages * kPage, PROT_READ | PROT_WRITE),
                     Op::touch(base, kPages * kPage, true), Op::munmap(base, kPages * kPage)});
  }
  sim->run();
  return {sim->now(), sim->stats().vm.pgfault, sim->stats().vm.memcg_counter_bounces,
          sim->stats().vm.memcg_counter_wait_ns};
}

TEST(TopologyTest, DefaultMachineNeverChargesTheNewDistances) {
  MachineConfig m;
  m.nr_cpus = 8;
  const CostProfile base = cost_profile_default();
  CostProfile odd = base;
  odd.cacheline_transfer_smt = SimTime::us(3);
  odd.cacheline_transfer_remote = SimTime::us(7);
  odd.ipi_delivery_remote = SimTime::us(11);
  const Outcome a = contended_faults(m, base);
  EXPECT_EQ(a, contended_faults(m, odd));
  EXPECT_GT(a.bounces, 0u);
  // One socket of 8 cores spelled out is the default shape.
  m.topology = CpuTopology{1, 8, 1};
  EXPECT_EQ(a, contended_faults(m, odd));
}

TEST(TopologyTest, SharedCounterBouncesCostMoreAcrossSockets) {
  MachineConfig one;
  one.nr_cpus = 8;
  MachineConfig two = one;
  two.topology = CpuTopology{2, 4, 1};
  const Outcome a = contended_faults(one, cost_profile_default());
  const Outcome b = contended_faults(two, cost_profile_default());
  EXPECT_EQ(a.faults, b.faults);
  EXPECT_GT(b.makespan, a.makespan);
}

// mm_cpumask(): flush_tlb_mm_range() asks cpumask_any_but(mm_cpumask(mm), self) whether other
// CPUs may cache the mm; the answer must hold in every word of the NR_CPUS bitmap.
TEST(CpuMaskTest, AnyButAndEmptyLookAtEveryWord) {
  CpuMask m;
  EXPECT_TRUE(m.empty());
  EXPECT_FALSE(m.any_but(0));
  m.set(70);
  EXPECT_FALSE(m.empty());
  EXPECT_FALSE(m.any_but(70));
  EXPECT_TRUE(m.any_but(3));
  m.set(NR_CPUS - 1);
  EXPECT_TRUE(m.any_but(70));
  m.clear(70);
  EXPECT_FALSE(m.any_but(NR_CPUS - 1));
  EXPECT_EQ(m.weight(), 1u);
  m.clear(NR_CPUS - 1);
  EXPECT_TRUE(m.empty());
}

}  // namespace
}  // namespace mmreplay::kernelsim
