// NUMA nodes (one per socket): cpu_to_node(), node-local pages on their node's LRU lists, each
// node's lru_lock and zone->lock taken only by its own CPUs, and reclaim that reaches the other
// nodes' pages when the allocating CPU's node has none. Every figure checked is a count.

#include <gtest/gtest.h>

#include "kernelsim/mm/lru.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::thread;

using testing::kMiB;
// 2 sockets x 4 cores x 2 threads: CPUs 0-3 and 8-11 on socket 0, 4-7 and 12-15 on socket 1.
constexpr CpuTopology kTwoSockets{2, 4, 2};

std::unique_ptr<Simulation> make_numa_sim(const CpuTopology& shape, uint32_t cpus,
                                          const std::string& policy, uint64_t mem_mib = 1024,
                                          uint64_t swap_mib = 0) {
  MachineConfig m;
  m.nr_cpus = cpus;
  m.topology = shape;
  m.memory_bytes = mem_mib * kMiB;
  m.swap_bytes = swap_mib * kMiB;
  std::string error;
  auto sim = Simulation::create(m, cost_profile_default(), policy, &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

// Write-faults `pages` pages of its own mm, then stays alive.
std::vector<Op> fault_pages(uint64_t pages) {
  return {Op::mmap_anon(kBase, pages * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, pages * kPage, true), Op::think(SimTime::ms(100'000))};
}

uint64_t contentions(const Simulation& sim, const char* cls) {
  const LockClassStats* s = sim.lockstat().find(cls);
  return s == nullptr ? 0 : s->contentions;
}

TEST(NumaTest, ANodePerSocket) {
  const Topology two(kTwoSockets, 16, cost_profile_default());
  EXPECT_EQ(two.nr_nodes(), 2u);
  for (uint32_t cpu : {0u, 3u, 8u, 11u}) EXPECT_EQ(two.node_of(cpu), 0u) << cpu;
  for (uint32_t cpu : {4u, 7u, 12u, 15u}) EXPECT_EQ(two.node_of(cpu), 1u) << cpu;
  const Topology flat(CpuTopology{}, 64, cost_profile_default());
  EXPECT_EQ(flat.nr_nodes(), 1u);
  EXPECT_EQ(flat.node_of(63), 0u);
}

TEST(NumaTest, PagesGoToTheFaultingCpusNodeLists) {
  constexpr uint64_t kPages = 3 * PAGEVEC_SIZE_FOLIO_BATCH;  // whole lru_add batches: all drained
  auto sim = make_numa_sim(kTwoSockets, 16, "");
  thread(*sim, 1, /*cpu=*/1, fault_pages(kPages));
  thread(*sim, 2, /*cpu=*/5, fault_pages(2 * kPages));
  sim->run_until(SimTime::ms(50'000));
  const Lruvec& lru = sim->lruvec();
  ASSERT_EQ(lru.nr_nodes(), 2u);
  // New anon pages start on the inactive list (5.9+, the default).
  EXPECT_EQ(lru.size(LruList::kInactiveAnon, 0, kAnyMemcg), kPages);
  EXPECT_EQ(lru.size(LruList::kInactiveAnon, 1, kAnyMemcg), 2 * kPages);
  EXPECT_EQ(lru.size(LruList::kInactiveAnon), 3 * kPages);
  const uint32_t f = lru.find(*sim->find_mm(2), kBase);
  ASSERT_NE(f, kNoFrame);
  EXPECT_EQ(lru.frame(f).nid, 1u);
}

// Four faulting mms, all on one socket or two on each: with two nodes each node's lru_lock and
// zone->lock serve only its own CPUs.
std::unique_ptr<Simulation> four_faulting(const uint32_t (&cpus)[4]) {
  auto sim = make_numa_sim(kTwoSockets, 16, "");
  for (uint32_t i = 0; i < 4; ++i) {
    std::vector<Op> ops = {Op::mmap_anon(kBase, 3100 * kPage, PROT_READ | PROT_WRITE)};
    for (uint64_t a = kBase; a < kBase + 3100 * kPage; a += 31 * kPage) {
      ops.push_back(Op::touch(a, 31 * kPage, true));
      ops.push_back(Op::think(SimTime::ns(300 * i)));  // drains drift across each other
    }
    thread(*sim, i + 1, cpus[i], ops);
  }
  sim->run();
  return sim;
}

TEST(NumaTest, EachNodesLocksServeOnlyItsCpus) {
  auto one_node = four_faulting({0, 1, 2, 3});
  EXPECT_GT(contentions(*one_node, "&pgdat->lru_lock"), 0u);
  EXPECT_GT(contentions(*one_node, "&zone->lock"), 0u);
  // Pairs on different nodes: CPUs 0 and 4 share nothing, nor do 1 and 5.
  auto two_nodes = four_faulting({0, 4, 1, 5});
  const LockClassStats* lru = two_nodes->lockstat().find("&pgdat->lru_lock");
  ASSERT_NE(lru, nullptr);
  EXPECT_EQ(lru->acquisitions, one_node->lockstat().find("&pgdat->lru_lock")->acquisitions)
      << "as many drains, on two locks";
  EXPECT_LT(contentions(*two_nodes, "&pgdat->lru_lock"),
            contentions(*one_node, "&pgdat->lru_lock"));
  EXPECT_LT(contentions(*two_nodes, "&zone->lock"), contentions(*one_node, "&zone->lock"));
  EXPECT_EQ(two_nodes->stats().vm.pgfault, one_node->stats().vm.pgfault);
}

TEST(NumaTest, OneTaskPerNodeNeverContends) {
  auto sim = four_faulting({0, 4, 0, 4});  // two tasks per CPU time-share it: never both spin
  EXPECT_EQ(contentions(*sim, "&pgdat->lru_lock"), 0u);
  EXPECT_EQ(contentions(*sim, "&zone->lock"), 0u);
}

// Node 0's CPU fills memory with anon pages; then a task on node 1, whose node's lists hold only
// its own young pages, needs more than is free: reclaim walks on to node 0 (shrink_zones(),
// kswapd's next node) and swaps node 0's pages out.
TEST(NumaTest, ReclaimReachesTheOtherNodesPages) {
  auto sim = make_numa_sim(kTwoSockets, 16, "", /*mem_mib=*/64, /*swap_mib=*/256);
  thread(*sim, 1, /*cpu=*/0, fault_pages(56 * kMiB / kPage));
  thread(*sim, 2, /*cpu=*/4,
         {Op::think(SimTime::ms(2'000)), Op::mmap_anon(kBase, 32 * kMiB, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 32 * kMiB, true), Op::think(SimTime::ms(100'000))});
  sim->run_until(SimTime::ms(60'000));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.oom, 0u);
  EXPECT_GT(sim->find_mm(1)->swapents, 0u) << "node 0's pages were reclaimed";
  const Mm& mm2 = *sim->find_mm(2);
  EXPECT_EQ(mm2.rss_anon + mm2.swapents, 32 * kMiB / kPage) << "node 1's task got all its pages";
}

// Processes on `cpus`, each write-faulting kPages pages of its own private file mapping (COW
// faults: do_cow_fault() copies each page), under a profile whose nodes move a page in
// `dram_page`. Returns when the last finished.
SimTime cow_makespan(const std::vector<uint32_t>& cpus, SimTime dram_page) {
  constexpr uint64_t kPages = 64;
  CostProfile costs = cost_profile_default();
  costs.dram_page_transfer = dram_page;
  MachineConfig m;
  m.nr_cpus = 16;
  m.topology = kTwoSockets;
  m.memory_bytes = 1024 * kMiB;
  std::string error;
  auto sim = Simulation::create(m, costs, "", &error);
  EXPECT_NE(sim, nullptr) << error;
  for (uint32_t i = 0; i < cpus.size(); ++i) {
    thread(*sim, i + 1, cpus[i],
           {Op::mmap_file(kBase, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE, i + 1, 0),
            Op::touch(kBase, kPages * kPage, true)});
  }
  sim->run();
  EXPECT_EQ(sim->stats().vm.fault_cow, kPages * cpus.size());
  return sim->now();
}

TEST(NumaTest, CowCopiesShareTheirNodesMemoryBandwidth) {
  // Each copy moves two pages (the source read, the copy written back) through the copying
  // CPU's node; at 20 us a page the channels, not the CPUs, set the pace.
  const SimTime per_page = SimTime::us(20);
  const SimTime one_node = cow_makespan({0, 1, 2, 3}, per_page);
  const SimTime two_nodes = cow_makespan({0, 1, 4, 5}, per_page);
  EXPECT_GE(one_node, per_page * (4 * 64 * 2)) << "one node's channels serve all 4 CPUs' copies";
  EXPECT_LT(two_nodes.count_ns(), one_node.count_ns() * 3 / 4)
      << "two nodes' channels serve 2 CPUs each";
  EXPECT_GE(two_nodes, per_page * (2 * 64 * 2));
  // Without a bandwidth (both profiles) a copy costs copy_page: the CPUs set the pace.
  EXPECT_LT(cow_makespan({0, 1, 2, 3}, SimTime::zero()).count_ns(), one_node.count_ns() / 4);
}

}  // namespace
}  // namespace mmreplay::kernelsim
